/* Options shared by `run` and `watch`: the detector settings with their
 * valid ranges, the outputs (--report, --metrics-file, --json-summary) and
 * their checks before anything starts. */
#ifndef ND_CMD_RUN_COMMON_H
#define ND_CMD_RUN_COMMON_H

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
    const char *json_summary_file; /* NULL: fd 3 */
    const char *report_dir;
    const char *metrics_path;
    const char *rules_dir;
    bool no_devices;
    bool synthetic_clock;
    /* run */
    double timeout_s; /* --timeout: 0 none */
    /* watch */
    long pid;
    double for_s; /* 0: until the process exits */
};

struct nd_option;
/* The most entries nd_run_common_options() fills. */
#define ND_RUN_COMMON_NOPTS 16

void nd_run_options_default(struct nd_run_options *o);
/* Fills opts with the option-table entries of the options both commands
 * take, stored into o (the callbacks want o as their ctx); returns how many. */
size_t nd_run_common_options(struct nd_run_options *o, struct nd_option *opts);
/* Cross-checks (window >= interval...) after parsing: 0 or ND_EXIT_USAGE. */
int nd_run_options_check(const char *cmd, const struct nd_run_options *o);
/* --root, then the outputs; 0 or the exit code after printing the error.
 * Opens the JSON summary stream (*summary, NULL when not asked). */
int nd_run_prepare(const char *cmd, const struct nd_run_options *o, FILE **summary);
/* Closes the summary stream from nd_run_prepare; a --json-summary=FILE is
 * renamed into place here. 0 or -errno (said on stderr). */
int nd_run_summary_close(FILE *summary);

#endif
