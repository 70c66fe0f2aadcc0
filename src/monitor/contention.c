/* config, host form: the job is runnable but gets little CPU because other
 * processes hold the host's cores. Its threads' schedstat says how long they
 * waited on a run queue for a CPU against how long they ran; the host's
 * run queue (/proc/loadavg) and CPU pressure (PSI) say the host is crowded.
 * Such a window is neither CPU work nor idling: without this finding the
 * job falls between the CPU-bound detectors (it computes little) and the
 * idle ones (it is not asleep), or is taken for one of them. */
#include <stdio.h>

#include "monitor/detect.h"
#include "proc/sched.h"

static void nd_contention_of(const struct nd_sample *a, const struct nd_sample *b, const struct nd_detect_context *ctx,
                             struct nd_contention *c)
{
    struct nd_contention_in in = {0};
    if (!nd_series_sched(a, b, &in.run_s, &in.wait_s, &in.span_s)) {
        nd_contention_judge(NULL, c);
        return;
    }
    in.host_cpus = ctx->host_cpus;
    in.loadavg1 = ctx->loadavg1;
    in.procs_running = ctx->procs_running;
    in.psi_avg10 = ctx->psi_cpu10;
    nd_contention_judge(&in, c);
}

bool nd_detect_contended(const struct nd_sample *a, const struct nd_sample *b, const struct nd_detect_context *ctx)
{
    struct nd_contention c;
    nd_contention_of(a, b, ctx, &c);
    return c.starved;
}

void nd_detect_contention(const struct nd_series *s, const struct nd_detect_config *cfg,
                          const struct nd_detect_context *ctx, struct nd_findings *out)
{
    const struct nd_sample *b = nd_series_last(s), *first = nd_series_first(s);
    /* After --warmup: an interpreter starting up on a busy host waits too. */
    if (!b || b->t - first->t + 1e-6 < cfg->warmup_s + cfg->window_s)
        return;
    const struct nd_sample *a = nd_series_at(s, b->t - cfg->window_s);
    if (!a || nd_series_stopped_frac(a, b) >= 0.5)
        return;
    struct nd_contention c;
    nd_contention_of(a, b, ctx, &c);
    if (!c.starved)
        return;

    /* A warning where the waiting is what leaves a device idle: the one the
     * job holds waits with it. Elsewhere (a busy device, a job on the CPU
     * alone, one that prints less than it would) the job is slowed, not
     * misdirected: a note, so a crowded host does not make a healthy job's
     * run a warning. */
    double util = 0;
    bool held = nd_series_held_frac(a, b) >= 0.9;
    bool util_known = held && (nd_series_avg_job_util(a, b, &util) || nd_series_avg_dev_util(a, b, &util));
    bool dev_idle = util_known && util < ND_INPUT_BOUND_UTIL;
    bool silent = b->out_valid && b->out_lines == a->out_lines && b->out_bytes == a->out_bytes;
    struct nd_finding *f = nd_findings_add(out, "host.cpu-contention", ND_CAT_CONFIG,
                                           dev_idle ? ND_SEV_WARNING : ND_SEV_INFO,
                                           "The job is starved by other processes on the host: its threads waited "
                                           "for a CPU %.0f%% of the time they wanted one",
                                           c.wait_share * 100);
    f->at_s = b->t;
    f->confidence = ND_CONF_MEDIUM;
    nd_finding_add_evidence(f, NULL, 0,
                            "run queue: over the last %.0f s the job's threads waited for a CPU %.2f threads' worth "
                            "of the time and ran %.2f (/proc/PID/task/*/schedstat)",
                            cfg->window_s, c.wait_cores, c.run_cores);
    if (ctx->host_cpus > 0 && ctx->procs_running >= 0 && ctx->loadavg1 >= 0)
        nd_finding_add_evidence(f, NULL, 0, "host: %ld runnable tasks now and a load of %.1f on %ld CPUs",
                                ctx->procs_running, ctx->loadavg1, ctx->host_cpus);
    else if (ctx->host_cpus > 0 && ctx->loadavg1 >= 0)
        nd_finding_add_evidence(f, NULL, 0, "host: a load of %.1f on %ld CPUs", ctx->loadavg1, ctx->host_cpus);
    if (ctx->psi_cpu10 >= 0)
        nd_finding_add_evidence(f, NULL, 0,
                                "CPU pressure: some task waited for a CPU %.0f%% of the last 10 s "
                                "(/proc/pressure/cpu)",
                                ctx->psi_cpu10);
    if (dev_idle)
        nd_finding_add_evidence(f, NULL, 0, "device: %.0f%% utilisation over the same window: it waits with the job",
                                util);
    else if (util_known)
        nd_finding_add_evidence(f, NULL, 0,
                                "device: %.0f%% utilisation over the same window: the job is slowed, not "
                                "stalled",
                                util);
    if (silent)
        nd_finding_add_evidence(f, NULL, 0, "output: nothing new over the window");
    nd_finding_set_cause(f, "Other processes use the host's cores: the job is runnable but waits its turn, so it "
                            "runs slower than it could whatever it does (the device, if it holds one, waits "
                            "with it). Its other findings in this window, or their absence, say little.");
    nd_finding_add_fix(f, "top -o %%CPU   # what else runs on the host, and how much CPU it takes");
    nd_finding_add_fix(f, "pin or limit the other processes (taskset, nice -n 19, a cgroup's cpu.max), or stop "
                          "them while the job runs");
    nd_finding_add_fix(f, "give the job more cores of its own: a larger slot, a cpuset or a --cpus setting for "
                          "its container");
}
