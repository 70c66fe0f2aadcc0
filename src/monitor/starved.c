/* input-bound, latency form: the job holds its device, the device idles,
 * the CPU idles, and the job is not asleep in the kernel's I/O waits either,
 * yet its steps still come (its output goes on). Each step waits on
 * something slow that is neither the CPU nor a read the kernel counts as
 * I/O: per-request latency of remote storage or an object store, a sleep or
 * rate limit in the data code, a queue fed too slowly. Without progress the
 * same picture is a hang (hang.c). */
#include <stdio.h>
#include <string.h>

#include "monitor/detect.h"

#define ND_STARVED_MAX_CORES 0.3
#define ND_STARVED_MAX_IOWAIT 0.2

/* The job's sleeping processes and where they sleep, for evidence. */
static bool nd_is_sleeper(const struct nd_detect_proc *p)
{
    return p->state == 'S' && p->wchan[0];
}

static void nd_sleeps_in(const struct nd_detect_proc *p, char *buf, size_t size)
{
    snprintf(buf, size, "in %s", p->wchan);
}

void nd_detect_starved(const struct nd_series *s, const struct nd_detect_config *cfg,
                       const struct nd_detect_context *ctx, struct nd_findings *out)
{
    const struct nd_sample *a, *b;
    double util;
    bool job_util;
    if (!nd_input_window(s, cfg, &a, &b, &util, &job_util))
        return;
    /* Asleep for real: a job that computes at all (a thread of its own on
     * a loaded host) or waits on the disk part of the time is the CPU or
     * storage forms' story, not this one's. */
    double cores = nd_series_avg_cores(a, b);
    if (cores >= ND_STARVED_MAX_CORES || nd_series_runnable_own(a, b) >= 0.5)
        return; /* the CPU-bound forms: idle.c, inproc.c */
    if (nd_series_iowait_own(a, b) >= ND_STARVED_MAX_IOWAIT || nd_series_stopped_frac(a, b) >= 0.5)
        return; /* storage.c, hang.c */
    if (nd_detect_contended(a, b, ctx))
        return; /* waiting for a CPU, not sleeping: contention.c */
    for (size_t i = 0; i < ctx->nprocs; i++)
        if (ctx->procs[i].state == 'D')
            return;
    struct nd_inproc w;
    if (nd_inproc_window(s, cfg, ctx, &w))
        return; /* a holder computing in a thread of its own: inproc.c */
    /* Progress: new output where it is seen (run); where it is not (watch),
     * data read. No progress at all is a hang's picture. */
    uint64_t lines = b->out_lines >= a->out_lines ? b->out_lines - a->out_lines : 0;
    double rate = nd_series_read_rate(a, b);
    if (b->out_valid ? lines == 0 : rate <= 0)
        return;

    struct nd_finding *f = nd_findings_add(out, "idle.device-starved", ND_CAT_INPUT_BOUND, ND_SEV_WARNING,
                                           "The device is starved: %.0f%% utilisation while the job sleeps between "
                                           "steps",
                                           util);
    f->at_s = b->t;
    f->confidence = ND_CONF_MEDIUM;
    nd_finding_add_evidence(f, NULL, 0, "device utilisation: %.0f%% on average over the last %.0f s (%s)", util,
                            cfg->window_s, job_util ? "the devices the job holds" : "all devices");
    nd_finding_add_evidence(f, NULL, 0, "CPU: %.2f cores on average, %u processes: the CPU is not the limit", cores,
                            b->nprocs);
    if (b->out_valid)
        nd_finding_add_evidence(f, NULL, 0, "progress: %llu new output lines over the window, so it is not stuck",
                                (unsigned long long)lines);
    else
        nd_finding_add_evidence(f, NULL, 0, "progress: it read %.0f KiB/s over the window, so it is not stuck",
                                rate / 1024);
    char who[512];
    nd_detect_name_procs(ctx, nd_is_sleeper, nd_sleeps_in, who, sizeof who);
    if (who[0])
        nd_finding_add_evidence(f, NULL, 0, "sleeping: %s", who);
    nd_finding_set_cause(f, "Each step waits on something slow that is neither the CPU nor disk I/O: the latency "
                            "of each request to network storage or an object store, a sleep or rate limit in the "
                            "data code, a queue its producers fill too slowly. The device waits with it.");
    nd_finding_add_fix(f, "py-spy dump --pid %d   # where the job waits", (int)ctx->root_pid);
    nd_finding_add_fix(f, "DataLoader(..., num_workers=N, prefetch_factor=4, persistent_workers=True)   # more "
                          "requests in flight hide the latency");
    nd_finding_add_fix(f, "copy or cache the data set locally (NVMe, /dev/shm) before training");
}
