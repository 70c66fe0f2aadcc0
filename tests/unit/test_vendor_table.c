/* Unit tests of the vendor table (device/vendors.c): every descriptor
 * carries what shared code reads from it, names are unique, the look-ups by
 * name and by device node agree with the table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "device/device.h"

static void test_every_descriptor_complete(void **state)
{
    (void)state;
    size_t n = 0;
    for (; nd_vendors[n]; n++) {
        const struct nd_vendor *v = nd_vendors[n];
        const char *strings[] = {v->name,          v->label,           v->device_word,     v->device_noun,
                                 v->device_phrase, v->dev_node_prefix, v->dev_node_glob,   v->smi_tool,
                                 v->install_fix,   v->bandwidth_fix,   v->frameworks_text, v->torch_backend_text,
                                 v->torch_device,  v->torch_check,     v->set_device_fix,  v->collective_fix,
                                 v->lib_soname,    v->lib_override_env};
        for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
            if (!strings[i] || !strings[i][0])
                fail_msg("%s: string field %zu is empty", v->name ? v->name : "?", i);
        assert_true(v->visible_env && v->visible_env[0]);
        assert_true(v->ctl_nodes && v->ctl_nodes[0]);
        assert_true(v->frameworks != 0);
        /* The torch backend is one of the frameworks that mean "can use the device". */
        assert_true((v->frameworks & v->torch_backend) == v->torch_backend && v->torch_backend != 0);
        assert_true(v->locate && v->open && v->devices && v->sample && v->processes && v->close);
        assert_non_null(v->env_findings);
        assert_ptr_equal(nd_vendor_by_name(v->name), v);
        for (size_t k = 0; k < n; k++)
            assert_true(strcmp(nd_vendors[k]->name, v->name) != 0);
    }
    assert_true(n >= 3 && n <= ND_MAX_VENDORS);
    assert_null(nd_vendor_by_name("intel"));
    assert_null(nd_vendor_by_name(NULL));
    assert_string_equal(nd_vendor_word("rocm"), "gpu");
    assert_string_equal(nd_vendor_word("ascend"), "npu");
    assert_string_equal(nd_vendor_word("other"), "other");
}

static void test_vendor_of_node(void **state)
{
    (void)state;
    int idx = 99;
    assert_ptr_equal(nd_vendor_of_node("/dev/davinci4", &idx), &nd_vendor_ascend);
    assert_int_equal(idx, 4);
    assert_ptr_equal(nd_vendor_of_node("/dev/davinci_manager", &idx), &nd_vendor_ascend);
    assert_int_equal(idx, -1);
    assert_ptr_equal(nd_vendor_of_node("/dev/nvidia-caps/nvidia-cap1", &idx), &nd_vendor_nvidia);
    assert_int_equal(idx, -1);
    assert_ptr_equal(nd_vendor_of_node("/dev/kfd", &idx), &nd_vendor_rocm);
    assert_int_equal(idx, -1);
    assert_null(nd_vendor_of_node("/dev/nvidia", &idx));
    assert_null(nd_vendor_of_node("/dev/davinci-1", &idx));
    assert_null(nd_vendor_of_node("/dev/null", &idx));
    assert_null(nd_vendor_of_node(NULL, &idx));
    /* A render node below the first number is no GPU. */
    assert_null(nd_vendor_of_node("/dev/dri/renderD12", &idx));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_descriptor_complete),
        cmocka_unit_test(test_vendor_of_node),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
