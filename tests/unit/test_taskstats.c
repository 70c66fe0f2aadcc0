/* Unit tests for the taskstats exit-notice parser (proc/taskstats.c) on
 * datagrams laid out as the kernel sends them. */
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "proc/taskstats.h"

/* Appends attribute (type, payload) at buf+*off; returns its start. */
static size_t put_attr(char *buf, size_t *off, unsigned short type, const void *p, size_t len)
{
    size_t at = *off;
    struct nlattr a = {.nla_len = (unsigned short)(NLA_HDRLEN + len), .nla_type = type};
    memcpy(buf + at, &a, sizeof a);
    if (p)
        memcpy(buf + at + NLA_HDRLEN, p, len);
    *off = at + NLA_ALIGN(a.nla_len);
    return at;
}

/* One TASKSTATS_CMD_NEW notice for pid with exit code code; stats_len
 * bytes of struct taskstats. Returns the datagram's length. */
static size_t notice(char *buf, uint32_t pid, uint32_t code, size_t stats_len)
{
    memset(buf, 0, 1024);
    size_t off = NLMSG_LENGTH(GENL_HDRLEN);
    size_t agg = off;
    off += NLA_HDRLEN;
    put_attr(buf, &off, TASKSTATS_TYPE_PID, &pid, sizeof pid);
    struct taskstats ts;
    memset(&ts, 0, sizeof ts);
    ts.version = TASKSTATS_VERSION;
    ts.ac_exitcode = code;
    put_attr(buf, &off, TASKSTATS_TYPE_STATS, &ts, stats_len);
    struct nlattr a = {.nla_len = (unsigned short)(off - agg), .nla_type = TASKSTATS_TYPE_AGGR_PID};
    memcpy(buf + agg, &a, sizeof a);
    struct nlmsghdr h = {.nlmsg_len = (uint32_t)off, .nlmsg_type = 0x1c};
    memcpy(buf, &h, sizeof h);
    struct genlmsghdr g = {.cmd = TASKSTATS_CMD_NEW, .version = 1};
    memcpy(buf + NLMSG_HDRLEN, &g, sizeof g);
    return off;
}

static void test_exit_status_of_the_pid(void **state)
{
    (void)state;
    _Alignas(8) char buf[2048];
    int ws = -1;
    size_t n = notice(buf, 4242, 5 << 8, sizeof(struct taskstats));
    assert_true(nd_taskstats_parse(buf, n, 4242, &ws));
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 5);
    assert_false(nd_taskstats_parse(buf, n, 4243, &ws)); /* another process's exit */
    n = notice(buf, 7, 11, sizeof(struct taskstats));
    assert_true(nd_taskstats_parse(buf, n, 7, &ws));
    assert_true(WIFSIGNALED(ws));
    assert_int_equal(WTERMSIG(ws), 11);
}

static void test_second_notice_in_a_datagram(void **state)
{
    (void)state;
    _Alignas(8) char buf[2048];
    int ws = -1;
    size_t a = notice(buf, 17, 0, sizeof(struct taskstats));
    size_t b = notice(buf + NLMSG_ALIGN(a), 4242, 1 << 8, sizeof(struct taskstats));
    assert_true(nd_taskstats_parse(buf, NLMSG_ALIGN(a) + b, 4242, &ws));
    assert_int_equal(WEXITSTATUS(ws), 1);
}

static void test_short_or_cut_notices(void **state)
{
    (void)state;
    _Alignas(8) char buf[2048];
    int ws = -1;
    /* A stats struct too short to hold the exit code. */
    size_t n = notice(buf, 4242, 5 << 8, offsetof(struct taskstats, ac_exitcode));
    assert_false(nd_taskstats_parse(buf, n, 4242, &ws));
    /* A datagram cut in the middle. */
    n = notice(buf, 4242, 5 << 8, sizeof(struct taskstats));
    assert_false(nd_taskstats_parse(buf, 40, 4242, &ws));
    assert_false(nd_taskstats_parse(buf, 0, 4242, &ws));
    /* An older kernel's shorter struct still carries the code. */
    n = notice(buf, 4242, 3 << 8, 64);
    assert_true(nd_taskstats_parse(buf, n, 4242, &ws));
    assert_int_equal(WEXITSTATUS(ws), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_status_of_the_pid),
        cmocka_unit_test(test_second_notice_in_a_datagram),
        cmocka_unit_test(test_short_or_cut_notices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
