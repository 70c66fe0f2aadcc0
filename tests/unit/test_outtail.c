/* monitor/outtail.h: the kept tail is the output's last bytes from a whole
 * line, a missing last newline is added, a flood keeps only the end, and a
 * cut says so and drops the partial first line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "monitor/outtail.h"

static void test_empty(void **state)
{
    (void)state;
    struct nd_outtail t = {0};
    size_t len = 1;
    bool cut = true;
    assert_null(nd_outtail_text(&t, &len, &cut));
    assert_int_equal(len, 0);
    assert_false(cut);
    nd_outtail_feed(&t, "", 0);
    assert_null(nd_outtail_text(&t, &len, &cut));
    nd_outtail_free(&t);
}

static void test_blocks_in_order_with_newline_added(void **state)
{
    (void)state;
    struct nd_outtail t = {0};
    nd_outtail_feed(&t, "step 1\n", 7);
    nd_outtail_feed(&t, "RuntimeError: boom", 18);
    size_t len;
    bool cut;
    const char *s = nd_outtail_text(&t, &len, &cut);
    assert_non_null(s);
    assert_false(cut);
    assert_int_equal(len, 26);
    assert_memory_equal(s, "step 1\nRuntimeError: boom\n", 26);
    nd_outtail_free(&t);
}

/* Many small blocks past twice the size: only the last ND_OUTTAIL_MAX bytes
 * stay, from the first whole line in them, and they end with the last line. */
static void test_flood_keeps_the_end(void **state)
{
    (void)state;
    struct nd_outtail t = {0};
    char line[32];
    size_t fed = 0;
    unsigned last = 0;
    for (unsigned i = 0; fed < 3 * ND_OUTTAIL_MAX; i++) {
        int n = snprintf(line, sizeof line, "line %07u\n", i);
        nd_outtail_feed(&t, line, (size_t)n);
        fed += (size_t)n;
        last = i;
    }
    size_t len;
    bool cut;
    const char *s = nd_outtail_text(&t, &len, &cut);
    assert_non_null(s);
    assert_true(cut);
    assert_true(len <= ND_OUTTAIL_MAX);
    assert_true(len > ND_OUTTAIL_MAX - sizeof line);
    assert_memory_equal(s, "line ", 5); /* starts at a whole line */
    snprintf(line, sizeof line, "line %07u\n", last);
    assert_memory_equal(s + len - strlen(line), line, strlen(line));
    nd_outtail_free(&t);
}

/* One block bigger than the tail: its end is kept, the partial line dropped. */
static void test_one_huge_block(void **state)
{
    (void)state;
    size_t n = ND_OUTTAIL_MAX + 100;
    char *big = malloc(n);
    assert_non_null(big);
    memset(big, 'x', n);
    memcpy(big + n - 10, "\nlast one\n", 10);
    struct nd_outtail t = {0};
    nd_outtail_feed(&t, big, n);
    size_t len;
    bool cut;
    const char *s = nd_outtail_text(&t, &len, &cut);
    assert_true(cut);
    assert_int_equal(len, 9);
    assert_memory_equal(s, "last one\n", 9);
    nd_outtail_free(&t);
    free(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_blocks_in_order_with_newline_added),
        cmocka_unit_test(test_flood_keeps_the_end),
        cmocka_unit_test(test_one_huge_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
