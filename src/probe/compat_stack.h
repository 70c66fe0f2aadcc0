/* The rest of the version matrices as data: CANN <-> NPU driver (HDK)
 * releases (data/cann_driver.tsv), torch <-> Python <-> CUDA/ROCm wheel
 * builds (data/torch_wheels.tsv), and judgements of a whole set of installed
 * versions against every table, shared by check, diff and explain.
 * Pure: strings in, findings out; the tables are the compiled-in data. */
#ifndef ND_PROBE_COMPAT_STACK_H
#define ND_PROBE_COMPAT_STACK_H

#include <stdbool.h>
#include <stddef.h>

#include "core/finding.h"
#include "probe/compat.h"

struct nd_cann_driver_row {
    char cann[40];
    char hdk[40];        /* the HDK release published with this CANN */
    char hdk_oldest[40]; /* the oldest HDK release still supported, "" unknown */
};

struct nd_cann_driver {
    struct nd_cann_driver_row *rows;
    size_t n;
};

struct nd_torch_wheel_row {
    char torch[16]; /* "2.5": a feature release */
    char python_min[16], python_max[16];
    char cuda[96];         /* "11.8 12.1 12.4" */
    char rocm[96];         /* "6.1 6.2" */
    char cuda_default[16]; /* the build the plain PyPI wheel carries */
};

struct nd_torch_wheels {
    struct nd_torch_wheel_row *rows;
    size_t n;
};

/* Both parsers skip malformed rows and always succeed. */
void nd_cann_driver_parse(const char *buf, size_t len, struct nd_cann_driver *t);
void nd_cann_driver_builtin(struct nd_cann_driver *t);
void nd_cann_driver_release(struct nd_cann_driver *t);
void nd_torch_wheels_parse(const char *buf, size_t len, struct nd_torch_wheels *t);
void nd_torch_wheels_builtin(struct nd_torch_wheels *t);
void nd_torch_wheels_release(struct nd_torch_wheels *t);

/* The row for an installed CANN: the newest row not newer than it within the
 * same major.minor ("8.0.RC3.beta1" -> 8.0.RC3, "8.5.1" -> 8.5.0), else the
 * oldest row of that major.minor; NULL when the table has no such release. */
const struct nd_cann_driver_row *nd_cann_driver_lookup(const struct nd_cann_driver *t, const char *cann);
/* The row of torch's feature release ("2.5.1+cu124" -> "2.5"), or NULL. */
const struct nd_torch_wheel_row *nd_torch_wheels_lookup(const struct nd_torch_wheels *t, const char *torch);
/* Is v one of the space-separated versions in list (compared as versions)? */
bool nd_compat_list_has(const char *list, const char *v);
/* The newest entry of list not newer than max ("11.8 12.1 12.4", "12.2" ->
 * "12.1"); "" when none. */
void nd_compat_list_best(const char *list, const char *max, char *out, size_t size);
/* "cu124" -> "12.4", "cu118" -> "11.8", "cu130" -> "13.0"; "rocm6.2" -> "6.2".
 * Returns false (out "") for other local parts. */
bool nd_compat_local_cuda(const char *local, char *out, size_t size);
bool nd_compat_local_rocm(const char *local, char *out, size_t size);

/* compat.cann-driver: error when the NPU driver is older than the oldest HDK
 * release the CANN is published for; warning when it is older than the paired
 * one where the oldest is unknown, or two or more HDK years newer than every
 * published one (info when one year newer). */
int nd_compat_judge_cann_driver(const struct nd_cann_driver *t, const char *cann, const char *driver,
                                struct nd_findings *out);
/* compat.torch-python: a torch whose release publishes no wheel for this
 * Python (warning: it was built elsewhere or copied between environments). */
int nd_compat_judge_torch_python(const struct nd_torch_wheels *t, const char *torch, const char *python,
                                 struct nd_findings *out);
/* compat.torch-npu-python: the same for torch_npu (rows with a python range). */
int nd_compat_judge_npu_python(const struct nd_npu_compat *t, const char *torch_npu, const char *python,
                               struct nd_findings *out);
/* compat.torch-cuda-driver (nd_compat_judge_cuda), with the fix naming a CUDA
 * build this torch release really publishes that the driver runs. */
int nd_compat_judge_torch_cuda(const struct nd_cuda_compat *ct, const struct nd_torch_wheels *wt, const char *torch,
                               const char *torch_cuda, const char *driver_version, const char *driver_cuda,
                               struct nd_findings *out);
/* A CUDA toolkit (nvcc, /usr/local/cuda) beside the driver and torch:
 * compat.cuda-toolkit-driver (error, or warning under minor-version
 * compatibility) when the driver cannot run the toolkit's CUDA;
 * compat.cuda-toolkit-torch (warning) when its major differs from torch's,
 * which stops torch.utils.cpp_extension builds (wt, torch: for the fix; may
 * be NULL). */
int nd_compat_judge_cuda_toolkit(const struct nd_cuda_compat *t, const struct nd_torch_wheels *wt, const char *toolkit,
                                 const char *torch, const char *torch_cuda, const char *driver_version,
                                 const char *driver_cuda, struct nd_findings *out);
/* compat.torch-rocm: a ROCm torch ("+rocm6.2") beside an installed ROCm of
 * another major.minor (warning), or a ROCm build its release never published
 * (info). */
int nd_compat_judge_rocm(const struct nd_torch_wheels *t, const char *torch, const char *rocm, struct nd_findings *out);

/* compat.torch-cann: torch beside a CANN that no torch_npu for that torch is
 * listed with (error when CANN is older than every pairing, else warning);
 * for logs that name torch and CANN but not torch_npu. */
int nd_compat_judge_torch_cann(const struct nd_npu_compat *t, const char *torch, const char *cann,
                               struct nd_findings *out);

/* Every version of one node that the tables speak about; NULL or "" = unknown. */
struct nd_version_set {
    const char *torch, *torch_npu, *torch_cuda, *python;
    const char *cann, *npu_driver;
    const char *nvidia_driver, *driver_cuda, *cuda_toolkit;
    const char *rocm;
    /* torch and CANN without torch_npu still pair through the torch_npu table
     * (a log line naming both); off for a node, where a missing torch_npu is
     * just not installed. */
    bool ascend_torch;
};

/* Runs every judgement above (and the torch_npu pairing of compat.h) with the
 * compiled-in tables. Returns the number of findings added. */
int nd_compat_judge_set(const struct nd_version_set *v, struct nd_findings *out);

#endif
