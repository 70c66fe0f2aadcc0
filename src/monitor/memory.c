/* memory: device memory nearly full, the cgroup OOM killer striking, and the
 * job's RSS closing in on the cgroup limit. */
#include <inttypes.h>
#include <stdio.h>

#include "monitor/detect.h"

const char *nd_cgroup_limit_file(const struct nd_detect_context *ctx)
{
    return ctx->cgroup_v1 ? "memory.limit_in_bytes (v1)" : "memory.max";
}

static void nd_device_full(const struct nd_series *s, const struct nd_sample *b, struct nd_findings *out)
{
    for (size_t d = 0; d < s->ndev && d < b->ndev; d++) {
        if (!(b->held_mask & (1u << d)) || s->dev[d].mem_total_bytes == 0)
            continue;
        double total_mib = (double)s->dev[d].mem_total_bytes / (1024.0 * 1024.0);
        size_t i = 0;
        for (; i < ND_DEVICE_MEM_FULL_SAMPLES; i++) {
            const struct nd_sample *x = nd_series_recent(s, i);
            if (!x || x->mem_mib[d] == ND_SERIES_MEM_UNKNOWN || x->mem_mib[d] <= ND_DEVICE_MEM_FULL * total_mib)
                break;
        }
        if (i < ND_DEVICE_MEM_FULL_SAMPLES)
            continue;
        struct nd_finding *f = nd_findings_add(out, "memory.device-full", ND_CAT_DEVICE_OOM, ND_SEV_WARNING,
                                               "%s device %d memory is above 95%% and an OOM is near", s->dev[d].vendor,
                                               s->dev[d].index);
        f->at_s = b->t;
        f->confidence = ND_CONF_MEDIUM;
        nd_finding_add_evidence(f, NULL, 0, "device %d: %" PRIu32 " of %.0f MiB used for the last %d samples",
                                s->dev[d].index, b->mem_mib[d], total_mib, ND_DEVICE_MEM_FULL_SAMPLES);
        nd_finding_set_cause(f, "The model, activations and optimizer state nearly fill the device memory; the next "
                                "larger batch or sequence will fail to allocate.");
        nd_finding_add_fix(f, "lower the batch size, or use gradient accumulation / activation checkpointing");
        nd_finding_add_fix(f, "mixed precision (bf16/fp16) halves activation memory");
        return;
    }
}

void nd_detect_memory(const struct nd_series *s, const struct nd_detect_config *cfg,
                      const struct nd_detect_context *ctx, struct nd_findings *out)
{
    (void)cfg;
    const struct nd_sample *b = nd_series_last(s);
    const struct nd_sample *first = nd_series_first(s);
    if (!b)
        return;
    nd_device_full(s, b, out);

    if (b->oom_kill >= 0 && first->oom_kill >= 0 && b->oom_kill > first->oom_kill) {
        struct nd_finding *f = nd_findings_add(out, "memory.host-oom", ND_CAT_HOST_OOM, ND_SEV_ERROR,
                                               "The kernel OOM killer killed a process in the job's cgroup");
        f->at_s = b->t;
        nd_finding_add_evidence(f, NULL, 0, "cgroup memory.events oom_kill: %" PRId64 " at start, %" PRId64 " now",
                                first->oom_kill, b->oom_kill);
        const struct nd_sample *prev = nd_series_recent(s, 1);
        if (ctx->nvanished && prev && prev->oom_kill >= 0 && prev->oom_kill < b->oom_kill) {
            for (size_t i = 0; i < ctx->nvanished && i < 4; i++)
                nd_finding_add_evidence(f, NULL, 0, "pid %d of the job vanished at that moment: most likely the victim",
                                        (int)ctx->vanished[i]);
        } else {
            f->confidence = ND_CONF_MEDIUM;
            nd_finding_add_evidence(f, NULL, 0,
                                    "no process of the job vanished at that moment: the victim may be "
                                    "another process of the cgroup");
        }
        if (b->cg_mem_max)
            nd_finding_add_evidence(f, NULL, 0, "cgroup %s: %.0f MiB; job RSS now %.0f MiB, at most %.0f MiB",
                                    nd_cgroup_limit_file(ctx), (double)b->cg_mem_max / 1048576.0,
                                    (double)b->rss_bytes / 1048576.0, (double)ctx->peak_rss / 1048576.0);
        else if (ctx->peak_rss)
            nd_finding_add_evidence(f, NULL, 0, "job RSS at most %.0f MiB", (double)ctx->peak_rss / 1048576.0);
        nd_finding_set_cause(f, "Host memory in the cgroup ran out (limit of the container, pod or Slurm job).");
        nd_finding_add_fix(f,
                           "raise the memory limit (docker --memory, Kubernetes resources.limits.memory, Slurm --mem)");
        nd_finding_add_fix(f, "lower DataLoader num_workers and prefetch_factor; each worker holds its own copy of "
                              "the data set object");
    }

    if (b->cg_mem_max > 0 && (double)b->rss_bytes >= ND_RSS_NEAR_LIMIT * (double)b->cg_mem_max) {
        struct nd_finding *f = nd_findings_add(out, "memory.rss-near-limit", ND_CAT_HOST_OOM, ND_SEV_WARNING,
                                               "The job's memory is close to the cgroup limit");
        f->at_s = b->t;
        f->confidence = ND_CONF_MEDIUM;
        nd_finding_add_evidence(f, NULL, 0, "RSS of the job: %.0f MiB; cgroup %s: %.0f MiB (%.0f%%)",
                                (double)b->rss_bytes / 1048576.0, nd_cgroup_limit_file(ctx),
                                (double)b->cg_mem_max / 1048576.0, 100.0 * (double)b->rss_bytes / (double)b->cg_mem_max);
        nd_finding_set_cause(f, "When the limit is reached the kernel OOM killer ends a process of the job.");
        nd_finding_add_fix(f, "raise the memory limit, or lower num_workers / batch size / cached data");
    }
}
