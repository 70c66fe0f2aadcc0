/* The ROCm install for `check` (AMD Instinct GPUs and Hygon DCUs): the
 * /opt/rocm* and /opt/dtk* installs, /dev/kfd and the render nodes, the
 * visible-devices variables, and whether torch is built for ROCm. */
#ifndef ND_PROBE_ROCM_INSTALL_H
#define ND_PROBE_ROCM_INSTALL_H

#include <stddef.h>

#include "probe/install_probe.h"

extern const struct nd_install_probe nd_install_rocm;

/* The value of `hip` in torch/version.py ("6.2.41133-dd7f95766"). Returns 1
 * with the value, 0 when it is None (a build without ROCm), -EINVAL when the
 * file has no hip line. Any bytes are safe (fuzzed). */
int nd_rocm_parse_torch_hip(const char *buf, size_t len, char *out, size_t size);

#endif
