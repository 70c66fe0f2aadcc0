/* Temporary stand-ins until the device layer lands (issue 3). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "device/device.h"

static int nd_stub_open(struct nd_vendor_ctx **ctx, struct nd_device_state *st, struct nd_error *err)
{
    (void)ctx;
    (void)st;
    return nd_error_set(err, -ENOSYS, "device layer not built yet");
}

const struct nd_vendor nd_vendor_ascend = {"ascend", "libdcmi.so", "NPU_DOCTOR_DCMI_LIB", nd_stub_open,
                                           NULL, NULL, NULL, NULL};
const struct nd_vendor nd_vendor_nvidia = {"nvidia", "libnvidia-ml.so.1", "NPU_DOCTOR_NVML_LIB",
                                           nd_stub_open, NULL, NULL, NULL, NULL};
const struct nd_vendor *const nd_vendors[] = {&nd_vendor_ascend, &nd_vendor_nvidia, NULL};

int nd_device_query(const struct nd_vendor *v, double timeout_s, struct nd_device_state *out)
{
    (void)timeout_s;
    memset(out, 0, sizeof *out);
    snprintf(out->vendor, sizeof out->vendor, "%s", v->name);
    out->status = -ENOSYS;
    return out->status;
}

void nd_device_state_findings(const struct nd_device_state *st, struct nd_findings *out)
{
    (void)st;
    (void)out;
}

int nd_smoke_ascend(int level, double timeout_s, struct nd_smoke_result *out)
{
    (void)level;
    (void)timeout_s;
    memset(out, 0, sizeof *out);
    snprintf(out->vendor, sizeof out->vendor, "ascend");
    out->status = -ENOSYS;
    return out->status;
}

int nd_smoke_cuda(int level, double timeout_s, struct nd_smoke_result *out)
{
    (void)level;
    (void)timeout_s;
    memset(out, 0, sizeof *out);
    snprintf(out->vendor, sizeof out->vendor, "nvidia");
    out->status = -ENOSYS;
    return out->status;
}
