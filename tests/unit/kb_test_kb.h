/* For the kb unit tests: a knowledge base of only the rules given (INI text),
 * compiled, with no cache; any lint problem fails the test. Include after
 * <cmocka.h> and kb/kb_internal.h. */
#ifndef ND_TESTS_KB_TEST_KB_H
#define ND_TESTS_KB_TEST_KB_H

static struct nd_kb *nd_test_kb(const char *rules_text)
{
    setenv("NPU_DOCTOR_CACHE_DIR", "", 1);
    struct nd_kb *kb = calloc(1, sizeof *kb);
    struct nd_strv problems = {0};
    nd_kb_parse_rules(&kb->rules, "t.rules", rules_text, strlen(rules_text), false, &problems);
    nd_kb_check_rules(&kb->rules, NULL, &problems);
    for (size_t i = 0; i < problems.n; i++)
        print_message("%s\n", problems.v[i]);
    assert_int_equal(problems.n, 0);
    nd_strv_release(&problems);
    struct nd_error err = {0};
    assert_int_equal(nd_kb_compile(kb, &err), 0);
    return kb;
}

#endif
