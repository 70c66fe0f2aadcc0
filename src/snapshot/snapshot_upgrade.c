/* Reading snapshots written by older versions: a schema npu-doctor/1
 * document is rewritten in memory into the names, types and units of the
 * current schema (core/json_envelope.h), so diff compares an old node with
 * a new one key by key instead of reporting every renamed key. */
#include "snapshot/snapshot.h"

#include <string.h>

#include "core/json_envelope.h"
#include "device/device_json.h"

/* obj[from] becomes obj[to] (when to is not there yet). */
static void nd_rename(json_t *obj, const char *from, const char *to)
{
    json_t *v = json_object_get(obj, from);
    if (!json_is_object(obj) || !v)
        return;
    if (!json_object_get(obj, to))
        json_object_set(obj, to, v);
    json_object_del(obj, from);
}

static void nd_default_null(json_t *obj, const char *const *keys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!json_object_get(obj, keys[i]))
            json_object_set_new(obj, keys[i], json_null());
}

/* Schema 1 wrote health as the vendor's number (Ascend's 0-3 scale). */
static void nd_upgrade_health(json_t *dev)
{
    json_t *h = json_object_get(dev, "health");
    if (json_is_integer(h)) {
        json_int_t v = json_integer_value(h);
        const char *name = nd_device_health_name(true, v >= 0 && v <= 0xffff ? (unsigned)v : 0xffffu);
        json_object_set_new(dev, "health", json_string(name));
    }
}

static void nd_upgrade_device(json_t *dev, const char *vendor, bool util_percent)
{
    if (!json_is_object(dev))
        return;
    /* check's device objects did not repeat their layer's vendor. */
    if (vendor && !json_object_get(dev, "vendor"))
        json_object_set_new(dev, "vendor", json_string(vendor));
    /* Snapshots kept the moving values under "sample", already as a ratio. */
    json_t *s = json_object_get(dev, "sample");
    if (json_is_object(s)) {
        const char *k;
        json_t *v;
        json_object_foreach (s, k, v) {
            const char *to = strcmp(k, "utilization") == 0 ? "utilization_ratio" : k;
            if (!json_object_get(dev, to))
                json_object_set(dev, to, v);
        }
        json_object_del(dev, "sample");
    }
    json_t *u = json_object_get(dev, "utilization");
    if (u) {
        double pct = json_number_value(u);
        if (util_percent && json_is_number(u))
            /* A percent outside 0-100 was never a real reading. */
            json_object_set_new(dev, "utilization_ratio", pct >= 0 && pct <= 100 ? json_real(pct / 100.0) : json_null());
        else if (!json_object_get(dev, "utilization_ratio"))
            json_object_set(dev, "utilization_ratio", u);
        json_object_del(dev, "utilization");
    }
    nd_upgrade_health(dev);
    static const char *const keys[] = {
        "uuid",          "card_id", "chip_id", "health", "utilization_ratio", "memory_used_bytes", "memory_total_bytes",
        "temperature_c", "power_w"};
    nd_default_null(dev, keys, sizeof keys / sizeof *keys);
}

/* Schema 1 wrote the query's status as "ok"/"failed" (snapshot) or as the
 * errno-style number (check); the error text tells the failures apart. */
static void nd_upgrade_layer(json_t *l)
{
    if (!json_is_object(l))
        return;
    json_t *st = json_object_get(l, "status");
    bool ok = (json_is_string(st) && strcmp(json_string_value(st), "ok") == 0) ||
              (json_is_integer(st) && json_integer_value(st) == 0);
    if (!json_is_string(st) || !ok) {
        const char *err = json_string_value(json_object_get(l, "error"));
        const char *word = "failed";
        if (ok)
            word = "ok";
        else if (err && strncmp(err, "timed out", 9) == 0)
            word = "timed-out";
        else if (err && strstr(err, "crashed with"))
            word = "crashed";
        else if (json_is_null(json_object_get(l, "library")) || !json_object_get(l, "library"))
            word = "no-library";
        json_object_set_new(l, "status", json_string(word));
    }
    nd_rename(l, "processes", "process_count");
    json_t *devs = json_object_get(l, "devices");
    size_t i;
    json_t *d;
    json_array_foreach (devs, i, d)
        nd_upgrade_device(d, json_string_value(json_object_get(l, "vendor")), true);
    static const char *const keys[] = {"library",      "error", "failed_call", "driver_version", "cuda_driver_version",
                                       "process_count"};
    nd_default_null(l, keys, sizeof keys / sizeof *keys);
    if (!json_object_get(l, "device_count") && json_is_array(devs))
        json_object_set_new(l, "device_count", json_integer((json_int_t)json_array_size(devs)));
}

/* check's device objects lacked the ids the snapshot's own device list has
 * for the same device (same query): taken from there, not made up. */
static void nd_fill_ids(json_t *dev, const json_t *devices)
{
    static const char *const ids[] = {"uuid", "card_id", "chip_id"};
    const char *vendor = json_string_value(json_object_get(dev, "vendor"));
    json_t *index = json_object_get(dev, "index");
    size_t i;
    json_t *x;
    json_array_foreach (devices, i, x) {
        const char *v = json_string_value(json_object_get(x, "vendor"));
        if (!vendor || !v || strcmp(v, vendor) != 0 || !json_equal(json_object_get(x, "index"), index))
            continue;
        for (size_t k = 0; k < sizeof ids / sizeof *ids; k++)
            if (json_is_null(json_object_get(dev, ids[k])) && json_object_get(x, ids[k]))
                json_object_set(dev, ids[k], json_object_get(x, ids[k]));
        return;
    }
}

void nd_snapshot_upgrade(json_t *doc, long schema)
{
    if (schema >= ND_JSON_SCHEMA_VERSION || !json_is_object(doc))
        return;
    json_object_set_new(doc, "schema", json_string(ND_JSON_SCHEMA));
    nd_rename(doc, "tool_version", "version");
    size_t i;
    json_t *x;
    json_array_foreach (json_object_get(doc, "devices"), i, x)
        nd_upgrade_device(x, NULL, false);
    json_array_foreach (json_object_get(doc, "device_layer"), i, x)
        nd_upgrade_layer(x);
    json_t *facts = json_object_get(doc, "facts");
    json_array_foreach (json_object_get(json_object_get(facts, "devices"), "vendors"), i, x) {
        nd_upgrade_layer(x);
        size_t j;
        json_t *d;
        json_array_foreach (json_object_get(x, "devices"), j, d)
            nd_fill_ids(d, json_object_get(doc, "devices"));
    }
    json_array_foreach (json_object_get(json_object_get(facts, "devices"), "smoke_tests"), i, x)
        nd_rename(x, "devices", "device_count");
    nd_rename(json_object_get(facts, "host"), "cpu_quota", "cpu_quota_cores");
    json_t *dist = json_object_get(facts, "distributed");
    nd_rename(dist, "hccl_connect_timeout", "hccl_connect_timeout_s");
    nd_rename(dist, "hccl_exec_timeout", "hccl_exec_timeout_s");
}
