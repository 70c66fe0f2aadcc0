/* The time series a run/watch keeps: one sample per sampler tick. Memory is
 * bounded whatever the duration: the last ND_SERIES_RECENT samples are kept
 * raw, and the whole run is kept downsampled in at most ND_SERIES_HISTORY
 * buckets (pairs merge when full). Every sample also carries running
 * integrals (CPU seconds, seconds on a device, utilisation x seconds...),
 * so a detector gets the average over any span by subtracting two samples. */
#ifndef ND_CORE_SERIES_H
#define ND_CORE_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ND_SERIES_MAX_DEV 16
#define ND_SERIES_RECENT 1024
#define ND_SERIES_HISTORY 2000
#define ND_SERIES_UTIL_UNKNOWN (-1)
#define ND_SERIES_MEM_UNKNOWN UINT32_MAX

/* A device as the series knows it: position d in every sample's arrays. */
struct nd_series_device {
    char vendor[16];
    char word[8]; /* "npu", "gpu": the vendor's device word (the caller fills it) */
    int index;
    char name[48];
    uint64_t mem_total_bytes; /* 0 when unknown */
};

struct nd_sample {
    double t;    /* sampler clock: seconds since start */
    double span; /* seconds this point stands for (one interval, more when downsampled) */

    /* What was seen at this tick (downsampled points: means, maxima for sizes). */
    float cpu_cores; /* CPU of the whole job tree over the last interval */
    float runnable;  /* 1 when a process of the job was runnable (state R) */
    uint64_t rss_bytes;
    uint32_t nprocs, nthreads;
    uint8_t on_device;   /* 1 when a process of the job holds a device */
    uint32_t frameworks; /* enum nd_framework bits, union over the job */
    float job_util;      /* mean utilisation % of the devices the job holds; < 0 unknown */
    uint8_t ndev;
    int16_t util[ND_SERIES_MAX_DEV];     /* percent; ND_SERIES_UTIL_UNKNOWN */
    uint32_t mem_mib[ND_SERIES_MAX_DEV]; /* used MiB; ND_SERIES_MEM_UNKNOWN */
    uint32_t held_mask;                  /* bit d: the job holds device d */
    int64_t oom_kill;                    /* cgroup memory.events oom_kill; -1 unknown */
    uint64_t cg_mem_max;                 /* cgroup memory.max in bytes; 0 none or unknown */
    float iowait;                        /* 1 when a process of the job sleeps waiting on input (state D, a read) */
    float stopped;                 /* 1 when every process of the job is stopped (state T: SIGSTOP, SIGTSTP, SIGTTIN) */
    uint64_t read_bytes;           /* cumulative bytes the job read so far (rchar; counted while it holds a device) */
    uint64_t write_bytes;          /* the same for what it wrote (wchar: files, pipes, its own output) */
    uint8_t io_valid;              /* read_bytes and iowait were looked at for this tick */
    uint8_t out_valid;             /* 1 when the job's output is observed (run; watch on files) */
    uint64_t out_bytes, out_lines; /* cumulative output so far */
    /* From the job's threads' /proc/PID/task/TID/schedstat over the last
     * interval: threads' worth of time on a CPU and of time runnable but
     * waiting on a run queue (host contention). sched_valid: read. */
    float cpu_run, cpu_wait;
    float dstate; /* 1 when a process of the job was in the disk's wait (state D) */
    uint8_t sched_valid;

    /* Running integrals since start, filled by nd_series_push. */
    double cpu_s;                        /* CPU seconds */
    double runnable_s;                   /* seconds with a runnable process */
    double iowait_s;                     /* seconds with a process waiting on input */
    double stopped_s;                    /* seconds with the whole job stopped */
    double cpu_run_s, cpu_wait_s;        /* thread-seconds on a CPU, and waiting for one (schedstat) */
    double sched_s;                      /* seconds with schedstat read */
    double dstate_s;                     /* seconds with a process in state D */
    double held_s;                       /* seconds holding a device */
    double job_util_s, job_util_valid_s; /* sum(util% x dt) over known job_util */
    double dev_util_s, dev_util_valid_s; /* same, mean over all devices */
};

struct nd_series {
    double interval_s;
    struct nd_series_device dev[ND_SERIES_MAX_DEV];
    size_t ndev;
    struct nd_sample *recent; /* ring of ND_SERIES_RECENT raw samples */
    size_t head, count;       /* oldest at head */
    struct nd_sample *hist;   /* downsampled buckets, oldest first */
    size_t nhist;
    size_t stride;            /* raw samples per bucket */
    struct nd_sample pending; /* bucket being filled */
    size_t npending;
    uint64_t total; /* samples pushed */
    struct nd_sample first;
};

void nd_series_init(struct nd_series *s, double interval_s);
void nd_series_release(struct nd_series *s);
/* Declares the devices (once, before the first push); at most ND_SERIES_MAX_DEV kept. */
void nd_series_set_devices(struct nd_series *s, const struct nd_series_device *dev, size_t n);

/* Appends a sample: the caller fills t and the tick's values (including the
 * cumulative out_bytes/out_lines); the integrals are computed here from the
 * previous sample. Samples must come in increasing t. */
void nd_series_push(struct nd_series *s, const struct nd_sample *in);

size_t nd_series_len(const struct nd_series *s); /* samples pushed */
const struct nd_sample *nd_series_last(const struct nd_series *s);
const struct nd_sample *nd_series_first(const struct nd_series *s);
/* The latest sample at or before t (raw when still in the ring, else the
 * end of a downsampled bucket); NULL when t is before the first sample. */
const struct nd_sample *nd_series_at(const struct nd_series *s, double t);
/* The i-th most recent raw sample (0 = last); NULL past the ring. */
const struct nd_sample *nd_series_recent(const struct nd_series *s, size_t i);

/* Averages between two samples a (older) and b: NaN-free, 0 when empty. */
double nd_series_avg_cores(const struct nd_sample *a, const struct nd_sample *b);
double nd_series_runnable_frac(const struct nd_sample *a, const struct nd_sample *b);
double nd_series_held_frac(const struct nd_sample *a, const struct nd_sample *b);
double nd_series_iowait_frac(const struct nd_sample *a, const struct nd_sample *b);
/* Bytes per second the job read (rchar) and wrote (wchar, its own output
 * excluded) from a to b; 0 over no time or when a counter went back. */
double nd_series_read_rate(const struct nd_sample *a, const struct nd_sample *b);
double nd_series_write_rate(const struct nd_sample *a, const struct nd_sample *b);
double nd_series_stopped_frac(const struct nd_sample *a, const struct nd_sample *b);
/* The job's threads' time on a CPU and waiting on a run queue between a
 * and b, in thread-seconds (schedstat), and the span they cover: false
 * when schedstat was read for less than half of it. */
bool nd_series_sched(const struct nd_sample *a, const struct nd_sample *b, double *run_s, double *wait_s, double *span_s);
/* The share of a..b the job spent waiting for a CPU, as seen by its
 * threads' run-queue wait (at most 0.95; 0 when unknown). Time spent so is
 * neither CPU work nor idling: the detectors judge the rest. */
double nd_series_cpu_wait_frac(const struct nd_sample *a, const struct nd_sample *b);
double nd_series_dstate_frac(const struct nd_sample *a, const struct nd_sample *b);
/* The share of the time the job did not spend waiting for a CPU in which
 * it ran (from schedstat), and in which it waited on input: the run-queue
 * wait taken out of both, as neither CPU work nor idling. Where the job
 * waited for a CPU under a tenth of the time, or without schedstat, the
 * plain runnable fraction. */
double nd_series_runnable_own(const struct nd_sample *a, const struct nd_sample *b);
double nd_series_iowait_own(const struct nd_sample *a, const struct nd_sample *b);
/* Mean utilisation % over the span; returns false when never known. */
bool nd_series_avg_job_util(const struct nd_sample *a, const struct nd_sample *b, double *pct);
bool nd_series_avg_dev_util(const struct nd_sample *a, const struct nd_sample *b, double *pct);

/* The whole run downsampled to at most max_points (<= ND_SERIES_HISTORY),
 * oldest first; malloc'd, free() it. */
struct nd_sample *nd_series_export(const struct nd_series *s, size_t max_points, size_t *n);
/* Merges b (later) into a: used for downsampling. */
void nd_sample_merge(struct nd_sample *a, const struct nd_sample *b);

#endif
