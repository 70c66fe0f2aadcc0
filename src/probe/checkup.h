/* The whole pre-flight check as a library call: every probe, every
 * judgement, into one report. `check` prints it; `snapshot` keeps its facts;
 * `run`/`watch` use the environment judgements as cpu-fallback evidence. */
#ifndef ND_PROBE_CHECKUP_H
#define ND_PROBE_CHECKUP_H

#include <stdbool.h>

#include "core/error.h"
#include "core/finding.h"
#include "core/report.h"
#include "core/environ.h"

struct nd_check_options {
    int level;                    /* 1: files only; 2: imports + smoke test; 3: + bandwidth */
    const char *python;           /* interpreter; NULL = python3 on the env's PATH */
    const struct nd_environ *env; /* the job's environment (required) */
    double probe_timeout_s;       /* Python probe deadline (default 30) */
    double device_timeout_s;      /* vendor library deadline (default 5) */
    bool run_tools;               /* run nvcc --version at level 1 too (--report-issue) */
    const char *job_note;         /* why the job's own interpreter is not judged, or NULL */
};

/* Runs every probe and fills rep (lines, findings, facts grouped as host,
 * ascend, nvidia, environment, python, distributed, devices). Returns 0, or
 * < 0 only for internal errors; problems found are findings, not errors. */
int nd_checkup_run(const struct nd_check_options *opt, struct nd_report *rep, struct nd_error *err);

/* The environment judgements alone, on a job's environment: is the CANN
 * env loaded, is tbe reachable, is torch CPU-only, are devices hidden.
 * Appends findings (ids as in check). No imports, no device calls. */
int nd_checkup_job_env(const struct nd_environ *env, const char *python, struct nd_findings *out);

#endif
