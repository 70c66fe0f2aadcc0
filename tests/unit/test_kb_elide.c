/* Unit tests for leaving repeated lines out of explain's scan (kb_elide.c)
 * and for the pattern reading it relies on (kb_linelocal.c): which patterns
 * stay within a line, and that a match-heavy log explains exactly the same
 * with lines left out as without. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <hs/hs.h>

#include "core/strbuf.h"
#include "kb/kb_elide.h"
#include "kb/kb_internal.h"
#include "kb_test_kb.h"

static void test_line_local(void **state)
{
    (void)state;
    static const char *const local[] = {
        "Device do not support double dtype now",
        "(^|[^A-Za-z0-9])E10001",
        "code 507024([^0-9]|$)",
        "[ :=]0\\s*$",
        "^(False|0|\\[\\])\\s*$|[ :=]0\\s*$|: False",
        "^\\s*lib(cuda|nccl)\\.so => not found",
        "[Dd]evice .{0,20}(is )?(lost|offline)",
        "x{2,}y",
        "([^a])?x",
        "a[[:alpha:]]b",
        "[\\t-\\r]",
        "\\(?-8001([^0-9]|$)",
        "ERROR: GPU\\[[0-9]+\\][ \t]*: Unable",
    };
    static const char *const cross[] = {
        "cannot be run in\\s*NumPy 2",
        "[^ ]* failed",
        "x\\s+$",
        "x\\s$",
        "x[^0-9]$",
        "^[^a]b",
        "^\\s+lib",
        "a\\nb",
        "(?s)a.b",
        "a[\\x00-\\x1f]b",
        "x[\\t-\\r]y",
        "a[[:space:]]b",
        "[abc",
        "\\Afoo",
        "(a|b\\s)c",
        "[^a]+x",
        "x[^a]+",
        "\\W$",
        "[^0-9]\\b",
        "([^a]x?)$",
        "^",
        "(a|)",
        "^(.*[^A-Za-z])?Aborted",
        "a\\Sb\\Wc",
        "(((((((((((((((((((((((((((((((((x)))))))))))))))))))))))))))))))))",
    };
    for (size_t i = 0; i < sizeof local / sizeof *local; i++)
        if (!nd_kb_pattern_line_local(local[i]))
            fail_msg("taken to cross lines: %s", local[i]);
    for (size_t i = 0; i < sizeof cross / sizeof *cross; i++)
        if (nd_kb_pattern_line_local(cross[i]))
            fail_msg("taken to stay within a line: %s", cross[i]);
    assert_false(nd_kb_pattern_line_local(NULL));
}

static int count_match(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags, void *ctx)
{
    (void)id;
    (void)from;
    (void)to;
    (void)flags;
    ++*(int *)ctx;
    return 0;
}
/* The database's one-line forms (nd_kb_pattern_one_line): a negated class
 * leaves the newline out, so the pattern stays within a line; the rest of
 * the pattern, "\s" included, is kept as written. */
static void test_one_line(void **state)
{
    (void)state;
    static const char *const pairs[][2] = {
        {"[^ ]* failed", "[^ \\n]* failed"},
        {"code 507024([^0-9]|$)", "code 507024([^0-9\\n]|$)"},
        {"Model architectures \\[[^]]*\\] are", "Model architectures \\[[^]\\n]*\\] are"},
        {"a[^x-]b", "a[^\\nx-]b"},
        {"a[^]-]b", "a[^\\n\\]-]b"},
        {"a[^[:digit:]]b", "a[^[:digit:]\\n]b"},
        {"a[^\\]]b", "a[^\\]\\n]b"},
        {"a[^0-9]{0,30}\\s*b", "a[^0-9\\n]{0,30}\\s*b"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        char *got = nd_kb_pattern_one_line(pairs[i][0]);
        if (!got || strcmp(got, pairs[i][1]) != 0)
            fail_msg("%s: got %s, want %s", pairs[i][0], got ? got : "(unchanged)", pairs[i][1]);
        free(got);
    }
    /* Nothing to change, or not understood: left as written. */
    static const char *const same[] = {
        "Device do not support", "compile\\s*PyTorch", "[a-z]+x", "(?s)a[^b]c", "a[^-x-]b", "[^abc", "a\\"};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        char *got = nd_kb_pattern_one_line(same[i]);
        if (got)
            fail_msg("%s: changed to %s", same[i], got);
    }
    assert_null(nd_kb_pattern_one_line(NULL));
    /* The forms are line-local and mean the same within a line. */
    static const char *const local[] = {"[^ \\n]* failed", "x[^0-9\\n]$",  "^[^a\\n]b",
                                        "[^a\\n]+x",       "x[^\\n\\]-]+", "a[^[:space:]]b"};
    for (size_t i = 0; i < sizeof local / sizeof *local; i++)
        if (!nd_kb_pattern_line_local(local[i]))
            fail_msg("taken to cross lines: %s", local[i]);
    assert_false(nd_kb_pattern_line_local("a[^\\S]x"));
    char *re = nd_kb_pattern_one_line("open[^0-9]{0,8}failed");
    assert_non_null(re);
    hs_database_t *db = NULL;
    hs_compile_error_t *cerr = NULL;
    assert_int_equal(hs_compile(re, HS_FLAG_MULTILINE, HS_MODE_BLOCK, NULL, &db, &cerr), HS_SUCCESS);
    hs_scratch_t *scratch = NULL;
    assert_int_equal(hs_alloc_scratch(db, &scratch), HS_SUCCESS);
    static const struct {
        const char *text;
        int matches;
    } cases[] = {{"open dev failed", 1}, {"open\nfailed", 0}, {"open x\nfailed\nopen: failed", 1}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int n = 0;
        hs_scan(db, cases[i].text, (unsigned)strlen(cases[i].text), 0, scratch, count_match, &n);
        if (n != cases[i].matches)
            fail_msg("%s on \"%s\": %d matches, want %d", re, cases[i].text, n, cases[i].matches);
    }
    hs_free_scratch(scratch);
    hs_free_database(db);
    free(re);
}

/* Every field a report shows, one finding after another. */
static char *findings_text(const struct nd_findings *out)
{
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    for (size_t i = 0; i < out->n; i++) {
        const struct nd_finding *f = out->v[i];
        nd_strbuf_addf(&sb, "%s|%s|%d|%d|%s|%s|count %ld|%s:%ld|rank %d\n", f->id, f->category, (int)f->severity,
                       (int)f->confidence, f->title, f->cause ? f->cause : "", f->count,
                       f->first_file ? f->first_file : "", f->first_line, f->rank);
        for (size_t j = 0; j < f->nfix; j++)
            nd_strbuf_addf(&sb, "  fix %s\n", f->fix[j]);
        for (size_t j = 0; j < f->nevidence; j++)
            nd_strbuf_addf(&sb, "  ev %s:%ld %s\n", f->evidence[j].file ? f->evidence[j].file : "", f->evidence[j].line,
                           f->evidence[j].text);
    }
    return nd_strbuf_detach(&sb, NULL);
}

struct nd_test_scan {
    char *text;
    unsigned long long elided, lines;
};

static void scan_logs(struct nd_kb *kb, char *const *logs, size_t nlogs, bool elide, struct nd_test_scan *r)
{
    struct nd_kb_scan *s = nd_kb_scan_new(kb);
    nd_kb_scan_set_elide(s, elide);
    for (size_t i = 0; i < nlogs; i++) {
        char name[32];
        snprintf(name, sizeof name, "rank_%zu.log", i);
        assert_int_equal(nd_kb_scan_buffer(s, name, logs[i], strlen(logs[i])), 0);
    }
    struct nd_findings out = ND_FINDINGS_INIT;
    nd_kb_scan_finish(s, &out, true);
    r->text = findings_text(&out);
    r->elided = nd_kb_scan_elided(s);
    r->lines = nd_kb_scan_lines(s);
    nd_findings_release(&out);
    nd_kb_scan_free(s);
}

/* The same findings, to the byte, with and without lines left out; and
 * some lines were left out. */
static void assert_same(struct nd_kb *kb, char *const *logs, size_t nlogs)
{
    struct nd_test_scan with, without;
    scan_logs(kb, logs, nlogs, true, &with);
    scan_logs(kb, logs, nlogs, false, &without);
    assert_true(with.elided > 0);
    assert_int_equal(without.elided, 0);
    assert_int_equal(with.lines, without.lines);
    assert_true(strlen(without.text) > 0);
    assert_string_equal(with.text, without.text);
    free(with.text);
    free(without.text);
}

static uint64_t rnd_state;

static unsigned rnd(unsigned n)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return (unsigned)(rnd_state % n);
}

/* A log of about bytes: changing INFO lines with, mixed in, repeated lines
 * that rules match, blank and whitespace lines after some of them, lines
 * that only match across a line end, wrappers, exceptions and rank
 * prefixes (logical lines). */
static char *make_log(size_t bytes, int rank, const char *const *spam, size_t nspam)
{
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    while (sb.len < bytes) {
        unsigned k = rnd(100);
        unsigned v = rnd(1u << 20);
        if (k < 30) {
            nd_strbuf_addf(&sb, "%s\n", spam[rnd((unsigned)nspam)]);
        } else if (k < 32) {
            nd_strbuf_addf(&sb, "[rank%d]:%s\n", rnd(4), spam[0]);
        } else if (k < 34) {
            nd_strbuf_adds(&sb, rnd(2) ? "\n" : "   \t\n");
        } else if (k < 35) {
            nd_strbuf_adds(&sb, "    continued under the line above\n");
        } else if (k < 36) {
            nd_strbuf_addf(&sb, "model_id=%u\n", v & 1);
        } else if (k < 37) {
            nd_strbuf_adds(&sb, rnd(2) ? "NumPy 2.0 detected\n" : "False\n");
        } else if (k < 38) {
            nd_strbuf_addf(&sb, "RuntimeError: step %u failed\n", v & 7);
        } else {
            nd_strbuf_addf(&sb, "[INFO] RUNTIME(%d,python):2024-05-01-10:%02u:%02u.%03u.000 stream %u task %u\n",
                           1000 + rank, (v >> 4) % 60, v % 60, v % 1000, v, v >> 3);
        }
    }
    return nd_strbuf_detach(&sb, NULL);
}

static const char *const rules_text =
    "[t.spam]\ncategory = unsupported-op\nseverity = warning\npattern = Device do not support double dtype now\n"
    "title = spam\nfix = f\nexample = Device do not support double dtype now\n"
    "[t.warning]\ncategory = config\nseverity = info\ngeneric = true\npattern = Warning: \ntitle = w\nfix = f\n"
    "example = Warning: x\n"
    "[t.zero]\ncategory = cpu-fallback\nseverity = warning\npattern = [Nn]um GPUs[ :=]+0\\s*$\n"
    "requires = re:^(False|0)\\s*$|[ :=]0\\s*$\nwithin = 3\ntitle = zero\nfix = f\nexample = Num GPUs: 0\n"
    "[t.in]\ncategory = config\nseverity = warning\npattern = cannot be run in$\ntitle = in\nfix = f\n"
    "example = cannot be run in\n"
    "[t.cross]\ncategory = version-mismatch\npattern = cannot be run in\\s*NumPy 2\ntitle = cross\nfix = f\n"
    "example = cannot be run in NumPy 2\n"
    "[t.lead]\ncategory = device-fault\npattern = (^|[^A-Za-z0-9])E10001\ntitle = lead\nfix = f\n"
    "example = E10001 x\n"
    "[t.wrap]\ncategory = device-fault\nrole = wrapper\npattern = EZ9999: Inner Error\ntitle = wrap\nfix = f\n"
    "example = EZ9999: Inner Error!\n"
    "[t.unless]\ncategory = distributed\npattern = HCCL timeout\nunless = re:recovered\nwithin = 5\n"
    "title = unless\nfix = f\nexample = HCCL timeout\n";

static void test_same_findings(void **state)
{
    (void)state;
    struct nd_kb *kb = nd_test_kb(rules_text);
    static const char *const spam[] = {
        "[W compiler_depend.ts:51] Warning: Device do not support double dtype now, dtype cast repalce with float.",
        "Num GPUs Available: 0",
        "module x cannot be run in",
        "rc E10001 in op",
        "EZ9999: Inner Error!",
        "HCCL timeout on ring 0",
        "HCCL timeout then recovered",
        "[E] xE10001 is not the code",
    };
    rnd_state = 42;
    char *logs[3];
    for (int r = 0; r < 3; r++)
        logs[r] = make_log((size_t)(900 + 300 * r) << 10, r, spam, sizeof spam / sizeof *spam);
    assert_same(kb, logs, 3);
    for (int r = 0; r < 3; r++)
        free(logs[r]);
    nd_kb_free(kb);
}

/* The built-in rules on a torch_npu log flooded with the double-dtype
 * warning, with the usual errors among it. */
static void test_same_findings_builtin(void **state)
{
    (void)state;
    struct nd_kb *kb = NULL;
    struct nd_error err = {0};
    assert_int_equal(nd_kb_load(&kb, NULL, 0, &err), 0);
    static const char *const spam[] = {
        "[W compiler_depend.ts:51] Warning: Device do not support double dtype now, dtype cast repalce with float.",
        "[ERROR] RUNTIME(1005,python):2024-05-01-10:30:01.000.000 EL0004: Failed to allocate memory.",
        "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 5; 60.97 GiB total capacity)",
        "EI0002: [PID: 1003] 2024-05-01-10:32:00.000.000 The wait execution of the Notify register times out.",
        "EZ9999: Inner Error!",
        "Num GPUs Available: 0",
        "torch.cuda.device_count() = 0",
        "Segmentation fault (core dumped)",
    };
    rnd_state = 7;
    char *logs[2];
    for (int r = 0; r < 2; r++)
        logs[r] = make_log((size_t)(1200 + 200 * r) << 10, r, spam, sizeof spam / sizeof *spam);
    assert_same(kb, logs, 2);
    for (int r = 0; r < 2; r++)
        free(logs[r]);
    nd_kb_free(kb);
}

/* More matches in a chunk than the match buffer holds: the try is dropped
 * and the chunk scanned whole, as without leaving lines out. */
static void test_overflow_rescan(void **state)
{
    (void)state;
    struct nd_kb *kb = nd_test_kb("[t.a]\ncategory = config\npattern = AAA\ntitle = a\nfix = f\nexample = AAA\n"
                                  "[t.b]\ncategory = config\ngeneric = true\npattern = BBB\ntitle = b\nfix = f\n"
                                  "example = BBB\n");
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    for (unsigned i = 0; sb.len < (2u << 20); i++)
        nd_strbuf_adds(&sb, i % 1000 == 0 ? "AAA then BBB\n" : "AAABBB\n");
    char *logs[1] = {nd_strbuf_detach(&sb, NULL)};
    struct nd_test_scan with, without;
    scan_logs(kb, logs, 1, true, &with);
    scan_logs(kb, logs, 1, false, &without);
    assert_non_null(strstr(without.text, "t.a|config"));
    assert_string_equal(with.text, without.text);
    free(with.text);
    free(without.text);
    free(logs[0]);
    nd_kb_free(kb);
}

/* A quiet log (no line repeats) is scanned as it is. */
static void test_quiet_log_untouched(void **state)
{
    (void)state;
    struct nd_kb *kb = nd_test_kb(rules_text);
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    for (unsigned i = 0; sb.len < (2u << 20); i++)
        nd_strbuf_addf(&sb, "step %u loss %u.%04u HCCL timeout %u\n", i, i & 3, i % 10000, i);
    char *logs[1] = {nd_strbuf_detach(&sb, NULL)};
    struct nd_test_scan r;
    scan_logs(kb, logs, 1, true, &r);
    assert_int_equal(r.elided, 0);
    assert_non_null(strstr(r.text, "t.unless|"));
    free(r.text);
    free(logs[0]);
    nd_kb_free(kb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_local),      cmocka_unit_test(test_one_line),
        cmocka_unit_test(test_same_findings),   cmocka_unit_test(test_same_findings_builtin),
        cmocka_unit_test(test_overflow_rescan), cmocka_unit_test(test_quiet_log_untouched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
