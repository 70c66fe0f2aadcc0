/* The collect_env facts: os-release, cpuinfo (x86 and aarch64), the
 * Python full version, and the toolkit parsers, on buffers and on the
 * fixture roots kunpeng-openeuler and cuda-toolkit. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/rootfs.h"
#include "probe/python.h"
#include "probe/sysinfo.h"
#include "probe/toolkits.h"

#define BUF(s) s, sizeof(s) - 1

static void set_root(const char *name)
{
    const char *fx = getenv("ND_FIXTURES");
    assert_non_null(fx);
    char root[4096];
    snprintf(root, sizeof root, "%s/roots/%s", fx, name);
    struct nd_error err;
    assert_int_equal(nd_rootfs_set(root, &err), 0);
}

static void reset_root(void)
{
    struct nd_error err;
    nd_rootfs_set("/", &err);
}

static void test_os_release(void **state)
{
    (void)state;
    struct nd_sysinfo s;
    assert_int_equal(
        nd_sysinfo_parse_os_release(BUF("NAME=\"openEuler\"\nVERSION=\"22.03 (LTS-SP1)\"\nID=\"openEuler\"\n"
                                        "VERSION_ID=\"22.03\"\nPRETTY_NAME=\"openEuler 22.03 (LTS-SP1)\"\n"),
                                    &s),
        0);
    assert_string_equal(s.os_name, "openEuler 22.03 (LTS-SP1)");
    assert_string_equal(s.os_id, "openEuler");
    assert_string_equal(s.os_version, "22.03");
    /* No PRETTY_NAME (old EulerOS): NAME and VERSION. */
    assert_int_equal(nd_sysinfo_parse_os_release(BUF("NAME=\"EulerOS\"\nVERSION=\"2.0 (SP10)\"\nID=euleros\n"), &s), 0);
    assert_string_equal(s.os_name, "EulerOS 2.0 (SP10)");
    assert_string_equal(s.os_id, "euleros");
    assert_string_equal(s.os_version, "");
    assert_int_equal(nd_sysinfo_parse_os_release(BUF("# nothing\n"), &s), -EINVAL);
    assert_int_equal(nd_sysinfo_parse_os_release("\0\1\2\3binary", 10, &s), -EINVAL);
    assert_string_equal(s.os_name, "");
}

static void test_cpuinfo(void **state)
{
    (void)state;
    struct nd_sysinfo s;
    assert_int_equal(nd_sysinfo_parse_cpuinfo(BUF("processor\t: 0\nvendor_id\t: GenuineIntel\n"
                                                  "model name\t: Intel(R) Xeon(R) Platinum 8480+  \n\nprocessor\t: 1\n"
                                                  "model name\t: other\n"),
                                              &s),
                     0);
    assert_string_equal(s.cpu_model, "Intel(R) Xeon(R) Platinum 8480+");
    assert_string_equal(s.cpu_id, "");
    /* Kunpeng 920 as its kernel prints it: no model name, implementer 0x48, part 0xd01. */
    assert_int_equal(nd_sysinfo_parse_cpuinfo(BUF("processor\t: 0\nBogoMIPS\t: 200.00\nCPU implementer\t: 0x48\n"
                                                  "CPU architecture: 8\nCPU variant\t: 0x1\nCPU part\t: 0xd01\n"),
                                              &s),
                     0);
    assert_string_equal(s.cpu_model, "HiSilicon Kunpeng-920");
    assert_string_equal(s.cpu_id, "0x48/0xd01");
    /* A part not in the table keeps the vendor; an unknown vendor keeps the numbers. */
    assert_int_equal(nd_sysinfo_parse_cpuinfo(BUF("CPU implementer\t: 0x48\nCPU part\t: 0xd02\n"), &s), 0);
    assert_string_equal(s.cpu_model, "HiSilicon part 0xd02");
    assert_int_equal(nd_sysinfo_parse_cpuinfo(BUF("CPU implementer\t: 0x99\nCPU part\t: 0x123\n"), &s), 0);
    assert_string_equal(s.cpu_model, "Arm implementer 0x99 part 0x123");
    assert_int_equal(nd_sysinfo_parse_cpuinfo(BUF("CPU implementer\t: 0x41\nCPU part\t: 0xd0c\n"), &s), 0);
    assert_string_equal(s.cpu_model, "ARM Neoverse-N1");
    assert_int_equal(nd_sysinfo_parse_cpuinfo(BUF("CPU implementer\t: zz\nCPU part\t: 0xd01\n"), &s), -EINVAL);
    assert_int_equal(nd_sysinfo_parse_cpuinfo(BUF("model name\n"), &s), -EINVAL);
    assert_int_equal(nd_sysinfo_parse_cpuinfo("", 0, &s), -EINVAL);
    const char *vendor;
    assert_string_equal(nd_sysinfo_arm_part(0x48, 0xd01, &vendor), "Kunpeng-920");
    assert_string_equal(vendor, "HiSilicon");
    assert_null(nd_sysinfo_arm_part(0x12, 0x1, &vendor));
    assert_null(vendor);
}

static void test_probe_kunpeng(void **state)
{
    (void)state;
    set_root("kunpeng-openeuler");
    struct nd_sysinfo s;
    nd_sysinfo_probe(&s);
    assert_string_equal(s.os_name, "openEuler 22.03 (LTS-SP1)");
    assert_string_equal(s.cpu_model, "HiSilicon Kunpeng-920");
    assert_string_equal(s.cpu_id, "0x48/0xd01");
    assert_true(s.kernel[0] != '\0');
    assert_string_equal(s.glibc, ""); /* another root: our glibc is not the container's */
    json_t *j = nd_sysinfo_facts_json(&s);
    assert_string_equal(json_string_value(json_object_get(j, "os_id")), "openEuler");
    assert_true(json_is_null(json_object_get(j, "glibc")));
    json_decref(j);
    reset_root();
    nd_sysinfo_probe(&s);
#ifdef __GLIBC__
    assert_true(s.glibc[0] >= '2');
#endif
}

static void test_python_version(void **state)
{
    (void)state;
    char v[32];
    assert_int_equal(nd_sysinfo_parse_patchlevel(
                         BUF("#define PY_MINOR_VERSION 10\n#define PY_VERSION      \t\"3.10.14\"\n"), v, sizeof v),
                     0);
    assert_string_equal(v, "3.10.14");
    assert_int_equal(nd_sysinfo_parse_patchlevel(BUF("#define PY_VERSION \"3.13.0rc2+\"\n"), v, sizeof v), 0);
    assert_string_equal(v, "3.13.0rc2+");
    assert_int_equal(nd_sysinfo_parse_patchlevel(BUF("#define PY_VERSION 3.10\n"), v, sizeof v), -EINVAL);
    assert_int_equal(nd_sysinfo_parse_patchlevel(BUF("#define PY_VERSION \"3.10"), v, sizeof v), -EINVAL);

    set_root("cuda-toolkit");
    struct nd_python *py = calloc(1, sizeof *py);
    py->found = true;
    strcpy(py->version, "3.10");
    strcpy(py->path, "/opt/venv/bin/python3");
    strcpy(py->exe, "/usr/bin/python3.10");
    strcpy(py->how, "venv /opt/venv");
    assert_int_equal(nd_sysinfo_python_version(py, v, sizeof v), 0);
    assert_string_equal(v, "3.10.12"); /* pyvenv.cfg first */
    strcpy(py->path, "/usr/bin/python3");
    assert_int_equal(nd_sysinfo_python_version(py, v, sizeof v), 0);
    assert_string_equal(v, "3.10.14"); /* then the prefix's patchlevel.h */
    strcpy(py->how, "pyenv 3.10.4");
    assert_int_equal(nd_sysinfo_python_version(py, v, sizeof v), 0);
    assert_string_equal(v, "3.10.4");
    strcpy(py->how, "pyenv 3.9.1"); /* a pyenv name for another minor: not believed */
    strcpy(py->version, "3.11");
    assert_int_equal(nd_sysinfo_python_version(py, v, sizeof v), -ENOENT);
    assert_string_equal(v, "");
    free(py);
    reset_root();
}

static void test_toolkit_parsers(void **state)
{
    (void)state;
    char v[32];
    assert_int_equal(nd_tk_parse_nvcc(BUF("nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2024 NVIDIA\n"
                                          "Cuda compilation tools, release 12.4, V12.4.131\nBuild cuda_12.4.r12.4\n"),
                                      v, sizeof v),
                     0);
    assert_string_equal(v, "12.4.131");
    assert_int_equal(nd_tk_parse_nvcc(BUF("Cuda compilation tools, release 10.2\n"), v, sizeof v), 0);
    assert_string_equal(v, "10.2");
    assert_int_equal(nd_tk_parse_nvcc(BUF("command not found\n"), v, sizeof v), -EINVAL);
    assert_int_equal(nd_tk_parse_nvcc(BUF("release "), v, sizeof v), -EINVAL);

    assert_int_equal(
        nd_tk_parse_cuda_version(BUF("{\"cuda\": {\"name\": \"CUDA SDK\", \"version\": \"12.4.1\"}}"), v, sizeof v), 0);
    assert_string_equal(v, "12.4.1");
    assert_int_equal(nd_tk_parse_cuda_version(BUF("CUDA Version 11.0.207\n"), v, sizeof v), 0);
    assert_string_equal(v, "11.0.207");
    assert_int_equal(nd_tk_parse_cuda_version(BUF("{\"cuda\": {\"version\": 12}}"), v, sizeof v), -EINVAL);
    assert_int_equal(nd_tk_parse_cuda_version(BUF("{\"cudart\": {}}"), v, sizeof v), -EINVAL);

    assert_int_equal(nd_tk_parse_cudnn_header(BUF("#define CUDNN_MAJOR_VERSION_X 1\n#define CUDNN_MAJOR 8\n"
                                                  "#define CUDNN_MINOR 9\n#define CUDNN_PATCHLEVEL 7\n"),
                                              v, sizeof v),
                     0);
    assert_string_equal(v, "8.9.7");
    assert_int_equal(nd_tk_parse_cudnn_header(BUF("#define CUDNN_MAJOR 7\n"), v, sizeof v), 0);
    assert_string_equal(v, "7");
    assert_int_equal(nd_tk_parse_cudnn_header(BUF("#define CUDNN_MAJOR\n#define CUDNN_MINOR 1\n"), v, sizeof v), -EINVAL);

    assert_int_equal(nd_tk_parse_cudnn_soname("libcudnn.so.8.9.7", v, sizeof v), 0);
    assert_string_equal(v, "8.9.7");
    assert_int_equal(nd_tk_parse_cudnn_soname("libcudnn.so.9", v, sizeof v), 0);
    assert_string_equal(v, "9");
    assert_int_equal(nd_tk_parse_cudnn_soname("libcudnn.so.8.bak", v, sizeof v), -EINVAL);
    assert_int_equal(nd_tk_parse_cudnn_soname("libcudnn.so", v, sizeof v), -EINVAL);

    assert_int_equal(nd_tk_parse_rocm_version(BUF("6.1.2-119\n"), v, sizeof v), 0);
    assert_string_equal(v, "6.1.2-119");
    assert_int_equal(nd_tk_parse_rocm_version(BUF("\n\n"), v, sizeof v), -EINVAL);
    assert_int_equal(nd_tk_parse_rocm_version(BUF("6.1 $(rm -rf)\n"), v, sizeof v), -EINVAL);
}

static void test_toolkits_on_fixture(void **state)
{
    (void)state;
    set_root("cuda-toolkit");
    struct nd_toolkits *t = calloc(1, sizeof *t);
    nd_toolkits_probe(NULL, NULL, 0, 5, t);
    assert_string_equal(t->cuda_version, "12.4.1");
    assert_string_equal(t->cuda_home, "/usr/local/cuda");
    assert_string_equal(t->nvcc_path, ""); /* never run from another root */
    assert_string_equal(t->cudnn_version, "9.1.0");
    assert_string_equal(t->cudnn_source, "/usr/include/cudnn_version.h");
    assert_int_equal(t->nrocm, 1);
    assert_string_equal(t->rocm[0].path, "/opt/rocm-6.1.2");
    assert_string_equal(t->rocm[0].version, "6.1.2-119");
    json_t *j = nd_toolkits_facts_json(t);
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "cuda_toolkit"), "version")), "12.4.1");
    json_decref(j);
    /* CUDA_HOME of the job wins over /usr/local/cuda. */
    struct nd_environ env;
    nd_environ_init(&env, "test");
    nd_environ_set(&env, "CUDA_HOME", "/usr/local/cuda-12.4");
    nd_toolkits_probe(&env, NULL, 0, 0, t);
    assert_string_equal(t->cuda_home, "/usr/local/cuda-12.4");
    nd_environ_release(&env);
    set_root("kunpeng-openeuler");
    nd_toolkits_probe(NULL, NULL, 0, 0, t);
    assert_string_equal(t->cuda_version, "");
    assert_string_equal(t->cudnn_version, "");
    assert_int_equal(t->nrocm, 0);
    free(t);
    reset_root();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_os_release),      cmocka_unit_test(test_cpuinfo),
        cmocka_unit_test(test_probe_kunpeng),   cmocka_unit_test(test_python_version),
        cmocka_unit_test(test_toolkit_parsers), cmocka_unit_test(test_toolkits_on_fixture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
