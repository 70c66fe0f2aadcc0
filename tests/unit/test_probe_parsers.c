/* Unit tests for every parser in probe/: version files, /proc and cgroup
 * text, Python package metadata, version.py, rank tables, interface lists,
 * visible-device lists and version comparison. Buffers in, values out. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probe/ascend_install.h"
#include "probe/compat.h"
#include "probe/cuda_install.h"
#include "probe/distributed.h"
#include "probe/envcheck.h"
#include "probe/host.h"
#include "probe/kvfile.h"
#include "probe/pyimport.h"
#include "probe/python.h"

static void test_kvfile_driver_version_info(void **state)
{
    (void)state;
    const char *buf = "Version=24.1.rc2\nascendhal_version=7.35.23\n# comment\n\n"
                      "compatible_version=[V100R001C15],[V100R001C17]\r\n"
                      "compatible_version_fw=[7.0.0,7.5.99]\npackage_version = \"24.1.rc2\"\nno separator here\n";
    struct nd_kvfile kv;
    struct nd_error err;
    assert_int_equal(nd_kvfile_parse(buf, strlen(buf), &kv, &err), 0);
    long line = 0;
    assert_string_equal(nd_kvfile_get(&kv, "version", &line), "24.1.rc2");
    assert_int_equal(line, 1);
    assert_string_equal(nd_kvfile_get(&kv, "compatible_version", NULL), "[V100R001C15],[V100R001C17]");
    assert_string_equal(nd_kvfile_get(&kv, "compatible_version_fw", &line), "[7.0.0,7.5.99]");
    assert_int_equal(line, 6);
    assert_string_equal(nd_kvfile_get(&kv, "package_version", NULL), "24.1.rc2");
    assert_null(nd_kvfile_get(&kv, "missing", NULL));
    nd_kvfile_release(&kv);
}

static void test_kvfile_colon_and_garbage(void **state)
{
    (void)state;
    struct nd_kvfile kv;
    struct nd_error err;
    const char *cfg = "runtime_running_version=[7.6.0.1.220:8.0.0]\nName: torch\n=novalue\n";
    assert_int_equal(nd_kvfile_parse(cfg, strlen(cfg), &kv, &err), 0);
    assert_string_equal(nd_kvfile_get(&kv, "runtime_running_version", NULL), "[7.6.0.1.220:8.0.0]");
    assert_string_equal(nd_kvfile_get(&kv, "Name", NULL), "torch");
    assert_int_equal(kv.n, 2);
    nd_kvfile_release(&kv);
    const char bin[] = "Version=1\0\x01\x02\x03\x7f";
    assert_int_equal(nd_kvfile_parse(bin, sizeof bin, &kv, &err), -EINVAL);
    assert_int_equal(kv.n, 0);
    assert_non_null(strstr(err.msg, "binary"));
    /* No trailing newline, an empty buffer. */
    assert_int_equal(nd_kvfile_parse("a=b", 3, &kv, &err), 0);
    assert_string_equal(nd_kvfile_get(&kv, "a", NULL), "b");
    nd_kvfile_release(&kv);
    assert_int_equal(nd_kvfile_parse("", 0, &kv, &err), 0);
    assert_int_equal(kv.n, 0);
    nd_kvfile_release(&kv);
}

static void test_ascend_range_and_versions(void **state)
{
    (void)state;
    char lo[32], hi[32], v[32];
    assert_int_equal(nd_ascend_parse_range("[7.0.0,7.5.99]", lo, sizeof lo, hi, sizeof hi), 0);
    assert_string_equal(lo, "7.0.0");
    assert_string_equal(hi, "7.5.99");
    assert_int_equal(nd_ascend_parse_range(" [ 6.4 , 7.1.0 ]", lo, sizeof lo, hi, sizeof hi), 0);
    assert_string_equal(lo, "6.4");
    assert_int_equal(nd_ascend_parse_range("7.0.0,7.5.99", lo, sizeof lo, hi, sizeof hi), -EINVAL);
    assert_int_equal(nd_ascend_parse_range("[,]", lo, sizeof lo, hi, sizeof hi), -EINVAL);
    assert_int_equal(nd_ascend_parse_range("[x,y]", lo, sizeof lo, hi, sizeof hi), -EINVAL);
    assert_true(nd_ascend_fw_in_range("7.5.0.1.129", "7.0.0", "7.5.99"));
    assert_true(nd_ascend_fw_in_range("7.5.99.7", "7.0.0", "7.5.99"));
    assert_false(nd_ascend_fw_in_range("7.6.0.1.100", "7.0.0", "7.5.99"));
    assert_false(nd_ascend_fw_in_range("6.4.12.1.241", "7.0.0", "7.5.99"));
    assert_true(nd_ascend_version_from_cfg("[7.6.0.1.220:8.0.0]", v, sizeof v));
    assert_string_equal(v, "8.0.0");
    assert_false(nd_ascend_version_from_cfg("[7.6.0.1.220]", v, sizeof v));
    assert_true(nd_ascend_version_from_dirname("cann-9.0.0", v, sizeof v));
    assert_string_equal(v, "9.0.0");
    assert_true(nd_ascend_version_from_dirname("8.0.RC3", v, sizeof v));
    assert_false(nd_ascend_version_from_dirname("latest", v, sizeof v));
}

static void test_version_cmp(void **state)
{
    (void)state;
    assert_true(nd_version_cmp("8.0.RC3", "8.0.0") < 0);
    assert_true(nd_version_cmp("8.0.0", "8.1.RC1") < 0);
    assert_true(nd_version_cmp("8.0.RC1", "8.0.RC2") < 0);
    assert_true(nd_version_cmp("2.1.0", "2.1.0.post10") < 0);
    assert_true(nd_version_cmp("2.1.0.post2", "2.1.0.post10") < 0);
    assert_true(nd_version_cmp("1.13.0a0", "1.13.0") < 0);
    assert_int_equal(nd_version_cmp("2.4.0+cpu", "2.4.0"), 0);
    assert_int_equal(nd_version_cmp("12.1", "12.1.0"), 0);
    assert_true(nd_version_cmp("535.104.05", "525.60.13") > 0);
    assert_true(nd_version_cmp("24.1.rc2", "24.1.0") < 0);
    assert_true(nd_version_cmp("10", "9.9") > 0);
    assert_int_equal(nd_version_cmp("", ""), 0);
    assert_int_equal(nd_version_cmp(NULL, "0"), 0);
    char b[64];
    nd_version_base("2.1.0.post10", b, sizeof b);
    assert_string_equal(b, "2.1.0");
    nd_version_base("2.5.1+cpu", b, sizeof b);
    assert_string_equal(b, "2.5.1");
    nd_version_prefix("8.0.RC3", 2, b, sizeof b);
    assert_string_equal(b, "8.0");
    nd_version_prefix("12", 2, b, sizeof b);
    assert_string_equal(b, "12");
    assert_string_equal(nd_version_local("2.4.0+cu121"), "cu121");
    assert_string_equal(nd_version_local("2.4.0"), "");
}

static void test_nvidia_version(void **state)
{
    (void)state;
    char v[64];
    const char *a = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.03  Sun Jan  1 00:00:00 UTC 2026\n"
                    "GCC version:  gcc version 12.2.0\n";
    assert_int_equal(nd_nvidia_parse_version(a, strlen(a), v, sizeof v), 0);
    assert_string_equal(v, "580.159.03");
    const char *b = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.14  Release Build\n";
    assert_int_equal(nd_nvidia_parse_version(b, strlen(b), v, sizeof v), 0);
    assert_string_equal(v, "550.54.14");
    const char *c = "GCC version: 12\nNVRM version: garbage\n";
    assert_int_equal(nd_nvidia_parse_version(c, strlen(c), v, sizeof v), -EINVAL);
    assert_int_equal(nd_nvidia_parse_version("", 0, v, sizeof v), -EINVAL);
}

static void test_host_parsers(void **state)
{
    (void)state;
    uint64_t t, a, lim;
    const char *mi = "MemTotal:       24641608 kB\nMemFree:         1000 kB\nMemAvailable:   24214820 kB\n";
    assert_int_equal(nd_host_parse_meminfo(mi, strlen(mi), &t, &a), 0);
    assert_int_equal(t, 24641608ULL * 1024);
    assert_int_equal(a, 24214820ULL * 1024);
    assert_int_equal(nd_host_parse_meminfo("nothing\n", 8, &t, &a), -EINVAL);
    assert_int_equal(nd_host_parse_cgroup_limit("max\n", 4, &lim), 0);
    assert_int_equal(nd_host_parse_cgroup_limit("9223372036854771712\n", 20, &lim), 0);
    assert_int_equal(nd_host_parse_cgroup_limit("8589934592\n", 11, &lim), 1);
    assert_int_equal(lim, 8589934592ULL);
    assert_int_equal(nd_host_parse_cgroup_limit("-1", 2, &lim), -EINVAL);
    assert_int_equal(nd_host_parse_cgroup_limit("12abc", 5, &lim), -EINVAL);
    double cpus;
    assert_int_equal(nd_host_parse_cpu_max("200000 100000\n", 14, &cpus), 1);
    assert_true(cpus > 1.99 && cpus < 2.01);
    assert_int_equal(nd_host_parse_cpu_max("max 100000\n", 11, &cpus), 0);
    assert_int_equal(nd_host_parse_cpu_max("x", 1, &cpus), -EINVAL);
    const char *cg = "12:memory:/kubepods/burstable/pod1234/abcd\n";
    assert_string_equal(nd_host_cgroup_container(cg, strlen(cg)), "kubernetes");
    const char *cg2 = "0::/system.slice/docker-0123.scope\n";
    assert_string_equal(nd_host_cgroup_container(cg2, strlen(cg2)), "docker");
    assert_null(nd_host_cgroup_container("0::/\n", 5));
}

static void test_pymeta(void **state)
{
    (void)state;
    char name[64], ver[64];
    const char *m = "Metadata-Version: 2.1\r\nName: torch-npu\r\nVersion: 2.1.0.post10\r\nSummary: x\r\n\r\n"
                    "Name: not-this\nVersion: 9\n";
    assert_int_equal(nd_pymeta_parse(m, strlen(m), name, sizeof name, ver, sizeof ver), 0);
    assert_string_equal(name, "torch-npu");
    assert_string_equal(ver, "2.1.0.post10");
    const char *body = "Metadata-Version: 2.1\nName: x\n\nVersion: 1\n";
    assert_int_equal(nd_pymeta_parse(body, strlen(body), name, sizeof name, ver, sizeof ver), -EINVAL);
    assert_int_equal(nd_pymeta_parse("", 0, name, sizeof name, ver, sizeof ver), -EINVAL);
}

static void test_pyversion(void **state)
{
    (void)state;
    char v[64], cuda[32];
    bool known;
    const char *a = "__version__ = '2.4.0+cu121'\ndebug = False\ncuda: Optional[str] = '12.1'\n";
    assert_int_equal(nd_pyversion_parse(a, strlen(a), v, sizeof v, cuda, sizeof cuda, &known), 0);
    assert_string_equal(v, "2.4.0+cu121");
    assert_true(known);
    assert_string_equal(cuda, "12.1");
    const char *b = "__version__ = \"1.13.0a0\"\ncuda = None\n";
    assert_int_equal(nd_pyversion_parse(b, strlen(b), v, sizeof v, cuda, sizeof cuda, &known), 0);
    assert_true(known);
    assert_string_equal(cuda, "");
    const char *c = "version = '1'\n__version__ = unquoted\n";
    assert_int_equal(nd_pyversion_parse(c, strlen(c), v, sizeof v, cuda, sizeof cuda, &known), -EINVAL);
    assert_false(known);
}

static void test_pkg_dirname(void **state)
{
    (void)state;
    char n[64], v[64];
    assert_int_equal(nd_pkg_dirname_parse("torch_npu-2.1.0.post10.dist-info", n, sizeof n, v, sizeof v), 0);
    assert_string_equal(n, "torch_npu");
    assert_string_equal(v, "2.1.0.post10");
    assert_int_equal(nd_pkg_dirname_parse("torch-1.13.0a0+gitunknown.egg-info", n, sizeof n, v, sizeof v), 0);
    assert_string_equal(n, "torch");
    assert_string_equal(v, "1.13.0a0+gitunknown");
    assert_int_equal(nd_pkg_dirname_parse("PyYAML-6.0-py3.11.egg-info", n, sizeof n, v, sizeof v), 0);
    assert_string_equal(n, "pyyaml");
    assert_string_equal(v, "6.0");
    assert_int_equal(nd_pkg_dirname_parse("cryptography.egg-info", n, sizeof n, v, sizeof v), 0);
    assert_string_equal(v, "");
    assert_int_equal(nd_pkg_dirname_parse("torch", n, sizeof n, v, sizeof v), -EINVAL);
    assert_int_equal(nd_pkg_dirname_parse(".dist-info", n, sizeof n, v, sizeof v), -EINVAL);
}

static void test_rank_table(void **state)
{
    (void)state;
    const char *t = "{\"server_list\": [{\"server_id\": \"10.0.0.1\", \"device\": [{\"device_id\": \"0\"},"
                    "{\"device_id\": \"1\"}]}, {\"server_id\": \"10.0.0.2\", \"device\": [{\"device_id\": \"0\"}]}]}";
    const char *ids[] = {"127.0.0.1", "10.0.0.2"};
    struct nd_rank_table rt;
    struct nd_error err;
    memset(&rt, 0, sizeof rt);
    assert_int_equal(nd_rank_table_parse(t, strlen(t), ids, 2, &rt, &err), 0);
    assert_int_equal(rt.servers, 2);
    assert_int_equal(rt.devices, 3);
    assert_true(rt.lists_host);
    assert_int_equal(rt.host_devices, 1);
    const char *old = "{\"group_list\": [{\"instance_list\": [{\"server_id\": \"h1\", \"devices\": [{}]}]}]}";
    assert_int_equal(nd_rank_table_parse(old, strlen(old), ids, 2, &rt, &err), 0);
    assert_false(rt.lists_host);
    assert_int_equal(rt.servers, 1);
    assert_int_equal(nd_rank_table_parse("{\"server_list\": [", 17, ids, 2, &rt, &err), -EINVAL);
    assert_non_null(strstr(err.msg, "JSON"));
    assert_int_equal(nd_rank_table_parse("{}", 2, ids, 2, &rt, &err), -EINVAL);
    assert_int_equal(nd_rank_table_parse("{\"server_list\": []}", 19, ids, 2, &rt, &err), -EINVAL);
}

static void test_ifname_and_ints(void **state)
{
    (void)state;
    const char *ifs[] = {"lo", "eth0", "docker0"};
    assert_true(nd_ifname_matches("eth", ifs, 3));
    assert_true(nd_ifname_matches("=eth0", ifs, 3));
    assert_false(nd_ifname_matches("=eth", ifs, 3));
    assert_false(nd_ifname_matches("ib0,ib1", ifs, 3));
    assert_true(nd_ifname_matches("^docker,lo", ifs, 3));
    assert_false(nd_ifname_matches("^docker,lo,eth", ifs, 3));
    struct nd_dist_int v;
    nd_dist_int_parse("12", &v);
    assert_true(v.set && v.valid && v.value == 12);
    nd_dist_int_parse("-1", &v);
    assert_true(v.set && !v.valid);
    nd_dist_int_parse("x", &v);
    assert_false(v.valid);
    nd_dist_int_parse(NULL, &v);
    assert_false(v.set);
}

static void test_visible_parse(void **state)
{
    (void)state;
    int max;
    bool uuid, bad;
    assert_int_equal(nd_visible_parse("0,1,3", &max, &uuid, &bad), 3);
    assert_int_equal(max, 3);
    assert_false(bad);
    assert_int_equal(nd_visible_parse("", &max, &uuid, &bad), 0);
    assert_int_equal(nd_visible_parse("-1", &max, &uuid, &bad), 0);
    assert_int_equal(nd_visible_parse("0,-1,2", &max, &uuid, &bad), 1);
    assert_int_equal(nd_visible_parse("GPU-1234,1", &max, &uuid, &bad), 2);
    assert_true(uuid);
    assert_int_equal(max, 1);
    nd_visible_parse("0,x", &max, &uuid, &bad);
    assert_true(bad);
}

static void test_pyimport_output(void **state)
{
    (void)state;
    const char *out = "noise from torch\nND-PROBE-JSON:{\"torch\": {\"ok\": true}}\n";
    json_t *j = nd_pyimport_parse_output(out, strlen(out));
    assert_non_null(j);
    assert_true(json_is_true(json_object_get(json_object_get(j, "torch"), "ok")));
    json_decref(j);
    assert_null(nd_pyimport_parse_output("no marker", 9));
    assert_null(nd_pyimport_parse_output("ND-PROBE-JSON:{broken", 21));
    assert_null(nd_pyimport_parse_output("ND-PROBE-JSON:[1]", 17));
    assert_null(nd_pyimport_parse_output(NULL, 0));
}

static void test_compat_tables(void **state)
{
    (void)state;
    struct nd_npu_compat t;
    nd_npu_compat_builtin(&t);
    assert_true(t.n >= 20);
    assert_string_equal(t.rows[0].torch_npu, "2.12.0");
    nd_npu_compat_release(&t);
    struct nd_cuda_compat c;
    nd_cuda_compat_builtin(&c);
    assert_true(c.n >= 20);
    char v[16];
    nd_cuda_for_driver(&c, "535.104.05", v, sizeof v);
    assert_string_equal(v, "12.2");
    nd_cuda_for_driver(&c, "384.130", v, sizeof v);
    assert_string_equal(v, "9.0");
    nd_cuda_for_driver(&c, "300.1", v, sizeof v);
    assert_string_equal(v, "");
    nd_cuda_compat_release(&c);
    const char *tsv = "# c\ntorch_npu\ttorch\tcann\n2.1.0\t2.1.0\t7.0.0\nbroken line\n\n";
    nd_npu_compat_parse(tsv, strlen(tsv), &t);
    assert_int_equal(t.n, 1);
    nd_npu_compat_release(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kvfile_driver_version_info),
        cmocka_unit_test(test_kvfile_colon_and_garbage),
        cmocka_unit_test(test_ascend_range_and_versions),
        cmocka_unit_test(test_version_cmp),
        cmocka_unit_test(test_nvidia_version),
        cmocka_unit_test(test_host_parsers),
        cmocka_unit_test(test_pymeta),
        cmocka_unit_test(test_pyversion),
        cmocka_unit_test(test_pkg_dirname),
        cmocka_unit_test(test_rank_table),
        cmocka_unit_test(test_ifname_and_ints),
        cmocka_unit_test(test_visible_parse),
        cmocka_unit_test(test_pyimport_output),
        cmocka_unit_test(test_compat_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
