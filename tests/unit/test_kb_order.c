/* Unit tests for the order of findings (kb_order.c) and the scanner's grouping (kb_scan.c):
 * causes before symptoms, outranks, earliest timestamp across files,
 * wrappers deferring to specific lines, repeats grouped with counts, and
 * consequence-of (a finding goes after what explains it in the same file). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/strbuf.h"
#include "kb/kb_internal.h"
#include "kb_test_kb.h"

static const char *rules_text =
    "[t.oom]\ncategory = device-oom\npattern = OOMHERE\ntitle = oom\nfix = f\nexample = OOMHERE\n"
    "[t.timeout]\ncategory = distributed\nrole = symptom\npattern = TIMEOUTHERE\ntitle = to\nfix = f\nexample = "
    "TIMEOUTHERE\n"
    "[t.env]\ncategory = env-not-loaded\npattern = ENVHERE\ntitle = env\nfix = f\nexample = ENVHERE\n"
    "[t.wrap]\ncategory = device-fault\nrole = wrapper\npattern = WRAPHERE\ntitle = w\nfix = f\nexample = WRAPHERE\n"
    "[t.fault]\ncategory = device-fault\npattern = FAULTHERE\ntitle = fault\nfix = f\nexample = FAULTHERE\n"
    "[t.warncause]\ncategory = version-mismatch\nseverity = warning\npattern = WARNHERE\ntitle = wc\nfix = f\n"
    "example = WARNHERE\noutranks = t.fault\n"
    "[t.info]\ncategory = config\nseverity = info\npattern = INFOHERE\ntitle = i\nfix = f\nexample = INFOHERE\n";

static struct nd_kb *make_kb(void)
{
    return nd_test_kb(rules_text);
}

static size_t idx(const struct nd_kb *kb, const char *id)
{
    for (size_t i = 0; i < kb->rules.n; i++)
        if (strcmp(kb->rules.v[i].id, id) == 0)
            return i;
    fail_msg("no rule %s", id);
    return 0;
}

static void explain(struct nd_kb *kb, const char *const *names, const char *const *texts, size_t n, bool all,
                    struct nd_findings *out)
{
    struct nd_kb_scan *s = nd_kb_scan_new(kb);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(nd_kb_scan_buffer(s, names[i], texts[i], strlen(texts[i])), 0);
    nd_kb_scan_finish(s, out, all);
    nd_kb_scan_free(s);
}

static void test_cause_before_symptom(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    /* Timeouts first in the file and on more lines: the OOM still leads. */
    const char *names[] = {"a.log"};
    const char *texts[] = {"TIMEOUTHERE\nTIMEOUTHERE\nOOMHERE\nTIMEOUTHERE\n"};
    struct nd_findings out = ND_FINDINGS_INIT;
    explain(kb, names, texts, 1, false, &out);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0]->id, "t.oom");
    assert_int_equal(out.v[0]->first_line, 3);
    assert_string_equal(out.v[1]->id, "t.timeout");
    assert_int_equal(out.v[1]->count, 3);
    assert_int_equal(out.v[1]->first_line, 1);
    nd_findings_release(&out);
    nd_kb_free(kb);
}

static void test_earliest_across_files(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    const char *names[] = {"logs/rank_0.log", "logs/rank_5.log"};
    const char *texts[] = {
        "2024-05-01 10:00:09,000 OOMHERE\n2024-05-01 10:02:00,000 TIMEOUTHERE\n",
        "2024-05-01 10:00:01,000 info\nTraceback\n  OOMHERE\n2024-05-01 10:02:00,000 TIMEOUTHERE\n",
    };
    struct nd_findings out = ND_FINDINGS_INIT;
    explain(kb, names, texts, 2, false, &out);
    assert_string_equal(out.v[0]->id, "t.oom");
    assert_int_equal(out.v[0]->count, 2);
    assert_int_equal(out.v[0]->rank, 5);
    assert_string_equal(out.v[0]->first_file, "logs/rank_5.log");
    assert_int_equal(out.v[0]->first_line, 3);
    nd_findings_release(&out);
    nd_kb_free(kb);
}

static void test_outranks_and_severity(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    /* Errors before warnings, except where a rule outranks another. */
    const char *names[] = {"x.log"};
    const char *texts[] = {"FAULTHERE\nWARNHERE\nINFOHERE\nENVHERE\n"};
    struct nd_findings out = ND_FINDINGS_INIT;
    explain(kb, names, texts, 1, false, &out);
    assert_int_equal(out.n, 3);
    assert_string_equal(out.v[0]->id, "t.env");
    assert_string_equal(out.v[1]->id, "t.warncause");
    assert_string_equal(out.v[2]->id, "t.fault");
    nd_findings_release(&out);
    explain(kb, names, texts, 1, true, &out);
    assert_int_equal(out.n, 4);
    assert_string_equal(out.v[3]->id, "t.info");
    nd_findings_release(&out);
    nd_kb_free(kb);
}

static void test_wrapper_defers(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    const char *names[] = {"w.log"};
    const char *near[] = {"WRAPHERE\nWRAPHERE\n  trace\nFAULTHERE\n"};
    struct nd_findings out = ND_FINDINGS_INIT;
    explain(kb, names, near, 1, false, &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->id, "t.fault");
    nd_findings_release(&out);
    explain(kb, names, near, 1, true, &out);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[1]->id, "t.wrap");
    nd_findings_release(&out);
    /* Alone, the wrapper is all there is to say. */
    const char *alone[] = {"WRAPHERE\n"};
    explain(kb, names, alone, 1, false, &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->id, "t.wrap");
    nd_findings_release(&out);
    nd_kb_free(kb);
}

static void test_wrapper_after_any_cause(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    /* The wrapper is an error and far (beyond the scanner's window) from a
     * cause printed only as a warning: the cause still leads. */
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    nd_strbuf_adds(&sb, "WARNHERE\n");
    for (int i = 0; i < 100; i++)
        nd_strbuf_addf(&sb, "step %d\n", i);
    nd_strbuf_adds(&sb, "WRAPHERE\n");
    const char *names[] = {"far.log"};
    const char *texts[] = {sb.buf};
    struct nd_findings out = ND_FINDINGS_INIT;
    explain(kb, names, texts, 1, false, &out);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0]->id, "t.warncause");
    assert_string_equal(out.v[1]->id, "t.wrap");
    nd_findings_release(&out);
    /* An info finding names nothing worth leading with: the wrapper stays first. */
    const char *info[] = {"INFOHERE\nWRAPHERE\n"};
    explain(kb, names, info, 1, true, &out);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0]->id, "t.wrap");
    nd_findings_release(&out);
    nd_strbuf_release(&sb);
    nd_kb_free(kb);
}

static void test_rank_hits_direct(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    struct nd_kb_hit *hits = calloc(kb->rules.n, sizeof *hits);
    /* Two faults of one tier: the earlier timestamp wins over scan order. */
    const char *texts[] = {"late", "early"};
    size_t a = idx(kb, "t.fault"), b = idx(kb, "t.oom");
    hits[a].count = 1;
    hits[a].seq = 0;
    hits[a].earliest = (struct nd_kb_occ){.file = "f", .line = 1, .ts = 200, .rank = -1, .text = (char *)texts[0]};
    hits[b].count = 1;
    hits[b].seq = 1;
    hits[b].earliest = (struct nd_kb_occ){.file = "g", .line = 9, .ts = 100, .rank = 2, .text = (char *)texts[1]};
    struct nd_findings out = ND_FINDINGS_INIT;
    nd_kb_rank_hits(kb, hits, &out, false);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0]->id, "t.oom"); /* higher tier */
    assert_int_equal(out.v[0]->rank, 2);
    assert_string_equal(out.v[0]->evidence[0].text, "early");
    nd_findings_release(&out);
    free(hits);
    nd_kb_free(kb);
}

/* The causal chain as data: INI rules plus a catalogue table whose rows name
 * what explains them (consequence-of). */
static const char *chain_rules =
    "[t.mech]\ncategory = config\npattern = MECHHERE\ntitle = m\nfix = f\nexample = MECHHERE\n"
    "[t.generic]\ncategory = config\ngeneric = true\npattern = GENERICHERE\ntitle = g\nfix = f\n"
    "example = GENERICHERE\n"
    "[t.fault2]\ncategory = device-fault\nconsequence-of = version-mismatch\npattern = FAULT2HERE\ntitle = f2\n"
    "fix = f\nexample = FAULT2HERE\n"
    "[t.vwarn]\ncategory = version-mismatch\nseverity = warning\npattern = VWARNHERE\ntitle = vw\nfix = f\n"
    "example = VWARNHERE\n"
    "[t.cwarn]\ncategory = config\nseverity = warning\npattern = CWARNHERE\ntitle = cw\nfix = f\n"
    "example = CWARNHERE\n"
    "[t.libwrap]\ncategory = env-not-loaded\nrole = wrapper\npattern = LIBWRAPHERE\ntitle = lw\nfix = f\n"
    "example = LIBWRAPHERE\n"
    "[t.otherwrap]\ncategory = env-not-loaded\nrole = wrapper\npattern = OTHERWRAPHERE\ntitle = ow\nfix = f\n"
    "example = OTHERWRAPHERE\n"
    "[t.gesym]\ncategory = device-fault\nrole = symptom\nconsequence-of = t.libwrap\npattern = GESYMHERE\n"
    "title = gs\nfix = f\nexample = GESYMHERE\n";
static const char *chain_table = "#! id-prefix = t.code\n"
                                 "#! category = env-not-loaded\n"
                                 "#! consequence-of = mechanism\n"
                                 "code\ttitle\tfix\texample\n"
                                 "CODE77\ta return code\tf\tCODE77\n";

static struct nd_kb *make_chain_kb(void)
{
    setenv("NPU_DOCTOR_CACHE_DIR", "", 1);
    struct nd_kb *kb = calloc(1, sizeof *kb);
    struct nd_strv problems = {0};
    nd_kb_parse_rules(&kb->rules, "t.rules", chain_rules, strlen(chain_rules), false, &problems);
    nd_kb_parse_catalog(&kb->rules, "t.tsv", chain_table, strlen(chain_table), false, &problems);
    nd_kb_check_rules(&kb->rules, NULL, &problems);
    for (size_t i = 0; i < problems.n; i++)
        print_message("%s\n", problems.v[i]);
    assert_int_equal(problems.n, 0);
    nd_strv_release(&problems);
    struct nd_error err = {0};
    assert_int_equal(nd_kb_compile(kb, &err), 0);
    return kb;
}

static void test_consequence_of_mechanism(void **state)
{
    (void)state;
    struct nd_kb *kb = make_chain_kb();
    struct nd_findings out = ND_FINDINGS_INIT;
    /* The code row's category ranks above config, and it comes first: the
     * specific rule in the same file still names the cause. */
    const char *names[] = {"a.log"};
    const char *both[] = {"CODE77 failed\nstep\nMECHHERE\n"};
    explain(kb, names, both, 1, false, &out);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0]->id, "t.mech");
    assert_string_equal(out.v[1]->id, "t.code.code77");
    nd_findings_release(&out);
    /* In another file (another rank's log) the chain says nothing. */
    const char *two_names[] = {"a.log", "b.log"};
    const char *apart[] = {"CODE77 failed\n", "MECHHERE\n"};
    explain(kb, two_names, apart, 2, false, &out);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0]->id, "t.code.code77");
    nd_findings_release(&out);
    /* A generic rule is no mechanism. */
    const char *generic[] = {"CODE77 failed\nGENERICHERE\n"};
    explain(kb, names, generic, 1, false, &out);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0]->id, "t.code.code77");
    nd_findings_release(&out);
    nd_kb_free(kb);
}

static void test_consequence_of_category(void **state)
{
    (void)state;
    struct nd_kb *kb = make_chain_kb();
    struct nd_findings out = ND_FINDINGS_INIT;
    const char *names[] = {"a.log"};
    /* A version warning explains the device fault that names it, even
     * printed as a warning and after it. */
    const char *chain[] = {"FAULT2HERE\nVWARNHERE\n"};
    explain(kb, names, chain, 1, false, &out);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0]->id, "t.vwarn");
    assert_string_equal(out.v[1]->id, "t.fault2");
    nd_findings_release(&out);
    /* A warning of a category the fault does not name stays behind it. */
    const char *other[] = {"CWARNHERE\nFAULT2HERE\n"};
    explain(kb, names, other, 1, false, &out);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0]->id, "t.fault2");
    nd_findings_release(&out);
    nd_kb_free(kb);
}

/* A rule id in consequence-of names that one rule, a wrapper included: the
 * wrapper next to the line that names it neither defers to it nor goes
 * after it. */
static void test_consequence_of_rule_id(void **state)
{
    (void)state;
    struct nd_kb *kb = make_chain_kb();
    struct nd_findings out = ND_FINDINGS_INIT;
    const char *names[] = {"a.log"};
    const char *named[] = {"LIBWRAPHERE\nGESYMHERE\n"};
    explain(kb, names, named, 1, false, &out);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0]->id, "t.libwrap");
    assert_string_equal(out.v[1]->id, "t.gesym");
    nd_findings_release(&out);
    /* Printed after the line it explains, it still leads. */
    const char *after[] = {"GESYMHERE\nstep\nLIBWRAPHERE\n"};
    explain(kb, names, after, 1, false, &out);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0]->id, "t.libwrap");
    nd_findings_release(&out);
    /* A wrapper the symptom does not name defers to it as before. */
    const char *other[] = {"OTHERWRAPHERE\nGESYMHERE\n"};
    explain(kb, names, other, 1, false, &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->id, "t.gesym");
    nd_findings_release(&out);
    /* In another file the chain says nothing: the wrapper goes last. */
    const char *two_names[] = {"a.log", "b.log"};
    const char *apart[] = {"GESYMHERE\n", "LIBWRAPHERE\n"};
    explain(kb, two_names, apart, 2, false, &out);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0]->id, "t.gesym");
    nd_findings_release(&out);
    /* run's summary: the same chain on findings in order of arrival. */
    struct nd_findings run = ND_FINDINGS_INIT;
    nd_findings_add(&run, "t.gesym", "device-fault", ND_SEV_ERROR, "gs");
    nd_findings_add(&run, "t.libwrap", "env-not-loaded", ND_SEV_ERROR, "lw");
    nd_kb_order_findings(kb, &run);
    assert_int_equal(run.n, 2);
    assert_string_equal(run.v[0]->id, "t.libwrap");
    nd_findings_release(&run);
    nd_kb_free(kb);
}

/* A Python exception chain: what matched above "During handling of the
 * above exception" goes before a generic reading of the re-raise below. */
static void test_exception_chain(void **state)
{
    (void)state;
    struct nd_kb *kb = make_chain_kb();
    struct nd_findings out = ND_FINDINGS_INIT;
    const char *names[] = {"a.log"};
    const char *chained[] = {"VWARNHERE\n\nDuring handling of the above exception, another exception occurred:\n\n"
                             "GENERICHERE\n"};
    explain(kb, names, chained, 1, false, &out);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0]->id, "t.vwarn");
    nd_findings_release(&out);
    const char *cause[] = {"VWARNHERE\nThe above exception was the direct cause of the following exception:\n"
                           "[rank0]: GENERICHERE\n"};
    explain(kb, names, cause, 1, false, &out);
    assert_string_equal(out.v[0]->id, "t.vwarn");
    nd_findings_release(&out);
    /* Without the marker severity decides. */
    const char *plain[] = {"VWARNHERE\nGENERICHERE\n"};
    explain(kb, names, plain, 1, false, &out);
    assert_string_equal(out.v[0]->id, "t.generic");
    nd_findings_release(&out);
    /* An exception no rule knows above the marker is the failure. */
    const char *unknown[] = {"Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n"
                             "ValueError: the first failure\n\n"
                             "During handling of the above exception, another exception occurred:\n\n"
                             "GENERICHERE\n"};
    explain(kb, names, unknown, 1, false, &out);
    assert_true(out.n >= 2);
    assert_string_not_equal(out.v[0]->id, "t.generic");
    assert_non_null(strstr(out.v[0]->evidence[0].text, "the first failure"));
    nd_findings_release(&out);
    nd_kb_free(kb);
}

static void test_consequence_of_lint(void **state)
{
    (void)state;
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    const char *bad = "[t.x]\ncategory = config\nconsequence-of = mechanism, no-such\npattern = X\ntitle = x\n"
                      "fix = f\nexample = X\n";
    nd_kb_parse_rules(&set, "b.rules", bad, strlen(bad), false, &problems);
    const char *table = "#! id-prefix = t.y\n#! category = config\n#! consequence-of = mechanism,bogus\n"
                        "code\ttitle\tfix\texample\nY1\ty\tf\tY1\n";
    nd_kb_parse_catalog(&set, "b.tsv", table, strlen(table), false, &problems);
    const char *unknown = "[t.z]\ncategory = config\nconsequence-of = t.nosuch\npattern = Z\ntitle = z\n"
                          "fix = f\nexample = Z\n";
    nd_kb_parse_rules(&set, "c.rules", unknown, strlen(unknown), false, &problems);
    nd_kb_check_rules(&set, NULL, &problems);
    bool rule_seen = false, table_seen = false, id_seen = false;
    for (size_t i = 0; i < problems.n; i++) {
        id_seen |= strstr(problems.v[i], "c.rules:3: [t.z] consequence-of unknown rule 't.nosuch'") != NULL;
        rule_seen |= strstr(problems.v[i], "b.rules:3: [t.x] consequence-of 'no-such'") != NULL;
        table_seen |= strstr(problems.v[i], "b.tsv:3:") != NULL && strstr(problems.v[i], "bogus") != NULL;
    }
    assert_true(rule_seen);
    assert_true(table_seen);
    assert_true(id_seen);
    nd_strv_release(&problems);
    nd_kb_ruleset_release(&set);
}

/* echo-of: a peer's timeout goes after the failure it echoes in any file of
 * the input (another rank's log), where consequence-of looks only at its own
 * file; a rule that names no echo keeps the order of tier and time. */
static const char *echo_rules =
    "[t.kill]\ncategory = host-oom\nrole = symptom\npattern = KILLHERE\ntitle = k\nfix = f\nexample = KILLHERE\n"
    "[t.echo]\ncategory = distributed\necho-of = host-oom\npattern = ECHOHERE\ntitle = e\nfix = f\n"
    "example = ECHOHERE\n"
    "[t.plain]\ncategory = distributed\npattern = PLAINHERE\ntitle = p\nfix = f\nexample = PLAINHERE\n"
    "[t.cwarn]\ncategory = config\nseverity = warning\npattern = CWARNHERE\ntitle = cw\nfix = f\n"
    "example = CWARNHERE\n";

static void test_echo_of_across_files(void **state)
{
    (void)state;
    setenv("NPU_DOCTOR_CACHE_DIR", "", 1);
    struct nd_kb *kb = calloc(1, sizeof *kb);
    struct nd_strv problems = {0};
    nd_kb_parse_rules(&kb->rules, "e.rules", echo_rules, strlen(echo_rules), false, &problems);
    nd_kb_check_rules(&kb->rules, NULL, &problems);
    assert_int_equal(problems.n, 0);
    struct nd_error err = {0};
    assert_int_equal(nd_kb_compile(kb, &err), 0);
    struct nd_findings out = ND_FINDINGS_INIT;
    const char *names[] = {"rank0.log", "launcher.log"};
    /* The timeout comes first and ranks higher by tier, yet the kill it
     * echoes, in the other file, leads. */
    const char *echo[] = {"ECHOHERE\n", "KILLHERE\n"};
    explain(kb, names, echo, 2, false, &out);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0]->id, "t.kill");
    assert_string_equal(out.v[1]->id, "t.echo");
    nd_findings_release(&out);
    /* Without echo-of the same pair keeps its order. */
    const char *plain[] = {"PLAINHERE\n", "KILLHERE\n"};
    explain(kb, names, plain, 2, false, &out);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0]->id, "t.plain");
    nd_findings_release(&out);
    /* A category the echo does not name stays behind it. */
    const char *other[] = {"ECHOHERE\n", "CWARNHERE\n"};
    explain(kb, names, other, 2, false, &out);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0]->id, "t.echo");
    nd_findings_release(&out);
    /* A timeout alone stays what it is. */
    const char *alone[] = {"ECHOHERE\n"};
    explain(kb, names, alone, 1, false, &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->id, "t.echo");
    nd_findings_release(&out);
    nd_kb_free(kb);
}

static void test_echo_of_lint(void **state)
{
    (void)state;
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    const char *bad = "[t.x]\ncategory = config\necho-of = mechanism, t.nosuch\npattern = X\ntitle = x\n"
                      "fix = f\nexample = X\n";
    nd_kb_parse_rules(&set, "b.rules", bad, strlen(bad), false, &problems);
    nd_kb_check_rules(&set, NULL, &problems);
    bool mech_seen = false, id_seen = false;
    for (size_t i = 0; i < problems.n; i++) {
        mech_seen |= strstr(problems.v[i], "b.rules:3: [t.x] echo-of 'mechanism'") != NULL;
        id_seen |= strstr(problems.v[i], "b.rules:3: [t.x] echo-of unknown rule 't.nosuch'") != NULL;
    }
    assert_true(mech_seen);
    assert_true(id_seen);
    nd_strv_release(&problems);
    nd_kb_ruleset_release(&set);
}

static void test_rank_set_text(void **state)
{
    (void)state;
    struct nd_rank_set rs = {0};
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    /* A 128-rank job, and a rank past the first 64-bit word. */
    for (int r = 0; r < 128; r++)
        nd_rank_set_add(&rs, r);
    nd_rank_set_add(&rs, 130);
    nd_rank_set_add(&rs, 130);
    nd_rank_set_add(&rs, -1);
    nd_rank_set_add(&rs, ND_KB_RANK_MAX);
    assert_int_equal(nd_rank_set_count(&rs), 129);
    nd_rank_set_text(&rs, &sb);
    assert_string_equal(sb.buf, "0-127,130");
    nd_rank_set_release(&rs);
    /* Scattered ranks: eight ranges, then the count. */
    for (int r = 0; r < 40; r += 2)
        nd_rank_set_add(&rs, r);
    nd_strbuf_release(&sb);
    nd_strbuf_init(&sb);
    nd_rank_set_text(&rs, &sb);
    assert_string_equal(sb.buf, "0,2,4,6,8,10,12,14,... (20 ranks)");
    nd_rank_set_release(&rs);
    nd_strbuf_release(&sb);
}

static void test_match_line(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    struct nd_findings out = ND_FINDINGS_INIT;
    assert_int_equal(nd_kb_match_line(kb, "[rank4]: OOMHERE and FAULTHERE", 30, "stdout", 17, &out), 2);
    assert_int_equal(out.v[0]->evidence[0].line, 17);
    assert_int_equal(out.v[0]->rank, 4);
    assert_int_equal(nd_kb_match_line(kb, "nothing", 7, "stdout", 18, &out), 0);
    nd_findings_release(&out);
    nd_kb_free(kb);
}

static void test_line_mapping(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    /* ~2 MB over many reads: matches keep their line numbers across the
     * scanner's read and chunk boundaries, with CRLF line ends too. */
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    for (int i = 1; i <= 60000; i++) {
        if (i == 12345)
            nd_strbuf_adds(&sb, "RuntimeError: OOMHERE\r\n");
        else if (i == 59999)
            nd_strbuf_adds(&sb, "TIMEOUTHERE\n");
        else
            nd_strbuf_addf(&sb, "[INFO] step %d of the training loop went fine\r\n", i);
    }
    struct nd_kb_scan *s = nd_kb_scan_new(kb);
    assert_int_equal(nd_kb_scan_buffer(s, "big.log", sb.buf, sb.len), 0);
    assert_int_equal(nd_kb_scan_lines(s), 60000);
    assert_int_equal(nd_kb_scan_bytes(s), sb.len);
    struct nd_findings out = ND_FINDINGS_INIT;
    nd_kb_scan_finish(s, &out, false);
    assert_int_equal(out.n, 2);
    assert_int_equal(out.v[0]->first_line, 12345);
    assert_string_equal(out.v[0]->evidence[0].text, "RuntimeError: OOMHERE");
    assert_int_equal(out.v[1]->first_line, 59999);
    nd_findings_release(&out);
    nd_kb_scan_free(s);
    nd_strbuf_release(&sb);
    nd_kb_free(kb);
}

/* run's summary: the findings rules made take explain's order on the same
 * lines, in the places they held; a measured finding (no rule's id) keeps
 * its place. */
static void test_order_findings(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    static const char *const arrival[] = {"WRAPHERE", "TIMEOUTHERE", "FAULTHERE", "WARNHERE", "OOMHERE"};
    static const char *const ids[] = {"t.wrap", "t.timeout", "t.fault", "t.warncause", "t.oom"};
    struct nd_strbuf log = ND_STRBUF_INIT;
    nd_strbuf_init(&log);
    for (size_t i = 0; i < 5; i++) {
        nd_strbuf_adds(&log, arrival[i]);
        nd_strbuf_addc(&log, '\n');
        for (int k = 0; k < 40; k++)
            nd_strbuf_adds(&log, "step\n");
    }
    const char *names[] = {"output"};
    const char *texts[] = {log.buf};
    struct nd_findings want = ND_FINDINGS_INIT;
    explain(kb, names, texts, 1, false, &want);
    assert_int_equal(want.n, 5);
    assert_string_not_equal(want.v[0]->id, "t.wrap");

    struct nd_findings run = ND_FINDINGS_INIT;
    for (size_t i = 0; i < 5; i++) {
        nd_findings_add(&run, ids[i], "config", ND_SEV_ERROR, "%s", ids[i]);
        if (i == 0)
            nd_findings_add(&run, "hang.no-progress", "hang", ND_SEV_WARNING, "measured");
    }
    nd_kb_order_findings(kb, &run);
    assert_int_equal(run.n, 6);
    assert_string_equal(run.v[1]->id, "hang.no-progress");
    for (size_t i = 0, k = 0; i < run.n; i++) {
        if (i == 1)
            continue;
        assert_string_equal(run.v[i]->id, want.v[k++]->id);
    }
    nd_findings_release(&run);
    nd_findings_release(&want);
    nd_strbuf_release(&log);
    nd_kb_free(kb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cause_before_symptom),
        cmocka_unit_test(test_earliest_across_files),
        cmocka_unit_test(test_outranks_and_severity),
        cmocka_unit_test(test_wrapper_defers),
        cmocka_unit_test(test_rank_hits_direct),
        cmocka_unit_test(test_wrapper_after_any_cause),
        cmocka_unit_test(test_match_line),
        cmocka_unit_test(test_line_mapping),
        cmocka_unit_test(test_rank_set_text),
        cmocka_unit_test(test_consequence_of_mechanism),
        cmocka_unit_test(test_consequence_of_category),
        cmocka_unit_test(test_consequence_of_rule_id),
        cmocka_unit_test(test_exception_chain),
        cmocka_unit_test(test_consequence_of_lint),
        cmocka_unit_test(test_echo_of_across_files),
        cmocka_unit_test(test_echo_of_lint),
        cmocka_unit_test(test_order_findings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
