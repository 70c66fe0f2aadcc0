/* cpu-fallback inside the device holder: the process that holds the device
 * computes on the CPU itself while its device idles, and reads little. The
 * whole-job form (fallback.c) needs no device held and the per-process form
 * (procverdict.c) a sibling on the CPU; here the one process does both, so
 * only its own CPU beside its idle device shows it: the loss, a layer or the
 * optimizer on the CPU, a .cpu() round trip, a default device of "cpu", a
 * fallback after a caught error. A process that reads its data (num_workers=0
 * decoding files) is input-bound instead (idle.c). */
#include <stdio.h>
#include <string.h>

#include "device/device.h"
#include "monitor/detect.h"

/* The holders' own sustained CPU, and their share of the job's. A single-
 * threaded step loop sits near one core; a loaded host gives it less but
 * keeps it runnable. */
#define ND_INPROC_HOLDER_CORES 0.5
#define ND_INPROC_SHARE 0.6
/* A runnable process that gets less than this even on a crowded host is
 * mostly waiting its turn at exit or start-up (an interpreter tearing
 * down), not stepping through a model. */
#define ND_INPROC_MIN_CORES 0.15
/* What a model computing on the CPU writes besides its output: event files
 * and metrics, a few KiB/s. A job writing more is saving or syncing data. */
#define ND_INPROC_WRITE_RATE (64.0 * 1024.0) /* bytes/s */

/* A process's use: its sustained mean, or its last interval's when more
 * (its mean may reach back before the window, into a phase on the device). */
static double nd_use(const struct nd_detect_proc *p)
{
    return p->win_cores > p->cores ? p->win_cores : p->cores;
}

/* On a host whose run queue is longer than its CPUs, a step loop that wants
 * the CPU all the time may get a tenth of a core: runnable at nearly every
 * sample, for a whole window and longer, is wanting to compute, where an
 * interpreter tearing down is runnable for a moment. */
#define ND_INPROC_STARVED_RUNNABLE 0.9

/* job_busy: the job computed over the window as a whole; contended: the
 * host's load is above its CPUs. */
static bool nd_holder_busy(const struct nd_detect_proc *p, bool job_busy, bool contended, double window_s)
{
    if (!p->holds_device)
        return false;
    double use = nd_use(p);
    if (contended && p->win_runnable >= ND_INPROC_STARVED_RUNNABLE && p->tracked_s >= 2 * window_s)
        return true;
    return p->win_cores >= ND_INPROC_HOLDER_CORES ||
           (use >= ND_INPROC_MIN_CORES &&
            (p->win_runnable >= ND_BUSY_RUNNABLE || (job_busy && p->cores >= ND_INPROC_HOLDER_CORES)));
}

bool nd_inproc_window(const struct nd_series *s, const struct nd_detect_config *cfg,
                      const struct nd_detect_context *ctx, struct nd_inproc *out)
{
    memset(out, 0, sizeof *out);
    if (!nd_input_window(s, cfg, &out->a, &out->b, &out->util, &out->job_util))
        return false;
    const struct nd_sample *a = out->a, *b = out->b;
    /* The job as a whole may look less than busy (the holder's main thread
     * asleep in a join while another of its threads computes, on a loaded
     * host): the holder's own CPU below decides. */
    out->cores = nd_series_avg_cores(a, b);
    bool job_busy = out->cores >= ND_BUSY_CORES || nd_series_runnable_frac(a, b) >= ND_BUSY_RUNNABLE;
    if (nd_series_iowait_own(a, b) >= 0.5)
        return false; /* asleep in reads: storage.c */
    /* Runnable on a crowded host, yet mostly not running when its turn
     * comes (asleep in writes, fsync): the host's contention, not a model
     * on the CPU. A holder that computes runs whenever it is not waiting. */
    if (out->cores < ND_BUSY_CORES && nd_series_cpu_wait_frac(a, b) >= 0.2 && nd_series_runnable_own(a, b) < 0.5)
        return false;
    /* Where /proc/PID/io cannot be read (another user's job, a container
     * that hides it) the reads are unknown, not zero: the finding says so. */
    out->io_known = b->io_valid;
    out->read_rate = out->io_known ? nd_series_read_rate(a, b) : 0;
    if (out->read_rate >= ND_INPROC_READ_RATE)
        return false; /* it reads its data: the input pipeline */
    /* Writing other than its output (a checkpoint, a record and fsync per
     * step) is I/O work too: the storage forms' story, not a model on the
     * CPU. On a fast disk such a loop barely waits, so iowait alone misses it. */
    if (out->io_known && nd_series_write_rate(a, b) >= ND_INPROC_WRITE_RATE)
        return false;
    bool contended = ctx->host_cpus > 0 && ctx->loadavg1 > (double)ctx->host_cpus;
    double total = 0;
    for (size_t i = 0; i < ctx->nprocs; i++) {
        const struct nd_detect_proc *p = &ctx->procs[i];
        total += nd_use(p);
        if (!nd_holder_busy(p, job_busy, contended, cfg->window_s))
            continue;
        out->holder_cores += nd_use(p);
        if (!out->holder || nd_use(p) > nd_use(out->holder))
            out->holder = p;
    }
    if (!out->holder)
        return false;
    /* Busy workers beside it: their input pipeline is the bigger story. */
    return total <= 0 || out->holder_cores >= ND_INPROC_SHARE * total;
}

void nd_detect_inproc_fallback(const struct nd_series *s, const struct nd_detect_config *cfg,
                               const struct nd_detect_context *ctx, struct nd_findings *out)
{
    struct nd_inproc w;
    if (!nd_inproc_window(s, cfg, ctx, &w))
        return;
    const struct nd_vendor *v = nd_vendor_by_name(ctx->device_vendor);
    if (!v)
        v = nd_vendors[0];
    const struct nd_detect_proc *h = w.holder;
    struct nd_finding *f = nd_findings_add(out, "fallback.in-process", ND_CAT_CPU_FALLBACK, ND_SEV_WARNING,
                                           "The process holding the %s computes on the CPU itself: %.0f%% device "
                                           "utilisation, %.1f cores busy in pid %d",
                                           v->device_noun, w.util, nd_use(h), (int)h->pid);
    f->at_s = w.b->t;
    f->confidence = ND_CONF_MEDIUM;
    nd_finding_add_evidence(f, NULL, 0, "device utilisation: %.0f%% on average over the last %.0f s (%s)", w.util,
                            cfg->window_s, w.job_util ? "the devices the job holds" : "all devices");
    nd_finding_add_evidence(f, NULL, 0, "pid %d %s holds a device and uses %.1f cores (%.0f%% of the job's CPU)",
                            (int)h->pid, h->cmd[0] ? h->cmd : h->comm, nd_use(h),
                            w.cores > 0 ? 100.0 * (w.holder_cores < w.cores ? w.holder_cores : w.cores) / w.cores
                                        : 100.0);
    if (!w.io_known) {
        f->confidence = ND_CONF_LOW;
        nd_finding_add_evidence(f, NULL, 0,
                                "reads: unknown (/proc/PID/io cannot be read here): an input pipeline reading "
                                "its data cannot be ruled out");
    } else if (w.read_rate >= 1024 * 1024)
        nd_finding_add_evidence(f, NULL, 0, "reads: %.1f MiB/s over the window: it is not loading data",
                                w.read_rate / (1024 * 1024));
    else
        nd_finding_add_evidence(f, NULL, 0, "reads: %.0f KiB/s over the window: it is not loading data",
                                w.read_rate / 1024);
    /* Busy before: something moved the work off the device mid-run. */
    const struct nd_sample *first = nd_series_first(s);
    double before = 0;
    if (w.a->t - first->t >= cfg->window_s && nd_series_avg_job_util(first, w.a, &before) &&
        before >= 2 * ND_INPUT_BOUND_UTIL)
        nd_finding_add_evidence(f, NULL, 0, "earlier the device was busy: %.0f%% on average until %.1f s", before,
                                w.a->t);
    if (ctx->op_fallback_lines > 0)
        nd_finding_add_evidence(f, "output", 0, "%s", ctx->op_fallback_example);
    nd_finding_set_cause(f, "Part of every step runs on the CPU in the process that owns the device: the loss, a "
                            "layer or the optimizer step left on the CPU (device_map=\"auto\", an offload setting), "
                            "a .cpu() round trip, tensors created on the CPU by default, or a fallback to the CPU "
                            "after an error the job caught. The device waits for it.");
    nd_finding_add_fix(f, "py-spy dump --pid %d   # which Python lines keep the CPU busy", (int)h->pid);
    nd_finding_add_fix(f,
                       "print({n: p.device for n, p in model.named_parameters()})   # every parameter on "
                       "\"%s\"? the loss, targets and optimizer state too",
                       v->torch_device);
    nd_finding_add_fix(f,
                       "create tensors on the device (device=\"%s\"), avoid .cpu()/.item() inside the step, and "
                       "keep device_map / offload settings off the CPU",
                       v->torch_device);
}
