/* Unit tests for the rule-file parser (kb_rules.c): repeated keys, long
 * lines and ';' in values (past Debian inih's limits), continuation lines,
 * and every problem reported as file:line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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

static void test_parse_repeated_keys(void **state)
{
    (void)state;
    const char *text = "# comment\n"
                       "[a.rule]\n"
                       "category = device-oom\n"
                       "severity = warning\n"
                       "pattern  = first ; not a comment\n"
                       "pattern  = second\n"
                       "fix      = one\n"
                       "fix      = two\n"
                       "  continued\n"
                       "title    = T\n"
                       "cause    = part one\n"
                       "  part two\n"
                       "example  = x first ; not a comment y\n"
                       "example  = second\n"
                       "counter  = nothing\n"
                       "outranks = b.rule, c.rule\n";
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    nd_kb_parse_rules(&set, "t.rules", text, strlen(text), false, &problems);
    assert_int_equal(problems.n, 0);
    assert_int_equal(set.n, 1);
    struct nd_kb_rule *r = &set.v[0];
    assert_string_equal(r->id, "a.rule");
    assert_int_equal(r->line, 2);
    assert_int_equal(r->severity, ND_SEV_WARNING);
    assert_int_equal(r->patterns.n, 2);
    assert_string_equal(r->patterns.v[0], "first ; not a comment");
    assert_int_equal(r->patterns.line[1], 6);
    assert_int_equal(r->fixes.n, 2);
    assert_string_equal(r->fixes.v[1], "two continued");
    assert_string_equal(r->cause, "part one part two");
    assert_int_equal(r->examples.n, 2);
    assert_int_equal(r->counters.n, 1);
    assert_int_equal(r->outranks.n, 2);
    assert_string_equal(r->outranks.v[1], "c.rule");
    nd_kb_ruleset_release(&set);
    nd_strv_release(&problems);
}

static void test_parse_long_line(void **state)
{
    (void)state;
    /* Debian's inih caps lines at 200 bytes; our reader passes values aside. */
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    nd_strbuf_adds(&sb, "[long]\ncategory = config\nfix = f\ntitle = t\npattern = ");
    for (int i = 0; i < 300; i++)
        nd_strbuf_adds(&sb, "abcd");
    nd_strbuf_adds(&sb, "\nexample = after\n");
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    nd_kb_parse_rules(&set, "l.rules", sb.buf, sb.len, false, &problems);
    assert_int_equal(problems.n, 0);
    assert_int_equal(set.n, 1);
    assert_int_equal(strlen(set.v[0].patterns.v[0]), 1200);
    assert_int_equal(set.v[0].examples.line[0], 6);
    nd_kb_ruleset_release(&set);
    nd_strv_release(&problems);
    nd_strbuf_release(&sb);
}

static void test_lint_problems(void **state)
{
    (void)state;
    const char *text = "[x.one]\n"                  /* 1 */
                       "category = nonsense\n"      /* 2 */
                       "pattern = a(b\n"            /* 3 */
                       "title = t {nocap}\n"        /* 4 */
                       "flavour = sweet\n"          /* 5 */
                       "example = ab\n"             /* 6 */
                       "\n"                         /* 7 */
                       "[x.one]\n"                  /* 8 */
                       "category = config\n"        /* 9 */
                       "severity = loud\n"          /* 10 */
                       "just a line\n"              /* 11 */
                       "[Bad Id]\n"                 /* 12 */
                       "category = config\n"        /* 13 */
                       "pattern = ok\n"             /* 14 */
                       "fix = f\n"                  /* 15 */
                       "title = t\n"                /* 16 */
                       "example = ok\n"             /* 17 */
                       "capture = broken\n"         /* 18 */
                       "outranks = no.such.rule\n"; /* 19 */
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    nd_kb_parse_rules(&set, "p.rules", text, strlen(text), false, &problems);
    nd_kb_check_rules(&set, NULL, &problems);
    assert_true(has_problem(&problems, "p.rules:5: unknown key 'flavour'"));
    assert_true(has_problem(&problems, "p.rules:8: duplicate rule id [x.one]"));
    assert_true(has_problem(&problems, "p.rules:10: severity 'loud'"));
    assert_true(has_problem(&problems, "p.rules:11: expected 'key = value'"));
    assert_true(has_problem(&problems, "p.rules:3: [x.one] pattern does not compile"));
    assert_true(has_problem(&problems, "p.rules:1: [x.one] category 'nonsense'"));
    assert_true(has_problem(&problems, "p.rules:1: [x.one] has no fix"));
    assert_true(has_problem(&problems, "no capture has that name"));
    assert_true(has_problem(&problems, "p.rules:12: rule id [Bad Id]"));
    assert_true(has_problem(&problems, "p.rules:18: [Bad Id] capture must be"));
    assert_true(has_problem(&problems, "p.rules:19: [Bad Id] outranks unknown rule 'no.such.rule'"));
    /* The duplicate is dropped; the first definition stays. */
    assert_int_equal(set.n, 2);
    nd_kb_ruleset_release(&set);
    nd_strv_release(&problems);
}

static void test_expand_captures(void **state)
{
    (void)state;
    const char *text = "[c.rule]\ncategory = device-oom\npattern = x\nfix = free {req|some} now\n"
                       "title = OOM{req? of $}{dev? on $}\nexample = x\n"
                       "capture = req: allocate ([0-9.]+ [GM]iB)\ncapture = dev: \\((NPU [0-9]+)\n";
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    nd_kb_parse_rules(&set, "c.rules", text, strlen(text), false, &problems);
    nd_kb_check_rules(&set, NULL, &problems);
    assert_int_equal(problems.n, 0);
    const struct nd_kb_rule *r = &set.v[0];
    char *t = nd_kb_expand(r, r->title, "Tried to allocate 2.00 GiB (NPU 3; ...)");
    assert_string_equal(t, "OOM of 2.00 GiB on NPU 3");
    free(t);
    t = nd_kb_expand(r, r->title, "no sizes here");
    assert_string_equal(t, "OOM");
    free(t);
    t = nd_kb_expand(r, r->fixes.v[0], "no sizes here");
    assert_string_equal(t, "free some now");
    free(t);
    nd_kb_ruleset_release(&set);
    nd_strv_release(&problems);
}

static void test_require(void **state)
{
    (void)state;
    const char *text = "[f.rule]\ncategory = device-oom\npattern = x\nfix = f\ntitle = t\nexample = x\n"
                       "capture = req: allocate ([0-9.]+ [GM]iB)\ncapture = alloc: ([0-9.]+ [GM]iB) allocated\n"
                       "capture = res: ([0-9.]+ [GM]iB) reserved\nrequire = res - alloc > req\n"
                       "[g.rule]\ncategory = config\npattern = y\nfix = f\ntitle = t\nexample = y\n"
                       "require = a >> b\n"
                       "[h.rule]\ncategory = config\npattern = z\nfix = f\ntitle = t\nexample = z\n"
                       "require = nope > other\n";
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    nd_kb_parse_rules(&set, "r.rules", text, strlen(text), false, &problems);
    nd_kb_check_rules(&set, NULL, &problems);
    assert_int_equal(problems.n, 2);
    assert_true(has_problem(&problems, "r.rules:17: [g.rule] require must be"));
    assert_true(has_problem(&problems, "r.rules:24: [h.rule] require uses 'nope'"));
    const struct nd_kb_rule *r = &set.v[0];
    assert_true(nd_kb_rule_accepts(r, "allocate 2.00 GiB; 50.00 GiB allocated; 58.00 GiB reserved"));
    assert_false(nd_kb_rule_accepts(r, "allocate 2.00 GiB; 57.00 GiB allocated; 58.00 GiB reserved"));
    assert_false(nd_kb_rule_accepts(r, "allocate 2.00 GiB; 58.00 GiB reserved"));
    assert_true(nd_kb_rule_accepts(&set.v[1], "anything")); /* broken require: not enforced */
    nd_kb_ruleset_release(&set);
    nd_strv_release(&problems);
}

/* example-block / counter-block: the value and its indented lines are one
 * little log, '\n'-joined; "|" keeps a line's own leading blanks; an empty
 * first value starts on the next line; a block with no line is a problem. */
static void test_parse_blocks(void **state)
{
    (void)state;
    const char *text = "[b.rule]\n"
                       "category = hang\n"
                       "pattern  = MARK\n"
                       "requires = re:^ctx\n"
                       "title    = T\n"
                       "fix      = F\n"
                       "example-block = ctx line ; kept\n"
                       "    MARK here\n"
                       "counter-block =\n"
                       "    first\n"
                       "    |  File \"x.py\", line 1\n"
                       "    MARK\n"
                       "counter-block = only MARK\n"
                       "[c.rule]\n"
                       "category = hang\n"
                       "pattern  = OTHER\n"
                       "title    = T\n"
                       "fix      = F\n"
                       "example-block =\n";
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    nd_kb_parse_rules(&set, "b.rules", text, strlen(text), false, &problems);
    nd_kb_check_rules(&set, NULL, &problems);
    assert_int_equal(set.n, 2);
    struct nd_kb_rule *r = &set.v[0];
    assert_int_equal(r->examples.n, 0);
    assert_int_equal(r->example_blocks.n, 1);
    assert_string_equal(r->example_blocks.v[0], "ctx line ; kept\nMARK here");
    assert_int_equal(r->example_blocks.line[0], 7);
    assert_int_equal(r->counter_blocks.n, 2);
    assert_string_equal(r->counter_blocks.v[0], "first\n  File \"x.py\", line 1\nMARK");
    assert_int_equal(r->counter_blocks.line[0], 9);
    assert_string_equal(r->counter_blocks.v[1], "only MARK");
    /* A block stands in for a one-line example; an empty one does not. */
    assert_false(has_problem(&problems, "[b.rule] has no example"));
    assert_true(has_problem(&problems, "b.rules:19: [c.rule] example-block has no lines"));
    assert_int_equal(problems.n, 1);
    nd_kb_ruleset_release(&set);
    nd_strv_release(&problems);
}

static void test_builtin_rules_clean(void **state)
{
    (void)state;
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    nd_kb_parse_builtin(&set, &problems);
    nd_kb_check_rules(&set, NULL, &problems);
    for (size_t i = 0; i < problems.n; i++)
        print_message("%s\n", problems.v[i]);
    assert_int_equal(problems.n, 0);
    assert_true(set.n >= 100);
    nd_kb_ruleset_release(&set);
    nd_strv_release(&problems);
}

/* 20000 rules, one id repeated far apart: the hashed id index must still
 * find it, report the first place, and keep the set free of the copy; an
 * override from a later file replaces the rule in place. */
static void test_duplicate_among_many(void **state)
{
    (void)state;
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    const size_t n = 20000;
    for (size_t i = 0; i < n; i++)
        nd_strbuf_addf(&sb, "[gen.r%zu]\ncategory = config\npattern = token%zu\n", i, i);
    nd_strbuf_addf(&sb, "[gen.r7]\ncategory = config\npattern = again\n");
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    nd_kb_parse_rules(&set, "big.rules", sb.buf, sb.len, false, &problems);
    assert_int_equal(set.n, n);
    assert_int_equal(problems.n, 1);
    assert_true(has_problem(&problems, "duplicate rule id [gen.r7] (first at line 22)"));
    size_t idx = 0;
    assert_non_null(nd_kb_ruleset_find(&set, "gen.r19999", &idx));
    assert_int_equal(idx, 19999);
    assert_null(nd_kb_ruleset_find(&set, "gen.r20000", NULL));
    assert_string_equal(set.v[7].patterns.v[0], "token7");
    const char *over = "[gen.r5]\ncategory = config\npattern = override\n";
    nd_kb_parse_rules(&set, "site.rules", over, strlen(over), true, &problems);
    assert_int_equal(set.n, n);
    assert_int_equal(problems.n, 1);
    assert_non_null(nd_kb_ruleset_find(&set, "gen.r5", &idx));
    assert_int_equal(idx, 5);
    assert_string_equal(set.v[5].patterns.v[0], "override");
    nd_kb_ruleset_release(&set);
    nd_strv_release(&problems);
    nd_strbuf_release(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_repeated_keys),
        cmocka_unit_test(test_parse_long_line),
        cmocka_unit_test(test_lint_problems),
        cmocka_unit_test(test_expand_captures),
        cmocka_unit_test(test_require),
        cmocka_unit_test(test_parse_blocks),
        cmocka_unit_test(test_builtin_rules_clean),
        cmocka_unit_test(test_duplicate_among_many),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
