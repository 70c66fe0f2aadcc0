/* fork/exec with captured output and a hard deadline. The child always gets
 * its own process group so that a hung grandchild dies with it. */
#include "core/spawn.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/escaped.h"
#include "core/ownkids.h"
#include "core/strbuf.h"

double nd_monotonic_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int nd_write_full(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int nd_read_full_deadline(int fd, void *buf, size_t len, double deadline)
{
    char *p = buf;
    while (len) {
        double left = deadline - nd_monotonic_now();
        if (left <= 0)
            return -ETIMEDOUT;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int pr = poll(&pfd, 1, (int)(left * 1000) + 1);
        if (pr < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (pr == 0)
            continue;
        ssize_t n = read(fd, p, len);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            return -errno;
        }
        if (n == 0)
            return -EPIPE;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

void nd_kill_and_reap(pid_t pid)
{
    if (pid <= 0)
        return;
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    nd_ownkids_del(pid);
}

static void nd_result_status(struct nd_spawn_result *res, int status)
{
    if (WIFEXITED(status)) {
        res->exited = true;
        res->exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        res->signaled = true;
        res->signal = WTERMSIG(status);
    }
}

/* Drains up to two pipes until both close or the deadline passes. */
static bool nd_drain(int fds[2], struct nd_strbuf *bufs[2], size_t max, bool trunc[2], double deadline)
{
    int open_n = (fds[0] >= 0) + (fds[1] >= 0);
    while (open_n > 0) {
        double left = deadline - nd_monotonic_now();
        if (left <= 0)
            return false;
        struct pollfd pfd[2];
        int idx[2];
        int n = 0;
        for (int i = 0; i < 2; i++)
            if (fds[i] >= 0) {
                pfd[n].fd = fds[i];
                pfd[n].events = POLLIN;
                idx[n++] = i;
            }
        int pr = poll(pfd, (nfds_t)n, (int)(left * 1000) + 1);
        if (pr < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        for (int k = 0; k < n; k++) {
            if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            int i = idx[k];
            char tmp[65536];
            ssize_t r = read(fds[i], tmp, sizeof tmp);
            if (r < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (r <= 0) {
                close(fds[i]);
                fds[i] = -1;
                open_n--;
                continue;
            }
            size_t room = bufs[i]->len < max ? max - bufs[i]->len : 0;
            size_t take = (size_t)r < room ? (size_t)r : room;
            if (take)
                nd_strbuf_add(bufs[i], tmp, take);
            if (take < (size_t)r)
                trunc[i] = true;
        }
    }
    return true;
}

/* A probe past its deadline goes with all it started: what left its
 * group (setsid, a shell's "set -m" job) would otherwise run on with no
 * one to stop it. The tree is read from /proc/<pid>/stat parents, a few
 * rounds deep, while the probe still holds it together. */
#define ND_TREE_MAX 256
static void nd_kill_tree(pid_t root)
{
    pid_t tree[ND_TREE_MAX];
    size_t n = 0;
    tree[n++] = root;
    for (int round = 0; round < 8; round++) {
        size_t before = n;
        DIR *d = opendir("/proc");
        if (!d)
            break;
        struct dirent *e;
        while (n < ND_TREE_MAX && (e = readdir(d))) {
            if (e->d_name[0] < '1' || e->d_name[0] > '9')
                continue;
            pid_t ppid, pgid, sid, pid = (pid_t)atol(e->d_name);
            if (nd_escaped_read_stat_pg(e->d_name, &ppid, &pgid, &sid) != 0)
                continue;
            bool parent_in = false, in = false;
            for (size_t i = 0; i < n; i++) {
                parent_in |= tree[i] == ppid;
                in |= tree[i] == pid;
            }
            if (parent_in && !in)
                tree[n++] = pid;
        }
        closedir(d);
        if (n == before)
            break;
    }
    for (size_t i = 0; i < n; i++) {
        kill(-tree[i], SIGKILL);
        kill(tree[i], SIGKILL);
    }
}

/* Waits for pid until the deadline; kills the group at the deadline. */
static void nd_wait_deadline(pid_t pid, double deadline, struct nd_spawn_result *res)
{
    /* The child usually exits right after closing its pipes: poll fast at
     * first, then back off to 5 ms so a slow child costs no CPU. */
    long sleep_ns = 50 * 1000;
    for (;;) {
        int status;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            nd_result_status(res, status);
            kill(-pid, SIGKILL); /* leftovers in the group */
            nd_ownkids_del(pid);
            return;
        }
        if (r < 0 && errno != EINTR) {
            nd_ownkids_del(pid);
            return;
        }
        if (nd_monotonic_now() >= deadline) {
            res->timed_out = true;
            nd_kill_tree(pid);
            while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
                ;
            if (r == pid)
                nd_result_status(res, status);
            nd_ownkids_del(pid);
            return;
        }
        struct timespec ts = {0, sleep_ns};
        nanosleep(&ts, NULL);
        if (sleep_ns < 5 * 1000 * 1000)
            sleep_ns *= 2;
    }
}

static int nd_pipe(int p[2])
{
    return pipe2(p, O_CLOEXEC);
}

static void nd_child_stdin_null(void)
{
    int fd = open("/dev/null", O_RDONLY);
    if (fd >= 0 && fd != 0) {
        dup2(fd, 0);
        close(fd);
    }
}

void nd_child_reset_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++)
        sigaction(s, &sa, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* The parent's side of both kinds of child: read both pipes until they
 * close or the deadline passes, reap (or kill) the child, fill res. */
static void nd_collect(pid_t pid, int out_fd, int err_fd, double start, double timeout_s, size_t max_output,
                       struct nd_spawn_result *res)
{
    struct nd_strbuf ob = ND_STRBUF_INIT, eb = ND_STRBUF_INIT;
    struct nd_strbuf *bufs[2] = {&ob, &eb};
    int fds[2] = {out_fd, err_fd};
    bool trunc[2] = {false, false};
    double deadline = start + timeout_s;
    nd_drain(fds, bufs, max_output, trunc, deadline);
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    nd_wait_deadline(pid, deadline, res);
    res->elapsed_s = nd_monotonic_now() - start;
    res->out = nd_strbuf_detach(&ob, &res->out_len);
    res->err = nd_strbuf_detach(&eb, &res->err_len);
    res->out_truncated = trunc[0];
}

int nd_spawn_capture(char *const argv[], char *const envp[], double timeout_s, size_t max_output,
                     struct nd_spawn_result *res, struct nd_error *err)
{
    memset(res, 0, sizeof *res);
    int outp[2], errp[2], execp[2];
    if (nd_pipe(outp) != 0)
        return nd_error_set(err, -errno, "pipe: %s", strerror(errno));
    if (nd_pipe(errp) != 0) {
        close(outp[0]);
        close(outp[1]);
        return nd_error_set(err, -errno, "pipe: %s", strerror(errno));
    }
    if (nd_pipe(execp) != 0) {
        close(outp[0]);
        close(outp[1]);
        close(errp[0]);
        close(errp[1]);
        return nd_error_set(err, -errno, "pipe: %s", strerror(errno));
    }
    double start = nd_monotonic_now();
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(outp[0]);
        close(outp[1]);
        close(errp[0]);
        close(errp[1]);
        close(execp[0]);
        close(execp[1]);
        return nd_error_set(err, -e, "fork: %s", strerror(e));
    }
    if (pid == 0) {
        setpgid(0, 0);
        nd_child_reset_signals();
        nd_child_stdin_null();
        dup2(outp[1], 1);
        dup2(errp[1], 2);
        if (envp)
            execvpe(argv[0], argv, envp);
        else
            execvp(argv[0], argv);
        int e = errno;
        (void)!write(execp[1], &e, sizeof e);
        _exit(127);
    }
    setpgid(pid, pid);
    nd_ownkids_add(pid);
    close(outp[1]);
    close(errp[1]);
    close(execp[1]);
    res->started = true;
    int e;
    if (read(execp[0], &e, sizeof e) == (ssize_t)sizeof e) {
        res->started = false;
        res->exec_errno = e;
    }
    close(execp[0]);

    nd_collect(pid, outp[0], errp[0], start, timeout_s, max_output, res);
    return 0;
}

#ifndef NDEBUG
/* Threads of this process from /proc/self/status; 0 when unknown. */
static long nd_thread_count(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (!f)
        return 0;
    char line[256];
    long n = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %ld", &n) == 1)
            break;
    fclose(f);
    return n;
}
#endif

void nd_assert_fork_safe(const char *what)
{
#ifdef NDEBUG
    (void)what;
#else
    long n = nd_thread_count();
    if (n > 1) {
        fprintf(stderr, "npu-doctor: internal error: %s forks a child that runs our code while %ld threads exist\n",
                what, n);
        abort();
    }
#endif
}

int nd_guard_call(int (*fn)(void *arg, int out_fd), void *arg, double timeout_s, size_t max_output,
                  struct nd_spawn_result *res, struct nd_error *err)
{
    nd_assert_fork_safe("a guarded call");
    memset(res, 0, sizeof *res);
    int chan[2], noise[2];
    if (nd_pipe(chan) != 0)
        return nd_error_set(err, -errno, "pipe: %s", strerror(errno));
    if (nd_pipe(noise) != 0) {
        close(chan[0]);
        close(chan[1]);
        return nd_error_set(err, -errno, "pipe: %s", strerror(errno));
    }
    fflush(NULL);
    double start = nd_monotonic_now();
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(chan[0]);
        close(chan[1]);
        close(noise[0]);
        close(noise[1]);
        return nd_error_set(err, -e, "fork: %s", strerror(e));
    }
    if (pid == 0) {
        setpgid(0, 0);
        nd_child_reset_signals();
        nd_child_stdin_null();
        dup2(noise[1], 1);
        dup2(noise[1], 2);
        close(chan[0]);
        int rc = fn(arg, chan[1]);
        fflush(NULL); /* vendor noise printed with stdio must reach the capture */
        _exit(rc & 0xff);
    }
    setpgid(pid, pid);
    nd_ownkids_add(pid);
    res->started = true;
    close(chan[1]);
    close(noise[1]);
    nd_collect(pid, chan[0], noise[0], start, timeout_s, max_output, res);
    return 0;
}

void nd_spawn_result_release(struct nd_spawn_result *res)
{
    free(res->out);
    free(res->err);
    res->out = res->err = NULL;
}

bool nd_spawn_ok(const struct nd_spawn_result *res)
{
    return res->started && !res->timed_out && res->exited && res->exit_code == 0;
}

void nd_spawn_describe(const struct nd_spawn_result *res, double timeout_s, char *buf, size_t size)
{
    const char *abbr = res->signaled ? sigabbrev_np(res->signal) : NULL;
    if (!res->started)
        snprintf(buf, size, "could not be started: %s", strerror(res->exec_errno));
    else if (res->timed_out)
        snprintf(buf, size, "timed out after %g s", timeout_s);
    else if (res->signaled && abbr)
        snprintf(buf, size, "crashed with SIG%s", abbr);
    else if (res->signaled)
        snprintf(buf, size, "crashed with signal %d", res->signal);
    else if (res->exited)
        snprintf(buf, size, "exited with status %d", res->exit_code);
    else
        snprintf(buf, size, "ended in an unknown way");
}
