/* "Did you mean": Damerau-Levenshtein distance and the closeness rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/suggest.h"

static const char *const cmds[] = {"check", "run", "watch", "ps", "explain", "snapshot", "diff", "rules"};
#define NCMDS (sizeof cmds / sizeof *cmds)

static void test_distance(void **state)
{
    (void)state;
    assert_int_equal(nd_edit_distance("check", "check"), 0);
    assert_int_equal(nd_edit_distance("chek", "check"), 1);  /* insert */
    assert_int_equal(nd_edit_distance("chekc", "check"), 1); /* swap: 2 for plain Levenshtein */
    assert_int_equal(nd_edit_distance("cheque", "check"), 3);
    assert_int_equal(nd_edit_distance("", "ps"), 2);
    assert_int_equal(nd_edit_distance("ps", ""), 2);
    assert_int_equal(nd_edit_distance("kitten", "sitting"), 3);
    char longer[300];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    assert_true(nd_edit_distance(longer, "a") == (size_t)-1);
}

static void test_suggest(void **state)
{
    (void)state;
    assert_string_equal(nd_suggest("chek", cmds, NCMDS), "check");
    assert_string_equal(nd_suggest("chekc", cmds, NCMDS), "check");
    assert_string_equal(nd_suggest("explian", cmds, NCMDS), "explain");
    assert_string_equal(nd_suggest("snapshto", cmds, NCMDS), "snapshot");
    assert_string_equal(nd_suggest("rn", cmds, NCMDS), "run");
    assert_string_equal(nd_suggest("chec", cmds, NCMDS), "check"); /* a prefix */
    assert_null(nd_suggest("x", cmds, NCMDS));                     /* too short to guess */
    assert_null(nd_suggest("frobnicate", cmds, NCMDS));
    assert_null(nd_suggest("check", cmds, NCMDS)); /* known: nothing to suggest */
    assert_null(nd_suggest("", cmds, NCMDS));
    const char *const opts[] = {"level", "json", "quiet", NULL, "fail-on"};
    assert_string_equal(nd_suggest("levle", opts, 5), "level");
    assert_string_equal(nd_suggest("jsno", opts, 5), "json");
    assert_string_equal(nd_suggest("fail-no", opts, 5), "fail-on");
    assert_null(nd_suggest("verbose", opts, 5));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distance),
        cmocka_unit_test(test_suggest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
