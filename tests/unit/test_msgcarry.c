/* monitor/msgcarry.h: the last message of a block is carried with the lines
 * before it that continue it, the next block's continuation lines join it
 * and its first new message does not, and a group too big to carry is not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "monitor/msgcarry.h"

static size_t tail_of(const char *block)
{
    return nd_msgcarry_tail_start(block, strlen(block));
}

static void test_tail_is_last_line(void **state)
{
    (void)state;
    const char *b = "step 1 loss 2.31\nRuntimeError: NPU out of\n";
    assert_string_equal(b + tail_of(b), "RuntimeError: NPU out of\n");
    /* A block of one line carries all of it. */
    assert_int_equal(tail_of("step 1\n"), 0);
    assert_int_equal(tail_of(""), 0);
}

static void test_tail_keeps_continuations(void **state)
{
    (void)state;
    const char *b =
        "step 1\nEZ9999: Inner Error!\n        TraceBack (most recent call last):\n        rtKernelLaunch failed\n";
    assert_string_equal(
        b + tail_of(b),
        "EZ9999: Inner Error!\n        TraceBack (most recent call last):\n        rtKernelLaunch failed\n");
    const char *r = "[rank0]: step 1\n[rank0]: RuntimeError: NPU out of\n[rank0]:     memory. Tried\n";
    assert_string_equal(r + tail_of(r), "[rank0]: RuntimeError: NPU out of\n[rank0]:     memory. Tried\n");
}

static void test_tail_too_big_is_not_carried(void **state)
{
    (void)state;
    static char big[ND_MSGCARRY_MAX + 400]; /* room for the last 155-byte line past the loop bound */
    size_t n = 0;
    n += (size_t)sprintf(big + n, "head\n");
    /* Fewer lines than the look-back, more bytes than the carry. */
    while (n < ND_MSGCARRY_MAX + 100)
        n += (size_t)sprintf(big + n, "    %0150d\n", 7);
    assert_int_equal(nd_msgcarry_tail_start(big, n), n);
}

static void test_lead_joins_continuations_only(void **state)
{
    (void)state;
    struct nd_msgcarry c = {0};
    const char *head = "RuntimeError: NPU out of\n";
    nd_msgcarry_set(&c, head, strlen(head), 5, 1.0, false, false, 0);
    const char *next = "    memory. Tried to allocate 2.00 GiB\n    (NPU 0)\nstep 2 loss 2.29\n";
    size_t lead = nd_msgcarry_lead(&c, next, strlen(next));
    assert_int_equal(lead, strlen("    memory. Tried to allocate 2.00 GiB\n    (NPU 0)\n"));
    assert_true(nd_msgcarry_append(&c, next, lead, 0));
    assert_int_equal(c.len, strlen(head) + lead);
    assert_int_equal(c.first_lineno, 5);
    /* A new message does not continue it. */
    const char *other = "step 3 loss 2.20\n";
    assert_int_equal(nd_msgcarry_lead(&c, other, strlen(other)), 0);
    /* Nothing carried: nothing leads. */
    struct nd_msgcarry empty = {0};
    assert_int_equal(nd_msgcarry_lead(&empty, next, strlen(next)), 0);
}

static void test_append_refuses_overflow(void **state)
{
    (void)state;
    struct nd_msgcarry c = {0};
    static char big[ND_MSGCARRY_MAX];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\n';
    nd_msgcarry_set(&c, big, sizeof big, 1, 0, false, false, 0);
    assert_int_equal(c.len, sizeof big);
    assert_false(nd_msgcarry_append(&c, "  more\n", 7, 0));
    assert_int_equal(c.len, sizeof big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tail_is_last_line),           cmocka_unit_test(test_tail_keeps_continuations),
        cmocka_unit_test(test_tail_too_big_is_not_carried), cmocka_unit_test(test_lead_joins_continuations_only),
        cmocka_unit_test(test_append_refuses_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
