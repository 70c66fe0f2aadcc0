/* Unit tests for the compatibility tables as data (data/cann_driver.tsv,
 * data/torch_wheels.tsv, the python column of data/torch_npu_compat.tsv),
 * their lookups, the judgements of compat_stack.c and the toolkit version
 * parsers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "probe/ascend_install.h"
#include "probe/compat.h"
#include "probe/compat_log.h"
#include "probe/compat_stack.h"
#include "probe/toolkit_version.h"

static const struct nd_finding *find(const struct nd_findings *l, const char *id)
{
    return nd_findings_find(l, id);
}

static bool has_fix(const struct nd_finding *f, const char *needle)
{
    for (size_t i = 0; f && i < f->nfix; i++)
        if (strstr(f->fix[i], needle))
            return true;
    return false;
}

static void test_tables_parse(void **state)
{
    (void)state;
    struct nd_cann_driver dt;
    nd_cann_driver_builtin(&dt);
    assert_true(dt.n >= 10);
    const struct nd_cann_driver_row *r = nd_cann_driver_lookup(&dt, "8.5.0");
    assert_non_null(r);
    assert_string_equal(r->hdk, "25.5.0");
    assert_string_equal(r->hdk_oldest, "25.0.RC1");
    /* A patch or pre-release of a listed release finds that release. */
    assert_string_equal(nd_cann_driver_lookup(&dt, "8.0.RC3.beta1")->cann, "8.0.RC3");
    assert_string_equal(nd_cann_driver_lookup(&dt, "8.5.1")->cann, "8.5.0");
    assert_string_equal(nd_cann_driver_lookup(&dt, "8.0.0")->cann, "8.0.0");
    assert_null(nd_cann_driver_lookup(&dt, "5.1.RC2"));
    assert_null(nd_cann_driver_lookup(&dt, NULL));
    /* Rows with "-" keep an empty bound, not the dash. */
    assert_string_equal(nd_cann_driver_lookup(&dt, "7.0.0")->hdk_oldest, "");
    nd_cann_driver_release(&dt);

    struct nd_torch_wheels wt;
    nd_torch_wheels_builtin(&wt);
    const struct nd_torch_wheel_row *w = nd_torch_wheels_lookup(&wt, "2.5.1+cu124");
    assert_non_null(w);
    assert_string_equal(w->torch, "2.5");
    assert_true(nd_compat_list_has(w->cuda, "12.4"));
    assert_false(nd_compat_list_has(w->cuda, "12.6"));
    assert_true(nd_compat_list_has(w->rocm, "6.2"));
    assert_null(nd_torch_wheels_lookup(&wt, "0.4.1"));
    nd_torch_wheels_release(&wt);

    /* Malformed data: rows skipped, never a crash. */
    const char bad[] = "cann\thdk\n8.0.0\n\t\t\n9.9.9\t1\t2\n";
    nd_cann_driver_parse(bad, sizeof bad - 1, &dt);
    assert_int_equal(dt.n, 1);
    nd_cann_driver_release(&dt);

    struct nd_npu_compat nt;
    nd_npu_compat_builtin(&nt);
    bool python_seen = false;
    for (size_t i = 0; i < nt.n; i++)
        if (strcmp(nt.rows[i].torch_npu, "2.5.1.post1") == 0) {
            assert_string_equal(nt.rows[i].python, "3.9-3.11");
            python_seen = true;
        }
    assert_true(python_seen);
    nd_npu_compat_release(&nt);
}

static void test_list_helpers(void **state)
{
    (void)state;
    char out[32];
    nd_compat_list_best("11.8 12.1 12.4", "12.2", out, sizeof out);
    assert_string_equal(out, "12.1");
    nd_compat_list_best("11.8 12.1 12.4", "11.4", out, sizeof out);
    assert_string_equal(out, "");
    nd_compat_list_best("6.1 6.2.4", "6.2", out, sizeof out);
    assert_string_equal(out, "6.1");
    assert_true(nd_compat_local_cuda("cu118", out, sizeof out));
    assert_string_equal(out, "11.8");
    assert_true(nd_compat_local_cuda("cu130", out, sizeof out));
    assert_string_equal(out, "13.0");
    assert_true(nd_compat_local_cuda("cu92", out, sizeof out));
    assert_string_equal(out, "9.2");
    assert_false(nd_compat_local_cuda("cpu", out, sizeof out));
    assert_false(nd_compat_local_cuda("cu12x", out, sizeof out));
    assert_true(nd_compat_local_rocm("rocm6.2.4", out, sizeof out));
    assert_string_equal(out, "6.2.4");
    assert_false(nd_compat_local_rocm("rocm", out, sizeof out));
}

static void test_judge_cann_driver(void **state)
{
    (void)state;
    struct nd_cann_driver dt;
    nd_cann_driver_builtin(&dt);
    struct nd_findings f = ND_FINDINGS_INIT;
    /* Inside the window, with the driver's own spelling and a patch build. */
    assert_int_equal(nd_compat_judge_cann_driver(&dt, "8.0.0", "24.1.rc2", &f), 0);
    assert_int_equal(nd_compat_judge_cann_driver(&dt, "8.5.0", "25.3.rc1.b010", &f), 0);
    assert_int_equal(nd_compat_judge_cann_driver(&dt, "8.5.0", "25.0.rc1", &f), 0);
    /* Older than the oldest supported release: error, with a CANN that fits as the alternative. */
    assert_int_equal(nd_compat_judge_cann_driver(&dt, "8.5.0", "24.1.0", &f), 1);
    const struct nd_finding *x = find(&f, "compat.cann-driver");
    assert_non_null(x);
    assert_int_equal(x->severity, ND_SEV_ERROR);
    assert_string_equal(x->category, ND_CAT_VERSION_MISMATCH);
    assert_true(has_fix(x, "Ascend HDK 25.5.0"));
    assert_true(has_fix(x, "CANN 8.3.RC1")); /* its window reaches back to 24.1.0 */
    nd_findings_release(&f);
    /* 24.1.rc3.b999 is release 24.1.RC3: older than 8.3.RC1's oldest (24.1.0). */
    nd_compat_judge_cann_driver(&dt, "8.3.RC1", "24.1.rc3.b999", &f);
    assert_int_equal(find(&f, "compat.cann-driver")->severity, ND_SEV_ERROR);
    nd_findings_release(&f);
    /* A driver newer than every paired release: a note one HDK year on, a warning two years on. */
    nd_compat_judge_cann_driver(&dt, "8.0.0", "25.5.0", &f);
    assert_int_equal(find(&f, "compat.cann-driver")->severity, ND_SEV_INFO);
    nd_findings_release(&f);
    nd_compat_judge_cann_driver(&dt, "7.0.0", "25.5.0", &f);
    assert_int_equal(find(&f, "compat.cann-driver")->severity, ND_SEV_WARNING);
    nd_findings_release(&f);
    /* Oldest unknown: older than the paired release is only a warning. */
    nd_compat_judge_cann_driver(&dt, "7.0.0", "22.0.4", &f);
    assert_int_equal(find(&f, "compat.cann-driver")->severity, ND_SEV_WARNING);
    nd_findings_release(&f);
    /* Unknown CANN or driver: nothing to say. */
    assert_int_equal(nd_compat_judge_cann_driver(&dt, "5.1.RC2", "22.0.0", &f), 0);
    assert_int_equal(nd_compat_judge_cann_driver(&dt, "8.0.0", NULL, &f), 0);
    assert_int_equal(f.n, 0);
    nd_cann_driver_release(&dt);
}

static void test_judge_python(void **state)
{
    (void)state;
    struct nd_torch_wheels wt;
    struct nd_npu_compat nt;
    nd_torch_wheels_builtin(&wt);
    nd_npu_compat_builtin(&nt);
    struct nd_findings f = ND_FINDINGS_INIT;
    assert_int_equal(nd_compat_judge_torch_python(&wt, "2.5.1+cu124", "3.12.4", &f), 0);
    assert_int_equal(nd_compat_judge_torch_python(&wt, "2.1.0", "3.12", &f), 1);
    assert_int_equal(find(&f, "compat.torch-python")->severity, ND_SEV_WARNING);
    nd_findings_release(&f);
    assert_int_equal(nd_compat_judge_torch_python(&wt, "2.9.0", "3.9", &f), 1);
    nd_findings_release(&f);
    /* 3.10 is not below 3.9 although "10" < "9" as text. */
    assert_int_equal(nd_compat_judge_torch_python(&wt, "2.6.0", "3.10", &f), 0);
    assert_int_equal(nd_compat_judge_npu_python(&nt, "2.5.1.post1", "3.11", &f), 0);
    assert_int_equal(nd_compat_judge_npu_python(&nt, "2.5.1.post1", "3.12", &f), 1);
    assert_true(has_fix(find(&f, "compat.torch-npu-python"), "python=3.11"));
    nd_findings_release(&f);
    /* A row without a python range says nothing. */
    assert_int_equal(nd_compat_judge_npu_python(&nt, "2.12.0", "3.13", &f), 0);
    nd_torch_wheels_release(&wt);
    nd_npu_compat_release(&nt);
}

static void test_judge_cuda(void **state)
{
    (void)state;
    struct nd_cuda_compat ct;
    struct nd_torch_wheels wt;
    nd_cuda_compat_builtin(&ct);
    nd_torch_wheels_builtin(&wt);
    struct nd_findings f = ND_FINDINGS_INIT;
    /* torch 2.5.1+cu124 on a 535 driver (CUDA 12.2): the fix names cu121, a build 2.5 really publishes,
     * not cu122, which does not exist. */
    assert_int_equal(nd_compat_judge_torch_cuda(&ct, &wt, "2.5.1+cu124", "12.4", "535.104.05", NULL, &f), 1);
    const struct nd_finding *x = find(&f, "compat.torch-cuda-driver");
    assert_non_null(x);
    assert_true(has_fix(x, "pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/cu121"));
    assert_false(has_fix(x, "whl/cu122"));
    nd_findings_release(&f);
    assert_int_equal(nd_compat_judge_torch_cuda(&ct, &wt, "2.5.1+cu121", "12.1", "535.104.05", NULL, &f), 0);

    /* Toolkit newer than the driver, another major than torch. */
    assert_int_equal(nd_compat_judge_cuda_toolkit(&ct, &wt, "13.0.1", "2.4.0+cu121", "12.1", "535.104.05", NULL, &f), 2);
    assert_int_equal(find(&f, "compat.cuda-toolkit-driver")->severity, ND_SEV_ERROR);
    assert_true(has_fix(find(&f, "compat.cuda-toolkit-driver"), "580.65.06"));
    assert_int_equal(find(&f, "compat.cuda-toolkit-torch")->severity, ND_SEV_WARNING);
    nd_findings_release(&f);
    /* Same major, newer minor than the driver: minor-version compatibility, a warning. */
    assert_int_equal(nd_compat_judge_cuda_toolkit(&ct, &wt, "12.6.2", "2.5.1", "12.4", "535.104.05", NULL, &f), 1);
    assert_int_equal(find(&f, "compat.cuda-toolkit-driver")->severity, ND_SEV_WARNING);
    nd_findings_release(&f);
    /* A toolkit the driver runs and of torch's major: fine. */
    assert_int_equal(nd_compat_judge_cuda_toolkit(&ct, &wt, "12.1.105", "2.5.1", "12.4", "550.54.14", "12.4", &f), 0);
    assert_int_equal(nd_compat_judge_cuda_toolkit(&ct, &wt, "", "2.5.1", "12.4", "550.54.14", NULL, &f), 0);
    nd_cuda_compat_release(&ct);
    nd_torch_wheels_release(&wt);
}

static void test_judge_rocm_and_set(void **state)
{
    (void)state;
    struct nd_torch_wheels wt;
    nd_torch_wheels_builtin(&wt);
    struct nd_findings f = ND_FINDINGS_INIT;
    assert_int_equal(nd_compat_judge_rocm(&wt, "2.5.1+rocm6.2", "6.2.4", &f), 0);
    assert_int_equal(nd_compat_judge_rocm(&wt, "2.5.1+rocm6.2", "5.7.1", &f), 1);
    assert_int_equal(find(&f, "compat.torch-rocm")->severity, ND_SEV_WARNING);
    nd_findings_release(&f);
    assert_int_equal(nd_compat_judge_rocm(&wt, "2.5.1+rocm5.7", NULL, &f), 1);
    assert_int_equal(find(&f, "compat.torch-rocm")->severity, ND_SEV_INFO);
    nd_findings_release(&f);
    assert_int_equal(nd_compat_judge_rocm(&wt, "2.5.1+cu124", "6.2", &f), 0);
    nd_torch_wheels_release(&wt);

    /* A whole node: CANN 8.5.0 on an old driver with a torch_npu for CANN 8.0. */
    struct nd_version_set v = {
        .torch = "2.1.0", .torch_npu = "2.1.0.post10", .python = "3.10", .cann = "8.5.0", .npu_driver = "24.1.rc2"};
    assert_true(nd_compat_judge_set(&v, &f) >= 2);
    assert_non_null(find(&f, "compat.cann-driver"));
    assert_non_null(find(&f, "compat.torch-npu-cann"));
    nd_findings_release(&f);
    struct nd_version_set ok = {
        .torch = "2.4.0", .torch_npu = "2.4.0.post2", .python = "3.10", .cann = "8.0.0", .npu_driver = "24.1.rc2"};
    assert_int_equal(nd_compat_judge_set(&ok, &f), 0);
    struct nd_version_set empty = {0};
    assert_int_equal(nd_compat_judge_set(&empty, &f), 0);
}

static void test_toolkit_parsers(void **state)
{
    (void)state;
    char out[32];
    const char js[] = "{\n \"cuda\" : {\"name\" : \"CUDA SDK\", \"version\" : \"12.4.1\"},\n"
                      " \"cuda_nvcc\": {\"version\": \"12.4.131\"}}";
    assert_int_equal(nd_cuda_toolkit_parse(js, sizeof js - 1, out, sizeof out), 0);
    assert_string_equal(out, "12.4.1");
    const char txt[] = "CUDA Version 11.0.228\n";
    assert_int_equal(nd_cuda_toolkit_parse(txt, sizeof txt - 1, out, sizeof out), 0);
    assert_string_equal(out, "11.0.228");
    const char nover[] = "{\"cuda\": {\"name\": \"CUDA SDK\"}}";
    assert_int_equal(nd_cuda_toolkit_parse(nover, sizeof nover - 1, out, sizeof out), -EINVAL);
    assert_string_equal(out, "");
    assert_int_equal(nd_cuda_toolkit_parse("garbage", 7, out, sizeof out), -EINVAL);
    assert_int_equal(nd_cuda_toolkit_parse("CUDA Version ", 13, out, sizeof out), -EINVAL);
    const char rocm[] = "6.1.2-119\n";
    assert_int_equal(nd_rocm_version_parse(rocm, sizeof rocm - 1, out, sizeof out), 0);
    assert_string_equal(out, "6.1.2");
    assert_int_equal(nd_rocm_version_parse("\n", 1, out, sizeof out), -EINVAL);
    /* Not NUL-terminated: the parser stays inside len. */
    const char cut[] = {'5', '.', '7'};
    assert_int_equal(nd_rocm_version_parse(cut, sizeof cut, out, sizeof out), 0);
    assert_string_equal(out, "5.7");
}

static struct nd_logver scan(const char *line)
{
    struct nd_logver lv;
    memset(&lv, 0, sizeof lv);
    nd_logver_scan(line, strlen(line), &lv);
    return lv;
}

static void test_logver_scan(void **state)
{
    (void)state;
    struct nd_logver lv = scan("Warning: CANN package version 8.0.RC1 and PyTorch version 2.4.0 do not match.");
    assert_true(lv.found[ND_LOGVER_CANN]);
    assert_string_equal(lv.v[ND_LOGVER_CANN], "8.0.RC1");
    assert_string_equal(lv.v[ND_LOGVER_TORCH], "2.4.0");
    lv = scan("| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |");
    assert_string_equal(lv.v[ND_LOGVER_NVIDIA_DRIVER], "535.104.05");
    assert_string_equal(lv.v[ND_LOGVER_DRIVER_CUDA], "12.2");
    assert_false(lv.found[ND_LOGVER_NPU_DRIVER]);
    lv = scan("[ERROR] The driver version 23.0.rc1 is too low for CANN 8.0.RC3");
    assert_string_equal(lv.v[ND_LOGVER_NPU_DRIVER], "23.0.rc1");
    assert_string_equal(lv.v[ND_LOGVER_CANN], "8.0.RC3");
    lv = scan("torch_npu version: 2.1.0.post10, torch.__version__ = '2.1.0+cpu'");
    assert_string_equal(lv.v[ND_LOGVER_TORCH_NPU], "2.1.0.post10");
    assert_string_equal(lv.v[ND_LOGVER_TORCH], "2.1.0+cpu");
    lv = scan("CUDA used to build PyTorch: 12.1");
    assert_string_equal(lv.v[ND_LOGVER_TORCH_CUDA], "12.1");
    assert_false(lv.found[ND_LOGVER_TORCH]);
    lv = scan("Cuda compilation tools, release 12.4, V12.4.131");
    assert_string_equal(lv.v[ND_LOGVER_CUDA_TOOLKIT], "12.4");
    lv = scan("Python version: 3.12.3 (main, Apr 10 2024, 05:33:47) [GCC 13.2.0] (64-bit runtime)");
    assert_string_equal(lv.v[ND_LOGVER_PYTHON], "3.12.3");
    /* The forms a shell session prints: npu-smi's banner (the driver
     * release), the toolkit's versioned directory, the installers. */
    lv = scan("| npu-smi 25.0.rc1.1               Version: 25.0.rc1.1                                   |");
    assert_string_equal(lv.v[ND_LOGVER_NPU_DRIVER], "25.0.rc1.1");
    assert_false(lv.found[ND_LOGVER_NVIDIA_DRIVER]);
    lv = scan("path = /usr/local/Ascend/ascend-toolkit/7.0.RC1/opp/built-in/op_impl/host_cpu/libops_host_cpu.so");
    assert_string_equal(lv.v[ND_LOGVER_CANN], "7.0.RC1");
    lv = scan("./Ascend-cann-toolkit_8.0.RC1_linux-aarch64.run --install");
    assert_string_equal(lv.v[ND_LOGVER_CANN], "8.0.RC1");
    lv = scan("Ascend-hdk-910b-npu-driver_24.1.rc2_linux-aarch64.run --full");
    assert_string_equal(lv.v[ND_LOGVER_NPU_DRIVER], "24.1.rc2");
    /* The version files: the driver's version.info, the toolkit's install info. */
    lv = scan("Version=24.1.rc1");
    assert_string_equal(lv.v[ND_LOGVER_NPU_DRIVER], "24.1.rc1");
    lv = scan("version=8.0.RC3");
    assert_string_equal(lv.v[ND_LOGVER_CANN], "8.0.RC3");
    assert_false(lv.found[ND_LOGVER_NPU_DRIVER]);
    /* Look-alikes name nothing. */
    const char *none[] = {"torchvision 0.16.0",
                          "cannot open CANN",
                          "Driver Version: N/A",
                          "File \"/usr/lib/python3.10/site-packages/torch/nn/modules/module.py\", line 1501",
                          "CUDA_VISIBLE_DEVICES=0,1",
                          "import torch_npu",
                          "torch 2",
                          "libtorch_npu.so",
                          "npu-smi info",
                          "/usr/local/Ascend/ascend-toolkit/latest/set_env.sh",
                          "Version=7.1.0.11.220",
                          "innerversion=V100R001C19SPC001B251",
                          "version=1.2.3",
                          "Version =24.1.rc1 is",
                          NULL};
    for (int i = 0; none[i]; i++) {
        lv = scan(none[i]);
        for (int k = 0; k < ND_LOGVER_COUNT; k++)
            if (lv.found[k])
                fail_msg("'%s' gave %s %s", none[i], nd_logver_name(k), lv.v[k]);
    }
    /* The first value of a kind stays. */
    struct nd_logver acc;
    memset(&acc, 0, sizeof acc);
    assert_int_equal(nd_logver_scan("CANN 8.0.0", 10, &acc), 1);
    assert_int_equal(nd_logver_scan("CANN 8.5.0", 10, &acc), 0);
    assert_string_equal(acc.v[ND_LOGVER_CANN], "8.0.0");
    /* Bounded by len, not by a terminator. */
    memset(&acc, 0, sizeof acc);
    assert_int_equal(nd_logver_scan("CANN 8.0.0", 6, &acc), 0);
}

static void test_req_hal_min(void **state)
{
    (void)state;
    char out[32];
    assert_true(nd_ascend_req_hal_min("7.35.19", out, sizeof out));
    assert_string_equal(out, "7.35.19");
    assert_true(nd_ascend_req_hal_min("[7.35.23],[7.35.19]", out, sizeof out));
    assert_string_equal(out, "7.35.19");
    assert_true(nd_ascend_req_hal_min("[7.35.19,7.35.23]", out, sizeof out));
    assert_string_equal(out, "7.35.19");
    /* 7.35.9 is older than 7.35.19 although it sorts after it as text. */
    assert_true(nd_ascend_req_hal_min("[7.35.19],[7.35.9]", out, sizeof out));
    assert_string_equal(out, "7.35.9");
    assert_false(nd_ascend_req_hal_min("[]", out, sizeof out));
    assert_false(nd_ascend_req_hal_min("1", out, sizeof out));
    assert_false(nd_ascend_req_hal_min(NULL, out, sizeof out));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables_parse),      cmocka_unit_test(test_list_helpers),
        cmocka_unit_test(test_judge_cann_driver), cmocka_unit_test(test_judge_python),
        cmocka_unit_test(test_judge_cuda),        cmocka_unit_test(test_judge_rocm_and_set),
        cmocka_unit_test(test_toolkit_parsers),   cmocka_unit_test(test_logver_scan),
        cmocka_unit_test(test_req_hal_min),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
