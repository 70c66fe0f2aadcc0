/* hang: no output, almost no CPU and an idle device for --hang-after
 * seconds (usually a collective waiting for a rank that died), and the job
 * stopped by a signal. Hints only for what the job is: distributed ones
 * when it is, a vendor's when that vendor's devices are there, py-spy when
 * it is installed. */
#include <stdio.h>
#include <string.h>

#include "device/device.h"
#include "monitor/detect.h"

void nd_detect_hang(const struct nd_series *s, const struct nd_detect_config *cfg, const struct nd_detect_context *ctx,
                    struct nd_findings *out)
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
    if (nd_series_stopped_frac(a, b) >= 0.5)
        return; /* stopped by a signal: nd_detect_stopped says so */
    /* Runnable and waiting for a CPU most of the time is not stuck: the
     * host's other processes hold the cores (contention.c). */
    if (nd_detect_contended(a, b, ctx))
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
    /* A worker that died leaves whoever waits on it waiting for ever. */
    if (ctx->nchild_exits > 0) {
        char dead[768];
        nd_detect_describe_child_exits(ctx, 3, dead, sizeof dead);
        nd_finding_add_evidence(f, NULL, 0, "processes of the job that failed while it ran: %s", dead);
    } else if (!ctx->exit_notices)
        nd_finding_add_evidence(f, NULL, 0,
                                "failed processes: none seen, but the kernel's exit notices cannot be heard here "
                                "(they need CAP_NET_ADMIN on the host, not in a container): a worker that died "
                                "and was reaped at once would not show");
    bool distributed = false;
    for (size_t i = 0; i < ctx->nprocs; i++)
        distributed = distributed || ctx->procs[i].distributed;
    if (distributed)
        nd_finding_set_cause(f, "A process waiting on something that never comes: in a distributed job most often "
                                "a collective (all-reduce, barrier) or the rendezvous waiting for a rank that died, "
                                "hangs too, or never joined.");
    else if (ctx->nchild_exits > 0)
        nd_finding_set_cause(f, "A process waiting on something that never comes: here most likely a queue or "
                                "pipe the failed process named above was to fill (a DataLoader worker killed by "
                                "the OOM killer leaves its trainer waiting).");
    else
        nd_finding_set_cause(f, "A process waiting on something that never comes: a lock, a queue no worker "
                                "fills, a thread join, a read that never returns.");
    int pid = (int)ctx->root_pid;
    if (ctx->have_py_spy)
        nd_finding_add_fix(f, "py-spy dump --pid %d   # where each Python thread is stuck", pid);
    else if (ctx->have_gdb)
        nd_finding_add_fix(f,
                           "gdb -p %d -batch -ex 'thread apply all py-bt'   # Python stacks (py-spy is not "
                           "installed)",
                           pid);
    else
        nd_finding_add_fix(f, "pip install py-spy && py-spy dump --pid %d   # where each Python thread is stuck", pid);
    nd_finding_add_fix(f,
                       "kill -USR1 %d   # prints every thread's stack if the job called "
                       "faulthandler.register(signal.SIGUSR1)",
                       pid);
    if (distributed) {
        nd_finding_add_fix(f, "TORCH_DISTRIBUTED_DEBUG=DETAIL, and init_process_group(timeout=...) decides how long "
                              "a collective waits; check every rank is alive");
        const struct nd_vendor *v = ctx->device_usable ? nd_vendor_by_name(ctx->device_vendor) : NULL;
        if (v && v->collective_fix)
            nd_finding_add_fix(f, "%s", v->collective_fix);
    }
}

/* Every process of the job stopped by a signal (state T) for the window:
 * not a hang, and not the job's fault. */
void nd_detect_stopped(const struct nd_series *s, const struct nd_detect_config *cfg,
                       const struct nd_detect_context *ctx, struct nd_findings *out)
{
    const struct nd_sample *b = nd_series_last(s);
    const struct nd_sample *first = nd_series_first(s);
    double span = cfg->window_s < cfg->hang_after_s ? cfg->window_s : cfg->hang_after_s;
    if (!b || !b->stopped || b->t - first->t + 1e-6 < span)
        return;
    const struct nd_sample *a = nd_series_at(s, b->t - span);
    if (!a || nd_series_stopped_frac(a, b) < 0.9)
        return;
    struct nd_finding *f = nd_findings_add(out, "hang.stopped", ND_CAT_HANG, ND_SEV_WARNING,
                                           "The job is stopped by a signal, not running");
    f->at_s = b->t;
    f->confidence = ND_CONF_HIGH;
    size_t shown = 0;
    for (size_t i = 0; i < ctx->nprocs && shown < 4; i++)
        if (ctx->procs[i].state == 'T' || ctx->procs[i].state == 't') {
            nd_finding_add_evidence(f, NULL, 0, "pid %d %s: state %c (%s)", (int)ctx->procs[i].pid,
                                    ctx->procs[i].cmd[0] ? ctx->procs[i].cmd : ctx->procs[i].comm, ctx->procs[i].state,
                                    ctx->procs[i].state == 't' ? "stopped by a tracer" : "stopped");
            shown++;
        }
    nd_finding_add_evidence(f, NULL, 0, "every process of the job has been stopped for %.0f s", span);
    nd_finding_set_cause(f, "A stopped process waits to be continued. SIGTTIN stops a job that reads from the "
                            "terminal while it is not in the foreground (a background job, or one run in its own "
                            "process group, as npu-doctor run does); SIGTTOU one that writes with `stty tostop`; "
                            "SIGTSTP is Ctrl-Z; SIGSTOP comes from kill -STOP or a debugger.");
    nd_finding_add_fix(f, "kill -CONT %d   # continue it", (int)ctx->root_pid);
    nd_finding_add_fix(f, "give the job no terminal input: CMD </dev/null, or nohup");
}
