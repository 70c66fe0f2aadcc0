/* Unit tests for proc/proc.c: the stat and status parsers on captured /proc
 * dumps (tests/fixtures/proc), and the readers on real processes this test
 * forks (a zombie, a small tree). */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "core/fileio.h"
#include "proc/proc.h"

static char *load_fixture(const char *name, size_t *len)
{
    const char *dir = getenv("ND_FIXTURES");
    assert_non_null(dir);
    char path[4096];
    snprintf(path, sizeof path, "%s/proc/%s", dir, name);
    char *buf = NULL;
    struct nd_error err = {0};
    int rc = nd_read_file(path, 1 << 24, &buf, len, &err);
    if (rc != 0)
        fail_msg("%s", err.msg);
    return buf;
}

static void test_parse_stat_plain(void **state)
{
    (void)state;
    size_t len;
    char *buf = load_fixture("stat_plain.txt", &len);
    struct nd_proc_stat st;
    assert_int_equal(nd_proc_parse_stat(buf, len, &st), 0);
    assert_int_equal(st.pid, 12176);
    assert_string_equal(st.comm, "cat");
    assert_int_equal(st.state, 'R');
    assert_int_equal(st.ppid, 12173);
    assert_int_equal(st.pgrp, 12173);
    assert_int_equal(st.session, 7379);
    assert_int_equal(st.num_threads, 1);
    assert_int_equal(st.starttime_ticks, 67064);
    assert_int_equal(st.rss_pages, 341);
    assert_int_equal(st.vsize_bytes, 3133440);
    free(buf);
}

static void test_parse_stat_comm_with_parens(void **state)
{
    (void)state;
    size_t len;
    char *buf = load_fixture("stat_comm_parens.txt", &len);
    struct nd_proc_stat st;
    assert_int_equal(nd_proc_parse_stat(buf, len, &st), 0);
    assert_int_equal(st.pid, 12206);
    assert_string_equal(st.comm, "x) (y z");
    assert_int_equal(st.state, 'S');
    assert_int_equal(st.ppid, 12204);
    assert_int_equal(st.starttime_ticks, 67443);
    assert_int_equal(st.rss_pages, 769);
    free(buf);
}

static void test_parse_stat_kthread(void **state)
{
    (void)state;
    size_t len;
    char *buf = load_fixture("stat_kthread.txt", &len);
    struct nd_proc_stat st;
    assert_int_equal(nd_proc_parse_stat(buf, len, &st), 0);
    assert_int_equal(st.pid, 2);
    assert_string_equal(st.comm, "kthreadd");
    assert_int_equal(st.ppid, 0);
    assert_int_equal(st.rss_pages, 0);
    free(buf);
}

static void test_parse_stat_utime_and_not_terminated(void **state)
{
    (void)state;
    /* A buffer that is not NUL-terminated: the parser must stop at len. */
    const char line[] = "42 (a b) R 1 42 42 0 -1 0 0 0 0 0 1234 567 0 0 20 0 8 0 999 100 77";
    char buf[sizeof line - 1];
    memcpy(buf, line, sizeof buf);
    struct nd_proc_stat st;
    assert_int_equal(nd_proc_parse_stat(buf, sizeof buf, &st), 0);
    assert_int_equal(st.utime_ticks, 1234);
    assert_int_equal(st.stime_ticks, 567);
    assert_int_equal(st.num_threads, 8);
    assert_int_equal(st.starttime_ticks, 999);
    assert_int_equal(st.rss_pages, 77);
    /* Cut inside the rss field: starttime is still there, rss is the prefix. */
    assert_int_equal(nd_proc_parse_stat(buf, sizeof buf - 1, &st), 0);
    assert_int_equal(st.rss_pages, 7);
}

static void test_parse_stat_malformed(void **state)
{
    (void)state;
    struct nd_proc_stat st;
    const char *bad[] = {
        "",
        "42",
        "42 (comm",                                                  /* no closing parenthesis */
        "42 (comm) R 1 2 3",                                         /* truncated before starttime */
        "(comm) R 1 42 42 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9 1 1",    /* no pid */
        "-5 (comm) R 1 42 42 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9 1 1", /* negative pid */
        "42 (comm) 7 1 42 42 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9 1 1", /* no state letter */
        "42 (comm) R x 42 42 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9 1 1", /* ppid not a number */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(nd_proc_parse_stat(bad[i], strlen(bad[i]), &st), -EINVAL);
    assert_int_equal(nd_proc_parse_stat(NULL, 0, &st), -EINVAL);
    /* A huge comm is cut to the field size, still NUL-terminated. */
    char big[512];
    int n = snprintf(big, sizeof big, "7 (%0200d) S 1 7 7 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9 1 1", 5);
    assert_int_equal(nd_proc_parse_stat(big, (size_t)n, &st), 0);
    assert_int_equal(strlen(st.comm), sizeof st.comm - 1);
    /* Overflowing numbers saturate instead of wrapping. */
    const char *ovf = "7 (c) S 1 7 7 0 -1 0 0 0 0 0 99999999999999999999999 2 0 0 20 0 1 0 9 1 1";
    assert_int_equal(nd_proc_parse_stat(ovf, strlen(ovf), &st), 0);
    assert_true(st.utime_ticks == (uint64_t)INT64_MAX);
}

static void test_parse_status(void **state)
{
    (void)state;
    size_t len;
    char *buf = load_fixture("status_plain.txt", &len);
    struct nd_proc_status st;
    assert_int_equal(nd_proc_parse_status(buf, len, &st), 0);
    assert_int_equal(st.uid, 0);
    assert_true(st.rss_valid);
    assert_int_equal(st.vm_rss_bytes, 1680 * 1024);
    assert_int_equal(st.threads, 1);
    assert_int_equal(st.nnspid, 1);
    free(buf);

    buf = load_fixture("status_kthread.txt", &len);
    assert_int_equal(nd_proc_parse_status(buf, len, &st), 0);
    assert_false(st.rss_valid); /* kernel threads have no VmRSS line */
    assert_int_equal(st.nnspid, 1);
    assert_int_equal(st.nspid[0], 2);
    free(buf);

    /* Captured inside a child pid namespace: the outer pid first, ours last. */
    buf = load_fixture("status_nspid.txt", &len);
    assert_int_equal(nd_proc_parse_status(buf, len, &st), 0);
    assert_int_equal(st.nnspid, 2);
    assert_int_equal(st.nspid[0], 12182);
    assert_int_equal(st.nspid[1], 1);
    assert_int_equal(nd_proc_status_host_pid(&st, 1), 12182);
    free(buf);
}

static void test_parse_status_edge(void **state)
{
    (void)state;
    struct nd_proc_status st;
    const char *no_uid = "Name:\tx\nVmRSS:\t12 kB\n";
    assert_int_equal(nd_proc_parse_status(no_uid, strlen(no_uid), &st), -EINVAL);
    assert_int_equal(nd_proc_parse_status("", 0, &st), -EINVAL);
    /* A user in a deep namespace chain: more NSpid levels than we keep. */
    const char *deep = "Uid:\t1000\t1000\t1000\t1000\nNSpid:\t1 2 3 4 5 6 7 8 9 10\nThreads:\t3\n";
    assert_int_equal(nd_proc_parse_status(deep, strlen(deep), &st), 0);
    assert_int_equal(st.uid, 1000);
    assert_int_equal(st.nnspid, ND_PROC_MAX_NSPID);
    assert_int_equal(st.threads, 3);
    assert_false(st.rss_valid);
    assert_int_equal(nd_proc_status_host_pid(&st, 99), 1);
    /* No NSpid line (old kernels): the local pid stands for itself. */
    const char *old = "Uid:\t5\nVmRSS:\t  4 kB";
    assert_int_equal(nd_proc_parse_status(old, strlen(old), &st), 0);
    assert_int_equal(st.vm_rss_bytes, 4096);
    assert_int_equal(st.nnspid, 0);
    assert_int_equal(nd_proc_status_host_pid(&st, 99), 99);
}

static void test_read_self(void **state)
{
    (void)state;
    struct nd_proc_stat st;
    assert_int_equal(nd_proc_read_stat(getpid(), &st), 0);
    assert_int_equal(st.pid, getpid());
    assert_int_equal(st.ppid, getppid());
    assert_string_equal(st.comm, "test_proc");
    assert_true(st.starttime_ticks > 0);

    struct nd_proc_status ps;
    assert_int_equal(nd_proc_read_status(getpid(), &ps), 0);
    assert_int_equal(ps.uid, getuid());
    assert_true(ps.rss_valid && ps.vm_rss_bytes > 0);
    assert_true(ps.nnspid >= 1);
    assert_int_equal(ps.nspid[ps.nnspid - 1], getpid());

    char cmd[4096];
    assert_int_equal(nd_proc_read_cmdline(getpid(), cmd, sizeof cmd), 0);
    assert_non_null(strstr(cmd, "test_proc"));
    /* A tiny buffer truncates, NUL-terminated. */
    char tiny[5];
    assert_int_equal(nd_proc_read_cmdline(getpid(), tiny, sizeof tiny), 0);
    assert_int_equal(strlen(tiny), 4);

    assert_true(nd_proc_exists(getpid()));
    uid_t owner = 12345;
    assert_int_equal(nd_proc_owner(getpid(), &owner), 0);
    assert_int_equal(owner, geteuid());
    assert_true(st.vsize_bytes > 0);
    assert_int_equal(nd_proc_host_to_local(ps.nspid[0], (pid_t[]){1, getpid()}, 2), getpid());
    assert_true(nd_proc_clock_ticks() > 0);
    assert_true(nd_proc_page_size() >= 4096);
}

static pid_t spawn_sleeper(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        pause();
        _exit(0);
    }
    return pid;
}

static void test_read_gone_and_zombie(void **state)
{
    (void)state;
    pid_t z = fork();
    assert_true(z >= 0);
    if (z == 0)
        _exit(5);
    /* Wait until it is a zombie (not reaped): its argv is gone. */
    struct nd_proc_stat st;
    for (int i = 0; i < 5000; i++) {
        if (nd_proc_read_stat(z, &st) == 0 && st.state == 'Z')
            break;
        usleep(1000);
    }
    assert_int_equal(st.state, 'Z');
    /* The zombie's stat carries the status its parent will get (watch reads it). */
    assert_true(st.exit_code_valid);
    assert_true(WIFEXITED(st.exit_code));
    assert_int_equal(WEXITSTATUS(st.exit_code), 5);
    char cmd[256];
    assert_int_equal(nd_proc_read_cmdline(z, cmd, sizeof cmd), 0);
    assert_string_equal(cmd, "[test_proc]");
    assert_int_equal(waitpid(z, NULL, 0), z);

    /* Reaped: every reader says the process is gone. */
    struct nd_proc_status ps;
    assert_int_equal(nd_proc_read_stat(z, &st), -ESRCH);
    assert_int_equal(nd_proc_read_status(z, &ps), -ESRCH);
    assert_int_equal(nd_proc_read_cmdline(z, cmd, sizeof cmd), -ESRCH);
    assert_false(nd_proc_exists(z));
    uid_t owner;
    assert_int_equal(nd_proc_owner(z, &owner), -ESRCH);
    assert_int_equal(nd_proc_host_to_local(z, &z, 1), 0);
}

static void test_parse_io(void **state)
{
    (void)state;
    static const char io[] = "rchar: 2012\nwchar: 0\nsyscr: 7\nsyscw: 0\nread_bytes: 4096\n"
                             "write_bytes: 0\ncancelled_write_bytes: 0\n";
    struct nd_proc_io out;
    assert_int_equal(nd_proc_parse_io(io, sizeof io - 1, &out), 0);
    assert_true(out.rchar_valid && out.read_bytes_valid);
    assert_int_equal(out.rchar, 2012);
    assert_int_equal(out.read_bytes, 4096);
    assert_true(out.wchar_valid);
    assert_int_equal(out.wchar, 0);
    /* Truncated after rchar: what is there counts. */
    assert_int_equal(nd_proc_parse_io(io, 11, &out), 0);
    assert_true(out.rchar_valid && !out.read_bytes_valid);
    assert_int_equal(nd_proc_parse_io("wchar: 1\n", 9, &out), -EINVAL);
    assert_int_equal(nd_proc_parse_io("rchar: -3\n", 10, &out), -EINVAL);
    /* /proc/PID/limits: ulimit -v in bytes, 0 when unlimited. */
    uint64_t as = 1;
    static const char lim[] = "Limit                     Soft Limit           Hard Limit           Units\n"
                              "Max address space         4294967296           unlimited            bytes\n";
    assert_int_equal(nd_proc_parse_limit_as(lim, sizeof lim - 1, &as), 0);
    assert_int_equal(as, 4294967296ull);
    static const char unl[] = "Max address space         unlimited            unlimited            bytes\n";
    assert_int_equal(nd_proc_parse_limit_as(unl, sizeof unl - 1, &as), 0);
    assert_int_equal(as, 0);
    assert_int_equal(nd_proc_parse_limit_as("Max open files 1024 1024 files\n", 31, &as), -EINVAL);
    /* A stat line that ends before field 52 has no exit code. */
    struct nd_proc_stat st;
    static const char old[] = "7 (x) S 1 7 7 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 500 1000 10";
    assert_int_equal(nd_proc_parse_stat(old, sizeof old - 1, &st), 0);
    assert_false(st.exit_code_valid);
}

static bool contains(const pid_t *v, size_t n, pid_t p)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == p)
            return true;
    return false;
}

static void test_list_and_tree(void **state)
{
    (void)state;
    /* me -> a -> (b, c); me -> d */
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t a = fork();
    assert_true(a >= 0);
    if (a == 0) {
        close(pipefd[0]);
        pid_t kids[2] = {spawn_sleeper(), spawn_sleeper()};
        if (write(pipefd[1], kids, sizeof kids) != sizeof kids)
            _exit(1);
        pause();
        _exit(0);
    }
    close(pipefd[1]);
    pid_t kids[2];
    assert_int_equal(read(pipefd[0], kids, sizeof kids), sizeof kids);
    close(pipefd[0]);
    pid_t d = spawn_sleeper();

    pid_t *all;
    size_t nall;
    assert_int_equal(nd_proc_list(&all, &nall), 0);
    assert_true(contains(all, nall, getpid()));
    assert_true(contains(all, nall, kids[1]));
    free(all);

    pid_t *t;
    size_t nt;
    assert_int_equal(nd_proc_tree(getpid(), &t, &nt), 0);
    assert_int_equal(t[0], getpid());
    assert_int_equal(nt, 5);
    assert_true(contains(t, nt, a) && contains(t, nt, kids[0]) && contains(t, nt, kids[1]) && contains(t, nt, d));
    free(t);

    assert_int_equal(nd_proc_tree(a, &t, &nt), 0);
    assert_int_equal(nt, 3);
    assert_int_equal(t[0], a);
    assert_false(contains(t, nt, getpid()));
    assert_false(contains(t, nt, d));
    free(t);

    kill(kids[0], SIGKILL);
    kill(kids[1], SIGKILL);
    kill(a, SIGKILL);
    kill(d, SIGKILL);
    waitpid(a, NULL, 0);
    waitpid(d, NULL, 0);
    assert_int_equal(nd_proc_tree(a, &t, &nt), -ESRCH);
    assert_int_equal(nd_proc_tree(0, &t, &nt), -EINVAL);
}

static void test_user_name(void **state)
{
    (void)state;
    char name[64];
    nd_proc_user_name(0, name, sizeof name);
    assert_string_equal(name, "root");
    nd_proc_user_name(0, name, sizeof name); /* cached answer, same text */
    assert_string_equal(name, "root");
    nd_proc_user_name(3999999, name, sizeof name);
    assert_string_equal(name, "3999999");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_stat_plain),     cmocka_unit_test(test_parse_stat_comm_with_parens),
        cmocka_unit_test(test_parse_stat_kthread),   cmocka_unit_test(test_parse_stat_utime_and_not_terminated),
        cmocka_unit_test(test_parse_stat_malformed), cmocka_unit_test(test_parse_status),
        cmocka_unit_test(test_parse_status_edge),    cmocka_unit_test(test_read_self),
        cmocka_unit_test(test_read_gone_and_zombie), cmocka_unit_test(test_parse_io),
        cmocka_unit_test(test_list_and_tree),        cmocka_unit_test(test_user_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
