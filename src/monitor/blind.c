/* What the monitor could not see. Run as another user than the job, or in a
 * container that hides parts of /proc, the sampler cannot read a process's
 * open files, maps or I/O counters; the detectors then judge from what is
 * left (CPU, the vendor's process list), and a quiet summary must not read
 * as a clean bill of health: this note says what was missing. */
#include <stdio.h>
#include <string.h>

#include "monitor/detect.h"

void nd_detect_limited_view(const struct nd_detect_context *ctx, double at_s, struct nd_findings *out)
{
    bool maps = ctx->nprocs > 0 && !ctx->frameworks_known;
    if (!maps && !ctx->fds_denied && !ctx->io_denied)
        return;
    char what[160] = "";
    size_t n = 0;
    const char *parts[3] = {maps ? "maps (loaded frameworks)" : NULL, ctx->fds_denied ? "fd (open device files)" : NULL,
                            ctx->io_denied ? "io (bytes read and written)" : NULL};
    for (size_t i = 0; i < 3; i++) {
        if (!parts[i])
            continue;
        int k = snprintf(what + n, sizeof what - n, "%s/proc/PID/%s", n ? ", " : "", parts[i]);
        if (k < 0 || (size_t)k >= sizeof what - n)
            break;
        n += (size_t)k;
    }
    struct nd_finding *f = nd_findings_add(out, "monitor.limited-view", ND_CAT_CONFIG, ND_SEV_INFO,
                                           "Part of the job was hidden from npu-doctor: its verdicts rest on less");
    f->at_s = at_s;
    f->confidence = ND_CONF_HIGH;
    nd_finding_add_evidence(f, NULL, 0, "not readable for some processes of the job: %s", what);
    nd_finding_set_cause(f, "npu-doctor runs as another user than the job (reading those files needs the rights "
                            "to trace it), or a container hides them. Device use was judged from the vendor's "
                            "process list and the CPU alone; an input pipeline or a device held through a "
                            "hidden file may have gone unseen.");
    nd_finding_add_fix(f, "run npu-doctor as the job's user, or as root on the host (sudo npu-doctor watch --pid %d)",
                       (int)ctx->root_pid);
}
