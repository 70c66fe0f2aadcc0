/* Level 2: the Python probe. In a child with a deadline it imports torch,
 * torch_npu and tbe, asks is_available() and the device count, and runs a
 * tiny tensor operation on device 0, as the job would. A hang or a crash of
 * the probe is a finding of its own; import errors become findings through
 * the knowledge base, or a small built-in table when it has nothing. */
#ifndef ND_PROBE_PYIMPORT_H
#define ND_PROBE_PYIMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "core/finding.h"
#include "core/report.h"
#include "core/environ.h"

struct nd_pyimport {
    bool ran; /* the interpreter started */
    bool timed_out, crashed;
    char status[160]; /* nd_spawn_describe() of the child */
    double elapsed_s;
    json_t *result;    /* the probe's JSON, NULL when it printed none */
    char *stderr_tail; /* the last lines of its stderr */
    char python[4096]; /* the interpreter it ran, named in fix lines */
};

/* Runs the probe with the job's env. try_npu: import torch_npu; try_tbe: import tbe. */
int nd_pyimport_run(const char *python, const struct nd_environ *env, bool try_npu, bool try_tbe, double timeout_s,
                    struct nd_pyimport *out);
void nd_pyimport_release(struct nd_pyimport *p);

/* Parses the probe's stdout (the line after the "ND-PROBE-JSON:" marker).
 * Returns the object or NULL. */
json_t *nd_pyimport_parse_output(const char *out, size_t len);

/* Check lines and findings from a probe run. ascend/nvidia: the host has
 * devices of that kind; set_env: the set_env.sh to name in fixes ("" none). */
void nd_pyimport_judge(const struct nd_pyimport *p, double timeout_s, bool ascend, bool nvidia, const char *set_env,
                       struct nd_report *rep);

/* Well-known import and runtime errors, explained by the knowledge base
 * (rules/): appends the root-cause finding for text, its set_env.sh fix
 * naming set_env (may be NULL). Returns 1 when it added one, 0 otherwise. */
int nd_import_error_explain(const char *text, const char *set_env, struct nd_findings *out);

#endif
