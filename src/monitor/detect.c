/* Shared pieces of the detectors: defaults, the device frameworks of a
 * vendor, evidence text about busy processes, and the per-tick driver. */
#include "monitor/detect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device.h"
#include "proc/footprint.h"

void nd_detect_config_default(struct nd_detect_config *cfg)
{
    cfg->interval_s = 1.0;
    cfg->window_s = 20.0;
    cfg->fallback_after_s = 120.0;
    cfg->warmup_s = 60.0;
    cfg->hang_after_s = 300.0;
}

unsigned nd_detect_device_frameworks(const char *vendor)
{
    const struct nd_vendor *v = nd_vendor_by_name(vendor);
    return (v ? v : nd_vendors[0])->frameworks;
}

static int nd_proc_cmp_cores(const void *a, const void *b)
{
    const struct nd_detect_proc *x = *(const struct nd_detect_proc *const *)a;
    const struct nd_detect_proc *y = *(const struct nd_detect_proc *const *)b;
    return (x->cores < y->cores) - (x->cores > y->cores);
}

void nd_detect_describe_busy(const struct nd_detect_context *ctx, size_t max, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!ctx->nprocs || size == 0)
        return;
    const struct nd_detect_proc **v = calloc(ctx->nprocs, sizeof *v);
    if (!v)
        return;
    for (size_t i = 0; i < ctx->nprocs; i++)
        v[i] = &ctx->procs[i];
    qsort(v, ctx->nprocs, sizeof *v, nd_proc_cmp_cores);
    size_t used = 0;
    for (size_t i = 0; i < ctx->nprocs && i < max && used + 1 < size; i++) {
        int n = snprintf(buf + used, size - used, "%s%d %s (%.1f cores)", i ? ", " : "", (int)v[i]->pid,
                         v[i]->cmd[0] ? v[i]->cmd : v[i]->comm, v[i]->cores);
        if (n < 0)
            break;
        used += (size_t)n;
        if (used >= size)
            used = size - 1;
    }
    if (ctx->nprocs > max && used + 1 < size)
        snprintf(buf + used, size - used, ", and %zu more", ctx->nprocs - max);
    free(v);
}

void nd_detect_name_procs(const struct nd_detect_context *ctx, bool (*pick)(const struct nd_detect_proc *),
                          void (*where)(const struct nd_detect_proc *, char *, size_t), char *buf, size_t size)
{
    size_t used = 0, shown = 0, total = 0;
    if (size == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < ctx->nprocs; i++) {
        const struct nd_detect_proc *p = &ctx->procs[i];
        if (!pick(p))
            continue;
        total++;
        if (shown >= 3 || used + 1 >= size)
            continue;
        char at[96];
        where(p, at, sizeof at);
        int n = snprintf(buf + used, size - used, "%s%d %s (%s)", shown ? ", " : "", (int)p->pid,
                         p->cmd[0] ? p->cmd : p->comm, at);
        if (n < 0)
            break;
        used += (size_t)n;
        if (used >= size)
            used = size - 1;
        shown++;
    }
    if (total > shown && used + 1 < size)
        snprintf(buf + used, size - used, ", and %zu more", total - shown);
}

void nd_detect_all(const struct nd_series *s, const struct nd_detect_config *cfg, const struct nd_detect_context *ctx,
                   struct nd_findings *out)
{
    nd_detect_fallback(s, cfg, ctx, out);
    nd_detect_partial_fallback(s, cfg, ctx, out);
    nd_detect_inproc_fallback(s, cfg, ctx, out);
    nd_detect_input_bound(s, cfg, ctx, out);
    nd_detect_storage_bound(s, cfg, ctx, out);
    nd_detect_contention(s, cfg, ctx, out);
    nd_detect_starved(s, cfg, ctx, out);
    nd_detect_hang(s, cfg, ctx, out);
    nd_detect_stopped(s, cfg, ctx, out);
    nd_detect_memory(s, cfg, ctx, out);
    nd_detect_child_exit(s, cfg, ctx, out);
}

void nd_detect_frameworks_text(unsigned frameworks, char *buf, size_t size)
{
    nd_frameworks_describe(frameworks, buf, size);
}
