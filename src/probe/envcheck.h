/* The job's environment against what the vendor set-up scripts produce:
 * CANN's set_env.sh (ASCEND_HOME_PATH, ASCEND_OPP_PATH, LD_LIBRARY_PATH,
 * PYTHONPATH with tbe), stub devlib folders, mixed toolkit versions,
 * visible-device variables and debug switches. Pure judgements over the
 * install facts and the environment (paths are checked through the root). */
#ifndef ND_PROBE_ENVCHECK_H
#define ND_PROBE_ENVCHECK_H

#include <stdbool.h>

#include <jansson.h>

#include "core/finding.h"
#include "probe/ascend_install.h"
#include "probe/cuda_install.h"
#include "core/environ.h"

struct nd_envcheck_summary {
    bool cann_loaded;   /* ASCEND_HOME_PATH, ASCEND_OPP_PATH and the lib64 are all there */
    bool tbe_reachable; /* PYTHONPATH leads to a tbe package */
    int visible_ascend; /* devices ASCEND_RT_VISIBLE_DEVICES leaves, -1 unknown */
    int visible_cuda;   /* devices CUDA_VISIBLE_DEVICES leaves, -1 unknown */
};

/* Judges env. ascend_devices/cuda_devices: how many devices exist (from the
 * device layer, else the device files), -1 unknown. tbe_elsewhere: tbe is
 * importable from the interpreter's own site-packages (so PYTHONPATH need not
 * carry it). sum (may be NULL) receives the verdicts for the check lines. */
void nd_envcheck_judge(const struct nd_environ *env, const struct nd_ascend_install *a, const struct nd_cuda_install *c,
                       int ascend_devices, int cuda_devices, bool tbe_elsewhere, struct nd_findings *out,
                       struct nd_envcheck_summary *sum);

/* Parses a visible-devices list ("0,1,3", "" , "-1", "GPU-uuid"): how many
 * entries it keeps before the first invalid one (CUDA stops there), the
 * largest index, and whether an entry is not a number. Returns the count. */
int nd_visible_parse(const char *value, int *max_index, bool *has_uuid, bool *malformed);

/* A value fit to print: redacted (core/redact.h) and cut to 200 bytes with a
 * note of its full length. malloc'd. */
char *nd_env_shown(const char *name, const char *value);

/* The job's environment as facts, values redacted (core/redact.h): every
 * variable that matters to the accelerator stack. */
json_t *nd_envcheck_facts_json(const struct nd_environ *env);

#endif
