/* The device layer as JSON, one encoder for every command that shows
 * devices (ps, check, snapshot), so a field has one name, type and unit
 * wherever it appears (docs/json.md: ratios 0-1 in *_ratio, bytes in
 * *_bytes, words for states). Vendor-neutral: it reads struct nd_device and
 * struct nd_device_state only. */
#ifndef ND_DEVICE_DEVICE_JSON_H
#define ND_DEVICE_DEVICE_JSON_H

#include <stdbool.h>

#include <jansson.h>

#include "device/device.h"

/* {"vendor", "index", "name", "uuid", "card_id", "chip_id", "health",
 *  "utilization_ratio", "memory_used_bytes", "memory_total_bytes",
 *  "temperature_c", "power_w"}. Every key is present; an unknown value is
 * null (uuid null when the vendor has none, card_id/chip_id null outside
 * Ascend). health is nd_device_health_name(). */
json_t *nd_device_json(const char *vendor, const struct nd_device *d);

/* One vendor's query: {"vendor", "library", "status", "error",
 * "failed_call", "driver_version", "cuda_driver_version", "device_count",
 * "process_count"} and, when with_devices, "devices": [nd_device_json...].
 * error and failed_call are null when the query succeeded; process_count is
 * null when the process list could not be read. */
json_t *nd_device_layer_json(const struct nd_device_state *st, bool with_devices);

/* How a query ended, as the "status" word: "ok", "no-library" (the vendor
 * library is not installed), "timed-out", "crashed" or "failed". */
const char *nd_device_status_name(const struct nd_device_state *st);
/* The device's own health word: "ok", "warning", "alarm", "critical", or
 * "unknown" for a code outside that scale; NULL when not valid. */
const char *nd_device_health_name(bool valid, unsigned health);

#endif
