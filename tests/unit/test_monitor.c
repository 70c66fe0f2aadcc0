/* Unit tests for monitor/: the bounded series, every detector on synthetic
 * series (cpu-fallback staging, input-bound, hang, memory, exit), the
 * built-in log-line table, cgroup parsing and the report views. */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/finding.h"
#include "monitor/detect.h"
#include "monitor/sampler.h"
#include "core/series.h"
#include "core/timeline.h"
#include "proc/footprint.h"

#define NDEV 8

struct synth {
    struct nd_series s;
    struct nd_detect_config cfg;
    struct nd_detect_context ctx;
    struct nd_findings out;
    double t;
    uint64_t out_bytes;
};

static void synth_init(struct synth *x, double interval)
{
    memset(x, 0, sizeof *x);
    nd_series_init(&x->s, interval);
    nd_detect_config_default(&x->cfg);
    x->cfg.interval_s = interval;
    struct nd_series_device dev[NDEV];
    memset(dev, 0, sizeof dev);
    for (int i = 0; i < NDEV; i++) {
        snprintf(dev[i].vendor, sizeof dev[i].vendor, "ascend");
        snprintf(dev[i].word, sizeof dev[i].word, "npu");
        dev[i].index = i;
        snprintf(dev[i].name, sizeof dev[i].name, "910B3");
        dev[i].mem_total_bytes = 64ULL << 30;
    }
    nd_series_set_devices(&x->s, dev, NDEV);
    x->ctx.root_pid = 100;
    x->ctx.device_usable = true;
    snprintf(x->ctx.device_vendor, sizeof x->ctx.device_vendor, "ascend");
    x->ctx.ndevices = NDEV;
    snprintf(x->ctx.device_name, sizeof x->ctx.device_name, "910B3");
    x->ctx.frameworks_known = true;
}

static void synth_free(struct synth *x)
{
    nd_series_release(&x->s);
    nd_findings_release(&x->out);
}

struct tick {
    float cores;
    float runnable;
    bool held; /* the job holds npu0 */
    int util;  /* utilisation of every device */
    unsigned fw;
    uint64_t out_add;
    uint32_t mem_mib; /* used on every device */
    int64_t oom;
    uint64_t rss, cg_max;
};

/* Pushes one sample at the next tick (the first call pushes t = 0). */
static void synth_push(struct synth *x, const struct tick *k)
{
    struct nd_sample sm;
    memset(&sm, 0, sizeof sm);
    sm.t = x->t;
    sm.cpu_cores = k->cores;
    sm.runnable = k->runnable;
    sm.on_device = k->held;
    sm.held_mask = k->held ? 1u : 0u;
    sm.frameworks = k->fw;
    sm.ndev = NDEV;
    for (int d = 0; d < NDEV; d++) {
        sm.util[d] = (int16_t)k->util;
        sm.mem_mib[d] = k->mem_mib;
    }
    sm.job_util = k->held ? (float)k->util : -1;
    sm.nprocs = 3;
    sm.nthreads = 12;
    sm.out_valid = 1;
    x->out_bytes += k->out_add;
    sm.out_bytes = x->out_bytes;
    sm.out_lines = x->out_bytes / 10;
    sm.oom_kill = k->oom;
    sm.rss_bytes = k->rss;
    sm.cg_mem_max = k->cg_max;
    nd_series_push(&x->s, &sm);
    x->t += x->cfg.interval_s;
}

/* Pushes n identical ticks and runs all detectors after each; returns the
 * time (sampler clock) at which id first appeared with at least severity
 * sev, or -1. */
static double synth_run(struct synth *x, const struct tick *k, int n, const char *id, enum nd_severity sev)
{
    double found = -1;
    for (int i = 0; i < n; i++) {
        synth_push(x, k);
        struct nd_findings f = ND_FINDINGS_INIT;
        nd_detect_all(&x->s, &x->cfg, &x->ctx, &f);
        for (size_t j = 0; j < f.n; j++) {
            if (found < 0 && strcmp(f.v[j]->id, id) == 0 && f.v[j]->severity >= sev)
                found = f.v[j]->at_s;
            if (!nd_findings_find(&x->out, f.v[j]->id))
                nd_findings_add_copy(&x->out, f.v[j]);
        }
        nd_findings_release(&f);
    }
    return found;
}

static bool evidence_has(const struct nd_finding *f, const char *text)
{
    for (size_t i = 0; i < f->nevidence; i++)
        if (strstr(f->evidence[i].text, text))
            return true;
    return false;
}

/* ---- series ---- */

static void test_series_integrals_and_lookback(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x, 1.0);
    struct tick k = {.cores = 2, .runnable = 1, .util = 40, .held = true, .oom = -1};
    for (int i = 0; i < 11; i++)
        synth_push(&x, &k);
    const struct nd_sample *b = nd_series_last(&x.s);
    assert_float_equal(b->t, 10.0, 1e-9);
    assert_float_equal(b->cpu_s, 20.0, 1e-6);
    assert_float_equal(b->held_s, 10.0, 1e-6);
    const struct nd_sample *a = nd_series_at(&x.s, 5.0);
    assert_non_null(a);
    assert_float_equal(a->t, 5.0, 1e-9);
    assert_float_equal(nd_series_avg_cores(a, b), 2.0, 1e-6);
    assert_float_equal(nd_series_held_frac(a, b), 1.0, 1e-6);
    double u = 0;
    assert_true(nd_series_avg_job_util(a, b, &u));
    assert_float_equal(u, 40.0, 1e-4);
    assert_null(nd_series_at(&x.s, -1.0));
    /* Between samples: the one before. */
    assert_float_equal(nd_series_at(&x.s, 7.5)->t, 7.0, 1e-9);
    synth_free(&x);
}

static void test_series_bounded_over_long_runs(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x, 1.0);
    struct tick k = {.cores = 1, .oom = -1};
    /* A day at 1 s: the ring keeps the last 1024, history at most 2000 points. */
    for (int i = 0; i < 86400; i++) {
        k.cores = (float)(i % 2);
        synth_push(&x, &k);
    }
    assert_int_equal(nd_series_len(&x.s), 86400);
    assert_true(x.s.nhist <= ND_SERIES_HISTORY);
    size_t n = 0;
    struct nd_sample *pts = nd_series_export(&x.s, 2000, &n);
    assert_true(n <= 2000);
    assert_true(n >= 1000);
    /* Downsampled points average the CPU (half the ticks at 1 core). */
    assert_float_equal(pts[n / 2].cpu_cores, 0.5, 0.01);
    assert_float_equal(pts[n - 1].t, 86399.0, 1e-6);
    free(pts);
    pts = nd_series_export(&x.s, 100, &n);
    assert_true(n <= 100);
    free(pts);
    /* Looking back past the ring uses the history's bucket ends. */
    const struct nd_sample *old = nd_series_at(&x.s, 40000.0);
    assert_non_null(old);
    assert_true(old->t <= 40000.0 && old->t > 39000.0);
    const struct nd_sample *b = nd_series_last(&x.s);
    assert_float_equal(nd_series_avg_cores(old, b), 0.5, 0.01);
    assert_non_null(nd_series_recent(&x.s, ND_SERIES_RECENT - 1));
    assert_null(nd_series_recent(&x.s, ND_SERIES_RECENT));
    synth_free(&x);
}

/* ---- cpu-fallback ---- */

static void test_fallback_framework_not_loaded_is_error_at_window(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x, 1.0);
    x.cfg.window_s = 20;
    struct tick k = {.cores = 1.9f, .runnable = 1, .fw = ND_FW_TORCH | ND_FW_TORCH_CPU | ND_FW_PYTHON, .oom = -1};
    /* Ticks t = 0..19: the window is not covered yet. */
    assert_true(synth_run(&x, &k, 20, "fallback.cpu-fallback", ND_SEV_WARNING) < 0);
    double at = synth_run(&x, &k, 5, "fallback.cpu-fallback", ND_SEV_ERROR);
    assert_float_equal(at, 20.0, 1e-9);
    const struct nd_finding *f = nd_findings_find(&x.out, "fallback.cpu-fallback");
    assert_non_null(f);
    assert_string_equal(f->category, ND_CAT_CPU_FALLBACK);
    assert_int_equal(f->severity, ND_SEV_ERROR);
    assert_true(evidence_has(f, "1.9 cores"));
    assert_true(evidence_has(f, "8 x ascend 910B3"));
    assert_true(evidence_has(f, "0% utilisation"));
    assert_true(evidence_has(f, "not loaded: torch_npu"));
    assert_non_null(strstr(f->title, "8 Ascend NPUs"));
    synth_free(&x);
}

static void test_fallback_framework_loaded_is_staged(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x, 1.0);
    x.cfg.window_s = 20;
    x.cfg.fallback_after_s = 60;
    struct tick k = {.cores = 3, .runnable = 1, .fw = ND_FW_TORCH | ND_FW_TORCH_NPU | ND_FW_ASCENDCL, .oom = -1};
    assert_float_equal(synth_run(&x, &k, 21, "fallback.cpu-fallback", ND_SEV_WARNING), 20.0, 1e-9);
    assert_int_equal(nd_findings_find(&x.out, "fallback.cpu-fallback")->severity, ND_SEV_WARNING);
    /* No error until --fallback-after... */
    assert_true(synth_run(&x, &k, 39, "fallback.cpu-fallback", ND_SEV_ERROR) < 0);
    /* ...then an error at exactly 60 s. */
    assert_float_equal(synth_run(&x, &k, 3, "fallback.cpu-fallback", ND_SEV_ERROR), 60.0, 1e-9);
    synth_free(&x);
}

static void test_fallback_not_when_on_device_idle_or_no_device(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x, 1.0);
    x.cfg.window_s = 10;
    struct tick held = {.cores = 3, .runnable = 1, .held = true, .util = 80, .fw = ND_FW_TORCH_NPU, .oom = -1};
    assert_true(synth_run(&x, &held, 30, "fallback.cpu-fallback", ND_SEV_INFO) < 0);
    synth_free(&x);

    synth_init(&x, 1.0);
    x.cfg.window_s = 10;
    struct tick idle = {.cores = 0.2f, .runnable = 0.1f, .fw = ND_FW_TORCH, .oom = -1};
    assert_true(synth_run(&x, &idle, 30, "fallback.cpu-fallback", ND_SEV_INFO) < 0);
    synth_free(&x);

    synth_init(&x, 1.0);
    x.cfg.window_s = 10;
    x.ctx.device_usable = false;
    struct tick busy = {.cores = 4, .runnable = 1, .fw = ND_FW_TORCH, .oom = -1};
    assert_true(synth_run(&x, &busy, 30, "fallback.cpu-fallback", ND_SEV_INFO) < 0);
    synth_free(&x);

    /* A device held for a moment (the interval ending at t = 5) clears the window that contains it. */
    synth_init(&x, 1.0);
    x.cfg.window_s = 10;
    assert_true(synth_run(&x, &busy, 5, "fallback.cpu-fallback", ND_SEV_INFO) < 0);
    struct tick once = busy;
    once.held = true;
    synth_run(&x, &once, 1, "fallback.cpu-fallback", ND_SEV_INFO);
    assert_true(synth_run(&x, &busy, 9, "fallback.cpu-fallback", ND_SEV_INFO) < 0);
    assert_float_equal(synth_run(&x, &busy, 3, "fallback.cpu-fallback", ND_SEV_ERROR), 15.0, 1e-9);
    synth_free(&x);
}

static void test_fallback_contended_host_counts_runnable(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x, 0.5);
    x.cfg.window_s = 5;
    /* Half a core measured, but runnable all the time: CPU-bound on a busy host. */
    struct tick k = {.cores = 0.5f, .runnable = 1, .fw = ND_FW_PYTHON, .oom = -1};
    double at = synth_run(&x, &k, 14, "fallback.cpu-fallback", ND_SEV_ERROR);
    assert_float_equal(at, 5.0, 1e-9);
    assert_true(evidence_has(nd_findings_find(&x.out, "fallback.cpu-fallback"), "runnable 100%"));
    synth_free(&x);
}

static void test_fallback_nvidia_words(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x, 1.0);
    x.cfg.window_s = 5;
    snprintf(x.ctx.device_vendor, sizeof x.ctx.device_vendor, "nvidia");
    x.ctx.ndevices = 1;
    struct tick k = {.cores = 2, .runnable = 1, .fw = ND_FW_TORCH | ND_FW_TORCH_CPU, .oom = -1};
    synth_run(&x, &k, 7, "fallback.cpu-fallback", ND_SEV_ERROR);
    const struct nd_finding *f = nd_findings_find(&x.out, "fallback.cpu-fallback");
    assert_non_null(f);
    assert_non_null(strstr(f->title, "1 NVIDIA GPU sits idle"));
    assert_non_null(strstr(f->fix[0], "torch.cuda.is_available"));
    synth_free(&x);
}

/* ---- input-bound ---- */

static void test_input_bound(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x, 1.0);
    x.cfg.warmup_s = 10;
    x.cfg.window_s = 10;
    struct nd_detect_proc procs[3] = {
        {.pid = 100, .ppid = 1, .comm = "python", .cmd = "python train.py", .cores = 0.3, .holds_device = true},
        {.pid = 101, .ppid = 100, .comm = "pt_data_worker", .cmd = "python train.py", .cores = 0.9},
        {.pid = 102, .ppid = 100, .comm = "pt_data_worker", .cmd = "python train.py", .cores = 0.8},
    };
    x.ctx.procs = procs;
    x.ctx.nprocs = 3;
    struct tick k = {.cores = 2, .runnable = 1, .held = true, .util = 3, .fw = ND_FW_TORCH_NPU, .oom = -1};
    assert_true(synth_run(&x, &k, 20, "idle.input-bound", ND_SEV_WARNING) < 0);
    assert_float_equal(synth_run(&x, &k, 2, "idle.input-bound", ND_SEV_WARNING), 20.0, 1e-9);
    const struct nd_finding *f = nd_findings_find(&x.out, "idle.input-bound");
    assert_string_equal(f->category, ND_CAT_INPUT_BOUND);
    assert_true(evidence_has(f, "3% on average"));
    assert_true(evidence_has(f, "worker processes (DataLoader?): 2 using 1.7 cores"));
    assert_non_null(strstr(f->fix[0], "num_workers"));
    assert_null(nd_findings_find(&x.out, "fallback.cpu-fallback"));
    synth_free(&x);

    /* Busy device: nothing. Operator fallbacks in the output: named as the cause. */
    synth_init(&x, 1.0);
    x.cfg.warmup_s = 0;
    x.cfg.window_s = 5;
    struct tick busy = k;
    busy.util = 60;
    assert_true(synth_run(&x, &busy, 20, "idle.input-bound", ND_SEV_INFO) < 0);
    const char *line = "[W] Warning: CAST_OP will fall back to run on the CPU";
    nd_loglines_note(nd_loglines_classify(line, strlen(line)), line, strlen(line), &x.ctx);
    assert_int_equal(x.ctx.op_fallback_lines, 1);
    synth_run(&x, &k, 10, "idle.input-bound", ND_SEV_WARNING);
    f = nd_findings_find(&x.out, "idle.input-bound");
    assert_non_null(f);
    assert_non_null(strstr(f->cause, "will fall back to run on the CPU"));
    assert_true(evidence_has(f, "CAST_OP"));
    synth_free(&x);
}

/* ---- hang ---- */

static void test_hang(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x, 1.0);
    x.cfg.hang_after_s = 30;
    struct tick quiet = {.cores = 0.01f, .oom = -1};
    assert_true(synth_run(&x, &quiet, 30, "hang.no-progress", ND_SEV_WARNING) < 0);
    assert_float_equal(synth_run(&x, &quiet, 2, "hang.no-progress", ND_SEV_WARNING), 30.0, 1e-9);
    const struct nd_finding *f = nd_findings_find(&x.out, "hang.no-progress");
    assert_string_equal(f->category, ND_CAT_HANG);
    /* Not distributed, py-spy not installed: no HCCL hint, no py-spy line; faulthandler instead. */
    bool hccl = false, pyspy = false, gdb = false, fh = false;
    for (size_t i = 0; i < f->nfix; i++) {
        hccl = hccl || strstr(f->fix[i], "HCCL_EXEC_TIMEOUT");
        pyspy = pyspy || strncmp(f->fix[i], "py-spy dump", 11) == 0; /* not "pip install py-spy && ..." */
        gdb = gdb || strstr(f->fix[i], "gdb -p 100 -batch -ex 'thread apply all py-bt'");
        fh = fh || strstr(f->fix[i], "kill -USR1 100");
    }
    assert_true(!hccl && !pyspy && !gdb && fh);
    synth_free(&x);

    /* Distributed on an Ascend host, py-spy installed: its line and the HCCL timeouts. */
    synth_init(&x, 1.0);
    x.cfg.hang_after_s = 30;
    struct nd_detect_proc rank = {.pid = 100, .ppid = 1, .distributed = true};
    x.ctx.procs = &rank;
    x.ctx.nprocs = 1;
    x.ctx.have_py_spy = true;
    synth_run(&x, &quiet, 32, "hang.no-progress", ND_SEV_WARNING);
    f = nd_findings_find(&x.out, "hang.no-progress");
    hccl = pyspy = false;
    for (size_t i = 0; i < f->nfix; i++) {
        hccl = hccl || strstr(f->fix[i], "HCCL_EXEC_TIMEOUT");
        pyspy = pyspy || strstr(f->fix[i], "py-spy dump --pid 100");
    }
    assert_true(hccl && pyspy);
    synth_free(&x);
    /* Distributed (gloo) on a host with no device: no vendor hint. */
    synth_init(&x, 1.0);
    x.cfg.hang_after_s = 30;
    x.ctx.procs = &rank;
    x.ctx.nprocs = 1;
    x.ctx.device_usable = false;
    x.ctx.have_gdb = true;
    synth_run(&x, &quiet, 32, "hang.no-progress", ND_SEV_WARNING);
    f = nd_findings_find(&x.out, "hang.no-progress");
    hccl = gdb = false;
    bool dist = false;
    for (size_t i = 0; i < f->nfix; i++) {
        hccl = hccl || strstr(f->fix[i], "HCCL") || strstr(f->fix[i], "NCCL_DEBUG");
        gdb = gdb || strstr(f->fix[i], "gdb -p 100");
        dist = dist || strstr(f->fix[i], "TORCH_DISTRIBUTED_DEBUG");
    }
    assert_true(!hccl && gdb && dist);
    synth_free(&x);

    /* Output keeps coming, or CPU is used, or the held device works: no hang. */
    synth_init(&x, 1.0);
    x.cfg.hang_after_s = 10;
    struct tick talk = {.cores = 0, .out_add = 5, .oom = -1};
    assert_true(synth_run(&x, &talk, 40, "hang.no-progress", ND_SEV_INFO) < 0);
    synth_free(&x);
    synth_init(&x, 1.0);
    x.cfg.hang_after_s = 10;
    struct tick cpu = {.cores = 0.5f, .oom = -1};
    assert_true(synth_run(&x, &cpu, 40, "hang.no-progress", ND_SEV_INFO) < 0);
    synth_free(&x);
    synth_init(&x, 1.0);
    x.cfg.hang_after_s = 10;
    struct tick dev = {.cores = 0, .held = true, .util = 90, .oom = -1};
    assert_true(synth_run(&x, &dev, 40, "hang.no-progress", ND_SEV_INFO) < 0);
    synth_free(&x);
}

/* ---- memory ---- */

static void test_memory(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x, 1.0);
    struct tick full = {.cores = 1, .held = true, .util = 90, .mem_mib = 63 * 1024, .oom = 0};
    assert_true(synth_run(&x, &full, 9, "memory.device-full", ND_SEV_WARNING) < 0);
    assert_float_equal(synth_run(&x, &full, 1, "memory.device-full", ND_SEV_WARNING), 9.0, 1e-9);
    assert_string_equal(nd_findings_find(&x.out, "memory.device-full")->category, ND_CAT_DEVICE_OOM);
    synth_free(&x);

    /* 90% is not "above 95%". */
    synth_init(&x, 1.0);
    struct tick high = full;
    high.mem_mib = 58 * 1024;
    assert_true(synth_run(&x, &high, 20, "memory.device-full", ND_SEV_INFO) < 0);
    synth_free(&x);

    /* The cgroup OOM counter rises while a job process vanishes. */
    synth_init(&x, 1.0);
    struct tick ok = {.cores = 1, .oom = 2, .rss = 100 << 20, .cg_max = 1ULL << 30};
    assert_true(synth_run(&x, &ok, 5, "memory.host-oom", ND_SEV_INFO) < 0);
    pid_t victim = 4242;
    x.ctx.vanished = &victim;
    x.ctx.nvanished = 1;
    struct tick oom = ok;
    oom.oom = 3;
    assert_float_equal(synth_run(&x, &oom, 1, "memory.host-oom", ND_SEV_ERROR), 5.0, 1e-9);
    const struct nd_finding *f = nd_findings_find(&x.out, "memory.host-oom");
    assert_string_equal(f->category, ND_CAT_HOST_OOM);
    assert_true(evidence_has(f, "pid 4242 of the job vanished"));
    assert_true(evidence_has(f, "oom_kill: 2 at start, 3 now"));
    synth_free(&x);

    /* RSS at 95% of the cgroup limit. */
    synth_init(&x, 1.0);
    struct tick nearly = {.cores = 1, .oom = -1, .rss = 972ULL << 20, .cg_max = 1ULL << 30};
    assert_float_equal(synth_run(&x, &nearly, 1, "memory.rss-near-limit", ND_SEV_WARNING), 0.0, 1e-9);
    synth_free(&x);
}

/* ---- exit ---- */

static const struct nd_finding *exit_finding(struct synth *x, struct nd_exit_info ex)
{
    nd_findings_release(&x->out);
    nd_detect_exit(&x->s, &x->ctx, &ex, &x->out);
    return x->out.n ? x->out.v[0] : NULL;
}

static void test_exit(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x, 1.0);
    struct tick a = {.cores = 1, .oom = 0}, b = {.cores = 1, .oom = 1};
    synth_push(&x, &a);
    synth_push(&x, &b);
    const struct nd_finding *f = exit_finding(&x, (struct nd_exit_info){.signaled = true, .signal = SIGKILL});
    assert_non_null(f);
    assert_string_equal(f->id, "exit.oom-killed");
    assert_string_equal(f->category, ND_CAT_HOST_OOM);
    f = exit_finding(&x, (struct nd_exit_info){.signaled = true, .signal = SIGSEGV});
    assert_string_equal(f->id, "exit.segfault");
    f = exit_finding(&x, (struct nd_exit_info){.signaled = true, .signal = SIGBUS});
    assert_string_equal(f->id, "exit.bus-error-shm");
    assert_null(exit_finding(&x, (struct nd_exit_info){.exited = true, .code = 0}));
    /* run --timeout stopped it: the timeout is the verdict, not the SIGKILL
     * (an OOM kill, above, with the same counter) nor a stop from outside. */
    f = exit_finding(&x,
                     (struct nd_exit_info){.signaled = true, .signal = SIGKILL, .stopped_by_us = true, .timeout_s = 90});
    assert_non_null(f);
    assert_string_equal(f->id, "exit.timeout");
    assert_int_equal(x.out.n, 1);
    assert_non_null(strstr(f->title, "--timeout 90 s"));
    assert_non_null(strstr(f->evidence[1].text, "exit status 137"));
    f = exit_finding(&x, (struct nd_exit_info){.exited = true, .code = 0, .stopped_by_us = true, .timeout_s = 2});
    assert_string_equal(f->id, "exit.timeout");
    /* --fail-fast's stop is said by the finding that asked for it. */
    assert_null(exit_finding(&x, (struct nd_exit_info){.signaled = true, .signal = SIGTERM, .stopped_by_us = true}));
    /* A failed job is never healthy: the last error line it printed is named. */
    f = exit_finding(&x, (struct nd_exit_info){.exited = true,
                                               .code = 1,
                                               .last_error = "ValueError: bad shape",
                                               .last_error_line = 42,
                                               .last_line = "ValueError: bad shape"});
    assert_non_null(f);
    assert_string_equal(f->id, "exit.failed");
    assert_int_equal(f->severity, ND_SEV_ERROR);
    assert_int_equal(f->confidence, ND_CONF_MEDIUM);
    assert_non_null(strstr(f->title, "ValueError: bad shape"));
    assert_int_equal(f->evidence[0].line, 42);
    f = exit_finding(&x, (struct nd_exit_info){.exited = true, .code = 1});
    assert_string_equal(f->id, "exit.failed");
    assert_int_equal(f->confidence, ND_CONF_LOW);
    assert_true(evidence_has(f, "printed nothing"));
    f = exit_finding(&x, (struct nd_exit_info){.exited = true, .code = 127, .last_line = "sh: 1: trainx: not found"});
    assert_string_equal(f->id, "exit.not-found");
    assert_true(evidence_has(f, "trainx: not found"));
    f = exit_finding(&x, (struct nd_exit_info){.exited = true, .code = 126});
    assert_string_equal(f->id, "exit.not-executable");
    f = exit_finding(&x, (struct nd_exit_info){.exited = true, .code = 137});
    assert_string_equal(f->id, "exit.child-signal");
    assert_non_null(strstr(f->title, "SIGKILL"));
    /* Secrets in the job's last line are redacted. */
    f = exit_finding(&x, (struct nd_exit_info){
                             .exited = true, .code = 3, .last_error = "error: https://bob:hunter2@example.com/x failed"});
    assert_null(strstr(f->title, "hunter2"));
    f = exit_finding(&x, (struct nd_exit_info){.signaled = true, .signal = SIGINT});
    assert_string_equal(f->id, "exit.interrupted");
    assert_int_equal(f->severity, ND_SEV_INFO);
    f = exit_finding(&x, (struct nd_exit_info){.signaled = true, .signal = SIGTERM});
    assert_string_equal(f->id, "exit.stopped");
    assert_int_equal(f->severity, ND_SEV_WARNING);
    assert_null(exit_finding(&x, (struct nd_exit_info){.signaled = true, .signal = SIGKILL, .stopped_by_us = true}));
    synth_free(&x);

    /* SIGKILL without the OOM counter moving; DataLoader bus error in the output. */
    synth_init(&x, 1.0);
    struct tick c = {.cores = 1, .oom = -1};
    synth_push(&x, &c);
    f = exit_finding(&x, (struct nd_exit_info){.signaled = true, .signal = SIGKILL});
    assert_string_equal(f->id, "exit.killed");
    const char *line = "RuntimeError: DataLoader worker (pid 77) is killed by signal: Bus error. It is possible "
                       "that dataloader's workers are out of shared memory.";
    nd_loglines_note(nd_loglines_classify(line, strlen(line)), line, strlen(line), &x.ctx);
    assert_true(x.ctx.dataloader_bus_error);
    f = exit_finding(&x, (struct nd_exit_info){.exited = true, .code = 1});
    assert_string_equal(f->id, "exit.bus-error-shm");
    assert_int_equal(f->confidence, ND_CONF_HIGH);
    assert_true(evidence_has(f, "DataLoader worker (pid 77)"));
    synth_free(&x);
}

/* ---- log lines ---- */

static void test_loglines(void **state)
{
    (void)state;
    struct nd_detect_context ctx;
    memset(&ctx, 0, sizeof ctx);
    const char *l1 = "[W] Op Gelu will fall back to run on the CPU";
    const char *l2 = "[W] Op Erf will fall back to run on the CPU";
    assert_int_equal(nd_loglines_classify(l1, strlen(l1)), ND_NOTE_OP_FALLBACK);
    /* Counted per line (repeats included); the first line is kept. */
    nd_loglines_note(ND_NOTE_OP_FALLBACK, l1, strlen(l1), &ctx);
    nd_loglines_note(ND_NOTE_OP_FALLBACK, l2, strlen(l2), &ctx);
    nd_loglines_note(ND_NOTE_OP_FALLBACK, l2, strlen(l2), &ctx);
    assert_int_equal(ctx.op_fallback_lines, 3);
    assert_string_equal(ctx.op_fallback_example, l1);
    /* A bus error counts only on a DataLoader line, or as the shm message. */
    const char *nodl = "Bus error in a line that names no loader";
    assert_int_equal(nd_loglines_classify(nodl, strlen(nodl)), 0);
    const char *dl = "RuntimeError: DataLoader worker (pid 7) is killed by signal: Bus error.";
    assert_int_equal(nd_loglines_classify(dl, strlen(dl)), ND_NOTE_BUS_ERROR);
    const char *shm = "ERROR: Unexpected bus error encountered in worker. This might be caused by "
                      "insufficient shared memory (shm).";
    assert_int_equal(nd_loglines_classify(shm, strlen(shm)), ND_NOTE_BUS_ERROR);
    nd_loglines_note(ND_NOTE_BUS_ERROR, shm, strlen(shm), &ctx);
    assert_true(ctx.dataloader_bus_error);
    assert_non_null(strstr(ctx.dataloader_line, "insufficient shared memory"));
    /* Binary and NUL bytes are just bytes. */
    const char bin[] = {'a', 0, (char)0xff, 'b'};
    assert_int_equal(nd_loglines_classify(bin, sizeof bin), 0);

    /* A whole block (while the knowledge base loads): each line once. */
    memset(&ctx, 0, sizeof ctx);
    const char blk[] = "step 1\n[W] Op Gelu will fall back to run on the CPU\nstep 2\n"
                       "[W] Op Erf will fall back to run on the CPU, will fall back to run on the CPU\n"
                       "Bus error in a line that names no loader\n"
                       "DataLoader worker (pid 9) is killed by signal: Bus error. insufficient shared memory (shm)";
    nd_loglines_note_block(blk, strlen(blk), &ctx);
    assert_int_equal(ctx.op_fallback_lines, 2);
    assert_string_equal(ctx.op_fallback_example, "[W] Op Gelu will fall back to run on the CPU");
    assert_true(ctx.dataloader_bus_error);
    assert_non_null(strstr(ctx.dataloader_line, "DataLoader worker (pid 9)"));
}

/* ---- cgroup parsing ---- */

static void test_cgroup_parsing(void **state)
{
    (void)state;
    char dir[256];
    bool v1 = false;
    const char *hybrid = "9:name=systemd:/\n4:memory:/process_api/abc\n0::/\n";
    assert_true(nd_cgroup_memory_dir(hybrid, strlen(hybrid), dir, sizeof dir, &v1));
    assert_true(v1);
    assert_string_equal(dir, "/sys/fs/cgroup/memory/process_api/abc");
    const char *unified = "0::/user.slice/job.scope\n";
    assert_true(nd_cgroup_memory_dir(unified, strlen(unified), dir, sizeof dir, &v1));
    assert_false(v1);
    assert_string_equal(dir, "/sys/fs/cgroup/user.slice/job.scope");
    const char *root = "0::/\n";
    assert_true(nd_cgroup_memory_dir(root, strlen(root), dir, sizeof dir, &v1));
    assert_string_equal(dir, "/sys/fs/cgroup");
    assert_false(nd_cgroup_memory_dir("garbage", 7, dir, sizeof dir, &v1));
    assert_false(nd_cgroup_memory_dir("", 0, dir, sizeof dir, &v1));
    const char *ev = "low 0\nhigh 0\nmax 12\noom 3\noom_kill 2\noom_group_kill 0\n";
    assert_int_equal(nd_cgroup_parse_oom_kill(ev, strlen(ev)), 2);
    const char *v1c = "oom_kill_disable 0\nunder_oom 0\noom_kill 7";
    assert_int_equal(nd_cgroup_parse_oom_kill(v1c, strlen(v1c)), 7);
    assert_int_equal(nd_cgroup_parse_oom_kill("oom 1\n", 6), -1);
    assert_int_equal(nd_cgroup_parse_oom_kill("oom_kill x\n", 11), -1);
}

/* ---- timeline views ---- */

static void test_timeline_views(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x, 1.0);
    struct tick k = {.cores = 1.5f, .held = true, .util = 70, .mem_mib = 1024, .oom = -1};
    for (int i = 0; i < 5000; i++)
        synth_push(&x, &k);
    size_t len = 0;
    char *csv = nd_timeline_csv(&x.s, &len);
    assert_int_equal(strlen(csv), len);
    assert_true(strncmp(csv, "t_s,cpu_cores,", 14) == 0);
    assert_non_null(strstr(csv, ",util_pct_npu7,mem_used_bytes_npu7\n"));
    size_t rows = 0;
    for (const char *p = csv; *p; p++)
        rows += *p == '\n';
    assert_true(rows > 1000 && rows <= 2001);
    free(csv);
    json_t *j = nd_timeline_json(&x.s, 2000);
    assert_true(json_array_size(json_object_get(j, "points")) <= 2000);
    assert_int_equal(json_array_size(json_object_get(j, "devices")), 8);
    json_t *p0 = json_array_get(json_object_get(j, "points"), 1);
    /* Utilisation is a 0-1 ratio in JSON (docs/json.md), a percent in the CSV. */
    assert_null(json_object_get(p0, "util_pct"));
    assert_float_equal(json_real_value(json_array_get(json_object_get(p0, "utilization_ratio"), 3)), 0.70, 1e-9);
    json_decref(j);

    struct nd_findings fs = ND_FINDINGS_INIT;
    struct nd_finding *f = nd_findings_add(&fs, "fallback.cpu-fallback", ND_CAT_CPU_FALLBACK, ND_SEV_ERROR, "x");
    f->at_s = 20;
    char *svg = nd_timeline_svg(&x.s, &fs, "run: a < b & c", "sub", &len);
    assert_non_null(strstr(svg, "<svg"));
    assert_non_null(strstr(svg, "a &lt; b &amp; c"));
    assert_non_null(strstr(svg, "cpu-fallback @ 0:20"));
    assert_non_null(strstr(svg, "mean of 8 npus"));
    assert_non_null(strstr(svg, "Host memory of the job, RSS (GiB)"));
    assert_non_null(strstr(svg, "the job&apos;s devices"));
    assert_non_null(strstr(svg, "</svg>"));
    free(svg);
    nd_findings_release(&fs);
    synth_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_series_integrals_and_lookback),
        cmocka_unit_test(test_series_bounded_over_long_runs),
        cmocka_unit_test(test_fallback_framework_not_loaded_is_error_at_window),
        cmocka_unit_test(test_fallback_framework_loaded_is_staged),
        cmocka_unit_test(test_fallback_not_when_on_device_idle_or_no_device),
        cmocka_unit_test(test_fallback_contended_host_counts_runnable),
        cmocka_unit_test(test_fallback_nvidia_words),
        cmocka_unit_test(test_input_bound),
        cmocka_unit_test(test_hang),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_exit),
        cmocka_unit_test(test_loglines),
        cmocka_unit_test(test_cgroup_parsing),
        cmocka_unit_test(test_timeline_views),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
