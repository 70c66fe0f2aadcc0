/* Unit tests for the catalogue tables (kb_catalog.c): file defaults, pattern
 * templates, id derivation, " ;; " and " || " lists, lint problems with their
 * line numbers, numeric codes without context, override by id, and rows
 * whose example does not match failing `rules test`. */
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

static bool has_problem(const struct nd_strv *p, const char *needle)
{
    for (size_t i = 0; i < p->n; i++)
        if (strstr(p->v[i], needle))
            return true;
    return false;
}

static void dump(const struct nd_strv *p)
{
    for (size_t i = 0; i < p->n; i++)
        print_message("%s\n", p->v[i]);
}

static const struct nd_kb_rule *find(const struct nd_kb_ruleset *set, const char *id)
{
    for (size_t i = 0; i < set->n; i++)
        if (strcmp(set->v[i].id, id) == 0)
            return &set->v[i];
    return NULL;
}

static const char acl_tsv[] =
    "# ACL return codes\n"
    "#! id-prefix = ascend.acl\n"
    "#! vendor = ascend\n"
    "#! category = device-fault\n"
    "#! severity = error\n"
    "#! family = ACL return codes\n"
    "#! cause = ACL returned {code}: {title}.\n"
    "#! template = error code( is)?[ =:]*{code}([^0-9]|$)\n"
    "#! template = ret=0x{code}\n"
    "code\ttitle\tfix\texample\tcategory\tseverity\trole\tpattern\tcounter\tid\n"
    "507015\tAI Core failed ({code})\trun msaicerr ;; check the op {code}\terror code is 507015 ;; "
    "ret=0x507015\t\t\t\t\terror code is 5070150\t\n"
    "207001\tOut of device memory\tsmaller batch\terror code: 207001\tdevice-oom\twarning\tsymptom\t\t\t\n"
    "E.9999\tInner error\tsee the line before\tE.9999: Inner Error!\t\t\twrapper\t\t\t\n"
    "EL0004\tAllocation failed\tfree memory\tEL0004 happened ;; [EL0004]\tdevice-oom\t\t\t"
    "EL000[4] || alloc failed {code}\t\tcustom.el4\n";

static void test_defaults_templates_ids(void **state)
{
    (void)state;
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    nd_kb_parse_catalog(&set, "acl.tsv", acl_tsv, strlen(acl_tsv), false, &problems);
    dump(&problems);
    assert_int_equal(problems.n, 0);
    assert_int_equal(set.n, 4);

    const struct nd_kb_rule *r = find(&set, "ascend.acl.507015");
    assert_non_null(r);
    assert_int_equal(r->line, 11);
    assert_string_equal(r->category, "device-fault");
    assert_string_equal(r->vendor, "ascend");
    assert_string_equal(r->family, "ACL return codes");
    assert_string_equal(r->file, "acl.tsv");
    assert_int_equal(r->severity, ND_SEV_ERROR);
    assert_int_equal(r->role, ND_ROLE_CAUSE);
    /* {code} in title and fix, {code} and {title} in the default cause. */
    assert_string_equal(r->title, "AI Core failed (507015)");
    assert_string_equal(r->cause, "ACL returned 507015: AI Core failed (507015).");
    assert_int_equal(r->fixes.n, 2);
    assert_string_equal(r->fixes.v[0], "run msaicerr");
    assert_string_equal(r->fixes.v[1], "check the op 507015");
    assert_int_equal(r->examples.n, 2);
    assert_string_equal(r->examples.v[1], "ret=0x507015");
    assert_int_equal(r->examples.line[1], 11);
    assert_int_equal(r->counters.n, 1);
    /* Both templates, {code} filled in. */
    assert_int_equal(r->patterns.n, 2);
    assert_string_equal(r->patterns.v[0], "error code( is)?[ =:]*507015([^0-9]|$)");
    assert_string_equal(r->patterns.v[1], "ret=0x507015");

    r = find(&set, "ascend.acl.207001");
    assert_non_null(r);
    assert_string_equal(r->category, "device-oom");
    assert_int_equal(r->severity, ND_SEV_WARNING);
    assert_int_equal(r->role, ND_ROLE_SYMPTOM);

    /* The id lower-cases the code and turns other bytes into '-'; the
     * template escapes regex metacharacters of the code. */
    r = find(&set, "ascend.acl.e-9999");
    assert_non_null(r);
    assert_int_equal(r->role, ND_ROLE_WRAPPER);
    assert_string_equal(r->patterns.v[0], "error code( is)?[ =:]*E\\.9999([^0-9]|$)");

    /* An id column and a pattern column replace the derived id and the templates. */
    r = find(&set, "custom.el4");
    assert_non_null(r);
    assert_int_equal(r->patterns.n, 2);
    assert_string_equal(r->patterns.v[0], "EL000[4]");
    assert_string_equal(r->patterns.v[1], "alloc failed EL0004");
    assert_int_equal(r->examples.n, 2);
    assert_string_equal(r->examples.v[1], "[EL0004]");

    nd_kb_check_rules(&set, NULL, &problems);
    dump(&problems);
    assert_int_equal(problems.n, 0);
    nd_kb_ruleset_release(&set);
    nd_strv_release(&problems);
}

static void test_id_and_numeric_helpers(void **state)
{
    (void)state;
    char *id = nd_kb_catalog_id("ascend.hccl", "EI0006");
    assert_string_equal(id, "ascend.hccl.ei0006");
    free(id);
    id = nd_kb_catalog_id("ascend.dcmi", "-8005");
    assert_string_equal(id, "ascend.dcmi.-8005");
    free(id);
    id = nd_kb_catalog_id("torch", "ERR01/002 x");
    assert_string_equal(id, "torch.err01-002-x");
    free(id);
    assert_true(nd_kb_catalog_code_is_numeric("507015"));
    assert_true(nd_kb_catalog_code_is_numeric("-8001"));
    assert_true(nd_kb_catalog_code_is_numeric("0x7BC0"));
    assert_false(nd_kb_catalog_code_is_numeric("EL0004"));
    assert_false(nd_kb_catalog_code_is_numeric("-"));
    assert_false(nd_kb_catalog_code_is_numeric("0x"));
}

static void test_literal_word_without_templates(void **state)
{
    (void)state;
    const char *text = "#! id-prefix = a\n#! category = device-fault\n"
                       "code\ttitle\tfix\texample\tcounter\n"
                       "EZ9999\tInner\tlook around\tEZ9999: Inner Error! ;; [ERROR] (EZ9999)\tXEZ9999 ;; EZ99990\n";
    struct nd_kb *kb = calloc(1, sizeof *kb);
    struct nd_strv problems = {0};
    nd_kb_parse_catalog(&kb->rules, "w.tsv", text, strlen(text), false, &problems);
    nd_kb_check_rules(&kb->rules, NULL, &problems);
    dump(&problems);
    assert_int_equal(problems.n, 0);
    assert_int_equal(kb->rules.n, 1);
    assert_string_equal(kb->rules.v[0].patterns.v[0], "(^|[^A-Za-z0-9])EZ9999([^A-Za-z0-9]|$)");
    struct nd_error err = {0};
    assert_int_equal(nd_kb_compile(kb, &err), 0);
    /* Examples match, the counters (code glued to letters or digits) do not. */
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    size_t checked = 0;
    assert_int_equal(nd_kb_test_examples(kb, fp, &checked), 0);
    fclose(fp);
    assert_int_equal(checked, 4);
    free(buf);
    nd_kb_free(kb);
    nd_strv_release(&problems);
}

static void test_lint_problems_with_lines(void **state)
{
    (void)state;
    const char *text = "#! id-prefix = t\n"                              /* 1 */
                       "#! vendor = amd\n"                               /* 2 */
                       "#! colour = blue\n"                              /* 3 */
                       "#! template = no placeholder\n"                  /* 4 */
                       "code\ttitle\tfix\texample\tseverity\tcategory\n" /* 5 */
                       "A1\tT\tF\tA1\tfatal\tconfig\n"                   /* 6 */
                       "A2\tT\tF\n"                                      /* 7 */
                       "A3\t\tF\tA3\t\tconfig\n"                         /* 8 */
                       "A4\tT\tF\tA4\t\tnot-a-category\n"                /* 9 */
                       "#! role = cause\n"                               /* 10 */
                       "A5\tT\tF\tA5\t\tconfig\n"                        /* 11 */
                       "A5\tT\tF\tA5\t\tconfig\n"                        /* 12 */
                       "507000\tT\tF\terror code is 507000\t\tconfig\n"  /* 13 */
                       "A6\tT\tF\tA6\t\t\n";                             /* 14 */
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    nd_kb_parse_catalog(&set, "bad.tsv", text, strlen(text), false, &problems);
    nd_kb_check_rules(&set, NULL, &problems);
    dump(&problems);
    assert_true(has_problem(&problems, "bad.tsv:2: vendor 'amd' is not ascend, nvidia, rocm or any"));
    assert_true(has_problem(&problems, "bad.tsv:3: unknown default 'colour'"));
    assert_true(has_problem(&problems, "bad.tsv:4: template does not contain {code}"));
    assert_true(has_problem(&problems, "bad.tsv:6: [t.a1] severity 'fatal'"));
    assert_true(has_problem(&problems, "bad.tsv:7: 3 fields, the header has 6"));
    assert_true(has_problem(&problems, "bad.tsv:8: row A3 has no title"));
    assert_true(has_problem(&problems, "bad.tsv:9: [t.a4] category 'not-a-category'"));
    assert_true(has_problem(&problems, "bad.tsv:10: '#!' defaults must come before the header"));
    assert_true(has_problem(&problems, "bad.tsv:12: duplicate rule id [t.a5] (first at line 11)"));
    assert_true(has_problem(&problems, "bad.tsv:13: numeric code 507000 needs a template or a pattern"));
    assert_true(has_problem(&problems, "bad.tsv:14: [t.a6] has no category"));
    assert_int_equal(problems.n, 11);
    nd_kb_ruleset_release(&set);
    nd_strv_release(&problems);

    /* Header problems: unknown and missing columns; rows are then skipped. */
    const char *hdr = "#! id-prefix = t\ncode\ttitle\texample\tcolour\nA\tB\tC\tD\n";
    nd_kb_parse_catalog(&set, "hdr.tsv", hdr, strlen(hdr), false, &problems);
    dump(&problems);
    assert_true(has_problem(&problems, "hdr.tsv:2: unknown column 'colour'"));
    assert_true(has_problem(&problems, "hdr.tsv:2: header lacks the required column 'fix'"));
    assert_int_equal(problems.n, 2);
    assert_int_equal(set.n, 0);
    nd_strv_release(&problems);

    /* Templates are checked once, at their own line. */
    const char *tpl = "#! id-prefix = t\n#! category = config\n#! template = ({code}\n#! template = ({code})?\n"
                      "code\ttitle\tfix\texample\nA\tT\tF\tA\n";
    nd_kb_parse_catalog(&set, "tpl.tsv", tpl, strlen(tpl), false, &problems);
    dump(&problems);
    assert_true(has_problem(&problems, "tpl.tsv:3: template does not compile"));
    assert_true(has_problem(&problems, "tpl.tsv:4: template can match an empty line"));
    assert_int_equal(problems.n, 2);
    /* Both templates refused: the row falls back to the code as a word. */
    assert_int_equal(set.n, 1);
    assert_true(set.v[0].patterns_checked);
    assert_string_equal(set.v[0].patterns.v[0], "(^|[^A-Za-z0-9])A([^A-Za-z0-9]|$)");
    nd_kb_ruleset_release(&set);
    nd_strv_release(&problems);

    /* No id at all, a pattern that does not compile, no header. */
    const char *noid = "code\ttitle\tfix\texample\tpattern\tid\tcategory\n"
                       "A\tT\tF\tA\t\t\tconfig\n"
                       "B\tT\tF\tB\tB(\tb.x\tconfig\n";
    nd_kb_parse_catalog(&set, "noid.tsv", noid, strlen(noid), false, &problems);
    nd_kb_check_rules(&set, NULL, &problems);
    dump(&problems);
    assert_true(has_problem(&problems, "noid.tsv:2: row A has no id and the file no '#! id-prefix'"));
    assert_true(has_problem(&problems, "noid.tsv:3: [b.x] pattern does not compile"));
    assert_int_equal(problems.n, 2);
    nd_kb_ruleset_release(&set);
    nd_strv_release(&problems);
    nd_kb_parse_catalog(&set, "empty.tsv", "# only a comment\n", 17, false, &problems);
    assert_true(has_problem(&problems, "empty.tsv:1: no header line"));
    nd_strv_release(&problems);
}

static void test_override_by_id(void **state)
{
    (void)state;
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    const char *ini = "[ascend.acl.507015]\ncategory = device-fault\npattern = X507015\ntitle = INI\n"
                      "fix = f\nexample = X507015\n";
    nd_kb_parse_rules(&set, "builtin.rules", ini, strlen(ini), false, &problems);
    const char *row = "#! id-prefix = ascend.acl\n#! category = config\n#! template = error code is {code}\n"
                      "code\ttitle\tfix\texample\n507015\tSite title\tsite fix\terror code is 507015\n";
    /* Not replacing (the compiled-in set): a duplicate. */
    nd_kb_parse_catalog(&set, "dup.tsv", row, strlen(row), false, &problems);
    dump(&problems);
    assert_int_equal(problems.n, 1);
    assert_true(has_problem(&problems, "dup.tsv:5: duplicate rule id [ascend.acl.507015] (first in builtin.rules:1)"));
    assert_int_equal(set.n, 1);
    assert_string_equal(set.v[0].title, "INI");
    nd_strv_release(&problems);
    /* A later directory replaces the rule of that id. */
    nd_kb_parse_catalog(&set, "site.tsv", row, strlen(row), true, &problems);
    assert_int_equal(problems.n, 0);
    assert_int_equal(set.n, 1);
    assert_string_equal(set.v[0].title, "Site title");
    assert_string_equal(set.v[0].file, "site.tsv");
    /* And a later INI rule replaces the row. */
    nd_kb_parse_rules(&set, "later.rules", ini, strlen(ini), true, &problems);
    assert_int_equal(problems.n, 0);
    assert_int_equal(set.n, 1);
    assert_string_equal(set.v[0].title, "INI");
    nd_kb_ruleset_release(&set);
    nd_strv_release(&problems);
}

static void test_example_mismatch_fails_rules_test(void **state)
{
    (void)state;
    const char *text = "#! id-prefix = t\n#! category = device-fault\n"
                       "#! template = (error code is |ret=){code}([^0-9]|$)\n"
                       "code\ttitle\tfix\texample\tcounter\n"
                       "507015\tT\tF\terror code is 507015\tret=5070150\n"
                       "507016\tT\tF\terror code is 507017\t\n"
                       "507018\tT\tF\tret=507018\tret=507018 again\n";
    struct nd_kb *kb = calloc(1, sizeof *kb);
    struct nd_strv problems = {0};
    nd_kb_parse_catalog(&kb->rules, "m.tsv", text, strlen(text), false, &problems);
    nd_kb_check_rules(&kb->rules, NULL, &problems);
    assert_int_equal(problems.n, 0);
    struct nd_error err = {0};
    assert_int_equal(nd_kb_compile(kb, &err), 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    size_t checked = 0;
    size_t fails = nd_kb_test_examples(kb, fp, &checked);
    fclose(fp);
    print_message("%s", buf);
    assert_int_equal(fails, 2);
    assert_int_equal(checked, 5);
    assert_non_null(strstr(buf, "m.tsv:6: [t.507016] example does not match: error code is 507017"));
    assert_non_null(strstr(buf, "m.tsv:7: [t.507018] counter example matches: ret=507018 again"));
    assert_null(strstr(buf, "t.507015"));
    free(buf);
    nd_kb_free(kb);
    nd_strv_release(&problems);
}

static void test_odd_bytes(void **state)
{
    (void)state;
    /* CRLF, a BOM, a NUL byte and a final line without newline. */
    const char text[] = "\xEF\xBB\xBF#! id-prefix = t\r\n#! category = config\r\ncode\ttitle\tfix\texample\r\n"
                        "A\0"
                        "B\tT\tF\tA\r\nCC\tT\tF\tCC";
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    nd_kb_parse_catalog(&set, "o.tsv", text, sizeof text - 1, false, &problems);
    dump(&problems);
    assert_int_equal(problems.n, 1);
    assert_true(has_problem(&problems, "o.tsv:4: NUL byte"));
    assert_int_equal(set.n, 1);
    assert_string_equal(set.v[0].id, "t.cc");
    assert_string_equal(set.v[0].examples.v[0], "CC");
    nd_kb_ruleset_release(&set);
    nd_strv_release(&problems);
}

static void test_many_rows_linear(void **state)
{
    (void)state;
    /* 20,000 rows: the id index keeps duplicate checks cheap; every id is found. */
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    nd_strbuf_adds(&sb, "#! id-prefix = big\n#! category = config\ncode\ttitle\tfix\texample\n");
    for (int i = 0; i < 20000; i++)
        nd_strbuf_addf(&sb, "C%d\tT\tF\tC%d\n", i, i);
    nd_strbuf_adds(&sb, "C777\tT\tF\tC777\n");
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    nd_kb_parse_catalog(&set, "big.tsv", sb.buf, sb.len, false, &problems);
    assert_int_equal(set.n, 20000);
    assert_int_equal(problems.n, 1);
    assert_true(has_problem(&problems, "big.tsv:20004: duplicate rule id [big.c777] (first at line 781)"));
    nd_kb_ruleset_release(&set);
    nd_strv_release(&problems);
    nd_strbuf_release(&sb);
}

static void test_builtin_catalogues_clean(void **state)
{
    (void)state;
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    nd_kb_parse_builtin(&set, &problems);
    nd_kb_check_rules(&set, NULL, &problems);
    dump(&problems);
    assert_int_equal(problems.n, 0);
    nd_kb_ruleset_release(&set);
    nd_strv_release(&problems);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_templates_ids),
        cmocka_unit_test(test_id_and_numeric_helpers),
        cmocka_unit_test(test_literal_word_without_templates),
        cmocka_unit_test(test_lint_problems_with_lines),
        cmocka_unit_test(test_override_by_id),
        cmocka_unit_test(test_example_mismatch_fails_rules_test),
        cmocka_unit_test(test_odd_bytes),
        cmocka_unit_test(test_many_rows_linear),
        cmocka_unit_test(test_builtin_catalogues_clean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
