/* Options shared by `run` and `watch` (see run_common.h). */
#include "cmd/run_common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "core/error.h"
#include "core/exitcode.h"
#include "core/fileio.h"
#include "core/rootfs.h"
#include "core/termsafe.h"
#include "monitor/monitor.h"

void nd_run_options_default(struct nd_run_options *o)
{
    memset(o, 0, sizeof *o);
    nd_detect_config_default(&o->cfg);
    o->grace_s = 10;
    o->pid = -1;
}

static int nd_run_set_summary(const char *cmd, const char *arg, void *ctx)
{
    (void)cmd;
    struct nd_run_options *o = ctx;
    o->json_summary = true;
    o->json_summary_file = arg;
    return 0;
}

static int nd_run_add_redact(const char *cmd, const char *arg, void *ctx)
{
    (void)ctx;
    return nd_cmd_add_redact(cmd, arg);
}

size_t nd_run_common_options(struct nd_run_options *o, struct nd_option *opts)
{
    const struct nd_option common[] = {
        {.name = "interval",
         .kind = ND_ARG_SECONDS,
         .out = &o->cfg.interval_s,
         .min = 0.1,
         .max = 60,
         .arg_name = "S",
         .help = "sample every S seconds (0.1-60, default 1)"},
        {.name = "window",
         .kind = ND_ARG_SECONDS,
         .out = &o->cfg.window_s,
         .min = 1,
         .max = 86400,
         .arg_name = "S",
         .help = "detection window (1-86400, default 20)"},
        {.name = "fallback-after",
         .kind = ND_ARG_SECONDS,
         .out = &o->cfg.fallback_after_s,
         .min = 1,
         .max = 604800,
         .arg_name = "S",
         .help = "a loaded device framework with no device held becomes an error after S seconds (default 120)"},
        {.name = "warmup",
         .kind = ND_ARG_SECONDS,
         .out = &o->cfg.warmup_s,
         .min = 0,
         .max = 86400,
         .arg_name = "S",
         .help = "input-bound is judged only after S seconds (default 60)"},
        {.name = "hang-after",
         .kind = ND_ARG_SECONDS,
         .out = &o->cfg.hang_after_s,
         .min = 1,
         .max = 604800,
         .arg_name = "S",
         .help = "no output, CPU or device work for S s (default 300)"},
        {.name = "grace",
         .kind = ND_ARG_SECONDS,
         .out = &o->grace_s,
         .min = 0,
         .max = 3600,
         .arg_name = "S",
         .help = "SIGTERM to SIGKILL delay (0-3600, default 10)"},
        {.name = "fail-fast",
         .kind = ND_ARG_NONE,
         .out = &o->fail_fast,
         .help = "stop the job on the first error finding (exit 3)"},
        {.name = "quiet", .kind = ND_ARG_NONE, .out = &o->quiet, .help = "no live alerts, only the summary at the end"},
        {.name = "json-summary",
         .kind = ND_ARG_STRING,
         .flags = ND_OPTF_OPTIONAL,
         .cb = nd_run_set_summary,
         .arg_name = "FILE",
         .help = "the final findings as JSON on fd 3, or in FILE"},
        {.name = "report",
         .kind = ND_ARG_STRING,
         .out = &o->report_dir,
         .arg_name = "DIR",
         .help = "write report.json, timeline.csv, timeline.svg into DIR"},
        {.name = "metrics-file",
         .kind = ND_ARG_STRING,
         .out = &o->metrics_path,
         .arg_name = "PATH",
         .help = "keep a Prometheus textfile (node_exporter) current"},
        {.name = "root",
         .kind = ND_ARG_STRING,
         .out = &o->root,
         .arg_name = "DIR",
         .help = "look for installs and device nodes under DIR (default /)"},
        {.name = "rules",
         .kind = ND_ARG_STRING,
         .out = &o->rules_dir,
         .arg_name = "DIR",
         .help = "extra knowledge-base rules for matching the output (run)"},
        {.name = "redact",
         .kind = ND_ARG_STRING,
         .flags = ND_OPTF_REPEAT,
         .cb = nd_run_add_redact,
         .arg_name = "REGEX",
         .help = "also redact variables whose name matches REGEX"},
        /* For the tests: no vendor library, and time from the samples. */
        {.name = "no-devices", .kind = ND_ARG_NONE, .flags = ND_OPTF_HIDDEN, .out = &o->no_devices},
        {.name = "synthetic-clock", .kind = ND_ARG_NONE, .flags = ND_OPTF_HIDDEN, .out = &o->synthetic_clock},
    };
    size_t n = sizeof common / sizeof *common;
    _Static_assert(sizeof common / sizeof *common <= ND_RUN_COMMON_NOPTS, "room for the common options");
    memcpy(opts, common, sizeof common);
    return n;
}

int nd_run_options_check(const char *cmd, const struct nd_run_options *o)
{
    const struct nd_detect_config *c = &o->cfg;
    if (c->window_s < 2 * c->interval_s)
        return nd_cmd_fail(cmd, ND_EXIT_USAGE, "--window %g: must be at least two intervals (%g s)", c->window_s,
                           2 * c->interval_s);
    if (c->fallback_after_s < c->window_s)
        return nd_cmd_fail(cmd, ND_EXIT_USAGE, "--fallback-after %g: must be at least the window (%g s)",
                           c->fallback_after_s, c->window_s);
    if (c->hang_after_s < 2 * c->interval_s)
        return nd_cmd_fail(cmd, ND_EXIT_USAGE, "--hang-after %g: must be at least two intervals (%g s)",
                           c->hang_after_s, 2 * c->interval_s);
    return 0;
}

/* --json-summary=FILE goes through the output-file helper like every other
 * file we write: opened (as a temp file) before the job starts, so a bad
 * path is said at once, and renamed into place at the end. */
static struct nd_outfile *nd_summary_out;

int nd_run_prepare(const char *cmd, const struct nd_run_options *o, FILE **summary)
{
    *summary = NULL;
    struct nd_error err = {0};
    if (o->root && nd_rootfs_set(o->root, &err) < 0)
        return nd_cmd_fail(cmd, ND_EXIT_NOINPUT, "--root: %s", err.msg);
    if (nd_monitor_check_outputs(o->report_dir, o->metrics_path, &err) < 0)
        return nd_cmd_fail(cmd, ND_EXIT_CANTCREAT, "%s", err.msg);
    if (!o->json_summary)
        return 0;
    if (o->json_summary_file) {
        if (nd_outfile_open(o->json_summary_file, &nd_summary_out, &err) < 0)
            return nd_cmd_fail(cmd, ND_EXIT_CANTCREAT, "--json-summary=%s", err.msg);
        *summary = nd_outfile_stream(nd_summary_out);
        return 0;
    }
    if (fcntl(3, F_GETFD) < 0)
        return nd_cmd_fail(cmd, ND_EXIT_USAGE,
                           "--json-summary writes to fd 3, which is not open (add 3>FILE, or use --json-summary=FILE)");
    *summary = fdopen(3, "w");
    if (!*summary)
        return nd_cmd_fail(cmd, ND_EXIT_USAGE, "--json-summary: fd 3: %s", strerror(errno));
    return 0;
}

int nd_run_summary_close(FILE *summary)
{
    if (!summary)
        return 0;
    if (!nd_summary_out || summary != nd_outfile_stream(nd_summary_out))
        return fclose(summary) == 0 ? 0 : -EIO;
    struct nd_error err = {0};
    int rc = nd_outfile_commit(nd_summary_out, &err);
    nd_summary_out = NULL;
    if (rc < 0)
        nd_term_eprintf("npu-doctor: cannot write the JSON summary: %s\n", err.msg);
    return rc;
}
