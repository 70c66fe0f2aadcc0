/* Options shared by `run` and `watch`: the detector settings with their
 * valid ranges, the outputs (--report, --metrics-file, --json-summary) and
 * their checks before anything starts. */
#ifndef ND_CMD_RUN_COMMON_H
#define ND_CMD_RUN_COMMON_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "monitor/detect.h"

struct nd_run_options {
    struct nd_detect_config cfg;
    double grace_s;
    const char *root;
    bool quiet;
    bool fail_fast;
    bool json_summary;
    const char *json_summary_file;   /* NULL: fd 3 */
    const char *report_dir;
    const char *metrics_path;
    const char *rules_dir;
    bool no_devices;
    bool synthetic_clock;
    /* watch */
    long pid;
    double for_s;                    /* 0: until the process exits */
};

/* Long options both commands accept; getopt codes start at 1000. */
enum {
    ND_OPT_ROOT = 1000, ND_OPT_INTERVAL, ND_OPT_WINDOW, ND_OPT_FALLBACK_AFTER, ND_OPT_WARMUP, ND_OPT_HANG_AFTER,
    ND_OPT_GRACE, ND_OPT_FAIL_FAST, ND_OPT_QUIET, ND_OPT_JSON_SUMMARY, ND_OPT_REPORT, ND_OPT_METRICS,
    ND_OPT_RULES, ND_OPT_NO_DEVICES, ND_OPT_SYNTHETIC, ND_OPT_PID, ND_OPT_FOR, ND_OPT_HELP, ND_OPT_REDACT,
};

#define ND_RUN_COMMON_LONGOPTS                                                                                  \
    {"root", required_argument, NULL, ND_OPT_ROOT}, {"interval", required_argument, NULL, ND_OPT_INTERVAL},     \
        {"window", required_argument, NULL, ND_OPT_WINDOW},                                                     \
        {"fallback-after", required_argument, NULL, ND_OPT_FALLBACK_AFTER},                                     \
        {"warmup", required_argument, NULL, ND_OPT_WARMUP}, {"hang-after", required_argument, NULL, ND_OPT_HANG_AFTER}, \
        {"grace", required_argument, NULL, ND_OPT_GRACE}, {"fail-fast", no_argument, NULL, ND_OPT_FAIL_FAST},  \
        {"quiet", no_argument, NULL, ND_OPT_QUIET}, {"json-summary", optional_argument, NULL, ND_OPT_JSON_SUMMARY}, \
        {"report", required_argument, NULL, ND_OPT_REPORT}, {"metrics-file", required_argument, NULL, ND_OPT_METRICS}, \
        {"rules", required_argument, NULL, ND_OPT_RULES}, {"no-devices", no_argument, NULL, ND_OPT_NO_DEVICES}, \
        {"synthetic-clock", no_argument, NULL, ND_OPT_SYNTHETIC}, {"help", no_argument, NULL, ND_OPT_HELP},  \
        {"redact", required_argument, NULL, ND_OPT_REDACT}

void nd_run_options_default(struct nd_run_options *o);
/* Handles one common option; returns 0, 1 when c is not a common option,
 * or ND_EXIT_USAGE after printing the error. */
int nd_run_option(const char *cmd, int c, const char *arg, struct nd_run_options *o);
/* Cross-checks (window >= interval...) after parsing: 0 or ND_EXIT_USAGE. */
int nd_run_options_check(const char *cmd, const struct nd_run_options *o);
/* --root, then the outputs; 0 or the exit code after printing the error.
 * Opens the JSON summary stream (*summary, NULL when not asked). */
int nd_run_prepare(const char *cmd, const struct nd_run_options *o, FILE **summary);
/* Closes the summary stream from nd_run_prepare; a --json-summary=FILE is
 * renamed into place here. 0 or -errno (said on stderr). */
int nd_run_summary_close(FILE *summary);
/* The options help text shared by both commands. */
extern const char nd_run_common_help[];

#endif
