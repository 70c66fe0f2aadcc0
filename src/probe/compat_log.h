/* Versions that a log line prints ("torch_npu version: 2.1.0.post10",
 * "CANN package version 8.0.RC1 and PyTorch version 2.4.0 do not match",
 * nvidia-smi's "Driver Version: 535.104.05   CUDA Version: 12.2",
 * collect_env's "CUDA used to build PyTorch: 12.1"), so that explain can
 * judge them against the compatibility tables. Pure string parsing. */
#ifndef ND_PROBE_COMPAT_LOG_H
#define ND_PROBE_COMPAT_LOG_H

#include <stdbool.h>
#include <stddef.h>

enum nd_logver_kind {
    ND_LOGVER_TORCH = 0,
    ND_LOGVER_TORCH_NPU,
    ND_LOGVER_TORCH_CUDA, /* the CUDA torch was built with */
    ND_LOGVER_PYTHON,
    ND_LOGVER_CANN,
    ND_LOGVER_NPU_DRIVER,    /* Ascend HDK driver: "23.0.rc1", "24.1.0" */
    ND_LOGVER_NVIDIA_DRIVER, /* "535.104.05" */
    ND_LOGVER_DRIVER_CUDA,   /* the newest CUDA the driver runs (nvidia-smi) */
    ND_LOGVER_CUDA_TOOLKIT,  /* nvcc / the CUDA runtime version */
    ND_LOGVER_ROCM,
    ND_LOGVER_COUNT
};

/* "torch_npu", "CANN", ... for evidence and titles. */
const char *nd_logver_name(enum nd_logver_kind k);

struct nd_logver {
    bool found[ND_LOGVER_COUNT];
    char v[ND_LOGVER_COUNT][40];
};

/* Adds the versions named in line[0..len) to out; a kind already found keeps
 * its first value. Returns the number of versions added. */
int nd_logver_scan(const char *line, size_t len, struct nd_logver *out);

#endif
