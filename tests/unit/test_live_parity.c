/* Unit tests for the parity of `run`'s live matching with explain (issue
 * #9 §4): a pattern that crosses a line end matches when its two lines come
 * in different blocks (the stream's window, kb_block.c), and a held context
 * rule that counts later hides the generic reading of its own line
 * (nd_kb_live_withdrawn), as explain keeps one finding per line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/strbuf.h"
#include "kb/kb_internal.h"
#include "kb_test_kb.h"

static const char *rules_text =
    "[t.cross]\ncategory = version-mismatch\npattern = used to compile\\s*PyTorch\ntitle = x\nfix = f\n"
    "example = the version that was used to compile PyTorch (12.1)\n"
    "[t.gen]\ncategory = device-oom\ngeneric = true\npattern = out of memory\ntitle = g\nfix = f\n"
    "example = out of memory\n"
    "[t.ctx]\ncategory = device-oom\npattern = NPU out of memory\nrequires = re:npu_marker\ntitle = c\nfix = f\n"
    "example = NPU out of memory\n";

static struct nd_findings explain(struct nd_kb *kb, const char *text)
{
    struct nd_findings out = ND_FINDINGS_INIT;
    struct nd_kb_scan *s = nd_kb_scan_new(kb);
    nd_kb_scan_buffer(s, "t.log", text, strlen(text));
    nd_kb_scan_finish(s, &out, false);
    nd_kb_scan_free(s);
    return out;
}

static bool has(const struct nd_findings *f, const char *id)
{
    return nd_findings_find((struct nd_findings *)f, id) != NULL;
}

/* What run does with each candidate line: match it, note whether a match
 * crossed into it. */
struct live {
    struct nd_kb *kb;
    struct nd_findings found;
    long lineno;
    int crossed;
};

static void on_line(void *arg, const char *line, size_t len, size_t index)
{
    struct live *l = arg;
    l->crossed += nd_kb_live_crossed(l->kb);
    nd_kb_match_line(l->kb, line, len, "stderr", l->lineno + (long)index, &l->found);
}

static const char line1[] = "      The detected CUDA version (10.1) mismatches the version that was used to compile\n";
static const char line2[] = "      PyTorch (12.1). Please make sure to use the same CUDA versions.\n";

static void test_cross_line_window(void **state)
{
    (void)state;
    struct nd_kb *kb = nd_test_kb(rules_text);
    char both[256];
    snprintf(both, sizeof both, "%s%s", line1, line2);
    /* Offline: one scan of the whole text, the match ends on line 2. */
    struct nd_findings f = explain(kb, both);
    assert_true(has(&f, "t.cross"));
    assert_int_equal(nd_findings_find(&f, "t.cross")->evidence[0].line, 2);
    nd_findings_release(&f);

    /* Live, one block with both lines. */
    struct nd_kb_window w = {0};
    struct live l = {.kb = kb, .lineno = 1};
    nd_kb_block_lines_after(kb, &w, both, strlen(both), on_line, &l);
    assert_true(has(&l.found, "t.cross"));
    assert_int_equal(nd_findings_find(&l.found, "t.cross")->evidence[0].line, 2);
    assert_true(l.crossed > 0);
    nd_findings_release(&l.found);

    /* Live, one line per block (a line-buffered job): the window carries
     * line 1 to line 2's block. */
    struct nd_kb_window w2 = {0};
    struct live l2 = {.kb = kb, .lineno = 1};
    assert_int_equal(nd_kb_block_lines_after(kb, &w2, line1, strlen(line1), on_line, &l2), 0);
    assert_true(w2.len > 0 && w2.buf[w2.len - 1] != '\n');
    l2.lineno = 2;
    assert_int_equal(nd_kb_block_lines_after(kb, &w2, line2, strlen(line2), on_line, &l2), 1);
    assert_true(has(&l2.found, "t.cross"));
    assert_int_equal(nd_findings_find(&l2.found, "t.cross")->evidence[0].line, 2);
    assert_int_equal(l2.crossed, 1);
    /* Its result depends on the line before: not to be cached. */
    unsigned keys[8];
    bool depends = false;
    nd_kb_live_keys(kb, keys, 8, &depends);
    assert_true(depends);
    nd_findings_release(&l2.found);

    /* Without the window (another stream's lines, or none) line 2 alone
     * does not match. */
    struct live l3 = {.kb = kb, .lineno = 2};
    assert_int_equal(nd_kb_block_lines(kb, line2, strlen(line2), on_line, &l3), 0);
    assert_false(has(&l3.found, "t.cross"));
    struct nd_kb_window other = {0};
    assert_int_equal(nd_kb_block_lines_after(kb, &other, line2, strlen(line2), on_line, &l3), 0);
    nd_findings_release(&l3.found);

    /* The window keeps the last lines only: five lines later the first is
     * out of reach, as it is for a match of more than the window. */
    struct nd_kb_window w4 = {0};
    const char many[] = "a\nb\nc\nd\ne\nf\n";
    nd_kb_block_lines_after(kb, &w4, many, strlen(many), on_line, &l3);
    assert_int_equal(w4.len, strlen("c\nd\ne\nf"));
    assert_memory_equal(w4.buf, "c\nd\ne\nf", w4.len);
    nd_findings_release(&l3.found);
    nd_kb_free(kb);
}

static void test_held_line_hides_generic(void **state)
{
    (void)state;
    struct nd_kb *kb = nd_test_kb(rules_text);
    const char *text = "RuntimeError: NPU out of memory.\nimport npu_marker\n";
    /* Offline: the context rule explains the line, the generic reading of
     * it is not a finding of its own. */
    struct nd_findings f = explain(kb, text);
    assert_true(has(&f, "t.ctx"));
    assert_false(has(&f, "t.gen"));
    nd_findings_release(&f);

    /* Live: line 1 gives the generic reading now and holds t.ctx; line 2
     * completes t.ctx, which withdraws the generic one. */
    struct nd_findings live = ND_FINDINGS_INIT;
    const char *l1 = "RuntimeError: NPU out of memory.";
    assert_int_equal(nd_kb_match_line(kb, l1, strlen(l1), "stderr", 1, &live), 1);
    assert_string_equal(live.v[0]->id, "t.gen");
    const char *ids[4];
    assert_int_equal(nd_kb_live_withdrawn(kb, ids, 4), 0);
    assert_int_equal(nd_kb_match_line(kb, "import npu_marker", 17, "stderr", 2, &live), 1);
    assert_string_equal(live.v[1]->id, "t.ctx");
    assert_int_equal(live.v[1]->evidence[0].line, 1);
    assert_int_equal(nd_kb_live_withdrawn(kb, ids, 4), 1);
    assert_string_equal(ids[0], "t.gen");
    /* The next call starts afresh. */
    assert_int_equal(nd_kb_match_line(kb, "step 3", 6, "stderr", 3, &live), 0);
    assert_int_equal(nd_kb_live_withdrawn(kb, ids, 4), 0);
    nd_findings_release(&live);
    nd_kb_free(kb);

    /* A generic line of its own is not withdrawn. */
    kb = nd_test_kb(rules_text);
    assert_int_equal(nd_kb_match_line(kb, "out of memory", 13, "stderr", 1, &live), 1);
    assert_int_equal(nd_kb_match_line(kb, "import npu_marker", 17, "stderr", 2, &live), 0);
    assert_int_equal(nd_kb_live_withdrawn(kb, ids, 4), 0);
    nd_findings_release(&live);
    nd_kb_free(kb);
}

/* One line, one category: the error reading hides a warning one whose
 * literal is longer (vendor-specific rules still come first), in explain
 * and live alike. */
static void test_severity_before_literal(void **state)
{
    (void)state;
    struct nd_kb *kb = nd_test_kb(
        "[t.warnlong]\ncategory = device-oom\nseverity = warning\npattern = KV cache memory: -1 left over here\n"
        "title = w\nfix = f\nexample = KV cache memory: -1 left over here\n"
        "[t.errshort]\ncategory = device-oom\nseverity = error\npattern = memory: -1\ntitle = e\nfix = f\n"
        "example = memory: -1\n"
        "[t.vendwarn]\ncategory = config\nvendor = ascend\nseverity = warning\npattern = QQ config ZZ\n"
        "title = v\nfix = f\nexample = QQ config ZZ\n"
        "[t.anyerr]\ncategory = config\nseverity = error\npattern = config ZZ\ntitle = a\nfix = f\n"
        "example = config ZZ\n");
    const char *l = "INFO KV cache memory: -1 left over here";
    struct nd_findings f = explain(kb, "INFO KV cache memory: -1 left over here\nQQ config ZZ\n");
    assert_true(has(&f, "t.errshort"));
    assert_false(has(&f, "t.warnlong"));
    assert_true(has(&f, "t.vendwarn"));
    assert_false(has(&f, "t.anyerr"));
    nd_findings_release(&f);
    struct nd_findings live = ND_FINDINGS_INIT;
    assert_int_equal(nd_kb_match_line(kb, l, strlen(l), "stderr", 1, &live), 1);
    assert_string_equal(live.v[0]->id, "t.errshort");
    assert_int_equal(nd_kb_match_line(kb, "QQ config ZZ", 12, "stderr", 2, &live), 1);
    assert_string_equal(live.v[1]->id, "t.vendwarn");
    nd_findings_release(&live);
    nd_kb_free(kb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cross_line_window),
        cmocka_unit_test(test_held_line_hides_generic),
        cmocka_unit_test(test_severity_before_literal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
