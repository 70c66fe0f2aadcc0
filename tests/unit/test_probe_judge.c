/* Unit tests for the judgements in probe/: pure functions from facts (plain
 * structs, JSON results) to findings, plus the environment judgement and the
 * whole checkup on the fixture roots. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/report.h"
#include "core/rootfs.h"
#include "probe/ascend_install.h"
#include "probe/checkup.h"
#include "probe/compat.h"
#include "probe/cuda_install.h"
#include "probe/distributed.h"
#include "probe/envcheck.h"
#include "probe/host.h"
#include "probe/pyimport.h"
#include "probe/python.h"

static const struct nd_finding *find(const struct nd_findings *l, const char *id)
{
    return nd_findings_find(l, id);
}

static void test_compat_npu(void **state)
{
    (void)state;
    struct nd_npu_compat t;
    nd_npu_compat_builtin(&t);
    struct nd_findings f = ND_FINDINGS_INIT;
    assert_int_equal(nd_compat_judge_npu(&t, "2.4.0+cpu", "2.4.0.post2", "8.0.0", &f), 0);
    assert_int_equal(nd_compat_judge_npu(&t, "2.4.0", "2.1.0.post10", "8.0.0", &f), 1);
    assert_non_null(find(&f, "compat.torch-npu-torch"));
    assert_int_equal(find(&f, "compat.torch-npu-torch")->severity, ND_SEV_ERROR);
    nd_findings_release(&f);
    /* CANN older than the pairing: error; a newer release: warning. */
    nd_compat_judge_npu(&t, "2.4.0", "2.4.0.post2", "8.0.RC3", &f);
    assert_int_equal(find(&f, "compat.torch-npu-cann")->severity, ND_SEV_ERROR);
    nd_findings_release(&f);
    nd_compat_judge_npu(&t, "2.4.0", "2.4.0.post2", "8.1.RC1", &f);
    assert_int_equal(find(&f, "compat.torch-npu-cann")->severity, ND_SEV_WARNING);
    nd_findings_release(&f);
    /* Not listed, but every listed build of that base needs a newer CANN. */
    nd_compat_judge_npu(&t, "2.1.0", "2.1.0.post11", "7.0.RC1", &f);
    assert_int_equal(find(&f, "compat.torch-npu-cann")->severity, ND_SEV_ERROR);
    nd_findings_release(&f);
    nd_compat_judge_npu(&t, "3.0.0", "3.0.0", "10.0.0", &f);
    assert_int_equal(find(&f, "compat.torch-npu-unknown")->severity, ND_SEV_INFO);
    nd_findings_release(&f);
    nd_compat_judge_npu(&t, NULL, "2.4.0", NULL, &f);
    assert_non_null(find(&f, "compat.torch-npu-torch"));
    nd_findings_release(&f);
    assert_int_equal(nd_compat_judge_npu(&t, "2.4.0", NULL, "8.0.0", &f), 0);
    nd_npu_compat_release(&t);
}

static void test_compat_cuda(void **state)
{
    (void)state;
    struct nd_cuda_compat t;
    nd_cuda_compat_builtin(&t);
    struct nd_findings f = ND_FINDINGS_INIT;
    assert_int_equal(nd_compat_judge_cuda(&t, "12.1", "535.104.05", NULL, &f), 0);
    assert_int_equal(nd_compat_judge_cuda(&t, "12.4", "535.104.05", NULL, &f), 1);
    assert_int_equal(f.v[0]->severity, ND_SEV_WARNING);
    nd_findings_release(&f);
    /* Corpus 028: driver supports 12.4, torch built for CUDA 13. */
    assert_int_equal(nd_compat_judge_cuda(&t, "13.0", NULL, "12.4", &f), 1);
    assert_int_equal(f.v[0]->severity, ND_SEV_ERROR);
    nd_findings_release(&f);
    /* Corpus 020: driver 384.130 (CUDA 9.0), torch for CUDA 10.0. */
    nd_compat_judge_cuda(&t, "10.0", "384.130", NULL, &f);
    assert_int_equal(f.v[0]->severity, ND_SEV_ERROR);
    assert_non_null(strstr(f.v[0]->fix[0], "410.48"));
    nd_findings_release(&f);
    assert_int_equal(nd_compat_judge_cuda(&t, "", "384.130", NULL, &f), 0);
    assert_int_equal(nd_compat_judge_cuda(&t, "12.1", NULL, NULL, &f), 0);
    nd_cuda_compat_release(&t);
}

static void test_host_judge(void **state)
{
    (void)state;
    struct nd_host h;
    memset(&h, 0, sizeof h);
    struct nd_findings f = ND_FINDINGS_INIT;
    h.shm_valid = true;
    h.shm_total = 64ULL << 20;
    h.nofile_valid = true;
    h.nofile_soft = 256;
    h.cgroup_limit_valid = true;
    h.cgroup_limit = 2ULL << 30;
    h.disk_valid = true;
    h.disk_free = 100ULL << 20;
    nd_host_judge(&h, &f);
    assert_non_null(find(&f, "host.shm-small"));
    assert_string_equal(find(&f, "host.shm-small")->category, "host-oom");
    assert_non_null(find(&f, "host.nofile-low"));
    assert_non_null(find(&f, "host.memory-limit-low"));
    assert_non_null(find(&f, "host.disk-low"));
    nd_findings_release(&f);
    h.shm_total = 16ULL << 30;
    h.nofile_soft = 65536;
    h.cgroup_limit = 64ULL << 30;
    h.disk_free = 100ULL << 30;
    nd_host_judge(&h, &f);
    assert_int_equal(f.n, 0);
}

static void test_ascend_judge(void **state)
{
    (void)state;
    struct nd_ascend_install *a = calloc(1, sizeof *a);
    struct nd_findings f = ND_FINDINGS_INIT;
    a->ndavinci = 2;
    a->davinci_manager = true;
    nd_ascend_judge(a, &f);
    assert_non_null(find(&f, "ascend.devices-without-driver"));
    assert_non_null(find(&f, "ascend.device-files-incomplete"));
    nd_findings_release(&f);
    memset(a, 0, sizeof *a);
    a->driver_present = true;
    strcpy(a->driver_version, "24.1.rc2");
    strcpy(a->driver_version_file, "/usr/local/Ascend/driver/version.info");
    a->fw_range_valid = true;
    strcpy(a->fw_range_lo, "7.0.0");
    strcpy(a->fw_range_hi, "7.5.99");
    a->firmware_present = true;
    strcpy(a->firmware_version, "6.4.12.1.241");
    nd_ascend_judge(a, &f);
    assert_non_null(find(&f, "ascend.driver-without-devices"));
    const struct nd_finding *fw = find(&f, "ascend.firmware-incompatible");
    assert_non_null(fw);
    assert_string_equal(fw->category, "version-mismatch");
    nd_findings_release(&f);
    free(a);
}

static void test_distributed_judge(void **state)
{
    (void)state;
    struct nd_distributed d;
    memset(&d, 0, sizeof d);
    struct nd_findings f = ND_FINDINGS_INIT;
    nd_distributed_judge(&d, 8, &f);
    assert_int_equal(f.n, 0);
    nd_dist_int_parse("0", &d.rank);
    nd_dist_int_parse("2", &d.world_size);
    nd_dist_int_parse("99999", &d.master_port);
    d.master_addr_set = true;
    strcpy(d.master_addr, "10.0.0.1");
    nd_dist_int_parse("8", &d.local_rank);
    nd_distributed_judge(&d, 8, &f);
    assert_non_null(find(&f, "dist.bad-value"));
    assert_non_null(find(&f, "dist.local-rank-no-device"));
    assert_null(find(&f, "dist.partial-vars"));
    nd_findings_release(&f);
    d.addr_checked = true;
    d.addr_resolves = false;
    strcpy(d.addr_result, "the lookup timed out after 2 s");
    d.rank_table.set = true;
    strcpy(d.rank_table.error, "x.json: not valid JSON");
    nd_distributed_judge(&d, -1, &f);
    assert_non_null(find(&f, "dist.master-addr-unresolvable"));
    assert_non_null(find(&f, "dist.rank-table-invalid"));
    assert_null(find(&f, "dist.local-rank-no-device"));
    nd_findings_release(&f);
}

static void test_python_judge(void **state)
{
    (void)state;
    struct nd_python *py = calloc(1, sizeof *py);
    struct nd_findings f = ND_FINDINGS_INIT;
    py->found = true;
    strcpy(py->exe, "/usr/bin/python3.10");
    py->pkg[ND_PKG_TORCH].found = true;
    strcpy(py->pkg[ND_PKG_TORCH].version, "2.4.0+cpu");
    strcpy(py->torch_local, "cpu");
    nd_python_judge(py, false, true, false, NULL, &f);
    assert_non_null(find(&f, "python.torch-cpu-only"));
    assert_string_equal(find(&f, "python.torch-cpu-only")->category, "cpu-fallback");
    nd_findings_release(&f);
    nd_python_judge(py, true, false, true, "8.0.0", &f);
    assert_non_null(find(&f, "python.torch-cpu-only")); /* no torch_npu on an NPU host */
    assert_non_null(find(&f, "python.tbe-deps-missing"));
    nd_findings_release(&f);
    nd_python_judge(py, false, false, false, NULL, &f);
    assert_int_equal(f.n, 0); /* no accelerator: CPU torch is fine */
    py->nothers = 2;
    strcpy(py->others[0].path, "/root/.pyenv/shims/python3");
    strcpy(py->others[1].path, "/usr/bin/python3");
    py->others[1].torch_found = true;
    strcpy(py->others[1].torch_version, "1.13.0a0");
    nd_python_judge(py, false, false, false, NULL, &f);
    assert_non_null(find(&f, "python.interpreters-differ"));
    assert_non_null(strstr(find(&f, "python.interpreters-differ")->fix[0], "/usr/bin/python3"));
    nd_findings_release(&f);
    memset(py, 0, sizeof *py);
    strcpy(py->error, "python3 is not on PATH");
    nd_python_judge(py, false, false, false, NULL, &f);
    assert_non_null(find(&f, "python.not-found"));
    nd_findings_release(&f);
    free(py);
}

static void test_import_error_table(void **state)
{
    (void)state;
    struct nd_findings f = ND_FINDINGS_INIT;
    assert_int_equal(
        nd_import_error_explain("Traceback\nModuleNotFoundError: No module named 'tbe'\n", "/opt/cann/set_env.sh", &f),
        1);
    /* The knowledge base's rule for this condition, its fix naming the
     * set_env.sh given. */
    assert_string_equal(f.v[0]->id, "env.cann-not-loaded.tbe");
    assert_string_equal(f.v[0]->fix[0], "source /opt/cann/set_env.sh");
    assert_string_equal(f.v[0]->evidence[0].text, "ModuleNotFoundError: No module named 'tbe'");
    nd_findings_release(&f);
    nd_import_error_explain("EC0010: Failed to import Python module ModuleNotFoundError: No module named 'decorator'",
                            NULL, &f);
    assert_string_equal(f.v[0]->id, "env.cann-python-dependency");
    assert_string_equal(f.v[0]->fix[0], "pip install decorator");
    nd_findings_release(&f);
    /* Without a toolkit, the fix says to install one. */
    assert_int_equal(nd_import_error_explain("OSError: libhccl.so: cannot open shared object file", NULL, &f), 1);
    assert_string_equal(f.v[0]->fix[0], "install the CANN toolkit and source its set_env.sh");
    nd_findings_release(&f);
    assert_int_equal(nd_import_error_explain("ModuleNotFoundError: No module named 'torch'", NULL, &f), 1);
    assert_string_equal(f.v[0]->id, "python.torch-missing");
    nd_findings_release(&f);
    assert_int_equal(nd_import_error_explain("all fine", NULL, &f), 0);
    assert_int_equal(nd_import_error_explain(NULL, NULL, &f), 0);
}

static void judge_json(const char *doc, bool ascend, bool nvidia, struct nd_report *rep)
{
    struct nd_pyimport p;
    memset(&p, 0, sizeof p);
    p.ran = true;
    p.result = json_loads(doc, 0, NULL);
    assert_non_null(p.result);
    nd_pyimport_judge(&p, 30, ascend, nvidia, "/usr/local/Ascend/ascend-toolkit/set_env.sh", rep);
    json_decref(p.result);
}

static void test_pyimport_judge(void **state)
{
    (void)state;
    struct nd_report rep;
    nd_report_init(&rep, "check");
    judge_json("{\"torch\": {\"ok\": true, \"version\": \"1.13.0\", \"s\": 1.0, \"cuda\": null},"
               " \"cuda\": {\"available\": false, \"count\": 0}, \"op\": {\"device\": \"cpu\", \"ok\": true}}",
               false, false, &rep);
    assert_non_null(find(&rep.findings, "python.no-accelerator"));
    assert_int_equal(nd_findings_exit_code(&rep.findings), 0);
    nd_report_release(&rep);
    nd_report_init(&rep, "check");
    judge_json(
        "{\"torch\": {\"ok\": true, \"version\": \"2.4.0\", \"s\": 1.0}, \"cuda\": {\"available\": false},"
        " \"torch_npu\": {\"ok\": true, \"version\": \"2.4.0.post2\"}, \"npu\": {\"available\": false, \"count\": 0},"
        " \"tbe\": {\"ok\": false, \"error\": \"ModuleNotFoundError: No module named 'tbe'\"}}",
        true, false, &rep);
    assert_non_null(find(&rep.findings, "python.npu-unavailable"));
    /* The knowledge base or the built-in table explains the tbe import error. */
    bool env_finding = false;
    for (size_t i = 0; i < rep.findings.n; i++)
        env_finding |= strcmp(rep.findings.v[i]->category, "env-not-loaded") == 0;
    assert_true(env_finding);
    nd_report_release(&rep);
    nd_report_init(&rep, "check");
    struct nd_pyimport p;
    memset(&p, 0, sizeof p);
    p.ran = true;
    p.timed_out = true;
    strcpy(p.status, "timed out after 30 s");
    nd_pyimport_judge(&p, 30, true, false, "", &rep);
    assert_non_null(find(&rep.findings, "python.probe-timeout"));
    assert_string_equal(find(&rep.findings, "python.probe-timeout")->category, "hang");
    nd_report_release(&rep);
}

/* The environment judgement and the whole checkup against the fixture root. */
static void test_envcheck_on_fixture(void **state)
{
    (void)state;
    const char *fx = getenv("ND_FIXTURES");
    assert_non_null(fx);
    char root[4096];
    snprintf(root, sizeof root, "%s/roots/ascend-910b-cann80", fx);
    struct nd_error err;
    assert_int_equal(nd_rootfs_set(root, &err), 0);
    struct nd_ascend_install *a = calloc(1, sizeof *a);
    nd_ascend_probe(a);
    assert_string_equal(a->cann_version, "8.0.0");
    assert_string_equal(a->set_env, "/usr/local/Ascend/ascend-toolkit/set_env.sh");
    assert_int_equal(a->ndavinci, 8);
    struct nd_environ env;
    nd_environ_init(&env, "test");
    nd_environ_set(&env, "PATH", "/usr/bin:/bin");
    struct nd_findings f = ND_FINDINGS_INIT;
    struct nd_envcheck_summary s;
    nd_envcheck_judge(&env, a, NULL, 8, -1, false, &f, &s);
    assert_non_null(find(&f, "env.cann-not-loaded"));
    assert_false(s.cann_loaded);
    nd_findings_release(&f);
    nd_environ_set(&env, "ASCEND_HOME_PATH", "/usr/local/Ascend/ascend-toolkit/latest");
    nd_environ_set(&env, "ASCEND_OPP_PATH", "/usr/local/Ascend/ascend-toolkit/latest/opp");
    nd_environ_set(&env, "LD_LIBRARY_PATH", "/usr/local/Ascend/ascend-toolkit/8.0.0/lib64");
    nd_environ_set(&env, "PYTHONPATH", "/usr/local/Ascend/ascend-toolkit/latest/python/site-packages");
    nd_envcheck_judge(&env, a, NULL, 8, -1, false, &f, &s);
    assert_int_equal(f.n, 0);
    assert_true(s.cann_loaded && s.tbe_reachable);

    /* nd_checkup_job_env: what run/watch call on a job's environment. */
    nd_environ_unset(&env, "PYTHONPATH");
    assert_int_equal(nd_checkup_job_env(&env, NULL, &f), 0);
    assert_non_null(find(&f, "env.tbe-unreachable"));
    nd_findings_release(&f);

    struct nd_check_options opt = {.level = 1, .env = &env, .probe_timeout_s = 30, .device_timeout_s = 5};
    struct nd_report rep;
    nd_report_init(&rep, "check");
    assert_int_equal(nd_checkup_run(&opt, &rep, &err), 0);
    assert_non_null(find(&rep.findings, "env.tbe-unreachable"));
    json_t *facts = rep.facts;
    const char *groups[] = {"host", "ascend", "nvidia", "environment", "python", "distributed", "devices"};
    for (size_t i = 0; i < 7; i++)
        assert_non_null(json_object_get(facts, groups[i]));
    nd_report_release(&rep);
    assert_int_equal(nd_checkup_run(NULL, &rep, &err), -EINVAL);
    nd_environ_release(&env);
    free(a);
    nd_rootfs_set("/", &err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compat_npu),          cmocka_unit_test(test_compat_cuda),
        cmocka_unit_test(test_host_judge),          cmocka_unit_test(test_ascend_judge),
        cmocka_unit_test(test_distributed_judge),   cmocka_unit_test(test_python_judge),
        cmocka_unit_test(test_import_error_table),  cmocka_unit_test(test_pyimport_judge),
        cmocka_unit_test(test_envcheck_on_fixture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
