/* Options shared by `run` and `watch` (see run_common.h). */
#include "cmd/run_common.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/error.h"
#include "core/exitcode.h"
#include "core/fileio.h"
#include "core/rootfs.h"
#include "monitor/monitor.h"

const char nd_run_common_help[] =
    "  --interval S          sample every S seconds (0.1-60, default 1)\n"
    "  --window S            detection window (1-86400, default 20)\n"
    "  --fallback-after S    a loaded device framework with no device held becomes\n"
    "                        an error after S seconds (default 120)\n"
    "  --warmup S            input-bound is judged only after S seconds (default 60)\n"
    "  --hang-after S        no output, CPU or device work for S s (default 300)\n"
    "  --grace S             SIGTERM to SIGKILL delay (0-3600, default 10)\n"
    "  --fail-fast           stop the job on the first error finding (exit 3)\n"
    "  --quiet               no live alerts, only the summary at the end\n"
    "  --json-summary[=FILE] the final findings as JSON on fd 3, or in FILE\n"
    "  --report DIR          write report.json, timeline.csv, timeline.svg into DIR\n"
    "  --metrics-file PATH   keep a Prometheus textfile (node_exporter) current\n"
    "  --root DIR            look for installs and device nodes under DIR (default /)\n"
    "  --rules DIR           extra knowledge-base rules for matching the output (run)\n"
    "  --redact REGEX        also redact variables whose name matches REGEX\n"
    "                        (repeatable)\n";

void nd_run_options_default(struct nd_run_options *o)
{
    memset(o, 0, sizeof *o);
    nd_detect_config_default(&o->cfg);
    o->grace_s = 10;
    o->pid = -1;
}

static int nd_seconds(const char *cmd, const char *opt, const char *arg, double lo, double hi, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = arg ? strtod(arg, &end) : NAN;
    if (!arg || end == arg || *end != '\0' || errno || !isfinite(v) || v < lo || v > hi)
        return nd_cmd_fail(cmd, ND_EXIT_USAGE, "%s %s: must be a number of seconds between %g and %g", opt,
                           arg ? arg : "", lo, hi);
    *out = v;
    return 0;
}

int nd_run_option(const char *cmd, int c, const char *arg, struct nd_run_options *o)
{
    switch (c) {
    case ND_OPT_ROOT: o->root = arg; return 0;
    case ND_OPT_INTERVAL: return nd_seconds(cmd, "--interval", arg, 0.1, 60, &o->cfg.interval_s);
    case ND_OPT_WINDOW: return nd_seconds(cmd, "--window", arg, 1, 86400, &o->cfg.window_s);
    case ND_OPT_FALLBACK_AFTER: return nd_seconds(cmd, "--fallback-after", arg, 1, 604800, &o->cfg.fallback_after_s);
    case ND_OPT_WARMUP: return nd_seconds(cmd, "--warmup", arg, 0, 86400, &o->cfg.warmup_s);
    case ND_OPT_HANG_AFTER: return nd_seconds(cmd, "--hang-after", arg, 1, 604800, &o->cfg.hang_after_s);
    case ND_OPT_GRACE: return nd_seconds(cmd, "--grace", arg, 0, 3600, &o->grace_s);
    case ND_OPT_FAIL_FAST: o->fail_fast = true; return 0;
    case ND_OPT_QUIET: o->quiet = true; return 0;
    case ND_OPT_JSON_SUMMARY:
        o->json_summary = true;
        o->json_summary_file = arg;
        return 0;
    case ND_OPT_REPORT: o->report_dir = arg; return 0;
    case ND_OPT_METRICS: o->metrics_path = arg; return 0;
    case ND_OPT_RULES: o->rules_dir = arg; return 0;
    case ND_OPT_REDACT: return nd_cmd_add_redact(cmd, arg);
    case ND_OPT_NO_DEVICES: o->no_devices = true; return 0;
    case ND_OPT_SYNTHETIC: o->synthetic_clock = true; return 0;
    case ND_OPT_FOR: return nd_seconds(cmd, "--for", arg, 0.1, 1e7, &o->for_s);
    case ND_OPT_PID: {
        char *end = NULL;
        errno = 0;
        long v = arg ? strtol(arg, &end, 10) : -1;
        if (!arg || end == arg || *end || errno || v <= 0 || v > 4194304)
            return nd_cmd_fail(cmd, ND_EXIT_USAGE, "--pid %s: must be a process id (1-4194304)", arg ? arg : "");
        o->pid = v;
        return 0;
    }
    default: return 1;
    }
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
        fprintf(stderr, "npu-doctor: cannot write the JSON summary: %s\n", err.msg);
    return rc;
}
