/* A pause, not a fault. A checkpoint save, an evaluation pass on the CPU
 * between epochs or a sleep for a rendezvous idles the device for longer
 * than a window, and the live detectors, which judge the window they see,
 * say so while it lasts. When the job then went back to work for a whole
 * window and ended with status 0, the run as a whole shows a phase, not a
 * fallback, a stall or a starved device: at the end such a finding becomes
 * a note that names the pause and the work after it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "monitor/detect.h"

/* Device work again: the utilisation a busy step loop shows, well above
 * what the input-bound forms call idle. */
#define ND_PAUSE_BUSY_UTIL (2 * ND_INPUT_BOUND_UTIL)

/* The findings that describe what the job does now (a phase can end);
 * exits, memory and failures are facts for good. */
static bool nd_pause_kind(const struct nd_finding *f)
{
    static const char *const ids[] = {"fallback.in-process", "fallback.cpu-fallback", "idle.input-bound",
                                      "idle.storage-bound",  "idle.device-starved",   "hang.no-progress"};
    if (f->severity != ND_SEV_WARNING)
        return false; /* an error has held past --fallback-after, or is not a phase */
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        if (strcmp(f->id, ids[i]) == 0)
            return true;
    return false;
}

bool nd_detect_pause_over(const struct nd_series *s, const struct nd_detect_config *cfg, const struct nd_finding *f,
                          const struct nd_exit_info *ex, double *from_s, double *util)
{
    if (!nd_pause_kind(f) || !ex || !ex->exited || ex->code != 0 || ex->stopped_by_us)
        return false;
    const struct nd_sample *b = nd_series_last(s);
    if (!b || f->at_s < 0)
        return false;
    /* The run's last window, wholly after the finding. */
    const struct nd_sample *a = nd_series_at(s, b->t - cfg->window_s);
    if (!a || a->t + 1e-6 < f->at_s || b->t - a->t + 1e-6 < cfg->window_s)
        return false;
    bool known = nd_series_avg_job_util(a, b, util) || nd_series_avg_dev_util(a, b, util);
    if (known && *util >= ND_PAUSE_BUSY_UTIL && nd_series_held_frac(a, b) >= 0.9) {
        *from_s = a->t;
        return true;
    }
    /* A job without a device that went back to printing and computing. */
    if (strcmp(f->id, "hang.no-progress") == 0 && !b->on_device && b->out_valid && a->out_valid &&
        b->out_lines >= a->out_lines + 2 && nd_series_avg_cores(a, b) >= ND_HANG_MAX_CORES) {
        *util = -1;
        *from_s = a->t;
        return true;
    }
    return false;
}

void nd_detect_pause_demote(struct nd_finding *f, double from_s, double util, double end_s)
{
    char *title = nd_xasprintf("A pause, then work again: %s", f->title);
    free(f->title);
    f->title = title;
    f->severity = ND_SEV_INFO;
    if (util >= 0)
        nd_finding_add_evidence(f, NULL, 0,
                                "then the device worked again: %.0f%% utilisation from %.1f s to the end at %.1f s, "
                                "and the job exited 0",
                                util, from_s, end_s);
    else
        nd_finding_add_evidence(
            f, NULL, 0, "then the job printed and computed again from %.1f s to the end at %.1f s, and exited 0",
            from_s, end_s);
    nd_finding_add_evidence(f, NULL, 0,
                            "it held while the job paused (a checkpoint save, an evaluation on the CPU, a wait for "
                            "a rendezvous); a note now, since the run went on");
}
