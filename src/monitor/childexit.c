/* A process of the job died (a kill or crash signal, a rank's non-zero
 * exit) while the job runs on: said at once, not at the end, since whoever
 * waits on it (a trainer on its DataLoader worker, a launcher on a rank)
 * may wait for ever and the hang detector needs --hang-after to say so. */
#include <stdio.h>

#include "monitor/detect.h"

void nd_detect_child_exit(const struct nd_series *s, const struct nd_detect_config *cfg,
                          const struct nd_detect_context *ctx, struct nd_findings *out)
{
    (void)cfg;
    const struct nd_sample *b = nd_series_last(s);
    if (!b || ctx->nchild_exits == 0)
        return;
    const struct nd_child_exit *c = &ctx->child_exits[0];
    struct nd_finding *f;
    if (ctx->nchild_exits == 1)
        f = nd_findings_add(out, "exit.child-failed", ND_CAT_CONFIG, ND_SEV_WARNING,
                            "A process of the job failed while the job goes on: pid %d%s%s", (int)c->pid,
                            c->rank[0] ? ", rank " : "", c->rank);
    else
        f = nd_findings_add(out, "exit.child-failed", ND_CAT_CONFIG, ND_SEV_WARNING,
                            "%zu processes of the job failed while the job goes on", ctx->nchild_exits);
    f->at_s = b->t;
    f->confidence = ND_CONF_HIGH;
    char all[768];
    nd_detect_describe_child_exits(ctx, 4, all, sizeof all);
    nd_finding_add_evidence(f, NULL, 0, "failed: %s", all);
    nd_finding_add_evidence(f, NULL, 0, "the main process pid %d still runs", (int)ctx->root_pid);
    nd_finding_set_cause(f, "A worker, rank or helper of the job ended abnormally; whoever waits on it (a trainer "
                            "on its DataLoader queue, a launcher or collective on a rank) may wait for ever. "
                            "SIGKILL usually comes from the OOM killer or a scheduler limit.");
    nd_finding_add_fix(f, "dmesg | grep -i -e oom -e killed   # for a SIGKILL");
    nd_finding_add_fix(f, "DataLoader(..., timeout=600) and init_process_group(timeout=...) turn a wait on a dead "
                          "worker or rank into an error");
}
