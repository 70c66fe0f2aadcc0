/* input-bound: the job holds a device, yet after --warmup the device sits
 * mostly idle for a whole window while the CPU side is busy: it waits for data. */
#include <stdio.h>

#include "monitor/detect.h"

bool nd_input_window(const struct nd_series *s, const struct nd_detect_config *cfg, const struct nd_sample **a,
                     const struct nd_sample **b, double *util, bool *job_util)
{
    *b = nd_series_last(s);
    const struct nd_sample *first = nd_series_first(s);
    if (!*b || (*b)->t - first->t + 1e-6 < cfg->warmup_s + cfg->window_s)
        return false;
    *a = nd_series_at(s, (*b)->t - cfg->window_s);
    if (!*a || !(*b)->on_device || nd_series_held_frac(*a, *b) < 0.9)
        return false;
    *job_util = nd_series_avg_job_util(*a, *b, util);
    if (!*job_util && !nd_series_avg_dev_util(*a, *b, util))
        return false;
    return *util < ND_INPUT_BOUND_UTIL;
}

void nd_detect_input_bound(const struct nd_series *s, const struct nd_detect_config *cfg,
                           const struct nd_detect_context *ctx, struct nd_findings *out)
{
    const struct nd_sample *a, *b;
    double util;
    bool job_util;
    if (!nd_input_window(s, cfg, &a, &b, &util, &job_util))
        return;
    double cores = nd_series_avg_cores(a, b);
    /* Runnable while waiting for a CPU on a contended host is not busy:
     * judged on the time it did not wait (contention.c tells the rest). */
    double runnable = nd_series_runnable_own(a, b);
    if (cores < ND_BUSY_CORES && runnable < ND_BUSY_RUNNABLE)
        return;
    /* Mostly asleep in reads: the storage form (storage.c) tells that story. */
    if (nd_series_iowait_own(a, b) >= 0.5)
        return;
    /* The device holder itself computes and reads little: inproc.c. */
    struct nd_inproc w;
    if (nd_inproc_window(s, cfg, ctx, &w))
        return;

    struct nd_finding *f = nd_findings_add(out, "idle.input-bound", ND_CAT_INPUT_BOUND, ND_SEV_WARNING,
                                           "The device waits for data: %.0f%% utilisation while the CPU is busy", util);
    f->at_s = b->t;
    f->confidence = ND_CONF_MEDIUM;
    nd_finding_add_evidence(f, NULL, 0, "device utilisation: %.0f%% on average over the last %.0f s (%s)", util,
                            cfg->window_s, job_util ? "the devices the job holds" : "all devices");
    nd_finding_add_evidence(f, NULL, 0, "CPU: %.1f cores on average over the same window, %u processes", cores,
                            b->nprocs);
    /* The DataLoader workers: every busy process except the main one. */
    size_t workers = 0;
    double wcores = 0;
    for (size_t i = 0; i < ctx->nprocs; i++)
        if (ctx->procs[i].pid != ctx->root_pid && !ctx->procs[i].holds_device) {
            workers++;
            wcores += ctx->procs[i].cores;
        }
    char busy[512];
    nd_detect_describe_busy(ctx, 4, busy, sizeof busy);
    if (workers)
        nd_finding_add_evidence(f, NULL, 0, "worker processes (DataLoader?): %zu using %.1f cores; busiest: %s",
                                workers, wcores, busy);
    else if (busy[0])
        nd_finding_add_evidence(f, NULL, 0, "no worker processes; busiest: %s", busy);
    if (ctx->op_fallback_lines > 0) {
        nd_finding_add_evidence(f, "output", 0, "%s", ctx->op_fallback_example);
        nd_finding_set_cause(f,
                             "The output says %ld time%s that an operator will fall back to run on the CPU: those "
                             "operators run on the CPU and the device waits for them (the likely cause).",
                             ctx->op_fallback_lines, ctx->op_fallback_lines == 1 ? "" : "s");
        nd_finding_add_fix(f, "make the operators named in the \"will fall back to run on the CPU\" warnings run on "
                              "the device (newer torch_npu/CANN, or another op)");
    } else {
        nd_finding_set_cause(f, "The input pipeline (loading, decoding, augmenting on the CPU) does not feed the "
                                "device fast enough.");
    }
    long free = nd_detect_free_cores(ctx, cores);
    if (free > 0)
        nd_finding_add_fix(f, "DataLoader(..., num_workers=%zu, persistent_workers=True)   # %ld cores are free",
                           workers + (size_t)free, free);
    else
        nd_finding_add_fix(f, "keep num_workers as it is: no core is free for more workers; make each sample "
                              "cheaper (decode once, cache the decoded data)");
    nd_finding_add_fix(f, "DataLoader(..., pin_memory=True, prefetch_factor=4)");
    nd_finding_add_fix(f, "put the data set on faster local storage (NVMe, /dev/shm) or cache it decoded");
}
