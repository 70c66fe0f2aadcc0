/* Temporary stand-ins for the Ascend backend until issue 3 lands. */
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

int nd_smoke_ascend(int level, double timeout_s, struct nd_smoke_result *out)
{
    (void)level;
    (void)timeout_s;
    memset(out, 0, sizeof *out);
    snprintf(out->vendor, sizeof out->vendor, "ascend");
    out->status = -ENOSYS;
    return out->status;
}
