/* cpu-fallback: the job computes on the CPU although a usable device is
 * present. Staged (policy in detect.h) so that a job still loading data on
 * the CPU is not accused before --fallback-after. */
#include <stdio.h>
#include <string.h>

#include "device/device.h"
#include "monitor/detect.h"

/* The descriptor of the device the job could use; the first vendor when
 * the sampler named none (device nodes without any library). */
static const struct nd_vendor *nd_fallback_vendor(const struct nd_detect_context *ctx)
{
    const struct nd_vendor *v = nd_vendor_by_name(ctx->device_vendor);
    return v ? v : nd_vendors[0];
}

/* Total used/total device memory at a sample, in MiB; false when unknown. */
static bool nd_device_memory(const struct nd_series *s, const struct nd_sample *b, double *used, double *total)
{
    bool any = false;
    *used = *total = 0;
    for (size_t d = 0; d < b->ndev && d < s->ndev; d++) {
        if (b->mem_mib[d] == ND_SERIES_MEM_UNKNOWN)
            continue;
        any = true;
        *used += b->mem_mib[d];
        *total += (double)s->dev[d].mem_total_bytes / (1024.0 * 1024.0);
    }
    return any;
}

/* True when the job let its device go in the recent samples and has had
 * less CPU since than a busy core gets in `need` seconds: a runtime releases
 * its device as the job ends, and the process then tears down (frees its
 * tensors, unloads libraries), CPU work that on a crowded host, a fraction
 * of a core at a time, stretches past a window. Judged by CPU time, not the
 * clock, so a job that computes on silently after it closed the device is
 * still caught once it has had a window's worth of a core, as on a quiet
 * host; one whose output goes on a window after the release is not ending. */
static bool nd_fallback_releasing(const struct nd_series *s, const struct nd_sample *b, double need, double window_s)
{
    if (b->held_s <= 0)
        return false;
    for (size_t i = 1;; i++) {
        const struct nd_sample *p = nd_series_recent(s, i);
        if (!p || b->cpu_s - p->cpu_s >= need)
            return false;
        if (!p->on_device)
            continue;
        /* Output a window after the release (what it printed before is read
         * late on a crowded host): it computes on, it is not ending. */
        const struct nd_sample *q = nd_series_at(s, p->t + window_s);
        return !(q && q != b && b->out_valid && q->out_valid && b->out_bytes > q->out_bytes);
    }
}

/* The start's twin: a job that has held nothing yet and is runnable only a
 * fraction of a core at a time (a crowded host: it waits in the run queue)
 * may still be importing its framework, which takes the same CPU whatever
 * the clock says, and prints nothing meanwhile. It is judged once it has
 * had a window's worth of a core since it started, or as soon as it has
 * printed (past its imports: "training on cpu", its steps). */
static bool nd_fallback_starting(const struct nd_series *s, const struct nd_sample *b, double need)
{
    const struct nd_sample *first = nd_series_first(s);
    if (b->held_s > 0 || b->cpu_s - first->cpu_s >= need)
        return false;
    return !(b->out_valid && b->out_bytes > 0);
}

void nd_detect_fallback(const struct nd_series *s, const struct nd_detect_config *cfg,
                        const struct nd_detect_context *ctx, struct nd_findings *out)
{
    const struct nd_sample *b = nd_series_last(s);
    const struct nd_sample *first = nd_series_first(s);
    if (!ctx->device_usable || !b || b->t - first->t + 1e-6 < cfg->window_s)
        return;
    const struct nd_sample *a = nd_series_at(s, b->t - cfg->window_s);
    if (!a || b->on_device || b->held_s - a->held_s > 0)
        return;
    double cores = nd_series_avg_cores(a, b);
    /* Runnable only while waiting its turn for a CPU is not computing. */
    double runnable = nd_series_runnable_own(a, b);
    if (cores < ND_BUSY_CORES && runnable < ND_BUSY_RUNNABLE)
        return;
    if (nd_fallback_releasing(s, b, cfg->window_s * ND_BUSY_CORES, cfg->window_s))
        return;
    /* Only where the run queue shows the wait (schedstat): without it the
     * window's clock judges, as it always did. */
    if (cores < ND_BUSY_CORES && nd_series_cpu_wait_frac(a, b) >= 0.2 &&
        nd_fallback_starting(s, b, cfg->window_s * ND_BUSY_CORES))
        return;

    const struct nd_vendor *v = nd_fallback_vendor(ctx);
    const char *vendor = v->name;
    unsigned devfw = v->frameworks;
    bool fw_loaded = !ctx->frameworks_known || (b->frameworks & devfw);
    enum nd_severity sev = ND_SEV_ERROR;
    if (fw_loaded) {
        /* Loaded but unused: an error only after --fallback-after without a device. */
        const struct nd_sample *c = b->t - first->t + 1e-6 >= cfg->fallback_after_s
                                        ? nd_series_at(s, b->t - cfg->fallback_after_s)
                                        : NULL;
        sev = (c && b->held_s - c->held_s <= 0) ? ND_SEV_ERROR : ND_SEV_WARNING;
    }

    const char *word = v->device_phrase;
    size_t ndev = ctx->ndevices;
    struct nd_finding *f;
    if (ndev > 0)
        f = nd_findings_add(out, "fallback.cpu-fallback", ND_CAT_CPU_FALLBACK, sev,
                            "The job computes on the CPU while %zu %s%s sit%s idle", ndev, word, ndev == 1 ? "" : "s",
                            ndev == 1 ? "s" : "");
    else
        f = nd_findings_add(out, "fallback.cpu-fallback", ND_CAT_CPU_FALLBACK, sev,
                            "The job computes on the CPU while the %ss sit idle", word);
    f->at_s = b->t;
    f->confidence = fw_loaded ? ND_CONF_MEDIUM : ND_CONF_HIGH;

    if (cores >= ND_BUSY_CORES)
        nd_finding_add_evidence(f, NULL, 0, "CPU: %.1f cores on average over the last %.0f s (%u process%s, %u threads)",
                                cores, cfg->window_s, b->nprocs, b->nprocs == 1 ? "" : "es", b->nthreads);
    else
        nd_finding_add_evidence(f, NULL, 0,
                                "CPU: %.1f cores on average over the last %.0f s, runnable %.0f%% of the time "
                                "(the host is busy; %u process%s, %u threads)",
                                cores, cfg->window_s, runnable * 100, b->nprocs, b->nprocs == 1 ? "" : "es", b->nthreads);
    double util = 0, used = 0, total = 0;
    bool util_known = nd_series_avg_dev_util(a, b, &util);
    bool mem_known = nd_device_memory(s, b, &used, &total);
    char devs[160];
    if (ndev > 0)
        snprintf(devs, sizeof devs, "%zu x %s%s%s", ndev, vendor, ctx->device_name[0] ? " " : "", ctx->device_name);
    else
        snprintf(devs, sizeof devs, "%s device nodes", vendor);
    char utilbuf[64] = "utilisation unknown";
    if (util_known)
        snprintf(utilbuf, sizeof utilbuf, "%.0f%% utilisation", util);
    char membuf[96] = "";
    if (mem_known && total > 0)
        snprintf(membuf, sizeof membuf, ", %.1f of %.0f GiB device memory used", used / 1024, total / 1024);
    if (ctx->fds_denied) {
        /* Seen only through the vendor's process list, which names host pids. */
        f->confidence = ND_CONF_LOW;
        nd_finding_add_evidence(f, NULL, 0,
                                "devices: %s present, %s%s; the vendor's process list names no process of the job, "
                                "and their open files (/proc/PID/fd) cannot be read here",
                                devs, utilbuf, membuf);
    } else {
        nd_finding_add_evidence(f, NULL, 0, "devices: %s present, %s%s; no process of the job holds one", devs, utilbuf,
                                membuf);
    }
    char fw[160];
    nd_detect_frameworks_text(b->frameworks, fw, sizeof fw);
    if (!ctx->frameworks_known)
        nd_finding_add_evidence(f, NULL, 0, "frameworks mapped: unknown (/proc/PID/maps not readable)");
    else if (!(b->frameworks & devfw))
        nd_finding_add_evidence(f, NULL, 0, "frameworks mapped: %s; not loaded: %s", fw[0] ? fw : "none",
                                v->frameworks_text);
    else
        nd_finding_add_evidence(f, NULL, 0, "frameworks mapped: %s (loaded, but no device opened)", fw);
    char busy[512];
    nd_detect_describe_busy(ctx, 3, busy, sizeof busy);
    if (busy[0])
        nd_finding_add_evidence(f, NULL, 0, "busy: %s", busy);

    if (!fw_loaded)
        nd_finding_set_cause(f,
                             "No process of the job has loaded %s, so nothing in it can run on the %s; a "
                             "framework whose device fails to initialise silently keeps every tensor on the "
                             "CPU (device_map=\"auto\" picks the CPU).",
                             v->frameworks_text, word);
    else if (sev == ND_SEV_ERROR)
        nd_finding_set_cause(f,
                             "The device framework is loaded, but for %.0f s no process of the job opened a "
                             "device: the model and data were never moved to it, or its initialisation failed.",
                             cfg->fallback_after_s);
    else
        nd_finding_set_cause(f,
                             "The device framework is loaded but no process of the job has opened a device yet; "
                             "if this is not data loading, the model was never moved to the device "
                             "(an error follows after %.0f s).",
                             cfg->fallback_after_s);
    nd_finding_add_fix(f, "%s   # must print True", v->torch_check);
    nd_finding_add_fix(f, "move the model and batches to the device: model.to(\"%s\"), batch.to(\"%s\")",
                       v->torch_device, v->torch_device);
}
