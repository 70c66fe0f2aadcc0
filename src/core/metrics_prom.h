/* Prometheus metrics of a run/watch in the node_exporter textfile collector
 * format: base units, ratios 0-1, no timestamps, rewritten atomically at
 * every sampler tick so the collector never reads half a file. */
#ifndef ND_CORE_METRICS_PROM_H
#define ND_CORE_METRICS_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/finding.h"

struct nd_prom_device {
    char vendor[16];
    int index;
    bool util_valid;
    double util_ratio; /* 0-1 */
    bool mem_valid;
    uint64_t mem_used_bytes;
};

struct nd_prom_snapshot {
    double cpu_cores; /* npu_doctor_job_cpu_cores */
    bool on_device;   /* npu_doctor_job_on_device */
    const struct nd_prom_device *dev;
    size_t ndev;
    const struct nd_findings *findings; /* npu_doctor_findings_total{category,severity}; may be NULL */
    /* The job, when known: npu_doctor_job_running (1 while it runs, 0 after,
     * with the other job gauges at their final values) and the time of the
     * last sample; labels (name=value pairs) go on every job gauge. */
    bool job_known;
    bool running;
    double last_sample_unix_s; /* 0: none yet */
    const char *const *label_names;
    const char *const *label_values;
    size_t nlabels;
};

/* The textfile body; malloc'd, NUL-terminated. */
char *nd_prom_render(const struct nd_prom_snapshot *m, size_t *len);
/* Renders and replaces path atomically. 0 or -errno with err filled. */
int nd_prom_write(const char *path, const struct nd_prom_snapshot *m, struct nd_error *err);

#endif
