/* The one JSON encoder of devices and device queries (device/device_json.h). */
#include "device/device_json.h"

#include "core/json_util.h"

const char *nd_device_status_name(const struct nd_device_state *st)
{
    if (st->status == 0)
        return "ok";
    if (st->timed_out)
        return "timed-out";
    if (st->crashed)
        return "crashed";
    if (!st->lib_found)
        return "no-library";
    return "failed";
}

const char *nd_device_health_name(bool valid, unsigned health)
{
    static const char *const names[] = {"ok", "warning", "alarm", "critical"};
    if (!valid)
        return NULL;
    return health < sizeof names / sizeof *names ? names[health] : "unknown";
}

static json_t *nd_str_or_null(const char *s)
{
    return s && *s ? nd_json_str(s) : json_null();
}

static json_t *nd_u64_or_null(bool valid, uint64_t v)
{
    return valid ? json_integer((json_int_t)v) : json_null();
}

json_t *nd_device_json(const char *vendor, const struct nd_device *d)
{
    json_t *o = json_object();
    json_object_set_new(o, "vendor", nd_json_str(vendor));
    json_object_set_new(o, "index", json_integer(d->index));
    json_object_set_new(o, "name", nd_json_str(d->name));
    json_object_set_new(o, "uuid", nd_str_or_null(d->uuid));
    json_object_set_new(o, "card_id", d->card_id >= 0 ? json_integer(d->card_id) : json_null());
    json_object_set_new(o, "chip_id", d->chip_id >= 0 ? json_integer(d->chip_id) : json_null());
    const char *health = nd_device_health_name(d->health_valid, d->health);
    json_object_set_new(o, "health", health ? json_string(health) : json_null());
    /* A backend leaves util_valid false for a value over 100 %; the check
     * here keeps the 0-1 promise whatever a future backend does. */
    bool util = d->util_valid && d->util_pct <= 100;
    json_object_set_new(o, "utilization_ratio", util ? json_real(d->util_pct / 100.0) : json_null());
    json_object_set_new(o, "memory_used_bytes", nd_u64_or_null(d->mem_valid, d->mem_used_bytes));
    json_object_set_new(o, "memory_total_bytes", nd_u64_or_null(d->mem_valid, d->mem_total_bytes));
    json_object_set_new(o, "temperature_c", d->temp_valid ? json_integer(d->temp_c) : json_null());
    json_object_set_new(o, "power_w", d->power_valid ? json_real(d->power_w) : json_null());
    return o;
}

json_t *nd_device_layer_json(const struct nd_device_state *st, bool with_devices)
{
    json_t *o = json_object();
    bool failed = st->status != 0;
    json_object_set_new(o, "vendor", nd_json_str(st->vendor));
    json_object_set_new(o, "library", st->lib_found ? nd_json_str(st->lib_path) : json_null());
    json_object_set_new(o, "status", json_string(nd_device_status_name(st)));
    json_object_set_new(o, "error", failed ? nd_str_or_null(st->error) : json_null());
    json_object_set_new(o, "failed_call", failed ? nd_str_or_null(st->failed_call) : json_null());
    json_object_set_new(o, "driver_version", st->driver_version_valid ? nd_json_str(st->driver_version) : json_null());
    json_object_set_new(o, "cuda_driver_version",
                        st->cuda_driver_version > 0 ? json_integer(st->cuda_driver_version) : json_null());
    size_t n = st->ndevices < ND_MAX_DEVICES ? st->ndevices : ND_MAX_DEVICES;
    json_object_set_new(o, "device_count", json_integer((json_int_t)n));
    json_object_set_new(o, "process_count", st->procs_valid ? json_integer((json_int_t)st->nprocs) : json_null());
    if (with_devices) {
        json_t *arr = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(arr, nd_device_json(st->vendor, &st->devices[i]));
        json_object_set_new(o, "devices", arr);
    }
    return o;
}
