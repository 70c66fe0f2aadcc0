/* Terminal decisions: UTF-8 locale or not, and word wrapping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/term.h"

static void test_utf8_locale(void **state)
{
    (void)state;
    assert_true(nd_term_utf8_from(NULL, NULL, NULL)); /* nothing set: assume UTF-8 */
    assert_false(nd_term_utf8_from(NULL, NULL, "C"));
    assert_false(nd_term_utf8_from("POSIX", NULL, "en_US.UTF-8")); /* LC_ALL decides first */
    assert_true(nd_term_utf8_from("", "zh_CN.utf8", "C"));         /* empty counts as unset */
    assert_false(nd_term_utf8_from(NULL, "en_US.ISO-8859-1", "en_US.UTF-8"));
    assert_true(nd_term_utf8_from(NULL, NULL, "de_DE.UTF-8@euro"));
    assert_true(nd_term_utf8_from(NULL, NULL, "C.UTF-8"));
}

static char *wrapped(const char *text, size_t col, size_t indent, int width, size_t *end)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    *end = nd_term_wrap(fp, text, col, NULL, indent, width);
    fclose(fp);
    return buf;
}

static void test_wrap(void **state)
{
    (void)state;
    size_t end;
    char *s = wrapped("short text", 4, 4, 80, &end);
    assert_string_equal(s, "short text");
    assert_int_equal(end, 14);
    free(s);
    s = wrapped("aaa bbb ccc ddd", 2, 4, 11, &end);
    assert_string_equal(s, "aaa bbb\n    ccc ddd");
    assert_int_equal(end, 11);
    free(s);
    s = wrapped("aaa bbb ccc ddd", 2, 4, 10, &end);
    assert_string_equal(s, "aaa bbb\n    ccc\n    ddd");
    free(s);
    /* A word longer than the line stays whole; runs of spaces collapse only when wrapping. */
    s = wrapped("x /a/very/long/path/that/does/not/fit y", 0, 2, 12, &end);
    assert_string_equal(s, "x\n  /a/very/long/path/that/does/not/fit\n  y");
    free(s);
    s = wrapped("a  b", 0, 0, 0, &end);
    assert_string_equal(s, "a  b");
    free(s);
    /* Continuation lines repeat the caller's prefix. */
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    end = nd_term_wrap(fp, "aaa bbb ccc", 6, "nd: ", 2, 14);
    fclose(fp);
    assert_string_equal(buf, "aaa bbb\nnd:   ccc");
    assert_int_equal(end, 9);
    free(buf);
    /* Columns, not bytes: "✓✓✓✓" is 4 columns. */
    assert_int_equal(nd_term_columns("\xe2\x9c\x93\xe2\x9c\x93\xe2\x9c\x93\xe2\x9c\x93"), 4);
    s = wrapped("\xe2\x9c\x93\xe2\x9c\x93 \xe2\x9c\x93\xe2\x9c\x93", 0, 0, 5, &end);
    assert_string_equal(s, "\xe2\x9c\x93\xe2\x9c\x93 \xe2\x9c\x93\xe2\x9c\x93");
    free(s);
}

static void test_width(void **state)
{
    (void)state;
    FILE *fp = tmpfile();
    assert_non_null(fp);
    assert_int_equal(nd_term_width(fp), 80); /* not a terminal */
    nd_term_set_wide(true);
    assert_int_equal(nd_term_width(fp), 0);
    nd_term_set_wide(false);
    fclose(fp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_utf8_locale),
        cmocka_unit_test(test_wrap),
        cmocka_unit_test(test_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
