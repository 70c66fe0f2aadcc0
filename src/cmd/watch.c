/* npu-doctor watch --pid N [--for S]: the run monitor attached to a process
 * tree that is already running (no output passthrough). Ends when the
 * process exits or after --for seconds. Exit status: the job's own when it
 * ended and the kernel told it (its zombie's stat, read before its parent
 * reaps it, else the kernel's exit notice: watch cannot wait() for a
 * process it did not start); 0/1/2 by
 * the worst finding when --for ran out or the status stayed unknown; 3
 * when --fail-fast stopped the process. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/run_common.h"
#include "core/exitcode.h"
#include "core/report.h"
#include "core/spawn.h"
#include "monitor/monitor.h"
#include "proc/pidsig.h"
#include "proc/proc.h"
#include "proc/taskstats.h"

static const char nd_watch_about[] = "Attaches to a running job (N and all its descendants) and watches it like\n"
                                     "`run` does: is it really on the NPU/GPU? Ends when N exits or after --for.\n\n"
                                     "options:\n";

static const char nd_watch_footer[] = "exit status:\n"
                                      "  When the job ends, watch says so and returns the job's own status (128+N\n"
                                      "  when signal N killed it), read from the kernel before the job's parent\n"
                                      "  collects it. When that status cannot be read (the parent was faster),\n"
                                      "  watch says it is unknown and returns 0, 1 or 2 by the worst finding, as\n"
                                      "  it does when --for runs out first. 3: --fail-fast stopped the job.\n"
                                      "\nexample:\n  npu-doctor watch --pid 4242 --for 60\n";

/* When the watched process started (ticks since boot): a process that has
 * its number once it exited is another one, never watched or signalled. */
static uint64_t nd_watched_start;

static bool nd_alive(pid_t pid)
{
    if (kill(pid, 0) < 0 && errno == ESRCH)
        return false;
    struct nd_proc_stat st;
    return nd_proc_read_stat(pid, &st) == 0 && st.state != 'Z' && st.state != 'X' &&
           (nd_watched_start == 0 || st.starttime_ticks == nd_watched_start);
}

/* Why pid cannot be watched, as one line for the user, or 0 when it can:
 * gone, or ended (a zombie its parent has not collected). Another user's
 * process is watched with what we may read (unprivileged, its io, fd and
 * environ are closed to us): the detectors say what they could not see and
 * the summary carries monitor.limited-view, so the user is told here once. */
static int nd_watch_target(pid_t pid, char *why, size_t size)
{
    struct nd_proc_stat st;
    if ((kill(pid, 0) < 0 && errno == ESRCH) || nd_proc_read_stat(pid, &st) != 0) {
        snprintf(why, size, "--pid %d: no such process", (int)pid);
        return -1;
    }
    if (st.state == 'Z' || st.state == 'X') {
        snprintf(why, size, "--pid %d has already exited (a zombie its parent has not collected): nothing to watch",
                 (int)pid);
        return -1;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/io", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && (errno == EACCES || errno == EPERM)) {
        struct stat sb;
        snprintf(path, sizeof path, "/proc/%d", (int)pid);
        long uid = stat(path, &sb) == 0 ? (long)sb.st_uid : -1;
        fprintf(stderr,
                "npu-doctor: --pid %d belongs to uid %ld and npu-doctor runs as uid %ld, which may not read its "
                "open files or I/O counters: findings say what could not be seen (run as that user or as root "
                "for the full view)\n",
                (int)pid, uid, (long)geteuid());
    }
    if (fd >= 0)
        close(fd);
    nd_watched_start = st.starttime_ticks;
    return 0;
}

/* --fail-fast: SIGTERM to the job (its group when it leads one), SIGKILL
 * after the grace. Only ever to the job: through its pidfd, or after its
 * start time was read again (pidsig.h); the group once its leader is gone
 * only through the kernel's pidfd group signal, which cannot reach a group
 * that took the number since. */
static void nd_watch_signal(struct nd_monitor *mon, int pidfd, pid_t pid, pid_t pgid, int sig)
{
    if (pgid > 0)
        nd_pgrp_signal_verified(pidfd, pgid, nd_watched_start, sig);
    nd_pid_signal_verified(pidfd, pid, nd_watched_start, sig);
    nd_monitor_signal_all(mon, sig);
}

static void nd_watch_stop(struct nd_monitor *mon, int pidfd, pid_t pid, pid_t pgid, double grace_s)
{
    nd_watch_signal(mon, pidfd, pid, pgid, SIGTERM);
    double end = nd_monotonic_now() + grace_s;
    while (nd_monotonic_now() < end && nd_alive(pid))
        usleep(20000);
    nd_watch_signal(mon, pidfd, pid, pgid, SIGKILL);
}

int cmd_watch(int argc, char **argv)
{
    struct nd_run_options o;
    nd_run_options_default(&o);
    struct nd_option opts[ND_RUN_COMMON_NOPTS + 3] = {
        {.name = "pid", .kind = ND_ARG_PID, .out = &o.pid, .arg_name = "N", .help = "the job's main process (required)"},
        {.name = "for",
         .kind = ND_ARG_SECONDS,
         .out = &o.for_s,
         .min = 0.1,
         .max = 1e7,
         .arg_name = "S",
         .help = "stop watching after S seconds"},
    };
    nd_run_common_options(&o, opts + 2);
    const struct nd_cmd_spec spec = {"watch",         "npu-doctor watch --pid N [--for SECONDS] [options]",
                                     nd_watch_about,  opts,
                                     nd_watch_footer, ND_SPEC_NO_OPERANDS};
    int first;
    int prc = nd_opts_parse(&spec, argc, argv, &o, &first);
    if (prc)
        return prc == ND_OPTS_HELP ? ND_EXIT_OK : prc;
    if (o.pid <= 0)
        return nd_opts_usage_error("watch", "--pid N is required");
    int rc = nd_run_options_check("watch", &o);
    if (rc)
        return rc;
    pid_t pid = (pid_t)o.pid;
    char why[256];
    if (nd_watch_target(pid, why, sizeof why) < 0)
        return nd_cmd_fail("watch", ND_EXIT_NOINPUT, "%s", why);
    FILE *summary = NULL;
    rc = nd_run_prepare("watch", &o, &summary);
    if (rc)
        return rc;

    char cmdline[1024];
    if (nd_proc_read_cmdline(pid, cmdline, sizeof cmdline) < 0)
        snprintf(cmdline, sizeof cmdline, "pid %d", (int)pid);
    char *job_argv[2] = {cmdline, NULL};
    pid_t pgid = getpgid(pid);
    struct nd_monitor_opts mo = {
        .command = "watch",
        .cfg = o.cfg,
        .root = pid,
        .root_start = nd_watched_start,
        .pgid = pgid == pid ? pid : 0,
        .argv = job_argv,
        .quiet = o.quiet,
        .fail_fast = o.fail_fast,
        .color = nd_term_wants_color(stderr),
        .out_observed = false,
        .report_dir = o.report_dir,
        .metrics_path = o.metrics_path,
        .json_summary = summary,
        .synthetic_clock = o.synthetic_clock,
        .no_devices = o.no_devices,
        .kb = NULL,
    };
    struct nd_monitor *mon = NULL;
    struct nd_error err = {0};
    if (nd_monitor_new(&mo, &mon, &err) < 0) {
        if (summary)
            nd_run_summary_close(summary);
        return nd_cmd_fail("watch", ND_EXIT_INTERNAL, "%s", err.msg);
    }
    double start = nd_monotonic_now();
    /* Listening before the first look at the job: an exit in between is heard. */
    struct nd_exit_listener *exits = NULL;
    nd_exit_listener_open(&exits);
    int pidfd = nd_pidfd_open_verified(pid, nd_watched_start);
    double next = nd_monitor_start(mon);
    bool stopped = false, ended = false;
    int ws = 0;
    bool ws_known = false;
    for (;;) {
        double now = nd_monotonic_now();
        if (o.for_s > 0 && (o.synthetic_clock ? nd_monitor_clock(mon) : now - start) >= o.for_s)
            break;
        if (!nd_alive(pid)) {
            /* Read at once: the zombie's status lasts only until its parent reaps it. */
            ended = true;
            ws_known = nd_monitor_root_exit(mon, &ws);
            /* Reaped by its parent already: the kernel's exit notice still says. */
            if (!ws_known && exits)
                ws_known = nd_exit_listener_status(exits, pid, 500, &ws);
            break;
        }
        if (now >= next || o.synthetic_clock) {
            int unused;
            if (exits) /* every exit on the host is noticed: drain them, keep ours */
                nd_exit_listener_status(exits, pid, 0, &unused);
            next = nd_monitor_tick(mon, now);
            if (nd_monitor_wants_stop(mon)) {
                nd_watch_stop(mon, pidfd, pid, mo.pgid, o.grace_s);
                stopped = true;
                break;
            }
            continue;
        }
        double until = next;
        if (o.for_s > 0 && start + o.for_s < until)
            until = start + o.for_s;
        int ms = (int)((until - now) * 1000) + 1;
        if (ms > 1000)
            ms = 1000;
        if (pidfd >= 0) {
            struct pollfd pf = {pidfd, POLLIN, 0};
            poll(&pf, 1, ms);
        } else {
            usleep((useconds_t)ms * 1000);
        }
    }
    if (pidfd >= 0)
        close(pidfd);
    nd_exit_listener_free(exits);
    double duration = o.synthetic_clock ? nd_monitor_clock(mon) : nd_monotonic_now() - start;
    int status = -1;
    struct nd_exit_info ex = {0};
    if (ended && ws_known) {
        ex.exited = WIFEXITED(ws);
        ex.code = ex.exited ? WEXITSTATUS(ws) : 0;
        ex.signaled = WIFSIGNALED(ws);
        ex.signal = ex.signaled ? WTERMSIG(ws) : 0;
        status = ex.exited ? ex.code : ex.signaled ? 128 + ex.signal : -1;
    }
    ex.stopped_by_us = stopped;
    struct nd_proc_stat now_st;
    if (ended && nd_proc_read_stat(pid, &now_st) == 0 && now_st.starttime_ticks != nd_watched_start)
        fprintf(stderr,
                "npu-doctor: pid %d now belongs to another process, started after the job ended; it is not "
                "watched\n",
                (int)pid);
    if (ended && status >= 0)
        fprintf(stderr, "npu-doctor: the job (pid %d) ended: exit status %d\n", (int)pid, status);
    else if (ended)
        fprintf(stderr,
                "npu-doctor: the job (pid %d) ended; its exit status is unknown (its parent collected it "
                "first, and %s)\n",
                (int)pid, exits ? "the kernel's exit notice did not come" : "exit notices need root outside a container");
    nd_monitor_finish(mon, status >= 0 ? &ex : NULL, status, duration);
    int code = stopped ? ND_EXIT_FAIL_FAST : status >= 0 ? status : nd_findings_exit_code(nd_monitor_findings(mon));
    nd_monitor_free(mon);
    if (summary)
        nd_run_summary_close(summary);
    return code;
}
