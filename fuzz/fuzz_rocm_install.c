/* Fuzz target: the files the ROCm install probe reads: torch/version.py
 * (its hip line) and an install's .info/version. */
#include <stdint.h>

#include "probe/rocm_install.h"
#include "probe/toolkits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    char out[64], tiny[2];
    (void)nd_rocm_parse_torch_hip(buf, size, out, sizeof out);
    (void)nd_rocm_parse_torch_hip(buf, size, tiny, sizeof tiny);
    (void)nd_tk_parse_rocm_version(buf, size, out, sizeof out);
    return 0;
}
