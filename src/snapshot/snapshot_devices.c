/* The snapshot's devices: the device layer's guarded queries, written by
 * the device encoder (device/device_json.h) as ps and check write them. */
#include "snapshot/snapshot_devices.h"

#include <stdlib.h>

#include "core/strbuf.h"
#include "device/device_json.h"

json_t *nd_snapshot_devices_json(double timeout_s, json_t **layer)
{
    json_t *devices = json_array();
    *layer = json_array();
    /* The state is large (process lists): on the heap, once. */
    struct nd_device_state *st = nd_xcalloc(1, sizeof *st);
    for (size_t i = 0; nd_vendors[i]; i++) {
        nd_device_query(nd_vendors[i], timeout_s, st);
        nd_snapshot_add_device_state(devices, *layer, st);
    }
    free(st);
    return devices;
}

void nd_snapshot_add_device_state(json_t *devices, json_t *layer, const struct nd_device_state *st)
{
    json_array_append_new(layer, nd_device_layer_json(st, false));
    size_t n = st->ndevices < ND_MAX_DEVICES ? st->ndevices : ND_MAX_DEVICES;
    for (size_t i = 0; i < n; i++)
        json_array_append_new(devices, nd_device_json(st->vendor, &st->devices[i]));
}
