/* Unit tests for proc/verdict.c: verdict texts for device holders, CPU-only
 * ML processes, idle ones, and the "devices idle while a CPU-bound ML job
 * holds none" finding, on plain data. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "proc/verdict.h"

static struct nd_device_state ascend8;

static void make_ascend8(unsigned util)
{
    memset(&ascend8, 0, sizeof ascend8);
    snprintf(ascend8.vendor, sizeof ascend8.vendor, "ascend");
    ascend8.lib_found = true;
    ascend8.ndevices = 8;
    for (int i = 0; i < 8; i++) {
        struct nd_device *d = &ascend8.devices[i];
        d->index = i;
        snprintf(d->name, sizeof d->name, "910B3");
        d->util_valid = true;
        d->util_pct = util;
        d->mem_valid = true;
        d->mem_total_bytes = 64ull << 30;
    }
    ascend8.procs_valid = true;
}

static struct nd_proc_facts proc_with(pid_t pid, double cores, unsigned fw)
{
    struct nd_proc_facts p;
    memset(&p, 0, sizeof p);
    p.pid = pid;
    p.command = "python3 train.py";
    p.cpu_valid = true;
    p.cpu_cores = cores;
    p.fp.pid = pid;
    p.fp.frameworks = fw;
    p.fp.maps_read = p.fp.fds_read = true;
    return p;
}

static void hold(struct nd_proc_facts *p, const char *vendor, int index, bool mem_valid, uint64_t mem)
{
    struct nd_held_device *h = &p->fp.held[p->fp.nheld++];
    snprintf(h->vendor, sizeof h->vendor, "%s", vendor);
    h->index = index;
    h->mem_valid = mem_valid;
    h->mem_bytes = mem;
    h->how = ND_HOLD_VENDOR_LIST;
    if (index >= 0)
        p->fp.holds_device = true;
    p->fp.control_only = !p->fp.holds_device;
}

static void test_verdict_on_device(void **state)
{
    (void)state;
    char buf[256];
    struct nd_proc_facts p = proc_with(10, 3.0, ND_FW_TORCH | ND_FW_TORCH_NPU);
    hold(&p, "ascend", 0, true, (uint64_t)(31.7 * (1ull << 30)));
    assert_int_equal(nd_verdict_judge(&p, NULL, 0, 0, buf, sizeof buf), ND_VERDICT_ON_DEVICE);
    assert_string_equal(buf, "npu:0 (31.7 GiB)");
    assert_string_equal(nd_verdict_name(ND_VERDICT_ON_DEVICE), "on-device");

    hold(&p, "ascend", 1, true, 1ull << 30);
    hold(&p, "ascend", -1, false, 0); /* a control node adds nothing */
    nd_verdict_judge(&p, NULL, 0, 0, buf, sizeof buf);
    assert_string_equal(buf, "npu:0,1 (32.7 GiB)");

    struct nd_proc_facts g = proc_with(11, 0.1, ND_FW_TORCH | ND_FW_TORCH_CUDA | ND_FW_CUDA);
    hold(&g, "nvidia", 3, false, 0);
    assert_int_equal(nd_verdict_judge(&g, NULL, 0, 0, buf, sizeof buf), ND_VERDICT_ON_DEVICE);
    assert_string_equal(buf, "gpu:3"); /* memory unknown: not shown as 0 */
    uint64_t mem;
    assert_false(nd_footprint_device_mem(&g.fp, &mem));
    assert_true(nd_verdict_interesting(&g, 0));
}

static void test_verdict_cpu_only_and_idle(void **state)
{
    (void)state;
    char buf[256];
    make_ascend8(0);
    const struct nd_device_state *st[] = {&ascend8};

    struct nd_proc_facts p = proc_with(20, 3.84, ND_FW_TORCH | ND_FW_TORCH_CPU | ND_FW_PYTHON);
    assert_int_equal(nd_verdict_judge(&p, NULL, 0, 0, buf, sizeof buf), ND_VERDICT_CPU_ONLY);
    assert_string_equal(buf, "CPU only: 3.8 cores busy, torch loaded, no device held");
    /* With NPUs on the host, the missing torch_npu is named. */
    nd_verdict_judge(&p, st, 1, 0, buf, sizeof buf);
    assert_string_equal(buf, "CPU only: 3.8 cores busy, torch loaded but not torch_npu, no device held");
    assert_string_equal(nd_verdict_name(ND_VERDICT_CPU_ONLY), "cpu-only");

    struct nd_proc_facts npu = proc_with(21, 2.0, ND_FW_TORCH | ND_FW_TORCH_NPU | ND_FW_ASCENDCL);
    hold(&npu, "ascend", -1, false, 0);
    nd_verdict_judge(&npu, st, 1, 0, buf, sizeof buf);
    assert_string_equal(buf, "CPU only: 2.0 cores busy, torch_npu loaded, control node open, no device held");

    struct nd_proc_facts idle = proc_with(22, 0.0, ND_FW_TORCH);
    assert_int_equal(nd_verdict_judge(&idle, NULL, 0, 0, buf, sizeof buf), ND_VERDICT_IDLE);
    assert_string_equal(buf, "idle: torch loaded, no device held");
    assert_true(nd_verdict_interesting(&idle, 0));

    struct nd_proc_facts gcc = proc_with(23, 1.0, 0);
    assert_int_equal(nd_verdict_judge(&gcc, st, 1, 0, buf, sizeof buf), ND_VERDICT_CPU_ONLY);
    assert_string_equal(buf, "CPU: 1.0 cores busy");
    assert_true(nd_verdict_interesting(&gcc, 0));

    struct nd_proc_facts sleeper = proc_with(24, 0.01, ND_FW_PYTHON);
    assert_int_equal(nd_verdict_judge(&sleeper, st, 1, 0, buf, sizeof buf), ND_VERDICT_IDLE);
    assert_string_equal(buf, "idle");
    assert_false(nd_verdict_interesting(&sleeper, 0)); /* python alone is not ML */

    /* A lower busy threshold (ps --busy 0.005) makes a trickle count. */
    struct nd_proc_facts trickle = proc_with(26, 0.02, ND_FW_TORCH);
    assert_int_equal(nd_verdict_judge(&trickle, NULL, 0, 0, buf, sizeof buf), ND_VERDICT_IDLE);
    assert_int_equal(nd_verdict_judge(&trickle, NULL, 0, 0.005, buf, sizeof buf), ND_VERDICT_CPU_ONLY);
    assert_string_equal(buf, "CPU only: 0.02 cores busy, torch loaded, no device held");
    assert_false(nd_verdict_interesting(&sleeper, 0));
    assert_true(nd_verdict_interesting(&sleeper, 0.005));

    struct nd_proc_facts unknown = proc_with(25, 0, 0);
    unknown.cpu_valid = false;
    assert_int_equal(nd_verdict_judge(&unknown, NULL, 0, 0, buf, sizeof buf), ND_VERDICT_IDLE);
    assert_false(nd_verdict_interesting(&unknown, 0));
}

static void test_devices_text(void **state)
{
    (void)state;
    struct nd_proc_facts p = proc_with(1, 0, 0);
    hold(&p, "ascend", 2, false, 0);
    hold(&p, "nvidia", 0, false, 0);
    hold(&p, "ascend", 5, false, 0);
    char buf[64];
    nd_footprint_devices_text(&p.fp, buf, sizeof buf);
    assert_string_equal(buf, "npu:2,5 gpu:0");
    char tiny[6];
    nd_footprint_devices_text(&p.fp, tiny, sizeof tiny);
    assert_int_equal(strlen(tiny), 5);
    assert_string_equal(nd_verdict_device_word("amd"), "amd");
}

static void test_finding_idle_devices_cpu_job(void **state)
{
    (void)state;
    make_ascend8(0);
    const struct nd_device_state *st[] = {&ascend8};
    struct nd_proc_facts procs[3] = {
        proc_with(100, 3.8, ND_FW_TORCH | ND_FW_TORCH_CPU | ND_FW_PYTHON),
        proc_with(101, 0.0, ND_FW_TORCH), /* idle ML: not CPU-bound */
        proc_with(102, 4.0, 0),           /* busy, not ML */
    };
    struct nd_findings f = ND_FINDINGS_INIT;
    nd_verdict_findings(procs, 3, st, 1, 0, &f);
    assert_int_equal(f.n, 1);
    const struct nd_finding *x = f.v[0];
    assert_string_equal(x->id, "ps.devices-idle-cpu-job");
    assert_string_equal(x->category, ND_CAT_CPU_FALLBACK);
    assert_int_equal(x->severity, ND_SEV_WARNING);
    assert_int_equal(x->confidence, ND_CONF_HIGH);
    assert_non_null(strstr(x->title, "8 NPUs idle while PID 100"));
    assert_int_equal(x->nevidence, 2);
    assert_non_null(strstr(x->evidence[0].text, "PID 100 (python3 train.py): CPU only: 3.8 cores busy"));
    assert_non_null(strstr(x->cause, "torch_npu is not"));
    assert_true(x->nfix >= 1);
    assert_int_equal(nd_findings_exit_code(&f), 1);
    nd_findings_release(&f);

    /* A single-threaded job around one core: the same verdict at 0.9, 1.0 and 1.1
     * cores, with the idle devices holding baseline memory (firmware, HBM reserve). */
    for (int d = 0; d < 8; d++)
        ascend8.devices[d].mem_used_bytes = 2900ull << 20;
    const double around_one[] = {0.9, 0.99, 1.0, 1.1};
    for (size_t i = 0; i < sizeof around_one / sizeof *around_one; i++) {
        struct nd_proc_facts one = proc_with(106, around_one[i], ND_FW_TORCH | ND_FW_TORCH_CPU);
        nd_verdict_findings(&one, 1, st, 1, 0, &f);
        assert_int_equal(f.n, 1);
        assert_string_equal(f.v[0]->id, "ps.devices-idle-cpu-job");
        assert_non_null(strstr(f.v[0]->fix[0], "npu-doctor check --env-from 106"));
        nd_findings_release(&f);
    }
    /* Hysteresis: a slow window (0.3 cores) keeps the verdict of a process busy all its
     * life, and does not make one for a process idle all its life. */
    struct nd_proc_facts slow = proc_with(107, 0.3, ND_FW_TORCH);
    slow.life_valid = true;
    slow.life_cores = 1.0;
    assert_true(nd_verdict_cpu_bound(&slow, 0));
    slow.life_cores = 0.1;
    assert_false(nd_verdict_cpu_bound(&slow, 0));
    slow.cpu_cores = 0.2;
    slow.life_cores = 1.0;
    assert_false(nd_verdict_cpu_bound(&slow, 0));
    nd_verdict_findings(&slow, 1, st, 1, 0, &f);
    assert_int_equal(f.n, 0);
    /* Starved by a crowded host (0.2 cores) but runnable at 9 looks in 10: computing. */
    slow.life_cores = 0.2;
    slow.runnable_valid = true;
    slow.runnable_frac = 0.9;
    assert_true(nd_verdict_cpu_bound(&slow, 0));
    char vb[256];
    assert_int_equal(nd_verdict_judge(&slow, st, 1, 0, vb, sizeof vb), ND_VERDICT_CPU_ONLY);
    slow.runnable_frac = 0.5;
    assert_false(nd_verdict_cpu_bound(&slow, 0));
    slow.runnable_valid = false;
    /* A lower threshold (ps --busy) finds a trickle. */
    nd_verdict_findings(&slow, 1, st, 1, 0.1, &f);
    assert_int_equal(f.n, 1);
    nd_findings_release(&f);
    /* A process on the vendor's list that ps did not list (--pid, --user): devices in use. */
    struct nd_proc_facts one = proc_with(109, 1.0, ND_FW_TORCH);
    ascend8.nprocs = 1;
    ascend8.procs[0].pid = 4242;
    nd_verdict_findings(&one, 1, st, 1, 0, &f);
    assert_int_equal(f.n, 0);
    ascend8.nprocs = 0;
    /* Not ML, or holding a device: never CPU-bound. */
    struct nd_proc_facts plain = proc_with(108, 3.0, ND_FW_PYTHON);
    assert_false(nd_verdict_cpu_bound(&plain, 0));

    /* Busy devices: no finding. */
    make_ascend8(0);
    ascend8.devices[3].util_pct = 80;
    nd_verdict_findings(procs, 3, st, 1, 0, &f);
    assert_int_equal(f.n, 0);

    /* Unknown utilisation: no claim. */
    make_ascend8(0);
    ascend8.devices[7].util_valid = false;
    nd_verdict_findings(procs, 3, st, 1, 0, &f);
    assert_int_equal(f.n, 0);

    /* Another process holds an NPU: the devices are in use. */
    make_ascend8(0);
    struct nd_proc_facts two[2] = {procs[0], proc_with(103, 0.2, ND_FW_TORCH_NPU)};
    hold(&two[1], "ascend", 4, true, 1 << 20);
    nd_verdict_findings(two, 2, st, 1, 0, &f);
    assert_int_equal(f.n, 0);

    /* A failed query or no devices: nothing to compare with. */
    make_ascend8(0);
    ascend8.status = -5;
    nd_verdict_findings(procs, 3, st, 1, 0, &f);
    assert_int_equal(f.n, 0);
    nd_verdict_findings(procs, 3, NULL, 0, 0, &f);
    assert_int_equal(f.n, 0);

    /* torch_npu loaded but never opened a device: still the finding, medium. */
    make_ascend8(0);
    struct nd_proc_facts n2[2] = {proc_with(104, 2.0, ND_FW_TORCH | ND_FW_TORCH_NPU),
                                  proc_with(105, 1.5, ND_FW_TORCH | ND_FW_TORCH_NPU)};
    nd_verdict_findings(n2, 2, st, 1, 0, &f);
    assert_int_equal(f.n, 1);
    assert_int_equal(f.v[0]->confidence, ND_CONF_MEDIUM);
    assert_non_null(strstr(f.v[0]->title, "2 ML processes"));
    assert_int_equal(f.v[0]->nevidence, 3);
    nd_findings_release(&f);

    /* NVIDIA: the GPU wording and fix. */
    static struct nd_device_state nv;
    memset(&nv, 0, sizeof nv);
    snprintf(nv.vendor, sizeof nv.vendor, "nvidia");
    nv.ndevices = 1;
    nv.devices[0].util_valid = true;
    const struct nd_device_state *nst[] = {&nv};
    nd_verdict_findings(procs, 1, nst, 1, 0, &f);
    assert_int_equal(f.n, 1);
    assert_non_null(strstr(f.v[0]->title, "1 GPU idle"));
    assert_non_null(strstr(f.v[0]->cause, "CPU-only torch build"));
    nd_findings_release(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdict_on_device),
        cmocka_unit_test(test_verdict_cpu_only_and_idle),
        cmocka_unit_test(test_devices_text),
        cmocka_unit_test(test_finding_idle_devices_cpu_job),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
