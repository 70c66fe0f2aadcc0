/* The job supervisor of `npu-doctor run` (see supervisor.h). One thread, one
 * poll loop: signals arrive through a signalfd, output through two pipes (or
 * ptys), and the monitor's ticks are deadlines of the same loop. The job's
 * bytes are written out before anything looks at them, and what the monitor
 * gets is whole blocks of lines, one call per read, so a job flooding its
 * output runs as fast as it would under `cat` (the monitor keeps its own
 * matching budget and backlog). */
#include "core/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "core/array.h"
#include "core/escaped.h"
#include "core/linecount.h"
#include "core/spawn.h"
#include "core/strbuf.h"

/* One read takes what a full pipe holds: fewer wake-ups under a flood. */
#define ND_SV_BUF (1024 * 1024)
#define ND_SV_PIPE_SIZE (1024 * 1024)
/* After the job and its group are gone, output still held open by a process
 * that left the group is drained for this long. */
#define ND_SV_DRAIN_S 1.0

static const int nd_forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

struct nd_stream {
    int fd;                        /* read end: pipe or pty master; -1 once closed */
    int out_fd;                    /* 1 or 2 */
    bool out_dead;                 /* our side of the stream is gone (EPIPE) */
    char line[ND_SV_LINE_MAX + 1]; /* a line split across reads, and its newline */
    size_t linelen;
    bool overflow; /* that line was cut: its bytes up to the newline are dropped */
    long lineno;
};

struct nd_supervisor {
    pid_t pid;
    pid_t self; /* our pid, for the child's parent-death check */
    int sigfd;
    struct nd_stream st[2];
    bool pty[2];
    double grace_s;
    double started;
    bool reaped;
    int wstatus;
    bool stopped; /* stopped by us (fail-fast) */
    bool term_sent;
    double kill_at; /* SIGKILL deadline; 0 when none */
    double last_sigint;
    double drain_until; /* 0 until the group is gone */
    uint64_t bytes, lines;
    sigset_t oldmask;
    bool hup_ignored;
    struct sigaction old_pipe;
    char *buf;
    pid_t escaped[ND_SV_ESCAPED_MAX]; /* the job's daemons, re-parented to us; -pid once reaped */
    size_t nescaped;
    bool escaped_scanned;  /* looked again once the group was gone */
    double escaped_killed; /* when they got SIGKILL: one we may not kill is not waited for long */
};

static bool nd_group_alive(pid_t pgid)
{
    return kill(-pgid, 0) == 0 || errno == EPERM;
}

/* A daemon made its own session and group (setsid): signals go to that
 * group, so what it started goes with it. */
static bool nd_escaped_alive(const struct nd_supervisor *sv)
{
    for (size_t i = 0; i < sv->nescaped; i++)
        if (sv->escaped[i] > 0 || nd_group_alive(sv->escaped[i] > 0 ? sv->escaped[i] : -sv->escaped[i]))
            return true;
    return false;
}

static void nd_signal_escaped(const struct nd_supervisor *sv, int sig)
{
    for (size_t i = 0; i < sv->nescaped; i++) {
        pid_t p = sv->escaped[i] > 0 ? sv->escaped[i] : -sv->escaped[i];
        kill(-p, sig);
        if (sv->escaped[i] > 0)
            kill(p, sig);
    }
}

/* " (pid 12 sleep, pid 34 python3)": which processes of one kind (daemon
 * or not) a message is about, by number and command name (made printable),
 * so the user reads what was stopped. */
static void nd_describe_found(const pid_t *found, const bool *daemon, const bool *fresh, size_t n, bool want, char *out,
                              size_t size)
{
    size_t len = 0, shown = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && len + 40 < size; i++) {
        if (!fresh[i] || daemon[i] != want)
            continue;
        char path[64], comm[32] = "?";
        snprintf(path, sizeof path, "/proc/%d/comm", (int)found[i]);
        FILE *f = fopen(path, "re");
        if (f) {
            if (!fgets(comm, sizeof comm, f))
                snprintf(comm, sizeof comm, "?");
            fclose(f);
        }
        comm[strcspn(comm, "\n")] = '\0';
        for (char *c = comm; *c; c++)
            if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
                *c = '?';
        len += (size_t)snprintf(out + len, size - len, "%spid %d %s", shown++ ? ", " : " (", (int)found[i], comm);
    }
    if (shown && len + 2 < size)
        snprintf(out + len, size - len, ")");
}

/* Daemons the job started (setsid) are out of its group, so a signal to the
 * group misses them; once the job is gone they are our children. They go
 * with the job, as its group's stragglers do, instead of running on with
 * no parent and their output cut. */
static size_t nd_collect_escaped(struct nd_supervisor *sv, double now)
{
    pid_t found[ND_SV_ESCAPED_MAX];
    bool daemon[ND_SV_ESCAPED_MAX];
    bool fresh[ND_SV_ESCAPED_MAX] = {false};
    size_t n = nd_escaped_children(sv->self, sv->pid, found, daemon, ND_SV_ESCAPED_MAX), added = 0, grouped = 0;
    for (size_t i = 0; i < n && sv->nescaped < ND_SV_ESCAPED_MAX; i++) {
        bool known = false;
        for (size_t j = 0; j < sv->nescaped && !known; j++)
            known = sv->escaped[j] == found[i];
        for (size_t j = 0; j < sv->nescaped && !known; j++)
            known = -sv->escaped[j] == found[i];
        if (!known) {
            fresh[i] = true;
            sv->escaped[sv->nescaped++] = found[i];
            kill(-found[i], SIGTERM);
            kill(found[i], SIGTERM);
            if (daemon[i])
                added++;
            else
                grouped++;
        }
    }
    char which[512];
    if (grouped) {
        nd_describe_found(found, daemon, fresh, n, false, which, sizeof which);
        fprintf(stderr,
                "npu-doctor: the job left %zu process%s%s in a process group of %s own (a shell job under set -m, a "
                "double fork); %s SIGTERM now and SIGKILL after %g s (--grace)\n",
                grouped, grouped == 1 ? "" : "es", which, grouped == 1 ? "its" : "their",
                grouped == 1 ? "it gets" : "they get", sv->grace_s);
    }
    if (grouped && !added && sv->kill_at == 0)
        sv->kill_at = now + sv->grace_s;
    if (added) {
        nd_describe_found(found, daemon, fresh, n, true, which, sizeof which);
        fprintf(stderr,
                "npu-doctor: the job left %zu process%s%s in a session of %s own (a daemon); %s SIGTERM now and "
                "SIGKILL after %g s (--grace)\n",
                added, added == 1 ? "" : "es", which, added == 1 ? "its" : "their", added == 1 ? "it gets" : "they get",
                sv->grace_s);
        if (sv->kill_at == 0)
            sv->kill_at = now + sv->grace_s;
    }
    return added + grouped;
}

/* Reaps the daemons and, once re-parented to us, what they started in
 * their group. A reaped daemon stays listed as -pid: its group may live on. */
static void nd_reap_escaped(struct nd_supervisor *sv)
{
    for (size_t i = 0; i < sv->nescaped; i++) {
        pid_t p = sv->escaped[i] > 0 ? sv->escaped[i] : -sv->escaped[i];
        int st;
        pid_t r;
        while ((r = waitpid(-p, &st, WNOHANG)) > 0)
            for (size_t j = 0; j < sv->nescaped; j++)
                if (sv->escaped[j] == r)
                    sv->escaped[j] = -r;
        /* Reaped here, or by someone else (ECHILD): it is gone either way. */
        if (sv->escaped[i] > 0 && ((r = waitpid(p, &st, WNOHANG)) == p || (r < 0 && errno == ECHILD)))
            sv->escaped[i] = -p;
    }
}

static void nd_set_cloexec(int fd)
{
    int fl = fcntl(fd, F_GETFD);
    if (fl >= 0)
        fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
}

/* A pty for one output stream: the master stays here, the slave becomes the
 * job's fd. Output post-processing is off on the slave, so the bytes the job
 * writes reach our terminal unchanged (it does its own \n -> \r\n). */
static int nd_open_pty(int like_fd, int *master, int *slave)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (m < 0)
        return -errno;
    char name[128];
    if (grantpt(m) < 0 || unlockpt(m) < 0 || ptsname_r(m, name, sizeof name) != 0) {
        int e = errno;
        close(m);
        return -e;
    }
    int s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (s < 0) {
        int e = errno;
        close(m);
        return -e;
    }
    struct termios tio;
    if (tcgetattr(like_fd, &tio) == 0 || tcgetattr(s, &tio) == 0) {
        tio.c_oflag &= ~(tcflag_t)OPOST;
        tcsetattr(s, TCSANOW, &tio);
    }
    struct winsize ws;
    if (ioctl(like_fd, TIOCGWINSZ, &ws) == 0)
        ioctl(m, TIOCSWINSZ, &ws);
    *master = m;
    *slave = s;
    return 0;
}

static void nd_child_exec(const struct nd_supervisor *sv, const struct nd_supervisor_opts *opt, int out_w, int err_w,
                          int errpipe)
{
    /* Dispositions back to what a shell would give: forwarded signals default
     * (SIGHUP stays ignored under nohup), SIGPIPE as we got it. */
    for (size_t i = 0; i < ND_ARRAY_SIZE(nd_forwarded); i++)
        if (!(nd_forwarded[i] == SIGHUP && sv->hup_ignored))
            signal(nd_forwarded[i], SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    signal(SIGWINCH, SIG_DFL);
    sigaction(SIGPIPE, &sv->old_pipe, NULL);
    sigprocmask(SIG_SETMASK, &sv->oldmask, NULL);
    setpgid(0, 0);
    /* If we are SIGKILLed (OOM killer, kubelet), the job must not run on
     * orphaned and unwatched: the kernel kills it when we die. Re-checked
     * after setting it, because we may have died between fork and here. */
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != sv->self)
        raise(SIGKILL);
    if (dup2(out_w, STDOUT_FILENO) < 0 || dup2(err_w, STDERR_FILENO) < 0)
        goto fail;
    if (opt->keep_fd > 2)
        close(opt->keep_fd);
    execvp(opt->argv[0], opt->argv);
fail:;
    int e = errno;
    ssize_t w = write(errpipe, &e, sizeof e);
    (void)w;
    _exit(127);
}

int nd_supervisor_start(const struct nd_supervisor_opts *opt, struct nd_supervisor **out, struct nd_error *err)
{
    *out = NULL;
    struct nd_supervisor *sv = nd_xcalloc(1, sizeof *sv);
    sv->grace_s = opt->grace_s;
    sv->sigfd = -1;
    sv->st[0].fd = sv->st[1].fd = -1;
    sv->st[0].out_fd = STDOUT_FILENO;
    sv->st[1].out_fd = STDERR_FILENO;
    sv->buf = nd_xmalloc(ND_SV_BUF);
    int wr[2] = {-1, -1};
    int errpipe[2] = {-1, -1};
    int rc = 0;

    /* Signals come through a signalfd; an ignored SIGINT/SIGQUIT (a
     * background job of a script) must be reset or it never arrives. */
    sigset_t set;
    sigemptyset(&set);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (size_t i = 0; i < ND_ARRAY_SIZE(nd_forwarded); i++) {
        struct sigaction old;
        sigaction(nd_forwarded[i], NULL, &old);
        if (nd_forwarded[i] == SIGHUP && old.sa_handler == SIG_IGN) {
            sv->hup_ignored = true;
            continue;
        }
        sigaction(nd_forwarded[i], &dfl, NULL);
        sigaddset(&set, nd_forwarded[i]);
    }
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGWINCH);
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &sv->old_pipe);
    sigprocmask(SIG_BLOCK, &set, &sv->oldmask);
    sv->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sv->sigfd < 0) {
        rc = nd_error_set(err, -errno, "signalfd: %s", strerror(errno));
        goto fail;
    }

    for (int i = 0; i < 2; i++) {
        bool want_pty = i == 0 ? opt->pty_stdout : opt->pty_stderr;
        if (want_pty && nd_open_pty(sv->st[i].out_fd, &sv->st[i].fd, &wr[i]) == 0) {
            sv->pty[i] = true;
            continue;
        }
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0) {
            rc = nd_error_set(err, -errno, "pipe: %s", strerror(errno));
            goto fail;
        }
        fcntl(p[0], F_SETPIPE_SZ, ND_SV_PIPE_SIZE); /* best effort: fewer wake-ups */
        sv->st[i].fd = p[0];
        wr[i] = p[1];
    }
    if (pipe2(errpipe, O_CLOEXEC) < 0) {
        rc = nd_error_set(err, -errno, "pipe: %s", strerror(errno));
        goto fail;
    }
    if (opt->keep_fd > 2)
        nd_set_cloexec(opt->keep_fd);

    /* Orphans of the job are re-parented to us, so we can reap them. */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    fflush(NULL);
    sv->started = nd_monotonic_now();
    sv->self = getpid();
    sv->pid = fork();
    if (sv->pid < 0) {
        rc = nd_error_set(err, -errno, "fork: %s", strerror(errno));
        goto fail;
    }
    if (sv->pid == 0)
        nd_child_exec(sv, opt, wr[0], wr[1], errpipe[1]);
    setpgid(sv->pid, sv->pid); /* also here: no race with our first kill(-pgid) */
    close(wr[0]);
    close(wr[1]);
    wr[0] = wr[1] = -1;
    close(errpipe[1]);
    errpipe[1] = -1;
    int e = 0;
    ssize_t n;
    do
        n = read(errpipe[0], &e, sizeof e);
    while (n < 0 && errno == EINTR);
    close(errpipe[0]);
    errpipe[0] = -1;
    if (n == (ssize_t)sizeof e) {
        while (waitpid(sv->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        sv->pid = 0;
        if (e == ENOENT)
            rc = nd_error_set(err, -e, "%s: command not found", opt->argv[0]);
        else
            rc = nd_error_set(err, -e, "%s: %s", opt->argv[0], strerror(e));
        goto fail;
    }
    *out = sv;
    return 0;

fail:
    for (int i = 0; i < 2; i++)
        if (wr[i] >= 0)
            close(wr[i]);
    if (errpipe[0] >= 0)
        close(errpipe[0]);
    if (errpipe[1] >= 0)
        close(errpipe[1]);
    nd_supervisor_free(sv);
    return rc;
}

pid_t nd_supervisor_pid(const struct nd_supervisor *sv)
{
    return sv->pid;
}

double nd_supervisor_started_at(const struct nd_supervisor *sv)
{
    return sv->started;
}

/* Writes everything, waiting out a non-blocking stdout; false on EPIPE and other errors. */
static bool nd_write_out(int fd, const char *p, size_t len)
{
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) {
            struct pollfd pf = {fd, POLLOUT, 0};
            poll(&pf, 1, 1000);
            continue;
        }
        return false;
    }
    return true;
}

/* The bytes after a read's last newline, kept for the next read (a line
 * longer than ND_SV_LINE_MAX keeps its first bytes). */
static void nd_keep_partial(struct nd_stream *s, const char *p, size_t n)
{
    size_t room = ND_SV_LINE_MAX - s->linelen;
    size_t take = n < room ? n : room;
    memcpy(s->line + s->linelen, p, take);
    s->linelen += take;
    if (take < n || s->linelen == ND_SV_LINE_MAX)
        s->overflow = true;
}

/* The line held across reads, now whole: one block of its own. */
static void nd_deliver_partial(const struct nd_supervisor_hooks *h, int i, struct nd_stream *s)
{
    s->line[s->linelen++] = '\n';
    s->lineno++;
    h->lines(h->arg, i + 1, s->line, s->linelen, s->lineno);
    s->linelen = 0;
    s->overflow = false;
}

/* Counts the lines of p (the line held from earlier reads, then the bytes
 * just read) and hands its whole lines to the hook in one block; what
 * follows the last newline is held for the next read. */
/* Counts the lines of p (the line held from earlier reads, pre bytes, then
 * the bytes just read) and hands its whole lines to the hook in one block;
 * what follows the last newline is held for the next read. raw: the bytes
 * of this read the hook holds itself (then held, not lines, is called). */
static void nd_lines(struct nd_supervisor *sv, const struct nd_supervisor_hooks *h, int i, const char *p, size_t n,
                     size_t pre, size_t raw)
{
    struct nd_stream *s = &sv->st[i];
    const char *end = p + n;
    const char *last = memrchr(p, '\n', n);
    if (!last) {
        if (raw)
            h->held(h->arg, i + 1, p, 0, 0, raw, s->lineno + 1);
        nd_keep_partial(s, p, n);
        return;
    }
    size_t c = nd_count_newlines(p, (size_t)(last - p) + 1);
    sv->lines += c;
    if (raw)
        h->held(h->arg, i + 1, p, (size_t)(last - p) + 1, pre, raw, s->lineno + 1);
    else if (h->lines)
        h->lines(h->arg, i + 1, p, (size_t)(last - p) + 1, s->lineno + 1);
    s->lineno += (long)c;
    nd_keep_partial(s, last + 1, (size_t)(end - last - 1));
}

static void nd_close_stream(struct nd_supervisor *sv, const struct nd_supervisor_hooks *h, int i)
{
    struct nd_stream *s = &sv->st[i];
    if (s->fd < 0)
        return;
    close(s->fd);
    s->fd = -1;
    if (s->linelen && h->lines)
        nd_deliver_partial(h, i, s);
    s->linelen = 0;
    s->overflow = false;
}

/* One read of a stream. The bytes go out first; then the line held from
 * earlier reads and the new bytes, one contiguous block, go to the hook. The
 * block is built where the hook asks for it (the monitor's backlog, so that
 * output it cannot match at once is held without a copy), or in our buffer. */
/* Reads exactly n bytes that are known to wait in fd (a tee just saw them). */
static ssize_t nd_read_exact(int fd, char *p, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return got ? (ssize_t)got : r;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* One read of a stream. The bytes go out first; then the line held from
 * earlier reads and the new bytes, one contiguous block, go to the hook. The
 * block is built where the hook asks for it (the monitor's backlog, so that
 * output it cannot match at once is held without a copy), or in our buffer;
 * from a pipe, the hook may hold the bytes before they are read (tee), and
 * then they cost it no copy at all. */
static void nd_read_stream(struct nd_supervisor *sv, const struct nd_supervisor_hooks *h, int i)
{
    struct nd_stream *s = &sv->st[i];
    size_t pre = s->linelen;
    size_t raw = 0;
    if (h->hold && h->held && !sv->pty[i] && !s->overflow)
        raw = h->hold(h->arg, s->fd, ND_SV_BUF - pre);
    size_t cap = 0;
    char *buf = !raw && h->buffer ? h->buffer(h->arg, ND_SV_BUF, &cap) : NULL;
    if (!buf || cap < 2 * (ND_SV_LINE_MAX + 1)) {
        buf = sv->buf; /* (held: the block is only looked at, here) */
        cap = ND_SV_BUF;
    }
    memcpy(buf, s->line, pre);
    ssize_t n = raw ? nd_read_exact(s->fd, buf + pre, raw) : read(s->fd, buf + pre, cap - pre);
    if (n < 0 && !raw && (errno == EINTR || errno == EAGAIN))
        return;
    if (raw && (n < 0 || (size_t)n != raw)) {
        /* Cannot happen with a pipe; the held bytes are dropped unmatched
         * rather than out of step. */
        h->held(h->arg, i + 1, buf, 0, 0, raw, s->lineno + 1);
        raw = 0;
    }
    if (n <= 0) { /* EOF; EIO on a pty whose slave side is closed */
        nd_close_stream(sv, h, i);
        return;
    }
    sv->bytes += (uint64_t)n;
    if (!s->out_dead && !nd_write_out(s->out_fd, buf + pre, (size_t)n)) {
        s->out_dead = true;
        if (errno == EPIPE && !sv->pty[i]) {
            /* Like a shell pipeline: the job's next write gets SIGPIPE. */
            if (raw)
                h->held(h->arg, i + 1, buf, 0, 0, raw, s->lineno + 1);
            nd_close_stream(sv, h, i);
            return;
        }
    }
    size_t len = pre + (size_t)n;
    if (s->overflow) {
        /* A cut line: its rest, up to the newline, is not matched. */
        const char *nl = memchr(buf + pre, '\n', (size_t)n);
        if (!nl)
            return;
        len = pre + (size_t)(buf + len - nl);
        memmove(buf + pre, nl, len - pre);
        s->overflow = false;
    }
    s->linelen = 0;
    nd_lines(sv, h, i, buf, len, pre, raw);
}

static void nd_send_term(struct nd_supervisor *sv, double now)
{
    kill(-sv->pid, SIGTERM);
    sv->term_sent = true;
    if (sv->kill_at == 0)
        sv->kill_at = now + sv->grace_s;
}

/* Reaps the job and whatever of its group became our child (we are a child
 * subreaper, so orphans of the job come to us instead of an init that may
 * never reap them). Never waits on other children (the device sessions). */
static void nd_reap(struct nd_supervisor *sv, double now)
{
    for (;;) {
        int st;
        pid_t r = waitpid(-sv->pid, &st, WNOHANG);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        if (r == sv->pid && !sv->reaped) {
            sv->reaped = true;
            sv->wstatus = st;
            /* Whatever the job left in its group goes too: no process left
             * behind. Said, because their late output and work end here. */
            if (nd_group_alive(sv->pid)) {
                if (!sv->term_sent)
                    fprintf(stderr,
                            "npu-doctor: the job exited; processes it left in its group get SIGTERM now and SIGKILL "
                            "after %g s (--grace); their output is passed through until then\n",
                            sv->grace_s);
                nd_send_term(sv, now);
            }
            nd_collect_escaped(sv, now);
        }
    }
    nd_reap_escaped(sv);
}

static void nd_handle_signals(struct nd_supervisor *sv, double now)
{
    struct signalfd_siginfo si;
    while (read(sv->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD) {
            nd_reap(sv, now);
        } else if (sig == SIGWINCH) {
            struct winsize ws;
            for (int i = 0; i < 2; i++)
                if (sv->pty[i] && sv->st[i].fd >= 0 && ioctl(sv->st[i].out_fd, TIOCGWINSZ, &ws) == 0)
                    ioctl(sv->st[i].fd, TIOCSWINSZ, &ws);
            kill(-sv->pid, SIGWINCH);
        } else if (sig == SIGINT && sv->last_sigint > 0 && now - sv->last_sigint <= ND_SV_ESCALATE_WINDOW_S) {
            fprintf(stderr, "npu-doctor: second Ctrl-C: stopping the job (SIGTERM, SIGKILL after %.0f s)\n", sv->grace_s);
            nd_send_term(sv, now);
            sv->last_sigint = now;
        } else {
            if (sig == SIGINT) {
                sv->last_sigint = now;
                if (!sv->reaped)
                    fprintf(stderr, "npu-doctor: SIGINT passed to the job; Ctrl-C again within %.0f s stops it\n",
                            ND_SV_ESCALATE_WINDOW_S);
            }
            /* A job that ignores SIGTERM would keep itself and us alive
             * forever: it gets the grace, then SIGKILL. */
            if (sig == SIGTERM && sv->kill_at == 0) {
                fprintf(stderr,
                        "npu-doctor: SIGTERM passed to the job; SIGKILL after %g s (--grace) if it is still running\n",
                        sv->grace_s);
                nd_send_term(sv, now);
            } else {
                kill(-sv->pid, sig);
            }
        }
    }
}

bool nd_supervisor_job_done(const struct nd_supervisor *sv)
{
    return sv->reaped;
}

void nd_supervisor_run(struct nd_supervisor *sv, const struct nd_supervisor_hooks *hooks, double first_tick)
{
    double next_tick = first_tick;
    for (;;) {
        double now = nd_monotonic_now();
        nd_reap(sv, now);
        bool group = nd_group_alive(sv->pid);
        if (sv->reaped && (!sv->escaped_scanned || group || nd_escaped_alive(sv))) {
            /* A daemon whose parent stayed in the group until now, or one
             * a straggler we stopped leaves orphaned as it goes (a "set -m"
             * subshell's own job): looked for until none is left. */
            sv->escaped_scanned = !group;
            nd_collect_escaped(sv, now);
        }
        group = group || (nd_escaped_alive(sv) && (sv->escaped_killed == 0 || now < sv->escaped_killed + 2));
        /* The last of them may have orphaned one more as it went. */
        if (sv->reaped && !group && nd_collect_escaped(sv, now) > 0)
            group = true;
        bool streams = sv->st[0].fd >= 0 || sv->st[1].fd >= 0;
        if (sv->reaped && !group) {
            if (!streams)
                break;
            if (sv->drain_until == 0)
                sv->drain_until = now + ND_SV_DRAIN_S;
            else if (now >= sv->drain_until) {
                nd_close_stream(sv, hooks, 0);
                nd_close_stream(sv, hooks, 1);
                break;
            }
        }
        if (hooks->tick && now >= next_tick) {
            next_tick = hooks->tick(hooks->arg, now);
            continue;
        }
        if (sv->kill_at > 0 && now >= sv->kill_at) {
            kill(-sv->pid, SIGKILL);
            nd_signal_escaped(sv, SIGKILL);
            if (sv->nescaped)
                sv->escaped_killed = now;
            sv->kill_at = 0;
        }
        double deadline = hooks->tick ? next_tick : now + 1;
        if (sv->kill_at > 0 && sv->kill_at < deadline)
            deadline = sv->kill_at;
        if (sv->drain_until > 0 && sv->drain_until < deadline)
            deadline = sv->drain_until;
        if (sv->reaped && group && now + 0.02 < deadline)
            deadline = now + 0.02; /* no SIGCHLD tells us the group emptied: look again soon */
        int ms = (int)ceil((deadline - now) * 1000);
        if (ms < 0)
            ms = 0;
        if (ms > 1000)
            ms = 1000;
        struct pollfd pf[3];
        int np = 0, idx[2] = {-1, -1};
        pf[np++] = (struct pollfd){sv->sigfd, POLLIN, 0};
        for (int i = 0; i < 2; i++)
            if (sv->st[i].fd >= 0) {
                idx[i] = np;
                pf[np++] = (struct pollfd){sv->st[i].fd, POLLIN, 0};
            }
        int r = poll(pf, (nfds_t)np, ms);
        if (r < 0 && errno != EINTR)
            break;
        if (r <= 0)
            continue;
        now = nd_monotonic_now();
        if (pf[0].revents)
            nd_handle_signals(sv, now);
        for (int i = 0; i < 2; i++)
            if (idx[i] >= 0 && sv->st[i].fd >= 0 && pf[idx[i]].revents)
                nd_read_stream(sv, hooks, i);
    }
}

void nd_supervisor_stop(struct nd_supervisor *sv)
{
    if (sv->stopped)
        return;
    sv->stopped = true;
    nd_send_term(sv, nd_monotonic_now());
}

bool nd_supervisor_stopped(const struct nd_supervisor *sv)
{
    return sv->stopped;
}

void nd_supervisor_output(const struct nd_supervisor *sv, uint64_t *bytes, uint64_t *lines)
{
    *bytes = sv->bytes;
    *lines = sv->lines;
}

int nd_supervisor_wait_status(const struct nd_supervisor *sv)
{
    return sv->wstatus;
}

int nd_supervisor_exit_code(const struct nd_supervisor *sv)
{
    if (WIFEXITED(sv->wstatus))
        return WEXITSTATUS(sv->wstatus);
    if (WIFSIGNALED(sv->wstatus))
        return 128 + WTERMSIG(sv->wstatus);
    return 1;
}

void nd_supervisor_free(struct nd_supervisor *sv)
{
    if (!sv)
        return;
    if (sv->pid > 0 && !sv->reaped) {
        nd_kill_and_reap(sv->pid);
        kill(-sv->pid, SIGKILL);
    }
    for (int i = 0; i < 2; i++)
        if (sv->st[i].fd >= 0)
            close(sv->st[i].fd);
    /* The signals stay blocked until we exit: a late Ctrl-C must not cut the
     * summary short. */
    if (sv->sigfd >= 0)
        close(sv->sigfd);
    free(sv->buf);
    free(sv);
}
