/* The list of vendor backends, Ascend first (the tool's main audience). */
#include <stddef.h>

#include "device/device.h"

const struct nd_vendor *const nd_vendors[] = {&nd_vendor_ascend, &nd_vendor_nvidia, NULL};
