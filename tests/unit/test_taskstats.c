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
#include <signal.h>
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
static size_t notice_of(char *buf, uint32_t pid, uint32_t code, size_t stats_len, uint32_t ppid, uint32_t tgid,
                        const char *comm)
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
    ts.ac_ppid = ppid;
#if TASKSTATS_VERSION >= 12
    ts.ac_tgid = tgid;
#else
    (void)tgid;
#endif
    memcpy(ts.ac_comm, comm, strnlen(comm, sizeof ts.ac_comm - 1));
    put_attr(buf, &off, TASKSTATS_TYPE_STATS, &ts, stats_len);
    struct nlattr a = {.nla_len = (unsigned short)(off - agg), .nla_type = TASKSTATS_TYPE_AGGR_PID};
    memcpy(buf + agg, &a, sizeof a);
    struct nlmsghdr h = {.nlmsg_len = (uint32_t)off, .nlmsg_type = 0x1c};
    memcpy(buf, &h, sizeof h);
    struct genlmsghdr g = {.cmd = TASKSTATS_CMD_NEW, .version = 1};
    memcpy(buf + NLMSG_HDRLEN, &g, sizeof g);
    return off;
}

static size_t notice(char *buf, uint32_t pid, uint32_t code, size_t stats_len)
{
    return notice_of(buf, pid, code, stats_len, 1, pid, "python3");
}

struct heard {
    size_t n;
    struct nd_exit_notice last;
};

static void hear(const struct nd_exit_notice *n, void *arg)
{
    struct heard *h = arg;
    h->n++;
    h->last = *n;
}

static void test_each_tells_parent_name_and_group(void **state)
{
    (void)state;
    _Alignas(8) char buf[2048];
    struct heard h = {0};
    /* A worker killed as it started: its parent and name say whose it was. */
    size_t n = notice_of(buf, 4300, SIGKILL, sizeof(struct taskstats), 4242, 4300, "pt_data_worker");
    assert_int_equal(nd_taskstats_each(buf, n, hear, &h), 1);
    assert_int_equal(h.last.pid, 4300);
    assert_int_equal(h.last.ppid, 4242);
    assert_string_equal(h.last.comm, "pt_data_worker");
    assert_true(WIFSIGNALED(h.last.ws) && WTERMSIG(h.last.ws) == SIGKILL);
#if TASKSTATS_VERSION >= 12
    assert_int_equal(h.last.tgid, 4300);
    /* A thread's own notice names its group. */
    n = notice_of(buf, 4301, SIGKILL, sizeof(struct taskstats), 4242, 4300, "python3");
    assert_int_equal(nd_taskstats_each(buf, n, hear, &h), 1);
    assert_int_equal(h.n, 2);
    assert_int_equal(h.last.tgid, 4300);
#endif
    /* An older kernel's short struct: the status, no parent, no name. */
    n = notice_of(buf, 4302, 9, 64, 4242, 4302, "python3");
    nd_taskstats_each(buf, n, hear, &h);
    assert_int_equal(h.last.pid, 4302);
    assert_int_equal(h.last.ppid, 0);
    assert_string_equal(h.last.comm, "");
    /* Bytes that are not printable in the name are not passed on. */
    n = notice_of(buf, 4303, 9, sizeof(struct taskstats), 1, 4303, "a\033[2Jb");
    nd_taskstats_each(buf, n, hear, &h);
    assert_string_equal(h.last.comm, "a?[2Jb");
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
        cmocka_unit_test(test_each_tells_parent_name_and_group),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
