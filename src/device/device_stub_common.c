/* Temporary stand-ins for the generic device layer until issue 3 lands. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "device/device.h"

const struct nd_vendor *const nd_vendors[] = {&nd_vendor_ascend, &nd_vendor_nvidia, NULL};

int nd_device_query(const struct nd_vendor *v, double timeout_s, struct nd_device_state *out)
{
    (void)timeout_s;
    memset(out, 0, sizeof *out);
    snprintf(out->vendor, sizeof out->vendor, "%s", v->name);
    out->status = -ENOSYS;
    snprintf(out->error, sizeof out->error, "device layer not built yet");
    return out->status;
}

void nd_device_state_findings(const struct nd_device_state *st, struct nd_findings *out)
{
    (void)st;
    (void)out;
}
