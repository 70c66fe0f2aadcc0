/* The processes a run/watch saw, each with its verdict over the job's life
 * and the devices it held: the "processes" list of the summary JSON. */
#ifndef ND_MONITOR_PROCVERDICT_H
#define ND_MONITOR_PROCVERDICT_H

#include <jansson.h>
#include <stddef.h>

#include "monitor/detect.h"
#include "core/series.h"

/* Past this many processes the rest are counted, not listed. */
#define ND_PROC_REGISTRY_MAX 4096

struct nd_proc_seen {
    pid_t pid, ppid;
    char cmd[160];
    char rank[12], local_rank[12];
    enum nd_proc_verdict verdict; /* the most active seen: on-device > framework > cpu > idle */
    uint32_t held_mask;           /* series device slots held at some tick */
    unsigned frameworks;
    double max_win_cores;
};

struct nd_proc_registry {
    struct nd_proc_seen *v;
    size_t n, cap;
    size_t dropped;
};

/* Folds the processes of one tick in. */
void nd_proc_registry_update(struct nd_proc_registry *r, const struct nd_detect_context *ctx);
/* [{"pid", "ppid", "command", "rank", "local_rank", "verdict", "devices": [{"vendor", "index"}],
 *   "frameworks": [...], "max_cpu_cores"}] */
json_t *nd_proc_registry_json(const struct nd_proc_registry *r, const struct nd_series *s);
void nd_proc_registry_release(struct nd_proc_registry *r);

#endif
