/* Unit tests for proc/sched.c (the schedstat, loadavg and PSI parsers and
 * the contention judgement) on synthetic /proc text, and for the live
 * detectors on a job that is runnable but waits for a CPU on a crowded host:
 * host.cpu-contention, and no CPU fallback, busy-CPU input story or hang in
 * its place; a job that alternates fsync waits (state D) with run-queue
 * waits is still storage-bound. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "monitor/detect.h"
#include "device/framework.h"
#include "proc/sched.h"

static void test_parse_schedstat(void **state)
{
    (void)state;
    struct nd_schedstat st;
    const char *ok = "1234567890 987654321 4242\n";
    assert_int_equal(nd_sched_parse_schedstat(ok, strlen(ok), &st), 0);
    assert_true(st.run_ns == 1234567890ull && st.wait_ns == 987654321ull && st.slices == 4242);
    /* Two fields, no newline (older kernels, a short read). */
    assert_int_equal(nd_sched_parse_schedstat("5 6", 3, &st), 0);
    assert_true(st.run_ns == 5 && st.wait_ns == 6 && st.slices == 0);
    /* Not terminated inside the buffer: the length bounds it. */
    assert_int_equal(nd_sched_parse_schedstat("12 34 56789", 5, &st), 0);
    assert_true(st.run_ns == 12 && st.wait_ns == 34);
    const char *bad[] = {
        "", "\n", "abc def 1\n", "12\n", "12 x\n", "-1 2 3\n", "99999999999999999999999 1 1\n", "12,5 3 1\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(nd_sched_parse_schedstat(bad[i], strlen(bad[i]), &st), -EINVAL);
        assert_true(st.run_ns == 0 && st.wait_ns == 0);
    }
    assert_int_equal(nd_sched_parse_schedstat(NULL, 0, &st), -EINVAL);
}

static void test_parse_loadavg(void **state)
{
    (void)state;
    struct nd_loadavg la;
    const char *ok = "15.59 9.09 3.97 16/181 3987\n";
    assert_int_equal(nd_sched_parse_loadavg(ok, strlen(ok), &la), 0);
    assert_true(la.avg1 > 15.58 && la.avg1 < 15.60 && la.avg15 > 3.96 && la.avg15 < 3.98);
    assert_int_equal(la.running, 16);
    assert_int_equal(la.total, 181);
    assert_int_equal(la.last_pid, 3987);
    /* Only the first average: the rest unknown. */
    assert_int_equal(nd_sched_parse_loadavg("0.50", 4, &la), 0);
    assert_true(la.avg1 > 0.49 && la.avg1 < 0.51);
    assert_int_equal(la.running, -1);
    assert_int_equal(la.last_pid, -1);
    /* A broken run-queue field leaves it unknown, not a wrong number. */
    const char *half = "1.00 1.00 1.00 x/12 77\n";
    assert_int_equal(nd_sched_parse_loadavg(half, strlen(half), &la), 0);
    assert_int_equal(la.running, -1);
    assert_int_equal(nd_sched_parse_loadavg("load", 4, &la), -EINVAL);
    assert_int_equal(nd_sched_parse_loadavg("", 0, &la), -EINVAL);
    assert_true(la.avg1 < 0);
}

static void test_parse_psi(void **state)
{
    (void)state;
    double v;
    const char *ok = "some avg10=95.92 avg60=95.87 avg300=60.13 total=295033469\n"
                     "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
    assert_int_equal(nd_sched_parse_psi_some_avg10(ok, strlen(ok), &v), 0);
    assert_true(v > 95.91 && v < 95.93);
    /* "full" first, or only: some is what counts. */
    const char *full = "full avg10=50.00 avg60=0.00 avg300=0.00 total=0\nsome avg10=3.10 avg60=0 avg300=0 total=1\n";
    assert_int_equal(nd_sched_parse_psi_some_avg10(full, strlen(full), &v), 0);
    assert_true(v > 3.09 && v < 3.11);
    const char *bad[] = {
        "", "full avg10=50.00\n", "some avg60=1.00\n", "some avg10=\n", "some avg10=101.5\n", "some xavg10=5.00\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(nd_sched_parse_psi_some_avg10(bad[i], strlen(bad[i]), &v), -EINVAL);
        assert_true(v < 0);
    }
}

static void test_judge(void **state)
{
    (void)state;
    struct nd_contention c;
    /* Runs 0.1 s, waits 1.6 s of a 2 s window on a 2-CPU host with 6 runnable tasks. */
    struct nd_contention_in in = {
        .span_s = 2, .run_s = 0.1, .wait_s = 1.6, .host_cpus = 2, .loadavg1 = 1.0, .procs_running = 6, .psi_avg10 = -1};
    nd_contention_judge(&in, &c);
    assert_true(c.known && c.host_crowded && c.starved);
    assert_true(c.wait_cores > 0.79 && c.wait_cores < 0.81);
    assert_true(c.wait_share > 0.9);
    /* The same waits on a quiet host: its own threads queue for its own cores. */
    in.procs_running = 2;
    nd_contention_judge(&in, &c);
    assert_false(c.starved);
    /* PSI alone says the host is crowded. */
    in.psi_avg10 = 85;
    nd_contention_judge(&in, &c);
    assert_true(c.starved);
    /* It gets most of what it wants: not starved, however crowded. */
    in.run_s = 1.5;
    in.wait_s = 0.5;
    nd_contention_judge(&in, &c);
    assert_true(c.host_crowded);
    assert_false(c.starved);
    /* It fills the host itself (8 threads on 2 cores): its own doing. */
    in.run_s = 3.8;
    in.wait_s = 12;
    nd_contention_judge(&in, &c);
    assert_false(c.starved);
    /* Hardly wanting a CPU at all (asleep), whatever the share. */
    in.run_s = 0.01;
    in.wait_s = 0.2;
    nd_contention_judge(&in, &c);
    assert_false(c.starved);
    nd_contention_judge(NULL, &c);
    assert_false(c.known || c.starved);
    in.span_s = 0;
    nd_contention_judge(&in, &c);
    assert_false(c.known);
}

/* ---- the detectors on a contended job ---- */

#define NDEV 1

struct synth {
    struct nd_series s;
    struct nd_detect_config cfg;
    struct nd_detect_context ctx;
    struct nd_detect_proc procs[2];
    double t;
};

static void synth_init(struct synth *x)
{
    memset(x, 0, sizeof *x);
    nd_series_init(&x->s, 1);
    nd_detect_config_default(&x->cfg);
    x->cfg.interval_s = 1;
    x->cfg.window_s = 10;
    x->cfg.warmup_s = 5;
    x->cfg.hang_after_s = 10;
    struct nd_series_device dev[NDEV];
    memset(dev, 0, sizeof dev);
    snprintf(dev[0].vendor, sizeof dev[0].vendor, "ascend");
    snprintf(dev[0].word, sizeof dev[0].word, "npu");
    nd_series_set_devices(&x->s, dev, NDEV);
    x->ctx.root_pid = 100;
    x->ctx.device_usable = true;
    snprintf(x->ctx.device_vendor, sizeof x->ctx.device_vendor, "ascend");
    x->ctx.ndevices = NDEV;
    x->ctx.frameworks_known = true;
    x->ctx.procs = x->procs;
    x->ctx.nprocs = 1;
    x->ctx.host_cpus = 2;
    x->ctx.loadavg1 = 6;
    x->ctx.procs_running = 7;
    x->ctx.psi_cpu10 = 90;
    struct nd_detect_proc *p = &x->procs[0];
    p->pid = 100;
    p->ppid = 1;
    snprintf(p->comm, sizeof p->comm, "python3");
    snprintf(p->cmd, sizeof p->cmd, "python3 train.py");
    p->holds_device = p->held_ever = true;
    p->held_mask = 1;
    p->frameworks = ND_FW_TORCH | ND_FW_TORCH_NPU | ND_FW_PYTHON;
    p->tracked_s = 60;
    p->cores = p->win_cores = 0.1;
    p->win_runnable = 1;
    p->state = 'R'; /* runnable at the last tick: waiting for a CPU */
}

static bool g_no_sched; /* the next pushed samples have no schedstat */

/* One sample a second: the job holds npu:0 at 3%, uses `run` cores, waits
 * `wait` threads' worth for a CPU; odd samples find it in state D (fsync)
 * when dstate, the others runnable. */
/* One sample in g_dperiod in state D (when dstate), the others runnable. */
static int g_dperiod = 2;
static bool g_released;     /* the next pushed samples: the job holds no device */
static uint64_t g_out_rate; /* bytes of output a sample (0: output not observed) */

static void push(struct synth *x, int n, float run, float wait, bool dstate, uint64_t write_rate)
{
    for (int i = 0; i < n; i++) {
        const struct nd_sample *prev = nd_series_last(&x->s);
        struct nd_sample sm;
        memset(&sm, 0, sizeof sm);
        sm.t = x->t;
        sm.cpu_cores = run;
        bool d = dstate && (i % g_dperiod == g_dperiod - 1);
        sm.runnable = d ? 0 : 1;
        sm.iowait = d ? 1 : 0;
        sm.dstate = d ? 1 : 0;
        sm.on_device = g_released ? 0 : 1;
        sm.held_mask = g_released ? 0 : 1;
        sm.ndev = NDEV;
        sm.util[0] = 3;
        sm.mem_mib[0] = 1000;
        sm.job_util = 3;
        sm.nprocs = 1;
        sm.io_valid = 1;
        sm.read_bytes = 0;
        sm.write_bytes = (prev ? prev->write_bytes : 0) + write_rate;
        sm.out_valid = g_out_rate ? 1 : 0;
        sm.out_bytes = (prev ? prev->out_bytes : 0) + g_out_rate;
        sm.cpu_run = run;
        sm.cpu_wait = wait;
        sm.sched_valid = g_no_sched ? 0 : 1;
        sm.oom_kill = -1;
        nd_series_push(&x->s, &sm);
        x->t += 1;
    }
}

/* n samples of a job that holds no device (any more), its process at
 * `cores` and waiting for a CPU `wait` of the time. */
static void push_released(struct synth *x, int n, float cores, float wait)
{
    g_released = true;
    x->procs[0].holds_device = false;
    x->procs[0].held_mask = 0;
    x->procs[0].cores = x->procs[0].win_cores = cores;
    push(x, n, cores, wait, false, 0);
}

static const struct nd_finding *find_cat(const struct nd_findings *f, const char *cat)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->v[i]->category, cat) == 0 && f->v[i]->severity >= ND_SEV_WARNING)
            return f->v[i];
    return NULL;
}

static const struct nd_finding *find(const struct nd_findings *f, const char *id)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->v[i]->id, id) == 0)
            return f->v[i];
    return NULL;
}

/* An fsync loop on a crowded host: half its samples in state D, the rest
 * runnable but waiting for a CPU, and the last one runnable. Storage-bound
 * and contended; not a CPU fallback, not a busy-CPU input pipeline. */
static void test_fsync_under_contention(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x);
    push(&x, 20, 0.05f, 0.45f, true, 8 * 1024);
    struct nd_findings out = ND_FINDINGS_INIT;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_non_null(find(&out, "idle.storage-bound"));
    assert_non_null(find(&out, "host.cpu-contention"));
    assert_string_equal(find(&out, "host.cpu-contention")->category, ND_CAT_CONFIG);
    assert_null(find(&out, "idle.input-bound"));
    assert_null(find_cat(&out, ND_CAT_CPU_FALLBACK));
    assert_null(find_cat(&out, ND_CAT_HANG));
    nd_findings_release(&out);

    /* The same samples without schedstat (a kernel without it): the run
     * queue unknown, the plain shares judge, as before. */
    nd_series_release(&x.s);
    synth_init(&x);
    g_no_sched = true;
    push(&x, 20, 0.05f, 0, true, 8 * 1024);
    g_no_sched = false;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_null(find(&out, "host.cpu-contention"));
    nd_findings_release(&out);
    nd_series_release(&x.s);

    /* A CI host more crowded still: the job waits for a CPU 54% of the
     * time and runs 16%, and our ticks catch it in state D only one sample
     * in five (it is runnable, just woken from the fsync, at the others).
     * Of the time it neither ran nor waited for a CPU the share in D is
     * 0.2 / 0.46 by the run queue's clock but 0.2 / 0.2 by the samples'
     * own: still storage-bound. */
    synth_init(&x);
    g_dperiod = 5;
    push(&x, 20, 0.16f, 0.54f, true, 8 * 1024);
    g_dperiod = 2;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_non_null(find(&out, "idle.storage-bound"));
    assert_null(find_cat(&out, ND_CAT_CPU_FALLBACK));
    assert_null(find_cat(&out, ND_CAT_HANG));
    nd_findings_release(&out);
    nd_series_release(&x.s);
}

/* Runnable all the time, waiting for a CPU nearly all of it: no output,
 * hardly any CPU. Contention, not a hang, not an idle device's story. */
static void test_starved_not_hang(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x);
    push(&x, 20, 0.02f, 0.95f, false, 0);
    struct nd_findings out = ND_FINDINGS_INIT;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    const struct nd_finding *f = find(&out, "host.cpu-contention");
    assert_non_null(f);
    assert_non_null(strstr(f->fix[0], "top"));
    assert_null(find_cat(&out, ND_CAT_HANG));
    assert_null(find_cat(&out, ND_CAT_INPUT_BOUND));
    assert_null(find_cat(&out, ND_CAT_CPU_FALLBACK));
    nd_findings_release(&out);
    /* The twin: the same job on a quiet host (nobody else runnable) waits
     * for nothing; no contention finding. */
    nd_series_release(&x.s);
    synth_init(&x);
    x.ctx.loadavg1 = 0.5;
    x.ctx.procs_running = 1;
    x.ctx.psi_cpu10 = 0;
    push(&x, 20, 0.02f, 0.0f, false, 0);
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_null(find(&out, "host.cpu-contention"));
    nd_findings_release(&out);
    nd_series_release(&x.s);
}

/* A model computing on the CPU in the holder, on the same crowded host:
 * whenever it is not waiting it runs. Still the in-process fallback. */
static void test_real_fallback_under_contention(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x);
    x.procs[0].cores = x.procs[0].win_cores = 0.3;
    push(&x, 30, 0.3f, 0.7f, false, 0);
    struct nd_findings out = ND_FINDINGS_INIT;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_non_null(find(&out, "fallback.in-process"));
    nd_findings_release(&out);
    nd_series_release(&x.s);
}

/* The job ends on a crowded host: its runtime closed the device, and the
 * interpreter's teardown (0.8 s of CPU on a quiet host) gets 0.15 of a core
 * while it waits for one the rest of the time, for more than a window. Not
 * a CPU fallback: since the release it had less CPU than a busy core gets
 * in a window (scenario_partial_fallback's twin under 4 extra busy loops).
 * A job that computes on at a full core after closing its device is still
 * one once it has had that much (fb_close_device). */
static void test_teardown_after_release(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x);
    push(&x, 20, 0.1f, 0.9f, false, 0);
    push_released(&x, 15, 0.15f, 0.85f);
    struct nd_findings out = ND_FINDINGS_INIT;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_null(find_cat(&out, ND_CAT_CPU_FALLBACK));
    nd_findings_release(&out);
    nd_series_release(&x.s);

    /* The same starved job, but its output goes on after the release (it
     * says "step N" as it trains on the CPU, fb_close_device under load)
     * a window after it: computing on, not ending. */
    g_released = false;
    synth_init(&x);
    g_out_rate = 20;
    push(&x, 20, 0.1f, 0.9f, false, 0);
    push_released(&x, 15, 0.15f, 0.85f);
    g_out_rate = 0;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_non_null(find(&out, "fallback.cpu-fallback"));
    nd_findings_release(&out);
    nd_series_release(&x.s);

    /* The device closed, then training goes on on the CPU at a full core
     * on a quiet host: a window later, the CPU fallback. */
    g_released = false;
    synth_init(&x);
    x.ctx.loadavg1 = 0.5;
    x.ctx.procs_running = 1;
    x.ctx.psi_cpu10 = 0;
    push(&x, 20, 0.1f, 0, false, 0);
    push_released(&x, 15, 1, 0);
    g_released = false;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_non_null(find(&out, "fallback.cpu-fallback"));
    nd_findings_release(&out);
    nd_series_release(&x.s);
}

/* A job that has held nothing yet, starved on a crowded host (0.15 of a
 * core while it waits for one the rest): importing its framework, as the
 * twins of the scenarios do under CI load, takes a window's worth of CPU
 * whatever the clock says. Not a fallback until it has had that CPU, or
 * has printed (past its imports: its steps). */
static void test_slow_start_under_contention(void **state)
{
    (void)state;
    struct synth x;
    struct nd_findings out = ND_FINDINGS_INIT;
    for (int form = 0; form < 3; form++) {
        synth_init(&x);
        g_out_rate = form == 1 ? 20 : 0;
        push_released(&x, form == 2 ? 60 : 20, 0.15f, 0.85f);
        g_released = false;
        g_out_rate = 0;
        nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
        if (form == 0)
            assert_null(find_cat(&out, ND_CAT_CPU_FALLBACK)); /* 3 core-seconds of 8, silent */
        else
            assert_non_null(find(&out, "fallback.cpu-fallback")); /* it has printed; or 9 core-seconds */
        nd_findings_release(&out);
        nd_series_release(&x.s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_schedstat),
        cmocka_unit_test(test_parse_loadavg),
        cmocka_unit_test(test_parse_psi),
        cmocka_unit_test(test_judge),
        cmocka_unit_test(test_fsync_under_contention),
        cmocka_unit_test(test_starved_not_hang),
        cmocka_unit_test(test_real_fallback_under_contention),
        cmocka_unit_test(test_teardown_after_release),
        cmocka_unit_test(test_slow_start_under_contention),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
