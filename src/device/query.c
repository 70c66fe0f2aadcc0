/* The guarded entry points of the device layer: a one-shot query in a forked
 * child (nd_device_query) and a long-lived sampling child (the session).
 * The child works on a state living in shared memory and names each vendor
 * call before making it, so when it hangs or crashes the parent still knows
 * which call it was in; the parent turns that into a failed state. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/ownkids.h"
#include "core/spawn.h"
#include "device/device.h"
#include "device/device_internal.h"

/* What the child and the parent share: the state being filled, the call in
 * progress, and whether the child finished. */
struct nd_query_page {
    struct nd_device_state state;
    char call[ND_CALL_MAX];
    volatile int done;
};

static char *nd_progress_buf; /* set only inside a guarded child */

void nd_device_progress_attach(char *buf)
{
    nd_progress_buf = buf;
}

void nd_device_progress(const char *call)
{
    if (nd_progress_buf)
        snprintf(nd_progress_buf, ND_CALL_MAX, "%s", call ? call : "");
}

void *nd_shared_alloc(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p; /* anonymous mappings start zeroed */
}

void nd_shared_free(void *p, size_t size)
{
    if (p)
        munmap(p, size);
}

void nd_guard_describe(const struct nd_spawn_result *res, double timeout_s, const char *call, char *buf, size_t size)
{
    char how[128];
    nd_spawn_describe(res, timeout_s, how, sizeof how);
    if (call && *call)
        snprintf(buf, size, "%s in %s", how, call);
    else
        snprintf(buf, size, "%s", how);
}

int nd_device_state_fail(struct nd_device_state *st, int status, const char *call, int code, const char *meaning)
{
    st->status = status < 0 ? status : -EIO;
    snprintf(st->failed_call, sizeof st->failed_call, "%s", call ? call : "");
    st->vendor_code = code;
    snprintf(st->error, sizeof st->error, "%s returned %d: %s", call ? call : "?", code,
             meaning && *meaning ? meaning : "unknown error");
    return st->status;
}

/* Copies err into the state unless the backend already described the failure. */
static void nd_state_take_error(struct nd_device_state *st, int rc, const struct nd_error *err, const char *step)
{
    if (st->status == 0)
        st->status = rc < 0 ? rc : -EIO;
    if (!st->error[0])
        snprintf(st->error, sizeof st->error, "%s", err->msg[0] ? err->msg : step);
}

static void nd_state_reset_status(struct nd_device_state *st)
{
    st->status = 0;
    st->failed_call[0] = '\0';
    st->vendor_code = 0;
    st->error[0] = '\0';
    st->warning[0] = '\0';
}

/* sample + processes on an opened context: the repeated part. */
static int nd_query_refresh(const struct nd_vendor *v, struct nd_vendor_ctx *ctx, struct nd_device_state *st)
{
    struct nd_error err = {0, ""};
    if (v->sample) {
        int rc = v->sample(ctx, st, &err);
        if (rc < 0) {
            nd_state_take_error(st, rc, &err, "sample failed");
            return st->status;
        }
    }
    nd_device_state_sanitize(st);
    if (v->processes) {
        nd_error_clear(&err);
        int saved = st->status;
        int rc = v->processes(ctx, st, &err);
        if (rc < 0) {
            /* The devices are fine; only the list is unknown. */
            st->procs_valid = false;
            st->nprocs = 0;
            if (!st->warning[0])
                snprintf(st->warning, sizeof st->warning, "%.250s",
                         st->error[0] ? st->error
                         : err.msg[0] ? err.msg
                                      : "process list unavailable");
            st->status = saved;
            st->failed_call[0] = '\0';
            st->vendor_code = 0;
            st->error[0] = '\0';
        }
        nd_device_state_sanitize(st);
    }
    return st->status;
}

/* open + devices; on success *ctx is open. */
static int nd_query_open(const struct nd_vendor *v, struct nd_vendor_ctx **ctx, struct nd_device_state *st)
{
    struct nd_error err = {0, ""};
    *ctx = NULL;
    if (!v->open) {
        nd_state_take_error(st, -ENOSYS, &err, "this vendor backend is not built");
        return st->status;
    }
    int rc = v->open(ctx, st, &err);
    if (rc < 0) {
        nd_state_take_error(st, rc, &err, "open failed");
        if (*ctx && v->close)
            v->close(*ctx);
        *ctx = NULL;
        return st->status;
    }
    if (v->devices) {
        nd_error_clear(&err);
        rc = v->devices(*ctx, st, &err);
        if (rc < 0) {
            nd_state_take_error(st, rc, &err, "device enumeration failed");
            return st->status;
        }
    }
    return 0;
}

static void nd_state_init(struct nd_device_state *st, const struct nd_vendor *v)
{
    memset(st, 0, sizeof *st);
    snprintf(st->vendor, sizeof st->vendor, "%s", v->name);
}

int nd_device_query_unguarded(const struct nd_vendor *v, struct nd_device_state *out)
{
    double t0 = nd_monotonic_now();
    nd_state_init(out, v);
    struct nd_vendor_ctx *ctx = NULL;
    if (nd_query_open(v, &ctx, out) == 0)
        nd_query_refresh(v, ctx, out);
    if (ctx && v->close) {
        nd_device_progress("close");
        v->close(ctx);
    }
    nd_device_progress("");
    out->elapsed_s = nd_monotonic_now() - t0;
    return out->status;
}

struct nd_query_arg {
    const struct nd_vendor *v;
    struct nd_query_page *page;
};

static int nd_query_child(void *arg, int out_fd)
{
    struct nd_query_arg *a = arg;
    (void)out_fd;
    nd_device_progress_attach(a->page->call);
    nd_device_query_unguarded(a->v, &a->page->state);
    a->page->done = 1;
    return 0;
}

/* The state after a child that did not finish: only what is sure survives. */
static void nd_state_from_dead_child(struct nd_device_state *out, const struct nd_device_state *partial,
                                     const struct nd_vendor *v, const struct nd_spawn_result *res, double timeout_s,
                                     const char *call)
{
    nd_state_init(out, v);
    if (partial) {
        out->lib_found = partial->lib_found;
        memcpy(out->lib_path, partial->lib_path, sizeof out->lib_path);
        out->lib_path[sizeof out->lib_path - 1] = '\0';
    }
    snprintf(out->failed_call, sizeof out->failed_call, "%s", call ? call : "");
    nd_guard_describe(res, timeout_s, call, out->error, sizeof out->error);
    if (res->timed_out) {
        out->timed_out = true;
        out->status = -ETIMEDOUT;
    } else if (res->signaled) {
        out->crashed = true;
        out->crash_signal = res->signal;
        out->status = -ECHILD;
    } else {
        out->status = -EIO;
    }
    out->elapsed_s = res->elapsed_s;
}

/* True when the vendor's library is not there at all: out then holds the
 * not-found state, and no child is needed to say so. */
static bool nd_library_absent(const struct nd_vendor *v, struct nd_device_state *out)
{
    if (!v->locate)
        return false;
    nd_state_init(out, v);
    return v->locate(out) < 0;
}

int nd_device_query(const struct nd_vendor *v, double timeout_s, struct nd_device_state *out)
{
    if (timeout_s <= 0)
        timeout_s = ND_DEVICE_DEFAULT_TIMEOUT;
    if (nd_library_absent(v, out))
        return out->status;
    struct nd_query_page *page = nd_shared_alloc(sizeof *page);
    if (!page) {
        nd_state_init(out, v);
        out->status = -ENOMEM;
        snprintf(out->error, sizeof out->error, "cannot map shared memory: %s", strerror(errno));
        return out->status;
    }
    struct nd_query_arg a = {v, page};
    struct nd_spawn_result res;
    struct nd_error err = {0, ""};
    int rc = nd_guard_call(nd_query_child, &a, timeout_s, 64 * 1024, &res, &err);
    if (rc < 0) {
        nd_state_init(out, v);
        out->status = rc;
        snprintf(out->error, sizeof out->error, "%s", err.msg);
    } else if (nd_spawn_ok(&res) && page->done) {
        *out = page->state;
    } else {
        char call[ND_CALL_MAX];
        memcpy(call, page->call, sizeof call);
        call[sizeof call - 1] = '\0';
        nd_state_from_dead_child(out, &page->state, v, &res, timeout_s, call);
    }
    if (rc == 0)
        nd_spawn_result_release(&res);
    nd_shared_free(page, sizeof *page);
    return out->status;
}

/* ---- the session ---------------------------------------------------- */

struct nd_device_session {
    const struct nd_vendor *v;
    double timeout_s;
    pid_t pid;
    int sock;
    struct nd_query_page *page;
    bool dead;
    struct nd_device_state last; /* the failed state once dead */
};

static void nd_child_prepare(int keep_fd, pid_t parent)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) /* the parent died before the line above */
        _exit(0);
    nd_child_reset_signals();
    /* Vendor noise must not reach the job's terminal or our output. */
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
        if (null > 2)
            close(null);
    }
    /* Keep no fd of the parent's (a job's pipe held open here would delay
     * the parent seeing its EOF): move the channel to 3, close the rest. */
    if (keep_fd != 3) {
        dup2(keep_fd, 3);
        close(keep_fd);
    }
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 4U, ~0U, 0U) != 0)
#endif
        for (int fd = 4; fd < 4096; fd++)
            close(fd);
}

static void nd_session_child(struct nd_device_session *s)
{
    int fd = 3;
    struct nd_query_page *page = s->page;
    nd_device_progress_attach(page->call);
    struct nd_device_state *st = &page->state;
    nd_state_init(st, s->v);
    double t0 = nd_monotonic_now();
    struct nd_vendor_ctx *ctx = NULL;
    int rc = nd_query_open(s->v, &ctx, st);
    if (rc == 0)
        nd_query_refresh(s->v, ctx, st);
    st->elapsed_s = nd_monotonic_now() - t0;
    nd_device_progress("");
    char c = 'D';
    if (send(fd, &c, 1, MSG_NOSIGNAL) != 1 || rc < 0)
        _exit(0);
    for (;;) {
        ssize_t n = read(fd, &c, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || c == 'Q')
            break;
        t0 = nd_monotonic_now();
        nd_state_reset_status(st);
        nd_query_refresh(s->v, ctx, st);
        st->elapsed_s = nd_monotonic_now() - t0;
        nd_device_progress("");
        c = 'D';
        if (send(fd, &c, 1, MSG_NOSIGNAL) != 1)
            break;
    }
    if (ctx && s->v->close) {
        nd_device_progress("close");
        s->v->close(ctx);
    }
    _exit(0);
}

/* Reaps the child and records how it ended as the session's last state. */
static void nd_session_kill(struct nd_device_session *s, bool timed_out)
{
    struct nd_spawn_result res;
    memset(&res, 0, sizeof res);
    res.started = true;
    res.timed_out = timed_out;
    int status = 0;
    if (s->pid > 0) {
        if (timed_out) {
            kill(-s->pid, SIGKILL);
            kill(s->pid, SIGKILL);
        }
        pid_t r;
        while ((r = waitpid(s->pid, &status, 0)) < 0 && errno == EINTR)
            ;
        nd_ownkids_del(s->pid);
        if (r == s->pid) {
            if (WIFSIGNALED(status)) {
                res.signaled = true;
                res.signal = WTERMSIG(status);
            } else if (WIFEXITED(status)) {
                res.exited = true;
                res.exit_code = WEXITSTATUS(status);
            }
        }
        kill(-s->pid, SIGKILL); /* anything the library left in the group */
        s->pid = -1;
    }
    if (s->sock >= 0) {
        close(s->sock);
        s->sock = -1;
    }
    char call[ND_CALL_MAX];
    memcpy(call, s->page->call, sizeof call);
    call[sizeof call - 1] = '\0';
    /* What the child got to before it died (the library it found, at least). */
    struct nd_device_state partial = s->page->state;
    nd_state_from_dead_child(&s->last, &partial, s->v, &res, s->timeout_s, call);
    if (!timed_out && !res.signaled && res.exited) {
        snprintf(s->last.error, sizeof s->last.error, "the sampling child exited (status %d)%s%s", res.exit_code,
                 call[0] ? " in " : "", call);
    }
    s->dead = true;
}

/* Waits for the child's 'D' and copies the state out. */
static int nd_session_wait(struct nd_device_session *s, struct nd_device_state *out)
{
    char c = 0;
    int rc = nd_read_full_deadline(s->sock, &c, 1, nd_monotonic_now() + s->timeout_s);
    if (rc == 0 && c == 'D') {
        s->last = s->page->state;
        *out = s->last;
        return out->status;
    }
    nd_session_kill(s, rc == -ETIMEDOUT);
    *out = s->last;
    return out->status;
}

static void nd_session_free(struct nd_device_session *s)
{
    if (!s)
        return;
    if (s->sock >= 0)
        close(s->sock);
    if (s->pid > 0)
        nd_kill_and_reap(s->pid);
    nd_shared_free(s->page, sizeof *s->page);
    free(s);
}

int nd_device_session_open(const struct nd_vendor *v, double timeout_s, struct nd_device_session **sp,
                           struct nd_device_state *out)
{
    *sp = NULL;
    if (nd_library_absent(v, out))
        return out->status;
    nd_assert_fork_safe("the device session");
    struct nd_device_session *s = calloc(1, sizeof *s);
    if (!s) {
        nd_state_init(out, v);
        out->status = -ENOMEM;
        snprintf(out->error, sizeof out->error, "out of memory");
        return out->status;
    }
    s->v = v;
    s->timeout_s = timeout_s > 0 ? timeout_s : ND_DEVICE_DEFAULT_TIMEOUT;
    s->pid = -1;
    s->sock = -1;
    nd_state_init(&s->last, v);
    s->page = nd_shared_alloc(sizeof *s->page);
    int sv[2];
    if (!s->page || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        nd_state_init(out, v);
        out->status = -errno;
        snprintf(out->error, sizeof out->error, "cannot set up the sampling child: %s", strerror(errno));
        nd_session_free(s);
        return out->status;
    }
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(sv[0]);
        close(sv[1]);
        nd_state_init(out, v);
        out->status = -e;
        snprintf(out->error, sizeof out->error, "fork: %s", strerror(e));
        nd_session_free(s);
        return out->status;
    }
    if (pid == 0) {
        close(sv[0]);
        int fd = fcntl(sv[1], F_DUPFD, 3); /* off the std fds before they are replaced */
        nd_child_prepare(fd >= 0 ? fd : sv[1], parent);
        nd_session_child(s);
        _exit(0);
    }
    setpgid(pid, pid);
    nd_ownkids_add(pid);
    close(sv[1]);
    s->pid = pid;
    s->sock = sv[0];
    int rc = nd_session_wait(s, out);
    if (rc < 0 || s->dead) {
        nd_session_free(s); /* the child ends by itself after a failed open */
        return out->status < 0 ? out->status : -EIO;
    }
    *sp = s;
    return 0;
}

int nd_device_session_sample(struct nd_device_session *s, struct nd_device_state *out)
{
    if (!s) {
        memset(out, 0, sizeof *out);
        out->status = -EINVAL;
        snprintf(out->error, sizeof out->error, "no device session");
        return out->status;
    }
    if (s->dead) {
        *out = s->last;
        return out->status;
    }
    char c = 'S';
    if (send(s->sock, &c, 1, MSG_NOSIGNAL) != 1) {
        nd_session_kill(s, false);
        *out = s->last;
        return out->status;
    }
    return nd_session_wait(s, out);
}

void nd_device_session_close(struct nd_device_session *s)
{
    if (!s)
        return;
    if (!s->dead && s->sock >= 0) {
        char c = 'Q';
        (void)send(s->sock, &c, 1, MSG_NOSIGNAL);
        /* Give the library a moment to shut down cleanly, then make sure. */
        char tmp;
        (void)nd_read_full_deadline(s->sock, &tmp, 1, nd_monotonic_now() + 1.0);
    }
    nd_session_free(s);
}
