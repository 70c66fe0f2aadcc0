/* Version arithmetic and the compatibility tables under data/: which
 * torch_npu goes with which torch and CANN, and which CUDA a driver runs.
 * Pure functions over strings and tables: no I/O beyond the embedded data. */
#ifndef ND_PROBE_COMPAT_H
#define ND_PROBE_COMPAT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/finding.h"

/* Compares two version strings the way Ascend and pip write them:
 * "8.0.RC3" < "8.0.0" < "8.1.RC1", "2.1.0" < "2.1.0.post10", "1.13.0a0" < "1.13.0".
 * A local part ("+cpu", "+cu121") is ignored. Returns <0, 0 or >0. */
int nd_version_cmp(const char *a, const char *b);
/* The version without its local part and post/dev suffixes: "2.1.0.post10" -> "2.1.0",
 * "2.5.1+cpu" -> "2.5.1". */
void nd_version_base(const char *v, char *out, size_t size);
/* The first n dotted components ("8.0.RC3", 2 -> "8.0"). */
void nd_version_prefix(const char *v, int n, char *out, size_t size);
/* The local part after '+' ("cpu", "cu121"), or "" . */
const char *nd_version_local(const char *v);

struct nd_npu_compat_row {
    char torch_npu[40];
    char torch[40];
    char cann[40];
    char python[24]; /* "3.9-3.11", "" when the table does not say */
};

struct nd_npu_compat {
    struct nd_npu_compat_row *rows;
    size_t n;
};

struct nd_cuda_compat_row {
    char cuda[16];
    char min_driver[32];
    char family_min[32];
};

struct nd_cuda_compat {
    struct nd_cuda_compat_row *rows;
    size_t n;
};

/* Calls fn(fields) for every data row of a TSV buffer: '#' comments and the
 * header (any line not starting with a digit) are skipped, as are rows with
 * fewer than nfields fields; fields after the last present one are NULL
 * (up to 8). Shared by the tables of compat_stack.c. */
void nd_compat_tsv_each(const char *buf, size_t len, int nfields, void (*fn)(char **f, void *arg), void *arg);

/* Tab-separated tables with a header line; '#' lines are comments. Malformed
 * rows are skipped. Always succeed (an empty table is a valid result). */
void nd_npu_compat_parse(const char *buf, size_t len, struct nd_npu_compat *t);
void nd_cuda_compat_parse(const char *buf, size_t len, struct nd_cuda_compat *t);
/* The compiled-in tables (data/torch_npu_compat.tsv, data/cuda_driver.tsv). */
void nd_npu_compat_builtin(struct nd_npu_compat *t);
void nd_cuda_compat_builtin(struct nd_cuda_compat *t);
void nd_npu_compat_release(struct nd_npu_compat *t);
void nd_cuda_compat_release(struct nd_cuda_compat *t);

/* Judges torch / torch_npu / CANN (any may be NULL = not installed).
 * Findings: compat.torch-npu-torch (error), compat.torch-npu-cann (error when
 * CANN is older than the listed pairing, warning when it is a different
 * release), compat.torch-npu-unknown (info). Returns the number added. */
int nd_compat_judge_npu(const struct nd_npu_compat *t, const char *torch, const char *torch_npu, const char *cann,
                        struct nd_findings *out);

/* The newest CUDA release a driver version runs ("535.104.05" -> "12.2"), or ""
 * when the driver is older than every row. */
void nd_cuda_for_driver(const struct nd_cuda_compat *t, const char *driver, char *out, size_t size);
/* Judges torch's CUDA ("12.1") against the driver. driver_cuda ("12.4") may come
 * from NVML; when NULL/"" it is derived from driver_version via the table.
 * Finding compat.torch-cuda-driver: error when torch's CUDA cannot run,
 * warning when it runs only through minor-version compatibility. */
int nd_compat_judge_cuda(const struct nd_cuda_compat *t, const char *torch_cuda, const char *driver_version,
                         const char *driver_cuda, struct nd_findings *out);

#endif
