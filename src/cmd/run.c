/* npu-doctor run [options] -- CMD ARGS...: runs the job under the supervisor
 * (its own process group, byte-exact passthrough, signal forwarding) and
 * watches it with the monitor. Returns the job's own status (128+N for a
 * signal), 3 when --fail-fast stopped it, 124 when --timeout did, 127/126
 * when it could not start. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/explain_compat.h"
#include "cmd/options.h"
#include "cmd/run_common.h"
#include "core/exitcode.h"
#include "core/report.h"
#include "core/spawn.h"
#include "kb/kb.h"
#include "kb/kb_loader.h"
#include "monitor/monitor.h"
#include "core/supervisor.h"
#include "core/termsafe.h"

static const char nd_run_about[] = "Runs CMD and watches it: is it really on the NPU/GPU? Reports a silent CPU\n"
                                   "fallback within the window, an input-bound or hung job, memory trouble and\n"
                                   "what the exit status means. Output passes through unchanged; signals go to\n"
                                   "the job; a second Ctrl-C within 3 s stops it. Exit status: the job's own.\n\n"
                                   "The job's life: a SIGTERM to npu-doctor goes to the job's process group and\n"
                                   "becomes SIGKILL after --grace. When the job's main process exits, processes it\n"
                                   "left behind (in its group, or moved out with setsid) get SIGTERM, then SIGKILL\n"
                                   "after --grace; their output passes through until then. If npu-doctor itself is\n"
                                   "killed (SIGKILL, OOM killer), the kernel kills the job's main process at once\n"
                                   "(parent-death signal); children of the job that outlive it are not watched.\n"
                                   "With --timeout, a job still running then is stopped the same way (exit 124).\n\n"
                                   "options:\n";

static const char nd_run_footer[] = "example:\n  npu-doctor run --report out/ -- python3 train.py\n";

struct nd_run_ctx {
    struct nd_monitor *mon;
    struct nd_supervisor *sv;
    double timeout_s; /* 0: none */
    double grace_s;
    bool timed_out;
};

/* --timeout: the wall-clock limit, on the monotonic clock (a synthetic clock
 * is for the detectors; a limit is real time). Its whole tree is stopped:
 * the group through the supervisor, and what left the group (setsid) and the
 * monitor tracks, at once, so nothing runs on past the limit. */
static double nd_run_timeout_check(struct nd_run_ctx *c, double now)
{
    if (c->timeout_s <= 0 || c->timed_out)
        return 0;
    double deadline = nd_supervisor_started_at(c->sv) + c->timeout_s;
    if (now < deadline)
        return deadline;
    if (nd_supervisor_job_done(c->sv))
        return 0; /* it ended in time; what it left behind is stopped as always */
    c->timed_out = true;
    fprintf(stderr,
            "npu-doctor: --timeout %g s reached: stopping the job (SIGTERM to its process tree, SIGKILL after %g s)\n",
            c->timeout_s, c->grace_s);
    nd_monitor_stopping(c->mon);
    nd_supervisor_stop(c->sv);
    nd_monitor_signal_all(c->mon, SIGTERM);
    return 0;
}

static void nd_run_lines(void *arg, int stream, const char *data, size_t len, long first_lineno)
{
    struct nd_run_ctx *c = arg;
    nd_monitor_lines(c->mon, stream, data, len, first_lineno);
}

static char *nd_run_buffer(void *arg, size_t want, size_t *cap)
{
    struct nd_run_ctx *c = arg;
    return nd_monitor_buffer(c->mon, want, cap);
}

static size_t nd_run_hold(void *arg, int fd, size_t max)
{
    struct nd_run_ctx *c = arg;
    return nd_monitor_hold(c->mon, fd, max);
}

static void nd_run_held(void *arg, int stream, const char *data, size_t len, size_t prefix, size_t raw, long lineno)
{
    struct nd_run_ctx *c = arg;
    nd_monitor_held_lines(c->mon, stream, data, len, prefix, raw, lineno);
}

static double nd_run_tick(void *arg, double now)
{
    struct nd_run_ctx *c = arg;
    uint64_t bytes, lines;
    nd_supervisor_output(c->sv, &bytes, &lines);
    nd_monitor_set_output(c->mon, bytes, lines);
    double next = nd_monitor_tick(c->mon, now);
    if (nd_monitor_wants_stop(c->mon) && !c->timed_out)
        nd_supervisor_stop(c->sv);
    double deadline = nd_run_timeout_check(c, nd_monotonic_now());
    return deadline > 0 && deadline < next ? deadline : next;
}

/* Processes of the job that left its group (setsid) are ended too. */
static void nd_run_sweep(struct nd_monitor *mon, double grace_s)
{
    if (nd_monitor_signal_all(mon, SIGTERM) == 0)
        return;
    double end = nd_monotonic_now() + grace_s;
    while (nd_monotonic_now() < end && nd_monitor_signal_all(mon, 0) > 0) {
        nd_monitor_reap(mon);
        usleep(20000);
    }
    nd_monitor_signal_all(mon, SIGKILL);
    end = nd_monotonic_now() + 1.0;
    while (nd_monotonic_now() < end && nd_monitor_signal_all(mon, 0) > 0) {
        nd_monitor_reap(mon);
        usleep(10000);
    }
}

int cmd_run(int argc, char **argv)
{
    struct nd_run_options o;
    nd_run_options_default(&o);
    struct nd_option opts[ND_RUN_COMMON_NOPTS + 2] = {
        {.name = "timeout",
         .kind = ND_ARG_DURATION,
         .out = &o.timeout_s,
         .min = 0,
         .max = 31536000,
         .flags = ND_OPTF_ABOVE_MIN,
         .arg_name = "DURATION",
         .help = "stop the job when it still runs after DURATION (90s, 30m, 2h): SIGTERM to its process tree, "
                 "SIGKILL after --grace; exit 124"},
    };
    nd_run_common_options(&o, opts + 1);
    const struct nd_cmd_spec spec = {
        "run", "npu-doctor run [options] -- CMD [ARGS...]", nd_run_about, opts, nd_run_footer, ND_SPEC_STOP_AT_OPERAND};
    int first_op;
    int prc = nd_opts_parse(&spec, argc, argv, &o, &first_op);
    if (prc)
        return prc == ND_OPTS_HELP ? ND_EXIT_OK : prc;
    if (first_op >= argc)
        return nd_opts_usage_error("run", "no command given (npu-doctor run [options] -- CMD ARGS...)");
    int rc = nd_run_options_check("run", &o);
    if (rc)
        return rc;
    FILE *summary = NULL;
    rc = nd_run_prepare("run", &o, &summary);
    if (rc)
        return rc;

    struct nd_error err = {0};
    struct nd_kb *kb = NULL;
    if (o.rules_dir) {
        /* Extra rules are checked before the job starts: a broken file is a usage error. */
        const char *dirs[1] = {o.rules_dir};
        if (nd_kb_load(&kb, dirs, 1, &err) < 0) {
            if (summary)
                nd_run_summary_close(summary);
            /* Too large to read is unreadable input (66), as in explain and rules. */
            return nd_cmd_fail("run", err.code == -EFBIG ? ND_EXIT_NOINPUT : ND_EXIT_USAGE, "--rules: %s", err.msg);
        }
    }

    char **job_argv = argv + first_op;
    struct nd_supervisor_opts so = {job_argv, o.grace_s, isatty(STDOUT_FILENO) == 1, isatty(STDERR_FILENO) == 1,
                                    summary ? fileno(summary) : -1};
    struct nd_supervisor *sv = NULL;
    rc = nd_supervisor_start(&so, &sv, &err);
    if (rc < 0) {
        nd_term_eprintf("npu-doctor run: %s\n", err.msg);
        nd_kb_free(kb);
        if (summary)
            nd_run_summary_close(summary);
        if (rc == -ENOENT)
            return 127; /* as a shell says: command not found */
        if (rc == -EACCES || rc == -ENOEXEC || rc == -EISDIR || rc == -ENOTDIR || rc == -ELOOP || rc == -E2BIG)
            return 126; /* found but cannot be executed */
        return ND_EXIT_INTERNAL;
    }

    struct nd_monitor_opts mo = {
        .command = "run",
        .cfg = o.cfg,
        .root = nd_supervisor_pid(sv),
        .pgid = nd_supervisor_pid(sv),
        .argv = job_argv,
        .quiet = o.quiet,
        .fail_fast = o.fail_fast,
        .color = nd_term_wants_color(stderr),
        .out_observed = true,
        .report_dir = o.report_dir,
        .metrics_path = o.metrics_path,
        .json_summary = summary,
        .synthetic_clock = o.synthetic_clock,
        .no_devices = o.no_devices,
        .kb = kb,
        .log_compat = nd_explain_compat,
    };
    struct nd_run_ctx ctx = {.mon = NULL, .sv = sv, .timeout_s = o.timeout_s, .grace_s = o.grace_s};
    if (nd_monitor_new(&mo, &ctx.mon, &err) < 0) {
        /* The job is already running: it goes on, unwatched. */
        nd_term_eprintf("npu-doctor: warning: the monitor could not start (%s); the job runs unwatched\n", err.msg);
        struct nd_supervisor_hooks none = {NULL, NULL, NULL, NULL, NULL, NULL};
        nd_supervisor_run(sv, &none, 0);
        int code = nd_supervisor_exit_code(sv);
        nd_supervisor_free(sv);
        nd_kb_free(kb);
        if (summary)
            nd_run_summary_close(summary);
        return code;
    }
    double first = nd_monitor_start(ctx.mon);
    if (o.timeout_s > 0 && nd_supervisor_started_at(sv) + o.timeout_s < first)
        first = nd_supervisor_started_at(sv) + o.timeout_s;
    /* The built-in rules compile in a thread while the job starts; only now,
     * after the device sessions were forked (see nd_assert_fork_safe). */
    if (!kb) {
        struct nd_kb_loader *loader = nd_kb_loader_start();
        if (loader) {
            nd_monitor_adopt_kb_loader(ctx.mon, loader);
        } else if (nd_kb_load(&kb, NULL, 0, &err) < 0) {
            nd_term_eprintf("npu-doctor: warning: knowledge base not loaded (%s); using the built-in line table\n",
                            err.msg);
            kb = NULL;
        } else {
            nd_monitor_use_kb(ctx.mon, kb);
        }
    }
    struct nd_supervisor_hooks hooks = {&ctx, nd_run_lines, nd_run_tick, nd_run_buffer, nd_run_hold, nd_run_held};
    nd_supervisor_run(sv, &hooks, first);

    double duration = nd_monotonic_now() - nd_supervisor_started_at(sv);
    uint64_t bytes, lines;
    nd_supervisor_output(sv, &bytes, &lines);
    nd_monitor_set_output(ctx.mon, bytes, lines);
    nd_run_sweep(ctx.mon, o.grace_s);

    int ws = nd_supervisor_wait_status(sv);
    /* The output's last error and traceback: the monitor's, in nd_monitor_finish. */
    struct nd_exit_info ex = {.exited = WIFEXITED(ws),
                              .code = WIFEXITED(ws) ? WEXITSTATUS(ws) : 0,
                              .signaled = WIFSIGNALED(ws),
                              .signal = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0,
                              .stopped_by_us = nd_supervisor_stopped(sv),
                              .timeout_s = ctx.timed_out ? o.timeout_s : 0,
                              .last_error = "",
                              .last_error_line = 0,
                              .last_line = "",
                              .traceback_error = NULL,
                              .traceback_line = 0};
    int code = nd_supervisor_exit_code(sv);
    nd_monitor_finish(ctx.mon, &ex, code, o.synthetic_clock ? nd_monitor_clock(ctx.mon) : duration);
    bool stopped = nd_supervisor_stopped(sv);
    nd_monitor_free(ctx.mon);
    nd_supervisor_free(sv);
    nd_kb_free(kb);
    if (summary)
        nd_run_summary_close(summary);
    if (ctx.timed_out)
        return ND_EXIT_TIMEOUT;
    return stopped ? ND_EXIT_FAIL_FAST : code;
}
