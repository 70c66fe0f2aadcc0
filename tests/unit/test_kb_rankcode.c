/* Unit tests for the ranking of code findings ([code.*] entries,
 * kb_codefind.c and kb_rankcode.c): a compatibility warning goes after a
 * rule that reads what failed, a compatibility error keeps leading, a
 * wrapper code finding goes after the cause, rule findings are never moved,
 * and the entries' lint problems. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kb/kb_internal.h"
#include "kb_test_kb.h"

static const char *rules_text =
    "[t.cpu]\ncategory = cpu-fallback\nseverity = warning\nrole = symptom\npattern = CPUHERE\ntitle = cpu\n"
    "fix = f\nexample = CPUHERE\n"
    "[t.env]\ncategory = env-not-loaded\npattern = ENVHERE\ntitle = env\nfix = f\nexample = ENVHERE\n"
    "[t.sym]\ncategory = distributed\nrole = symptom\npattern = SYMHERE\ntitle = sym\nfix = f\nexample = SYMHERE\n"
    "[t.gen]\ncategory = config\nseverity = warning\ngeneric = true\npattern = GENHERE\ntitle = gen\nfix = f\n"
    "example = GENHERE\n"
    "[t.wrap]\ncategory = device-fault\nrole = wrapper\npattern = WRAPHERE\ntitle = w\nfix = f\nexample = WRAPHERE\n"
    "[t.warncause]\ncategory = config\nseverity = warning\npattern = WARNHERE\ntitle = wc\nfix = f\n"
    "example = WARNHERE\n"
    "[code.compat.*]\nrole = cause\nyields-to = named\nyields-up-to = warning\n"
    "[code.compat.special]\nrole = cause\nyields-to = t.wrap\n"
    "[code.exit.segfault]\nrole = wrapper\n"
    "[code.guess]\nrole = wrapper\nyields-to = version-mismatch\n"
    "[code.loop.a]\nyields-to = config\n"
    "[code.loop.b]\nyields-to = config\n";

static void add(struct nd_findings *l, const char *id, const char *cat, enum nd_severity sev)
{
    nd_findings_add(l, id, cat, sev, "%s", id);
}

static void expect(const struct nd_findings *l, const char *const *ids, size_t n)
{
    assert_int_equal(l->n, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(l->v[i]->id, ids[i]);
}

static void test_compat_warning_yields_to_named_rule(void **state)
{
    (void)state;
    struct nd_kb *kb = nd_test_kb(rules_text);
    /* explain puts the compat finding first; the log's own "runs on the
     * CPU" line (a specific symptom rule, as severe) goes before it. */
    struct nd_findings l = ND_FINDINGS_INIT;
    add(&l, "compat.torch-npu-cann", ND_CAT_VERSION_MISMATCH, ND_SEV_WARNING);
    add(&l, "t.cpu", ND_CAT_CPU_FALLBACK, ND_SEV_WARNING);
    add(&l, "t.warncause", ND_CAT_CONFIG, ND_SEV_WARNING);
    nd_kb_rank_code_findings(kb, &l);
    expect(&l, (const char *[]){"t.cpu", "t.warncause", "compat.torch-npu-cann"}, 3);
    nd_findings_release(&l);
    nd_kb_free(kb);
}

static void test_compat_warning_keeps_place_before_generic_and_wrapper(void **state)
{
    (void)state;
    struct nd_kb *kb = nd_test_kb(rules_text);
    struct nd_findings l = ND_FINDINGS_INIT;
    add(&l, "compat.torch-npu-cann", ND_CAT_VERSION_MISMATCH, ND_SEV_WARNING);
    add(&l, "t.gen", ND_CAT_CONFIG, ND_SEV_WARNING);
    add(&l, "t.wrap", ND_CAT_DEVICE_FAULT, ND_SEV_ERROR);
    /* An info finding is never named. */
    add(&l, "t.info-like", ND_CAT_CONFIG, ND_SEV_INFO);
    nd_kb_rank_code_findings(kb, &l);
    expect(&l, (const char *[]){"compat.torch-npu-cann", "t.gen", "t.wrap", "t.info-like"}, 4);
    nd_findings_release(&l);
    nd_kb_free(kb);
}

static void test_compat_error_still_leads(void **state)
{
    (void)state;
    struct nd_kb *kb = nd_test_kb(rules_text);
    /* A pair the tables rule out explains what follows: above yields-up-to
     * it keeps its place before causes and symptoms alike. */
    struct nd_findings l = ND_FINDINGS_INIT;
    add(&l, "compat.cann-driver", ND_CAT_VERSION_MISMATCH, ND_SEV_ERROR);
    add(&l, "t.env", ND_CAT_ENV_NOT_LOADED, ND_SEV_ERROR);
    add(&l, "t.sym", ND_CAT_DISTRIBUTED, ND_SEV_ERROR);
    nd_kb_rank_code_findings(kb, &l);
    expect(&l, (const char *[]){"compat.cann-driver", "t.env", "t.sym"}, 3);
    nd_findings_release(&l);
    nd_kb_free(kb);
}

static void test_exact_entry_beats_prefix(void **state)
{
    (void)state;
    struct nd_kb *kb = nd_test_kb(rules_text);
    const struct nd_kb_code *c = nd_kb_code_find(&kb->rules.code, "compat.special");
    assert_non_null(c);
    assert_false(c->prefix);
    assert_int_equal(c->yield_max, ND_SEV_ERROR);
    c = nd_kb_code_find(&kb->rules.code, "compat.other");
    assert_non_null(c);
    assert_true(c->prefix);
    assert_null(nd_kb_code_find(&kb->rules.code, "compatx.other"));
    assert_null(nd_kb_code_find(&kb->rules.code, "exit.segfault.more"));
    /* The exact entry names a wrapper rule: it goes after it, even as an error. */
    struct nd_findings l = ND_FINDINGS_INIT;
    add(&l, "compat.special", ND_CAT_VERSION_MISMATCH, ND_SEV_ERROR);
    add(&l, "t.wrap", ND_CAT_DEVICE_FAULT, ND_SEV_ERROR);
    nd_kb_rank_code_findings(kb, &l);
    expect(&l, (const char *[]){"t.wrap", "compat.special"}, 2);
    nd_findings_release(&l);
    nd_kb_free(kb);
}

static void test_wrapper_code_finding_after_cause(void **state)
{
    (void)state;
    struct nd_kb *kb = nd_test_kb(rules_text);
    /* "The job crashed (SIGSEGV)" after the line that says why; a warning
     * rule is less severe, so the crash stays before it. */
    struct nd_findings l = ND_FINDINGS_INIT;
    add(&l, "exit.segfault", ND_CAT_DEVICE_FAULT, ND_SEV_ERROR);
    add(&l, "t.warncause", ND_CAT_CONFIG, ND_SEV_WARNING);
    add(&l, "t.env", ND_CAT_ENV_NOT_LOADED, ND_SEV_ERROR);
    add(&l, "t.wrap", ND_CAT_DEVICE_FAULT, ND_SEV_ERROR);
    nd_kb_rank_code_findings(kb, &l);
    expect(&l, (const char *[]){"t.warncause", "t.env", "exit.segfault", "t.wrap"}, 4);
    nd_findings_release(&l);
    nd_kb_free(kb);
}

static void test_code_yields_to_category_of_code_finding(void **state)
{
    (void)state;
    struct nd_kb *kb = nd_test_kb(rules_text);
    /* The classifier's guess goes after a version the tables rule out. */
    struct nd_findings l = ND_FINDINGS_INIT;
    add(&l, "guess", ND_CAT_ENV_NOT_LOADED, ND_SEV_ERROR);
    add(&l, "compat.cann-driver", ND_CAT_VERSION_MISMATCH, ND_SEV_ERROR);
    nd_kb_rank_code_findings(kb, &l);
    expect(&l, (const char *[]){"compat.cann-driver", "guess"}, 2);
    nd_findings_release(&l);
    nd_kb_free(kb);
}

static void test_mutual_yield_does_not_loop(void **state)
{
    (void)state;
    struct nd_kb *kb = nd_test_kb(rules_text);
    /* Two entries that yield to each other's category stay as they are. */
    struct nd_findings l = ND_FINDINGS_INIT;
    add(&l, "loop.a", ND_CAT_CONFIG, ND_SEV_ERROR);
    add(&l, "loop.b", ND_CAT_CONFIG, ND_SEV_ERROR);
    add(&l, "t.env", ND_CAT_ENV_NOT_LOADED, ND_SEV_ERROR);
    nd_kb_rank_code_findings(kb, &l);
    expect(&l, (const char *[]){"loop.a", "loop.b", "t.env"}, 3);
    nd_findings_release(&l);
    nd_kb_free(kb);
}

static void test_rule_findings_never_moved(void **state)
{
    (void)state;
    /* A rule whose id an entry's prefix covers ranks by its own keys. */
    struct nd_kb *kb = nd_test_kb("[compat.rule]\ncategory = version-mismatch\nseverity = warning\npattern = VHERE\n"
                                  "title = v\nfix = f\nexample = VHERE\n"
                                  "[t.cpu]\ncategory = cpu-fallback\nseverity = warning\npattern = CPUHERE\n"
                                  "title = cpu\nfix = f\nexample = CPUHERE\n"
                                  "[code.compat.*]\nyields-to = named\n");
    struct nd_findings l = ND_FINDINGS_INIT;
    add(&l, "compat.rule", ND_CAT_VERSION_MISMATCH, ND_SEV_WARNING);
    add(&l, "t.cpu", ND_CAT_CPU_FALLBACK, ND_SEV_WARNING);
    nd_kb_rank_code_findings(kb, &l);
    expect(&l, (const char *[]){"compat.rule", "t.cpu"}, 2);
    nd_findings_release(&l);
    nd_kb_free(kb);
}

static void test_run_summary_order_uses_entries(void **state)
{
    (void)state;
    struct nd_kb *kb = nd_test_kb(rules_text);
    /* run: the crash arrived first, the line naming the cause after it. */
    struct nd_findings l = ND_FINDINGS_INIT;
    add(&l, "exit.segfault", ND_CAT_DEVICE_FAULT, ND_SEV_ERROR);
    add(&l, "fallback.cpu-fallback", ND_CAT_CPU_FALLBACK, ND_SEV_WARNING);
    add(&l, "t.env", ND_CAT_ENV_NOT_LOADED, ND_SEV_ERROR);
    nd_kb_order_findings(kb, &l);
    expect(&l, (const char *[]){"fallback.cpu-fallback", "t.env", "exit.segfault"}, 3);
    nd_findings_release(&l);
    nd_kb_free(kb);
}

static void test_live_chain_orders_like_explain(void **state)
{
    (void)state;
    /* A specific warning above "During handling of the above exception",
     * a generic error below it: explain puts the specific one first, and so
     * must run's summary of the same lines. */
    const char *text = "[t.spec]\ncategory = config\nseverity = warning\npattern = SPECHERE\ntitle = s\nfix = f\n"
                       "example = SPECHERE\n"
                       "[t.gen2]\ncategory = config\ngeneric = true\npattern = GENHERE\ntitle = g\nfix = f\n"
                       "example = GENHERE\n";
    const char *lines[] = {"ValueError: SPECHERE", "",
                           "During handling of the above exception, another exception occurred:", "",
                           "RuntimeError: GENHERE"};
    struct nd_kb *kb = nd_test_kb(text);
    struct nd_findings live = ND_FINDINGS_INIT;
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        nd_kb_match_line(kb, lines[i], strlen(lines[i]), "stderr", (long)i + 1, &live);
    assert_int_equal(live.n, 2);
    assert_int_equal(live.v[0]->chain, 0);
    assert_int_equal(live.v[1]->chain, 1);
    nd_kb_order_findings(kb, &live);
    expect(&live, (const char *[]){"t.spec", "t.gen2"}, 2);
    /* The same log through explain. */
    struct nd_kb_scan *s = nd_kb_scan_new(kb);
    const char *log = "ValueError: SPECHERE\n\nDuring handling of the above exception, another exception occurred:\n\n"
                      "RuntimeError: GENHERE\n";
    assert_int_equal(nd_kb_scan_buffer(s, "a.log", log, strlen(log)), 0);
    struct nd_findings ex = ND_FINDINGS_INIT;
    nd_kb_scan_finish(s, &ex, false);
    assert_true(ex.n >= 2);
    assert_string_equal(ex.v[0]->id, "t.spec");
    nd_findings_release(&ex);
    nd_kb_scan_free(s);
    nd_findings_release(&live);
    nd_kb_free(kb);
}

static void test_entry_lint(void **state)
{
    (void)state;
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    const char *bad = "[code.Bad Id]\nrole = cause\n"
                      "[code.x.one]\nrole = leader\nyields-to = nonsense\nyields-up-to = loud\ncolour = red\n"
                      "[code.x.two]\nyields-to = t.nosuch\n"
                      "[code.x.one]\nrole = symptom\n";
    nd_kb_parse_rules(&set, "c.rules", bad, strlen(bad), false, &problems);
    nd_kb_check_rules(&set, NULL, &problems);
    const char *want[] = {"c.rules:2: [code.Bad Id]: not a finding id",
                          "c.rules:4: [code.x.one] role 'leader'",
                          "c.rules:5: [code.x.one] yields-to 'nonsense'",
                          "c.rules:6: [code.x.one] yields-up-to 'loud'",
                          "c.rules:7: unknown key 'colour' in [code.x.one]",
                          "c.rules:9: [code.x.two] yields-to names no rule 't.nosuch'",
                          "c.rules:11: [code.x.one] given twice"};
    for (size_t w = 0; w < sizeof want / sizeof *want; w++) {
        bool seen = false;
        for (size_t i = 0; i < problems.n; i++)
            seen |= strstr(problems.v[i], want[w]) != NULL;
        if (!seen)
            fail_msg("missing problem: %s", want[w]);
    }
    assert_int_equal(problems.n, sizeof want / sizeof *want);
    nd_strv_release(&problems);
    /* A later file replaces an entry (rules.d over the built-ins). */
    const char *later = "[code.x.one]\nrole = wrapper\n";
    nd_kb_parse_rules(&set, "d.rules", later, strlen(later), true, &problems);
    assert_int_equal(problems.n, 0);
    const struct nd_kb_code *c = nd_kb_code_find(&set.code, "x.one");
    assert_non_null(c);
    assert_int_equal(c->role, ND_ROLE_WRAPPER);
    assert_int_equal(c->yields.n, 0);
    assert_string_equal(c->file, "d.rules");
    nd_strv_release(&problems);
    nd_kb_ruleset_release(&set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compat_warning_yields_to_named_rule),
        cmocka_unit_test(test_compat_warning_keeps_place_before_generic_and_wrapper),
        cmocka_unit_test(test_compat_error_still_leads),
        cmocka_unit_test(test_exact_entry_beats_prefix),
        cmocka_unit_test(test_wrapper_code_finding_after_cause),
        cmocka_unit_test(test_code_yields_to_category_of_code_finding),
        cmocka_unit_test(test_mutual_yield_does_not_loop),
        cmocka_unit_test(test_rule_findings_never_moved),
        cmocka_unit_test(test_run_summary_order_uses_entries),
        cmocka_unit_test(test_live_chain_orders_like_explain),
        cmocka_unit_test(test_entry_lint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
