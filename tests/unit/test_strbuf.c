/* core/strbuf.h and core/array.h: a buffer is a valid empty string from
 * ND_STRBUF_INIT on, the shared empty string is never freed or written, and
 * arrays grow without losing what they hold. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/array.h"
#include "core/strbuf.h"

/* File scope: ND_STRBUF_INIT is a constant initialiser. */
static struct nd_strbuf file_scope = ND_STRBUF_INIT;

static void test_init_is_empty_string(void **state)
{
    (void)state;
    struct nd_strbuf sb = ND_STRBUF_INIT;
    assert_non_null(sb.buf);
    assert_string_equal(sb.buf, "");
    assert_int_equal(sb.len, 0);
    assert_non_null(file_scope.buf);
    assert_string_equal(file_scope.buf, "");

    struct nd_strbuf other;
    memset(&other, 0x5a, sizeof other);
    nd_strbuf_init(&other);
    assert_ptr_equal(other.buf, sb.buf); /* both the shared empty string */

    /* Releasing a buffer that never allocated frees nothing (ASan would
     * catch a free of the static) and leaves it usable. */
    nd_strbuf_release(&sb);
    assert_non_null(sb.buf);
    assert_string_equal(sb.buf, "");
    nd_strbuf_reset(&sb);
    assert_string_equal(sb.buf, "");
    assert_int_equal(nd_strbuf_empty[0], '\0');
}

static void test_first_add_allocates(void **state)
{
    (void)state;
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_adds(&sb, "npu");
    assert_ptr_not_equal(sb.buf, nd_strbuf_empty);
    assert_string_equal(sb.buf, "npu");
    nd_strbuf_addf(&sb, "-%d", 7);
    assert_string_equal(sb.buf, "npu-7");
    assert_int_equal(sb.len, 5);
    nd_strbuf_reset(&sb);
    assert_string_equal(sb.buf, "");
    assert_ptr_not_equal(sb.buf, nd_strbuf_empty); /* the allocation is kept */
    nd_strbuf_release(&sb);
    assert_ptr_equal(sb.buf, nd_strbuf_empty);
    assert_int_equal(nd_strbuf_empty[0], '\0');
}

static void test_empty_format_keeps_shared_string(void **state)
{
    (void)state;
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_addf(&sb, "%s", "");
    assert_ptr_equal(sb.buf, nd_strbuf_empty);
    assert_int_equal(sb.len, 0);
    nd_strbuf_release(&sb);
}

static void test_detach(void **state)
{
    (void)state;
    struct nd_strbuf sb = ND_STRBUF_INIT;
    size_t len = 99;
    char *p = nd_strbuf_detach(&sb, &len);
    assert_ptr_not_equal(p, nd_strbuf_empty); /* always the caller's to free */
    assert_string_equal(p, "");
    assert_int_equal(len, 0);
    free(p);

    nd_strbuf_add(&sb, "ab\0c", 4);
    p = nd_strbuf_detach(&sb, &len);
    assert_int_equal(len, 4);
    assert_memory_equal(p, "ab\0c", 5);
    assert_string_equal(sb.buf, "");
    assert_int_equal(sb.len, 0);
    free(p);
    nd_strbuf_release(&sb);
}

/* A zeroed struct (a calloc'd owner) is accepted by every function too. */
static void test_zeroed_struct(void **state)
{
    (void)state;
    struct nd_strbuf sb;
    memset(&sb, 0, sizeof sb);
    nd_strbuf_reset(&sb);
    assert_non_null(sb.buf);
    assert_string_equal(sb.buf, "");
    memset(&sb, 0, sizeof sb);
    nd_strbuf_addc(&sb, 'x');
    assert_string_equal(sb.buf, "x");
    nd_strbuf_release(&sb);
    memset(&sb, 0, sizeof sb);
    nd_strbuf_release(&sb);
    assert_string_equal(sb.buf, "");
}

struct holder {
    int fixed[7];
};

static const char *const names[] = {"core", "device", "kb"};
/* A constant expression: usable as an array bound. */
static int sized[ND_ARRAY_SIZE(names)];

static void test_array_size(void **state)
{
    (void)state;
    struct holder h;
    assert_int_equal(ND_ARRAY_SIZE(h.fixed), 7);
    assert_int_equal(ND_ARRAY_SIZE(names), 3);
    assert_int_equal(ND_ARRAY_SIZE(sized), 3);
    sized[2] = 7; /* the bound really is 3 */
    assert_int_equal(sized[2], 7);
    assert_string_equal(names[2], "kb");
    char two[2][5];
    assert_int_equal(ND_ARRAY_SIZE(two), 2);
    assert_int_equal(ND_ARRAY_SIZE(two[0]), 5);
}

static void test_alloc_grow(void **state)
{
    (void)state;
    int *v = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < 1000; i++) {
        ND_ALLOC_GROW(v, n + 1, cap);
        assert_true(cap >= n + 1);
        v[n++] = i;
    }
    for (int i = 0; i < 1000; i++)
        assert_int_equal(v[i], i);

    /* Room already there: nothing moves. */
    int *before = v;
    size_t cap_before = cap;
    ND_ALLOC_GROW(v, cap, cap);
    assert_ptr_equal(v, before);
    assert_int_equal(cap, cap_before);

    /* A jump past twice the capacity lands on a capacity that fits it. */
    ND_ALLOC_GROW(v, cap * 5 + 3, cap);
    assert_true(cap >= cap_before * 5 + 3);
    v[cap - 1] = 1;
    assert_int_equal(v[999], 999);
    free(v);

    /* A capacity kept in an int and reached through a pointer. */
    double *d = NULL;
    int icap = 0;
    int *pcap = &icap;
    ND_ALLOC_GROW(d, 3, *pcap);
    assert_int_equal(icap, 16);
    d[2] = 0.5;
    free(d);
}

static void test_alloc_nr(void **state)
{
    (void)state;
    assert_int_equal(nd_alloc_nr(0, 1), 16);
    assert_int_equal(nd_alloc_nr(0, 17), 32);
    assert_int_equal(nd_alloc_nr(16, 17), 32);
    assert_int_equal(nd_alloc_nr(3, 4), 16);
    assert_int_equal(nd_alloc_nr(100, 101), 200);
    assert_int_equal(nd_alloc_nr(100, 1000), 1600);
}

/* Sizes that overflow abort with a message instead of allocating too little. */
static void test_overflow_aborts(void **state)
{
    (void)state;
    for (int which = 0; which < 2; which++) {
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0)
                dup2(null, 2);
            if (which == 0)
                (void)nd_xreallocarray(NULL, SIZE_MAX / 4 + 1, 8);
            else
                (void)nd_alloc_nr(SIZE_MAX / 2 + 1, SIZE_MAX);
            _exit(0);
        }
        int st = 0;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFSIGNALED(st));
        assert_int_equal(WTERMSIG(st), SIGABRT);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_is_empty_string),
        cmocka_unit_test(test_first_add_allocates),
        cmocka_unit_test(test_empty_format_keeps_shared_string),
        cmocka_unit_test(test_detach),
        cmocka_unit_test(test_zeroed_struct),
        cmocka_unit_test(test_array_size),
        cmocka_unit_test(test_alloc_grow),
        cmocka_unit_test(test_alloc_nr),
        cmocka_unit_test(test_overflow_aborts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
