/* hang: no output, almost no CPU and an idle device for --hang-after
 * seconds. Usually a collective waiting for a rank that died. */
#include <stdio.h>
#include <string.h>

#include "monitor/detect.h"

void nd_detect_hang(const struct nd_series *s, const struct nd_detect_config *cfg,
                    const struct nd_detect_context *ctx, struct nd_findings *out)
{
    const struct nd_sample *b = nd_series_last(s);
    const struct nd_sample *first = nd_series_first(s);
    if (!b || b->t - first->t + 1e-6 < cfg->hang_after_s)
        return;
    const struct nd_sample *a = nd_series_at(s, b->t - cfg->hang_after_s);
    if (!a)
        return;
    if (b->out_valid && b->out_bytes != a->out_bytes)
        return;
    double cores = nd_series_avg_cores(a, b);
    if (cores >= ND_HANG_MAX_CORES)
        return;
    double util = 0;
    bool held = b->held_s - a->held_s > 0 || b->on_device;
    if (held && nd_series_avg_job_util(a, b, &util) && util >= 0.5)
        return;

    struct nd_finding *f = nd_findings_add(out, "hang.no-progress", ND_CAT_HANG, ND_SEV_WARNING,
                                           "The job looks stuck: no output, no CPU, no device work for %.0f s",
                                           cfg->hang_after_s);
    f->at_s = b->t;
    f->confidence = ND_CONF_MEDIUM;
    if (b->out_valid)
        nd_finding_add_evidence(f, NULL, 0, "output: nothing new for %.0f s (%llu lines so far)", cfg->hang_after_s,
                                (unsigned long long)b->out_lines);
    else
        nd_finding_add_evidence(f, NULL, 0, "output: not observable (attached with watch)");
    nd_finding_add_evidence(f, NULL, 0, "CPU: %.3f cores on average, %u processes, %u threads", cores, b->nprocs,
                            b->nthreads);
    if (held)
        nd_finding_add_evidence(f, NULL, 0, "device: held by the job, %.0f%% utilisation", util);
    else
        nd_finding_add_evidence(f, NULL, 0, "device: the job holds none");
    nd_finding_set_cause(f, "A process waiting on something that never comes: most often a collective "
                            "(all-reduce, barrier) waiting for a rank that died or never joined, or a lock.");
    bool nvidia = strcmp(ctx->device_vendor, "nvidia") == 0;
    nd_finding_add_fix(f, "py-spy dump --pid %d   # where each Python thread is stuck", (int)ctx->root_pid);
    if (nvidia) {
        nd_finding_add_fix(f, "NCCL_DEBUG=INFO and TORCH_NCCL_BLOCKING_WAIT=1 / the init_process_group(timeout=...) "
                              "decide how long a collective waits");
        nd_finding_add_fix(f, "device logs: dmesg | grep -i xid; nvidia-smi -q");
    } else {
        nd_finding_add_fix(f, "HCCL_CONNECT_TIMEOUT and HCCL_EXEC_TIMEOUT decide how long a collective waits; check "
                              "every rank is alive");
        nd_finding_add_fix(f, "device logs: ~/ascend/log/debug/plog/, npu-smi info, dmesg");
    }
}
