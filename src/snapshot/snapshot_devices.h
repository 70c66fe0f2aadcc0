/* The devices a snapshot records: one guarded query per vendor of the
 * device layer, as the snapshot's "devices" and "device_layer" sections. */
#ifndef ND_SNAPSHOT_SNAPSHOT_DEVICES_H
#define ND_SNAPSHOT_SNAPSHOT_DEVICES_H

#include <jansson.h>

#include "device/device.h"

/* Queries every vendor (nd_vendors, each in a guarded child with timeout_s)
 * and returns the "devices" array; *layer gets the "device_layer" array. */
json_t *nd_snapshot_devices_json(double timeout_s, json_t **layer);
/* Appends one query's result: its devices to devices (nd_device_json) and
 * its status to layer (nd_device_layer_json without the devices). diff
 * tells the moving values (utilization_ratio, memory_used_bytes,
 * temperature_c, power_w) from the static ones by their names. */
void nd_snapshot_add_device_state(json_t *devices, json_t *layer, const struct nd_device_state *st);

#endif
