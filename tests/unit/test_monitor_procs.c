/* Unit tests for the per-process side of the monitor: process verdicts, the
 * partial CPU fallback (one rank on the CPU beside a rank on its NPU, but
 * not a DataLoader worker nor the launcher), the storage-bound form of
 * input-bound, input wait channels and the exit tail of the output. */
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
#include "monitor/exit_tail.h"
#include "monitor/kmsg.h"
#include "monitor/procverdict.h"
#include "core/series.h"
#include "proc/footprint.h"

#define NDEV 8
#define TORCH (ND_FW_TORCH | ND_FW_TORCH_CPU | ND_FW_PYTHON)

struct synth {
    struct nd_series s;
    struct nd_detect_config cfg;
    struct nd_detect_context ctx;
    struct nd_detect_proc procs[8];
    double t;
};

static void synth_init(struct synth *x)
{
    memset(x, 0, sizeof *x);
    nd_series_init(&x->s, 1.0);
    nd_detect_config_default(&x->cfg);
    x->cfg.window_s = 10;
    x->cfg.warmup_s = 5;
    struct nd_series_device dev[NDEV];
    memset(dev, 0, sizeof dev);
    for (int i = 0; i < NDEV; i++) {
        snprintf(dev[i].vendor, sizeof dev[i].vendor, "ascend");
        snprintf(dev[i].word, sizeof dev[i].word, "npu");
        dev[i].index = i;
        dev[i].mem_total_bytes = 64ULL << 30;
    }
    nd_series_set_devices(&x->s, dev, NDEV);
    x->ctx.root_pid = 100;
    x->ctx.device_usable = true;
    snprintf(x->ctx.device_vendor, sizeof x->ctx.device_vendor, "ascend");
    x->ctx.ndevices = NDEV;
    x->ctx.frameworks_known = true;
    x->ctx.procs = x->procs;
    x->ctx.host_cpus = 16;
    x->ctx.loadavg1 = 2;
}

static struct nd_detect_proc *proc(struct synth *x, pid_t pid, pid_t ppid, double cores, bool holds, unsigned fw,
                                   const char *rank)
{
    struct nd_detect_proc *p = &x->procs[x->ctx.nprocs++];
    memset(p, 0, sizeof *p);
    p->pid = pid;
    p->ppid = ppid;
    snprintf(p->comm, sizeof p->comm, "python3");
    snprintf(p->cmd, sizeof p->cmd, "python3 train.py");
    p->cores = p->win_cores = cores;
    p->holds_device = p->held_ever = holds;
    p->held_mask = holds ? 1u : 0u;
    p->frameworks = fw;
    p->tracked_s = 30;
    p->state = cores > 0.1 ? 'R' : 'S';
    snprintf(p->rank, sizeof p->rank, "%s", rank ? rank : "");
    return p;
}

static float g_stopped;       /* the stopped share of the next pushed samples */
static uint64_t g_write_rate; /* bytes the job writes per pushed second */
static uint64_t g_out_step;   /* output lines added per pushed sample (run: output observed when > 0) */
static bool g_io_hidden;      /* /proc/PID/io unreadable for the next pushed samples */

/* n samples one second apart; the job holds npu:0 at util %, iowait 0/1, reading rate bytes/s. */
static void push(struct synth *x, int n, float cores, bool held, int util, float iowait, uint64_t rate)
{
    for (int i = 0; i < n; i++) {
        const struct nd_sample *prev = nd_series_last(&x->s);
        struct nd_sample sm;
        memset(&sm, 0, sizeof sm);
        sm.t = x->t;
        sm.cpu_cores = cores;
        sm.runnable = cores > 0.5f;
        sm.on_device = held;
        sm.held_mask = held ? 1u : 0u;
        sm.ndev = NDEV;
        for (int d = 0; d < NDEV; d++) {
            sm.util[d] = (int16_t)util;
            sm.mem_mib[d] = 1000;
        }
        sm.job_util = held ? (float)util : -1;
        sm.nprocs = (uint32_t)x->ctx.nprocs;
        sm.iowait = iowait;
        sm.stopped = g_stopped;
        sm.io_valid = g_io_hidden ? 0 : 1;
        sm.read_bytes = (prev ? prev->read_bytes : 0) + rate;
        sm.write_bytes = (prev ? prev->write_bytes : 0) + g_write_rate;
        sm.out_valid = g_out_step > 0;
        sm.out_lines = (prev ? prev->out_lines : 0) + g_out_step;
        sm.oom_kill = -1;
        nd_series_push(&x->s, &sm);
        x->t += 1;
    }
}

static const struct nd_finding *find(const struct nd_findings *f, const char *id)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->v[i]->id, id) == 0)
            return f->v[i];
    return NULL;
}

static bool evidence_has(const struct nd_finding *f, const char *text)
{
    for (size_t i = 0; i < f->nevidence; i++)
        if (strstr(f->evidence[i].text, text))
            return true;
    return false;
}

static void test_verdicts(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x);
    assert_int_equal(nd_detect_proc_verdict(proc(&x, 1, 0, 1.0, true, TORCH, NULL)), ND_PV_ON_DEVICE);
    assert_int_equal(nd_detect_proc_verdict(proc(&x, 2, 0, 1.0, false, TORCH, NULL)), ND_PV_FRAMEWORK_NO_DEVICE);
    assert_int_equal(nd_detect_proc_verdict(proc(&x, 3, 0, 1.0, false, ND_FW_PYTHON, NULL)), ND_PV_CPU_ONLY);
    assert_int_equal(nd_detect_proc_verdict(proc(&x, 4, 0, 0.1, false, TORCH, NULL)), ND_PV_IDLE);
    assert_string_equal(nd_proc_verdict_name(ND_PV_FRAMEWORK_NO_DEVICE), "framework-no-device");
    /* The sustained mean decides, not one tick: a noisy 0 now and then does not flip it. */
    struct nd_detect_proc *p = proc(&x, 5, 0, 0.9, false, TORCH, NULL);
    p->cores = 0;
    assert_int_equal(nd_detect_proc_verdict(p), ND_PV_FRAMEWORK_NO_DEVICE);
    nd_series_release(&x.s);
}

static void test_partial_fallback(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x);
    /* torchrun (idle, torch loaded) -> rank 0 on npu:0, rank 1 on the CPU; rank 0 has a busy DataLoader worker. */
    proc(&x, 100, 1, 0.0, false, TORCH, NULL);
    proc(&x, 101, 100, 1.0, true, TORCH | ND_FW_TORCH_NPU, "0");
    proc(&x, 102, 100, 1.0, false, TORCH, "1");
    proc(&x, 103, 101, 1.0, false, TORCH | ND_FW_TORCH_NPU, NULL);
    push(&x, 12, 3.0f, true, 40, 0, 0);
    struct nd_findings out = ND_FINDINGS_INIT;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    const struct nd_finding *f = find(&out, "fallback.partial");
    assert_non_null(f);
    assert_string_equal(f->category, ND_CAT_CPU_FALLBACK);
    assert_int_equal(f->severity, ND_SEV_ERROR);
    assert_int_equal(f->confidence, ND_CONF_HIGH);
    assert_non_null(strstr(f->title, "rank 1 (pid 102)"));
    assert_non_null(strstr(f->title, "npu:0"));
    assert_true(evidence_has(f, "torch_npu not loaded"));
    assert_false(evidence_has(f, "pid 103"));
    assert_non_null(strstr(f->fix[0], "npu-doctor check --env-from 102"));
    assert_null(find(&out, "fallback.cpu-fallback"));
    const struct nd_detect_proc *v[4];
    assert_int_equal(nd_detect_partial_procs(&x.cfg, &x.ctx, v, 4), 1);
    assert_int_equal(v[0]->pid, 102);

    /* Younger than the window: not yet. */
    x.procs[2].tracked_s = 5;
    assert_int_equal(nd_detect_partial_procs(&x.cfg, &x.ctx, v, 4), 0);
    x.procs[2].tracked_s = 30;
    /* Rank 1 at 0.3 cores (waiting in a collective): not computing. */
    x.procs[2].win_cores = 0.3;
    assert_int_equal(nd_detect_partial_procs(&x.cfg, &x.ctx, v, 4), 0);
    x.procs[2].win_cores = 1.0;
    /* Maps unreadable: no claim about frameworks. */
    x.ctx.frameworks_known = false;
    assert_int_equal(nd_detect_partial_procs(&x.cfg, &x.ctx, v, 4), 0);
    x.ctx.frameworks_known = true;
    /* Both ranks on their NPU: the healthy twin. */
    x.procs[2].holds_device = x.procs[2].held_ever = true;
    x.procs[2].held_mask = 2;
    nd_findings_release(&out);
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_null(find(&out, "fallback.partial"));
    nd_findings_release(&out);

    /* The registry lists every process with its verdict and devices. */
    struct nd_proc_registry reg = {0};
    nd_proc_registry_update(&reg, &x.ctx);
    x.procs[2].holds_device = false;
    nd_proc_registry_update(&reg, &x.ctx);
    assert_int_equal(reg.n, 4);
    json_t *j = nd_proc_registry_json(&reg, &x.s);
    assert_int_equal(json_array_size(j), 4);
    json_t *r1 = json_array_get(j, 2);
    assert_string_equal(json_string_value(json_object_get(r1, "verdict")), "on-device");
    assert_string_equal(json_string_value(json_object_get(r1, "rank")), "1");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(r1, "devices"), 0), "index")), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(j, 0), "verdict")), "idle");
    json_decref(j);
    nd_proc_registry_release(&reg);
    nd_series_release(&x.s);
}

static void test_storage_bound(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x);
    struct nd_detect_proc *main = proc(&x, 100, 1, 0.02, true, TORCH | ND_FW_TORCH_NPU, NULL);
    struct nd_detect_proc *w = proc(&x, 101, 100, 0.01, false, TORCH, NULL);
    snprintf(w->wchan, sizeof w->wchan, "rpc_wait_bit_killable");
    (void)main;
    push(&x, 16, 0.05f, true, 3, 1.0f, 2u << 20);
    struct nd_findings out = ND_FINDINGS_INIT;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    const struct nd_finding *f = find(&out, "idle.storage-bound");
    assert_non_null(f);
    assert_string_equal(f->category, ND_CAT_INPUT_BOUND);
    assert_true(evidence_has(f, "2.0 MiB/s"));
    assert_true(evidence_has(f, "101 python3 train.py (sleeping in rpc_wait_bit_killable)"));
    assert_non_null(strstr(f->fix[0], "num_workers=14"));
    assert_null(find(&out, "idle.input-bound"));
    assert_null(find(&out, "hang.no-progress"));
    nd_findings_release(&out);
    /* No free cores: no advice to add workers. */
    x.ctx.loadavg1 = 16;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    f = find(&out, "idle.storage-bound");
    assert_non_null(f);
    assert_null(strstr(f->fix[0], "num_workers"));
    nd_findings_release(&out);
    nd_series_release(&x.s);

    /* The twin: the same job with the device busy. And a job that sleeps, not in reads. */
    synth_init(&x);
    proc(&x, 100, 1, 0.02, true, TORCH | ND_FW_TORCH_NPU, NULL);
    push(&x, 16, 0.05f, true, 90, 1.0f, 2u << 20);
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_int_equal(out.n, 0);
    nd_series_release(&x.s);
    synth_init(&x);
    proc(&x, 100, 1, 0.02, true, TORCH | ND_FW_TORCH_NPU, NULL);
    push(&x, 16, 0.05f, true, 3, 0.0f, 0);
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_null(find(&out, "idle.storage-bound"));
    nd_findings_release(&out);
    nd_series_release(&x.s);
}

static void test_wchan_and_free_cores(void **state)
{
    (void)state;
    assert_true(nd_wchan_is_input_wait("pipe_read"));
    assert_true(nd_wchan_is_input_wait("anon_pipe_read"));
    assert_true(nd_wchan_is_input_wait("folio_wait_bit_common"));
    assert_true(nd_wchan_is_input_wait("nfs_wait_bit_killable"));
    /* fsync waiting for the disk: block layer, buffer sync, journals. */
    assert_true(nd_wchan_is_input_wait("submit_bio_wait"));
    assert_true(nd_wchan_is_input_wait("__sync_dirty_buffer"));
    assert_true(nd_wchan_is_input_wait("jbd2_log_wait_commit"));
    assert_true(nd_wchan_is_input_wait("xlog_wait_on_iclog"));
    assert_false(nd_wchan_is_input_wait("futex_wait_queue"));
    assert_false(nd_wchan_is_input_wait("do_nanosleep"));
    assert_false(nd_wchan_is_input_wait(""));
    assert_false(nd_wchan_is_input_wait(NULL));
    struct nd_detect_context c = {0};
    assert_int_equal(nd_detect_free_cores(&c, 1), 0);
    c.host_cpus = 8;
    c.loadavg1 = 3.5;
    assert_int_equal(nd_detect_free_cores(&c, 1), 4);
    assert_int_equal(nd_detect_free_cores(&c, 6), 2);
    c.loadavg1 = -1;
    assert_int_equal(nd_detect_free_cores(&c, 8), 0);
}

static void test_exit_tail(void **state)
{
    (void)state;
    struct nd_exit_tail t = {0};
    const char *lines[] = {
        "epoch 1 loss 2.3",
        "Traceback (most recent call last):",
        "  File \"train.py\", line 9, in <module>",
        "    raise ValueError(\"bad shape\")",
        "ValueError: bad shape \x1b[31m",
        "",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        nd_exit_tail_feed(&t, lines[i], strlen(lines[i]), (long)i + 1);
    assert_string_equal(t.last_error, "ValueError: bad shape ?[31m");
    assert_int_equal(t.last_error_line, 5);
    assert_string_equal(t.last_line, "ValueError: bad shape ?[31m");
    assert_true(nd_exit_line_is_error("torch.OutOfMemoryError: NPU out of memory", 41));
    assert_true(nd_exit_line_is_error("python3: can't open file '/x/train.py': [Errno 2] No such file or directory", 75));
    assert_true(nd_exit_line_is_error("KeyboardInterrupt", 17));
    assert_false(nd_exit_line_is_error("step 100 loss 2.3", 17));
    assert_false(nd_exit_line_is_error("Traceback", 0));
    /* A huge line is cut, not overflowed. */
    char big[4096];
    memset(big, 'E', sizeof big);
    memcpy(big, "Error: ", 7);
    nd_exit_tail_feed(&t, big, sizeof big, 9);
    assert_int_equal(strlen(t.last_error), ND_EXIT_TAIL_LINE - 1);

    /* Whole blocks (run): the same answer, line numbers from the block's first. */
    struct nd_exit_tail b = {0};
    const char blk1[] = "epoch 1 loss 2.3\nRuntimeError: first failure\nstep 2\n";
    nd_exit_tail_feed_block(&b, blk1, strlen(blk1), 10);
    assert_string_equal(b.last_error, "RuntimeError: first failure");
    assert_int_equal(b.last_error_line, 11);
    assert_string_equal(b.last_line, "step 2");
    /* A later block: its last error wins; a word inside a non-error line
     * ("SystemExit:" is one, "exit: 0 files" is not) is judged, not trusted. */
    const char blk2[] = "Traceback (most recent call last):\n  File \"t.py\", line 1\n"
                        "ValueError: bad shape\nsummary exit: 0 files\n\n";
    nd_exit_tail_feed_block(&b, blk2, strlen(blk2), 13);
    assert_string_equal(b.last_error, "ValueError: bad shape");
    assert_int_equal(b.last_error_line, 15);
    assert_string_equal(b.last_line, "summary exit: 0 files");
    /* A block without an error keeps the earlier one. */
    const char blk3[] = "step 3 loss 1.0\nstep 4 loss 0.9";
    nd_exit_tail_feed_block(&b, blk3, strlen(blk3), 18);
    assert_string_equal(b.last_error, "ValueError: bad shape");
    assert_string_equal(b.last_line, "step 4 loss 0.9");
}

static void test_host_memory_exit(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x);
    push(&x, 3, 1.0f, false, 0, 0, 0);
    x.ctx.rlimit_as = 8ull << 30;
    x.ctx.peak_rss = 900ull << 20;
    struct nd_findings out = ND_FINDINGS_INIT;
    struct nd_exit_info ex = {.exited = true, .code = 1, .last_error = "MemoryError", .last_error_line = 7};
    nd_detect_exit(&x.s, &x.ctx, &ex, &out);
    const struct nd_finding *f = find(&out, "exit.rlimit-as");
    assert_non_null(f);
    assert_string_equal(f->category, ND_CAT_HOST_OOM);
    assert_non_null(strstr(f->title, "ulimit -v (RLIMIT_AS) is 8.0 GiB"));
    assert_true(evidence_has(f, "RSS peaked at 900 MiB"));
    assert_null(find(&out, "exit.failed")); /* one verdict per exit */
    nd_findings_release(&out);
    /* No RLIMIT_AS: the cgroup, named the v1 way on a v1 host. */
    x.ctx.rlimit_as = 0;
    x.ctx.cgroup_v1 = true;
    ex.last_error = "RuntimeError: [enforce fail at alloc_cpu.cpp:83] DefaultCPUAllocator: can't allocate memory";
    nd_detect_exit(&x.s, &x.ctx, &ex, &out);
    assert_non_null(find(&out, "exit.host-memory"));
    nd_findings_release(&out);
    /* A device OOM is not a host one. */
    assert_false(nd_exit_line_is_host_oom("RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB"));
    assert_false(nd_exit_line_is_host_oom("torch.OutOfMemoryError: CUDA out of memory."));
    assert_true(nd_exit_line_is_host_oom("std::bad_alloc"));
    assert_string_equal(nd_cgroup_limit_file(&x.ctx), "memory.limit_in_bytes (v1)");
    x.ctx.cgroup_v1 = false;
    assert_string_equal(nd_cgroup_limit_file(&x.ctx), "memory.max");
    nd_series_release(&x.s);
}

static void test_stopped(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x);
    x.cfg.hang_after_s = 5;
    struct nd_detect_proc *p = proc(&x, 100, 1, 0, false, TORCH, NULL);
    p->state = 'T';
    g_stopped = 1;
    push(&x, 12, 0, false, 0, 0, 0);
    g_stopped = 0;
    struct nd_findings out = ND_FINDINGS_INIT;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    const struct nd_finding *f = find(&out, "hang.stopped");
    assert_non_null(f);
    assert_string_equal(f->category, ND_CAT_HANG);
    assert_true(evidence_has(f, "pid 100 python3 train.py: state T (stopped)"));
    assert_non_null(strstr(f->cause, "SIGTTIN"));
    assert_non_null(strstr(f->fix[0], "kill -CONT 100"));
    assert_null(find(&out, "hang.no-progress")); /* stopped is not stuck */
    nd_findings_release(&out);
    nd_series_release(&x.s);
    /* Running again: nothing. */
    synth_init(&x);
    x.cfg.hang_after_s = 5;
    proc(&x, 100, 1, 0, false, TORCH, NULL);
    push(&x, 12, 0, false, 0, 0, 0);
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_null(find(&out, "hang.stopped"));
    nd_findings_release(&out);
    nd_series_release(&x.s);
}

/* The holder itself computes on the CPU while its device idles: fallback.in-process,
 * not input-bound; reading its data at speed, or fed by busy workers, it is input-bound. */
static void test_inproc_fallback(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x);
    struct nd_detect_proc *h = proc(&x, 100, 1, 0.95, true, TORCH | ND_FW_TORCH_NPU, NULL);
    h->win_runnable = 1;
    push(&x, 16, 0.95f, true, 3, 0.0f, 10 * 1024);
    struct nd_findings out = ND_FINDINGS_INIT;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    const struct nd_finding *f = find(&out, "fallback.in-process");
    assert_non_null(f);
    assert_string_equal(f->category, ND_CAT_CPU_FALLBACK);
    assert_int_equal(f->severity, ND_SEV_WARNING);
    assert_true(evidence_has(f, "pid 100 python3 train.py holds a device and uses 0.9 cores"));
    assert_true(evidence_has(f, "reads: 10 KiB/s"));
    assert_false(evidence_has(f, "earlier the device was busy"));
    assert_non_null(strstr(f->fix[0], "py-spy dump --pid 100"));
    assert_null(find(&out, "idle.input-bound"));
    assert_null(find(&out, "idle.device-starved"));
    nd_findings_release(&out);
    nd_series_release(&x.s);

    /* On the device first, then on the CPU: said so. */
    synth_init(&x);
    h = proc(&x, 100, 1, 0.95, true, TORCH | ND_FW_TORCH_NPU, NULL);
    push(&x, 20, 0.3f, true, 85, 0.0f, 0);
    push(&x, 12, 0.95f, true, 0, 0.0f, 0);
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    f = find(&out, "fallback.in-process");
    assert_non_null(f);
    assert_true(evidence_has(f, "earlier the device was busy"));
    nd_findings_release(&out);
    nd_series_release(&x.s);

    /* It reads its data (num_workers=0 decoding files): input-bound. */
    synth_init(&x);
    proc(&x, 100, 1, 0.95, true, TORCH | ND_FW_TORCH_NPU, NULL);
    push(&x, 16, 0.95f, true, 3, 0.0f, 8u << 20);
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_null(find(&out, "fallback.in-process"));
    assert_non_null(find(&out, "idle.input-bound"));
    nd_findings_release(&out);
    nd_series_release(&x.s);

    /* It writes a record and syncs it every step (a fast disk: hardly any
     * iowait): I/O work, not a model on the CPU. Its own output does not
     * count as such writing. */
    synth_init(&x);
    proc(&x, 100, 1, 0.95, true, TORCH | ND_FW_TORCH_NPU, NULL);
    g_write_rate = 2u << 20;
    push(&x, 16, 0.95f, true, 3, 0.0f, 0);
    g_write_rate = 0;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_null(find(&out, "fallback.in-process"));
    assert_non_null(find(&out, "idle.input-bound"));
    nd_findings_release(&out);
    nd_series_release(&x.s);

    /* Busy workers feed an idle holder: input-bound. */
    synth_init(&x);
    proc(&x, 100, 1, 0.05, true, TORCH | ND_FW_TORCH_NPU, NULL);
    proc(&x, 101, 100, 0.9, false, TORCH, NULL);
    proc(&x, 102, 100, 0.9, false, TORCH, NULL);
    push(&x, 16, 1.85f, true, 3, 0.0f, 0);
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_null(find(&out, "fallback.in-process"));
    assert_non_null(find(&out, "idle.input-bound"));
    nd_findings_release(&out);
    nd_series_release(&x.s);

    /* Runnable most of the time but getting almost no CPU (an interpreter
     * tearing down on a crowded host): not computing a model. With a
     * sixth of a core it is (a thread of its own on that host). */
    synth_init(&x);
    h = proc(&x, 100, 1, 0.1, true, TORCH | ND_FW_TORCH_NPU, NULL);
    h->win_runnable = 1;
    push(&x, 16, 0.1f, true, 3, 0.0f, 0);
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_null(find(&out, "fallback.in-process"));
    nd_findings_release(&out);
    /* The same on a host whose run queue is far longer than its CPUs, for
     * longer than two windows: a step loop that gets a tenth of a core. */
    x.ctx.loadavg1 = 40;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_non_null(find(&out, "fallback.in-process"));
    assert_null(find(&out, "idle.input-bound"));
    nd_findings_release(&out);
    h->tracked_s = 12; /* not yet two windows: it may be starting or ending */
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_null(find(&out, "fallback.in-process"));
    nd_findings_release(&out);
    h->tracked_s = 30;
    x.ctx.loadavg1 = 0;
    h->win_cores = h->cores = 0.2;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_non_null(find(&out, "fallback.in-process"));
    nd_findings_release(&out);
    nd_series_release(&x.s);

    /* The twin: the device busy. */
    synth_init(&x);
    proc(&x, 100, 1, 0.95, true, TORCH | ND_FW_TORCH_NPU, NULL);
    push(&x, 16, 0.95f, true, 80, 0.0f, 0);
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_int_equal(out.n, 0);
    nd_series_release(&x.s);
}

/* Where /proc/PID/io cannot be read, the reads are unknown: the in-process
 * fallback is still said (the CPU and the idle device are seen), at low
 * confidence and saying what it could not see. */
static void test_inproc_io_hidden(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x);
    struct nd_detect_proc *h = proc(&x, 100, 1, 0.95, true, TORCH | ND_FW_TORCH_NPU, NULL);
    h->win_runnable = 1;
    g_io_hidden = true;
    push(&x, 16, 0.95f, true, 3, 0.0f, 0);
    g_io_hidden = false;
    struct nd_findings out = ND_FINDINGS_INIT;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    const struct nd_finding *f = find(&out, "fallback.in-process");
    assert_non_null(f);
    assert_int_equal(f->confidence, ND_CONF_LOW);
    assert_true(evidence_has(f, "reads: unknown"));
    assert_false(evidence_has(f, "reads: 0 KiB/s"));
    nd_findings_release(&out);
    nd_series_release(&x.s);
}

/* A worker of the job killed while the main process runs on: said at once;
 * a hang where exit notices cannot be heard says what it could not see. */
static void test_child_exit_live(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x);
    proc(&x, 100, 1, 0.0, false, TORCH, NULL);
    push(&x, 2, 0.0f, false, 0, 0.0f, 0);
    struct nd_findings out = ND_FINDINGS_INIT;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_null(find(&out, "exit.child-failed"));
    nd_findings_release(&out);
    struct nd_child_exit dead = {.pid = 4300, .ws = SIGKILL};
    snprintf(dead.cmd, sizeof dead.cmd, "pt_data_worker (ended before it was sampled)");
    x.ctx.child_exits = &dead;
    x.ctx.nchild_exits = 1;
    x.ctx.exit_notices = true;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    const struct nd_finding *f = find(&out, "exit.child-failed");
    assert_non_null(f);
    assert_int_equal(f->severity, ND_SEV_WARNING);
    assert_true(evidence_has(f, "pid 4300 pt_data_worker (ended before it was sampled): died from SIGKILL"));
    nd_findings_release(&out);
    nd_series_release(&x.s);

    synth_init(&x);
    x.cfg.hang_after_s = 5;
    proc(&x, 100, 1, 0.0, false, TORCH, NULL);
    g_out_step = 0;
    push(&x, 8, 0.0f, false, 0, 0.0f, 0);
    x.ctx.exit_notices = false;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    f = find(&out, "hang.no-progress");
    assert_non_null(f);
    assert_true(evidence_has(f, "exit notices cannot be heard here"));
    nd_findings_release(&out);
    x.ctx.exit_notices = true;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    f = find(&out, "hang.no-progress");
    assert_non_null(f);
    assert_false(evidence_has(f, "exit notices cannot be heard here"));
    nd_findings_release(&out);
    nd_series_release(&x.s);
}

/* A phase finding whose job then worked on its device for a whole window
 * and exited 0 was a pause; not when the job ended still idle, failed, or
 * the finding is a fact for good. */
static void test_pause_over(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x);
    proc(&x, 100, 1, 0.95, true, TORCH | ND_FW_TORCH_NPU, NULL);
    push(&x, 10, 0.3f, true, 85, 0.0f, 0);
    push(&x, 12, 0.95f, true, 0, 0.0f, 0); /* an evaluation on the CPU */
    double at = nd_series_last(&x.s)->t;
    push(&x, 12, 0.3f, true, 85, 0.0f, 0);
    struct nd_findings fs = ND_FINDINGS_INIT;
    struct nd_finding *f = nd_findings_add(&fs, "fallback.in-process", ND_CAT_CPU_FALLBACK, ND_SEV_WARNING, "CPU");
    f->at_s = at;
    struct nd_exit_info ok = {.exited = true, .code = 0}, bad = {.exited = true, .code = 1};
    double from = 0, util = 0;
    assert_true(nd_detect_pause_over(&x.s, &x.cfg, f, &ok, &from, &util));
    assert_true(from >= at);
    assert_true(util > 80);
    assert_false(nd_detect_pause_over(&x.s, &x.cfg, f, &bad, &from, &util));
    assert_false(nd_detect_pause_over(&x.s, &x.cfg, f, NULL, &from, &util));
    /* Found too late for a whole window of work after it. */
    f->at_s = nd_series_last(&x.s)->t - 3;
    assert_false(nd_detect_pause_over(&x.s, &x.cfg, f, &ok, &from, &util));
    f->at_s = at;
    nd_detect_pause_demote(f, from, util, 40);
    assert_int_equal(f->severity, ND_SEV_INFO);
    assert_non_null(strstr(f->title, "A pause, then work again: CPU"));
    assert_true(evidence_has(f, "then the device worked again"));
    /* A note already, or an error (held past --fallback-after): left alone. */
    assert_false(nd_detect_pause_over(&x.s, &x.cfg, f, &ok, &from, &util));
    struct nd_finding *e = nd_findings_add(&fs, "fallback.in-process", ND_CAT_CPU_FALLBACK, ND_SEV_ERROR, "CPU");
    e->at_s = at;
    assert_false(nd_detect_pause_over(&x.s, &x.cfg, e, &ok, &from, &util));
    struct nd_finding *m = nd_findings_add(&fs, "memory.host-oom", ND_CAT_HOST_OOM, ND_SEV_WARNING, "OOM");
    m->at_s = at;
    assert_false(nd_detect_pause_over(&x.s, &x.cfg, m, &ok, &from, &util));
    nd_findings_release(&fs);
    nd_series_release(&x.s);

    /* Still on the CPU at the end: a fallback, not a pause. */
    synth_init(&x);
    proc(&x, 100, 1, 0.95, true, TORCH | ND_FW_TORCH_NPU, NULL);
    push(&x, 10, 0.3f, true, 85, 0.0f, 0);
    push(&x, 24, 0.95f, true, 0, 0.0f, 0);
    f = nd_findings_add(&fs, "fallback.in-process", ND_CAT_CPU_FALLBACK, ND_SEV_WARNING, "CPU");
    f->at_s = 21;
    assert_false(nd_detect_pause_over(&x.s, &x.cfg, f, &ok, &from, &util));
    nd_findings_release(&fs);
    nd_series_release(&x.s);
}

/* The device idles while the job sleeps between steps that still come. */
static void test_starved(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x);
    struct nd_detect_proc *h = proc(&x, 100, 1, 0.02, true, TORCH | ND_FW_TORCH_NPU, NULL);
    snprintf(h->wchan, sizeof h->wchan, "do_sys_poll");
    struct nd_detect_proc *w = proc(&x, 101, 100, 0.01, false, 0, NULL);
    snprintf(w->wchan, sizeof w->wchan, "hrtimer_nanosleep");
    g_out_step = 2;
    push(&x, 16, 0.03f, true, 2, 0.0f, 2048);
    struct nd_findings out = ND_FINDINGS_INIT;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    const struct nd_finding *f = find(&out, "idle.device-starved");
    assert_non_null(f);
    assert_string_equal(f->category, ND_CAT_INPUT_BOUND);
    assert_true(evidence_has(f, "20 new output lines"));
    assert_true(evidence_has(f, "101 python3 train.py (in hrtimer_nanosleep)"));
    assert_null(find(&out, "idle.storage-bound"));
    assert_null(find(&out, "hang.no-progress"));
    nd_findings_release(&out);
    nd_series_release(&x.s);

    /* No new output: no progress, so not this (a hang's picture). */
    synth_init(&x);
    proc(&x, 100, 1, 0.02, true, TORCH | ND_FW_TORCH_NPU, NULL);
    g_out_step = 0;
    push(&x, 16, 0.03f, true, 2, 0.0f, 0);
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_null(find(&out, "idle.device-starved"));
    nd_findings_release(&out);
    nd_series_release(&x.s);
}

/* A read from a pipe nothing feeds is no storage wait; the disk's I/O wait
 * without reads (fsync) is, in its own words. */
static void test_storage_no_reads(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x);
    struct nd_detect_proc *h = proc(&x, 100, 1, 0.0, true, TORCH | ND_FW_TORCH_NPU, NULL);
    snprintf(h->wchan, sizeof h->wchan, "pipe_read");
    push(&x, 16, 0.0f, true, 0, 1.0f, 0);
    struct nd_findings out = ND_FINDINGS_INIT;
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    assert_null(find(&out, "idle.storage-bound"));
    nd_findings_release(&out);
    h->state = 'D';
    snprintf(h->wchan, sizeof h->wchan, "jbd2_log_wait_commit");
    nd_detect_all(&x.s, &x.cfg, &x.ctx, &out);
    const struct nd_finding *f = find(&out, "idle.storage-bound");
    assert_non_null(f);
    assert_non_null(strstr(f->title, "waits on storage I/O"));
    nd_findings_release(&out);
    nd_series_release(&x.s);
}

/* Exit 0 that hides a failure: a printed traceback, a failed child. */
static void test_masked_exit(void **state)
{
    (void)state;
    struct synth x;
    synth_init(&x);
    proc(&x, 100, 1, 0.5, true, TORCH, NULL);
    push(&x, 3, 0.5f, true, 80, 0.0f, 0);
    struct nd_exit_info ok = {.exited = true, .code = 0};
    struct nd_findings out = ND_FINDINGS_INIT;
    nd_detect_exit(&x.s, &x.ctx, &ok, &out);
    assert_int_equal(out.n, 0);
    struct nd_exit_info tb = ok;
    tb.traceback_error = "ValueError: bad shape";
    tb.traceback_line = 12;
    nd_detect_exit(&x.s, &x.ctx, &tb, &out);
    const struct nd_finding *f = find(&out, "exit.masked-failure");
    assert_non_null(f);
    assert_int_equal(f->severity, ND_SEV_WARNING);
    assert_non_null(strstr(f->title, "ValueError: bad shape"));
    assert_int_equal(f->evidence[0].line, 12);
    nd_findings_release(&out);

    struct nd_child_exit kids[2] = {{.pid = 4242, .ws = SIGKILL, .cmd = "python3 -c ...", .rank = "1"},
                                    {.pid = 4243, .ws = 1 << 8, .cmd = "python3 worker.py"}};
    x.ctx.child_exits = kids;
    x.ctx.nchild_exits = 1;
    nd_detect_exit(&x.s, &x.ctx, &ok, &out);
    f = find(&out, "exit.child-failed");
    assert_non_null(f);
    assert_non_null(strstr(f->title, "died from SIGKILL: pid 4242, rank 1"));
    assert_true(evidence_has(f, "the kernel's exit notices: pid 4242"));
    nd_findings_release(&out);
    /* The status read from a zombie its parent had not reaped: the evidence
     * says so, not that an exit notice told it. */
    kids[0].zombie = true;
    nd_detect_exit(&x.s, &x.ctx, &ok, &out);
    f = find(&out, "exit.child-failed");
    assert_non_null(f);
    assert_true(evidence_has(f, "the status its unreaped zombie kept: pid 4242"));
    assert_false(evidence_has(f, "exit notices"));
    nd_findings_release(&out);
    x.ctx.nchild_exits = 2;
    nd_detect_exit(&x.s, &x.ctx, &ok, &out);
    f = find(&out, "exit.child-failed");
    assert_non_null(f);
    assert_true(evidence_has(f, "the kernel's exit notices and unreaped zombies: pid 4242"));
    nd_findings_release(&out);
    kids[0].zombie = false;
    nd_detect_exit(&x.s, &x.ctx, &ok, &out);
    f = find(&out, "exit.child-failed");
    assert_non_null(f);
    assert_true(evidence_has(f, "pid 4243 python3 worker.py: exited with status 1"));
    nd_findings_release(&out);
    /* The main process failed too: its own verdict says it. */
    struct nd_exit_info bad = {.exited = true, .code = 1};
    nd_detect_exit(&x.s, &x.ctx, &bad, &out);
    assert_null(find(&out, "exit.child-failed"));
    assert_non_null(find(&out, "exit.failed"));
    nd_findings_release(&out);
    nd_series_release(&x.s);
}

/* Tracebacks through blocks: per stream, the exception line after the frames. */
static void test_traceback_blocks(void **state)
{
    (void)state;
    struct nd_exit_tail t;
    memset(&t, 0, sizeof t);
    const char a[] = "step 1\nTraceback (most recent call last):\n  File \"t.py\", line 3, in <module>\n";
    nd_exit_tail_traceback_block(&t, 2, a, strlen(a), 1);
    assert_string_equal(t.traceback_error, "");
    const char out[] = "step 2 on stdout\n";
    nd_exit_tail_traceback_block(&t, 1, out, strlen(out), 4);
    const char b[] = "    train()\nRuntimeError: call aclnnAdd failed\nfalling back\n";
    nd_exit_tail_traceback_block(&t, 2, b, strlen(b), 5);
    assert_string_equal(t.traceback_error, "RuntimeError: call aclnnAdd failed");
    assert_int_equal(t.traceback_line, 6);
    /* A later traceback in one block: its exception wins; a non-exception line ends it. */
    const char c[] = "Traceback (most recent call last):\n  File \"x\"\nKeyError: 'lr'\n"
                     "Traceback (most recent call last):\n  File \"y\"\nnot an exception line\n";
    nd_exit_tail_traceback_block(&t, 2, c, strlen(c), 10);
    assert_string_equal(t.traceback_error, "RuntimeError: call aclnnAdd failed");
    const char d[] = "Traceback (most recent call last):\n  File \"x\"\nKeyError: 'lr'\n";
    nd_exit_tail_traceback_block(&t, 2, d, strlen(d), 20);
    assert_string_equal(t.traceback_error, "KeyError: 'lr'");
    assert_int_equal(t.traceback_line, 22);
}

static void test_kmsg(void **state)
{
    (void)state;
    const char *a = "3,812,104833911,-;Out of memory: Killed process 4242 (python3) total-vm:9000000kB";
    assert_int_equal(nd_kmsg_oom_pid(a, strlen(a)), 4242);
    const char *b = "6,811,104833900,-;oom-kill:constraint=CONSTRAINT_MEMCG,task=python3,pid=4243,uid=0";
    assert_int_equal(nd_kmsg_oom_pid(b, strlen(b)), 4243);
    const char *c = "6,1,2,-;usb 1-1: new high-speed USB device number 2";
    assert_int_equal(nd_kmsg_oom_pid(c, strlen(c)), -1);
    const char *d = "5,0,0,-;Killed process 99999999999 (x)";
    assert_int_equal(nd_kmsg_oom_pid(d, strlen(d)), -1);
    /* Truncated right after the key: no pid, no overread. */
    assert_int_equal(nd_kmsg_oom_pid(a, 33), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdicts),         cmocka_unit_test(test_partial_fallback),
        cmocka_unit_test(test_storage_bound),    cmocka_unit_test(test_wchan_and_free_cores),
        cmocka_unit_test(test_exit_tail),        cmocka_unit_test(test_host_memory_exit),
        cmocka_unit_test(test_stopped),          cmocka_unit_test(test_kmsg),
        cmocka_unit_test(test_inproc_fallback),  cmocka_unit_test(test_starved),
        cmocka_unit_test(test_storage_no_reads), cmocka_unit_test(test_masked_exit),
        cmocka_unit_test(test_traceback_blocks), cmocka_unit_test(test_inproc_io_hidden),
        cmocka_unit_test(test_child_exit_live),  cmocka_unit_test(test_pause_over),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
