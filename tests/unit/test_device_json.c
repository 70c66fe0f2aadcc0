/* The device encoder (device/device_json.c): the same keys, types and units
 * for every command, words for states, null for what is unknown. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/json_util.h"
#include "device/device_json.h"

static void test_device_object(void **state)
{
    (void)state;
    struct nd_device d = {.index = 3, .card_id = -1, .chip_id = -1};
    snprintf(d.name, sizeof d.name, "NVIDIA H200");
    snprintf(d.uuid, sizeof d.uuid, "GPU-1234");
    d.util_valid = true;
    d.util_pct = 85;
    d.temp_valid = true;
    d.temp_c = 51;
    json_t *o = nd_device_json("nvidia", &d);
    static const char *const keys[] = {"vendor",
                                       "index",
                                       "name",
                                       "uuid",
                                       "card_id",
                                       "chip_id",
                                       "health",
                                       "utilization_ratio",
                                       "memory_used_bytes",
                                       "memory_total_bytes",
                                       "temperature_c",
                                       "power_w"};
    assert_int_equal(json_object_size(o), sizeof keys / sizeof *keys);
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        assert_non_null(json_object_get(o, keys[i]));
    assert_string_equal(nd_json_get_str(o, "vendor"), "nvidia");
    assert_string_equal(nd_json_get_str(o, "uuid"), "GPU-1234");
    assert_float_equal(json_real_value(json_object_get(o, "utilization_ratio")), 0.85, 1e-9);
    assert_int_equal(json_integer_value(json_object_get(o, "temperature_c")), 51);
    /* Unknown is null, never 0: no card id outside Ascend, no memory reading. */
    assert_true(json_is_null(json_object_get(o, "card_id")));
    assert_true(json_is_null(json_object_get(o, "memory_used_bytes")));
    assert_true(json_is_null(json_object_get(o, "health")));
    assert_true(json_is_null(json_object_get(o, "power_w")));
    json_decref(o);

    /* A percent over 100 is not a reading: the ratio stays within 0..1. */
    d.util_pct = 250;
    d.health_valid = true;
    d.health = 2;
    o = nd_device_json("ascend", &d);
    assert_true(json_is_null(json_object_get(o, "utilization_ratio")));
    assert_string_equal(nd_json_get_str(o, "health"), "alarm");
    json_decref(o);
}

static void test_health_and_status_words(void **state)
{
    (void)state;
    assert_string_equal(nd_device_health_name(true, 0), "ok");
    assert_string_equal(nd_device_health_name(true, 1), "warning");
    assert_string_equal(nd_device_health_name(true, 3), "critical");
    assert_string_equal(nd_device_health_name(true, 4), "unknown");
    assert_null(nd_device_health_name(false, 0));

    struct nd_device_state *st = calloc(1, sizeof *st);
    assert_non_null(st);
    st->lib_found = true;
    assert_string_equal(nd_device_status_name(st), "ok");
    st->status = -5;
    assert_string_equal(nd_device_status_name(st), "failed");
    st->timed_out = true;
    assert_string_equal(nd_device_status_name(st), "timed-out");
    st->timed_out = false;
    st->crashed = true;
    assert_string_equal(nd_device_status_name(st), "crashed");
    st->crashed = false;
    st->lib_found = false;
    assert_string_equal(nd_device_status_name(st), "no-library");
    free(st);
}

static void test_layer_object(void **state)
{
    (void)state;
    struct nd_device_state *st = calloc(1, sizeof *st);
    assert_non_null(st);
    snprintf(st->vendor, sizeof st->vendor, "ascend");
    st->lib_found = true;
    snprintf(st->lib_path, sizeof st->lib_path, "/x/libdcmi.so");
    st->ndevices = 2;
    st->devices[0].index = 0;
    st->devices[1].index = 1;
    st->procs_valid = true;
    st->nprocs = 4;
    json_t *with = nd_device_layer_json(st, true), *without = nd_device_layer_json(st, false);
    assert_string_equal(nd_json_get_str(with, "status"), "ok");
    assert_true(json_is_null(json_object_get(with, "error")));
    assert_int_equal(json_integer_value(json_object_get(with, "device_count")), 2);
    assert_int_equal(json_integer_value(json_object_get(with, "process_count")), 4);
    assert_int_equal(json_array_size(json_object_get(with, "devices")), 2);
    assert_string_equal(nd_json_get_str(json_array_get(json_object_get(with, "devices"), 1), "vendor"), "ascend");
    assert_null(json_object_get(without, "devices"));
    json_decref(with);
    json_decref(without);
    free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_object),
        cmocka_unit_test(test_health_and_status_words),
        cmocka_unit_test(test_layer_object),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
