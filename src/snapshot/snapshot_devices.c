/* The snapshot's devices: the device layer's guarded queries turned into
 * JSON, moving values kept apart so diff can ignore them. */
#include "snapshot/snapshot_devices.h"

#include <stdlib.h>

#include "core/json_util.h"
#include "core/strbuf.h"

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
    json_t *l = json_object();
    json_object_set_new(l, "vendor", nd_json_str(st->vendor));
    json_object_set_new(l, "library", st->lib_found ? nd_json_str(st->lib_path) : json_null());
    json_object_set_new(l, "status", json_string(st->status == 0 ? "ok" : "failed"));
    if (st->status != 0) {
        json_object_set_new(l, "error", nd_json_str(st->error));
        if (st->failed_call[0])
            json_object_set_new(l, "failed_call", nd_json_str(st->failed_call));
    }
    if (st->driver_version_valid)
        json_object_set_new(l, "driver_version", nd_json_str(st->driver_version));
    if (st->cuda_driver_version > 0)
        json_object_set_new(l, "cuda_driver_version", json_integer(st->cuda_driver_version));
    json_object_set_new(l, "device_count", json_integer((json_int_t)st->ndevices));
    json_array_append_new(layer, l);

    size_t nd = st->ndevices < ND_MAX_DEVICES ? st->ndevices : ND_MAX_DEVICES;
    for (size_t i = 0; i < nd; i++) {
        const struct nd_device *d = &st->devices[i];
        json_t *o = json_object();
        json_object_set_new(o, "vendor", nd_json_str(st->vendor));
        json_object_set_new(o, "index", json_integer(d->index));
        json_object_set_new(o, "name", nd_json_str(d->name));
        if (d->uuid[0])
            json_object_set_new(o, "uuid", nd_json_str(d->uuid));
        if (d->card_id >= 0)
            json_object_set_new(o, "card_id", json_integer(d->card_id));
        if (d->chip_id >= 0)
            json_object_set_new(o, "chip_id", json_integer(d->chip_id));
        if (d->health_valid)
            json_object_set_new(o, "health", json_integer(d->health));
        if (d->mem_valid)
            json_object_set_new(o, "memory_total_bytes", json_integer((json_int_t)d->mem_total_bytes));
        /* Values that move from second to second: diff ignores them. */
        json_t *s = json_object();
        if (d->util_valid)
            json_object_set_new(s, "utilization", json_real(d->util_pct / 100.0));
        if (d->mem_valid)
            json_object_set_new(s, "memory_used_bytes", json_integer((json_int_t)d->mem_used_bytes));
        if (d->temp_valid)
            json_object_set_new(s, "temperature_c", json_integer(d->temp_c));
        if (d->power_valid)
            json_object_set_new(s, "power_w", json_real(d->power_w));
        json_object_set_new(o, "sample", s);
        json_array_append_new(devices, o);
    }
}

