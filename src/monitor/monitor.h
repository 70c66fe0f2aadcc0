/* The monitor shared by run and watch: drives the sampler on the sampler
 * clock, keeps the series, runs the detectors, prints each finding the
 * moment it is found, and at the end writes the summary, the JSON summary,
 * the report folder (report.json, timeline.csv, timeline.svg) and keeps the
 * Prometheus textfile current. The sampler clock advances one --interval per
 * tick, so at_s values do not stretch when a loaded host delays a tick. */
#ifndef ND_MONITOR_MONITOR_H
#define ND_MONITOR_MONITOR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/error.h"
#include "core/finding.h"
#include "monitor/detect.h"

struct nd_kb;
struct nd_kb_loader;

struct nd_monitor_opts {
    const char *command; /* "run" or "watch" */
    struct nd_detect_config cfg;
    pid_t root;
    uint64_t root_start; /* root's start time (ticks since boot), 0: unknown; see nd_sampler_opts */
    pid_t pgid;          /* the job's group when it leads one, else 0 */
    char *const *argv;   /* the job's command (redacted before use) */
    bool quiet;          /* no live alerts, summary only */
    bool fail_fast;
    bool color;
    bool out_observed;        /* output bytes/lines are fed in (run) */
    const char *report_dir;   /* NULL: none */
    const char *metrics_path; /* NULL: none */
    FILE *json_summary;       /* NULL: none (not closed here) */
    bool synthetic_clock;     /* ticks back to back (benchmarks) */
    bool no_devices;
    struct nd_kb *kb; /* may be NULL: the built-in line table only */
    /* explain's version judgement of the versions the output printed
     * (nd_explain_compat, given by cmd/): seen holds every finding of the
     * output, compat.* findings go to out. NULL: none. */
    int (*log_compat)(const struct nd_findings *seen, struct nd_findings *out);
};

struct nd_monitor;

int nd_monitor_new(const struct nd_monitor_opts *opt, struct nd_monitor **out, struct nd_error *err);
void nd_monitor_free(struct nd_monitor *m);

/* Opens the device sessions and takes the baseline sample (t = 0).
 * Returns the first tick deadline (monotonic seconds). */
double nd_monitor_start(struct nd_monitor *m);
/* Hands over a knowledge base still loading in its thread (the monitor owns
 * it from here): lines wait until it is ready. Only after nd_monitor_start,
 * whose device sessions must be forked while we have one thread. */
void nd_monitor_adopt_kb_loader(struct nd_monitor *m, struct nd_kb_loader *loader);
/* A knowledge base loaded by the caller after nd_monitor_start (still the caller's). */
void nd_monitor_use_kb(struct nd_monitor *m, struct nd_kb *kb);
/* One tick if due; returns the next deadline. */
double nd_monitor_tick(struct nd_monitor *m, double now);
/* The sampler clock of the last tick. */
double nd_monitor_clock(const struct nd_monitor *m);

void nd_monitor_set_output(struct nd_monitor *m, uint64_t bytes, uint64_t lines);
/* Whole lines of job output (stream 1 stdout, 2 stderr), '\n'-separated, the
 * first numbered first_lineno. Every line is matched: now when the budget
 * allows, else later from the backlog, and all of it before the summary. */
void nd_monitor_lines(struct nd_monitor *m, int stream, const char *data, size_t len, long first_lineno);
/* Where the next block of output may be read to (up to *cap <= want bytes),
 * so that nd_monitor_lines can hold it without a copy; NULL when full. */
char *nd_monitor_buffer(struct nd_monitor *m, size_t want, size_t *cap);
/* Before a read of the job's pipe fd: when matching cannot take output now,
 * holds up to max of the bytes waiting there without a copy and returns how
 * many (else 0); the block of that read then comes to nd_monitor_held_lines
 * (the supervisor's hold and held hooks). */
size_t nd_monitor_hold(struct nd_monitor *m, int fd, size_t max);
void nd_monitor_held_lines(struct nd_monitor *m, int stream, const char *data, size_t len, size_t prefix, size_t raw,
                           long first_lineno);

/* True once --fail-fast wants the job stopped (an error finding from a detector). */
bool nd_monitor_wants_stop(const struct nd_monitor *m);
/* We are stopping the job (--fail-fast, run --timeout): its processes that
 * die from now on are not reported as failures of the job. */
void nd_monitor_stopping(struct nd_monitor *m);

/* The end: exit detector, summary on stderr, JSON summary, report folder.
 * exit_status: the shell-style status (-1 unknown, for watch). Returns 0, or
 * -errno when a report file could not be written (said on stderr). */
int nd_monitor_finish(struct nd_monitor *m, const struct nd_exit_info *ex, int exit_status, double duration_s);

const struct nd_findings *nd_monitor_findings(const struct nd_monitor *m);
/* Sends sig to every process of the job seen so far (for those outside the group). */
size_t nd_monitor_signal_all(struct nd_monitor *m, int sig);
/* The wait status of the job's main process, read from its zombie's stat
 * before its parent reaps it (watch cannot wait() for it). */
bool nd_monitor_root_exit(struct nd_monitor *m, int *wait_status);
/* Reaps those that became our children. */
void nd_monitor_reap(struct nd_monitor *m);

/* Checks before the job starts that DIR can hold the report (created when
 * missing) and that the metrics file can be written. */
int nd_monitor_check_outputs(const char *report_dir, const char *metrics_path, struct nd_error *err);

#endif
