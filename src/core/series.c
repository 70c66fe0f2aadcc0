/* The bounded time series of run/watch: a raw ring for the detectors plus a
 * downsampled history for the report and chart (see series.h). */
#include "core/series.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

void nd_series_init(struct nd_series *s, double interval_s)
{
    memset(s, 0, sizeof *s);
    s->interval_s = interval_s;
    s->recent = nd_xcalloc(ND_SERIES_RECENT, sizeof *s->recent);
    s->hist = nd_xcalloc(ND_SERIES_HISTORY, sizeof *s->hist);
    s->stride = 1;
}

void nd_series_release(struct nd_series *s)
{
    free(s->recent);
    free(s->hist);
    memset(s, 0, sizeof *s);
}

void nd_series_set_devices(struct nd_series *s, const struct nd_series_device *dev, size_t n)
{
    if (n > ND_SERIES_MAX_DEV)
        n = ND_SERIES_MAX_DEV;
    memcpy(s->dev, dev, n * sizeof *dev);
    s->ndev = n;
}

static double nd_wmean(double va, double wa, double vb, double wb)
{
    if (wa + wb <= 0)
        return (va + vb) / 2;
    return (va * wa + vb * wb) / (wa + wb);
}

void nd_sample_merge(struct nd_sample *a, const struct nd_sample *b)
{
    double wa = a->span, wb = b->span;
    a->cpu_cores = (float)nd_wmean(a->cpu_cores, wa, b->cpu_cores, wb);
    a->runnable = (float)nd_wmean(a->runnable, wa, b->runnable, wb);
    a->iowait = (float)nd_wmean(a->iowait, wa, b->iowait, wb);
    a->stopped = (float)nd_wmean(a->stopped, wa, b->stopped, wb);
    a->cpu_run = (float)nd_wmean(a->cpu_run, wa, b->cpu_run, wb);
    a->cpu_wait = (float)nd_wmean(a->cpu_wait, wa, b->cpu_wait, wb);
    a->sched_valid = a->sched_valid || b->sched_valid;
    a->dstate = (float)nd_wmean(a->dstate, wa, b->dstate, wb);
    a->io_valid = a->io_valid || b->io_valid;
    if (b->rss_bytes > a->rss_bytes)
        a->rss_bytes = b->rss_bytes;
    if (b->nprocs > a->nprocs)
        a->nprocs = b->nprocs;
    if (b->nthreads > a->nthreads)
        a->nthreads = b->nthreads;
    a->on_device = a->on_device || b->on_device;
    a->frameworks |= b->frameworks;
    if (a->job_util < 0)
        a->job_util = b->job_util;
    else if (b->job_util >= 0)
        a->job_util = (float)nd_wmean(a->job_util, wa, b->job_util, wb);
    if (b->ndev > a->ndev)
        a->ndev = b->ndev;
    for (size_t d = 0; d < ND_SERIES_MAX_DEV; d++) {
        if (a->util[d] == ND_SERIES_UTIL_UNKNOWN)
            a->util[d] = b->util[d];
        else if (b->util[d] != ND_SERIES_UTIL_UNKNOWN)
            a->util[d] = (int16_t)lround(nd_wmean(a->util[d], wa, b->util[d], wb));
        if (a->mem_mib[d] == ND_SERIES_MEM_UNKNOWN ||
            (b->mem_mib[d] != ND_SERIES_MEM_UNKNOWN && b->mem_mib[d] > a->mem_mib[d]))
            a->mem_mib[d] = b->mem_mib[d];
    }
    a->held_mask |= b->held_mask;
    if (b->oom_kill > a->oom_kill)
        a->oom_kill = b->oom_kill;
    a->cg_mem_max = b->cg_mem_max;
    a->out_valid = a->out_valid || b->out_valid;
    /* The bucket ends where b ends: cumulative values are b's. */
    a->t = b->t;
    a->span = wa + wb;
    a->out_bytes = b->out_bytes;
    a->out_lines = b->out_lines;
    a->cpu_s = b->cpu_s;
    a->runnable_s = b->runnable_s;
    a->iowait_s = b->iowait_s;
    a->stopped_s = b->stopped_s;
    a->cpu_run_s = b->cpu_run_s;
    a->cpu_wait_s = b->cpu_wait_s;
    a->sched_s = b->sched_s;
    a->dstate_s = b->dstate_s;
    a->read_bytes = b->read_bytes;
    a->write_bytes = b->write_bytes;
    a->held_s = b->held_s;
    a->job_util_s = b->job_util_s;
    a->job_util_valid_s = b->job_util_valid_s;
    a->dev_util_s = b->dev_util_s;
    a->dev_util_valid_s = b->dev_util_valid_s;
}

static void nd_history_add(struct nd_series *s, const struct nd_sample *x)
{
    if (s->npending == 0)
        s->pending = *x;
    else
        nd_sample_merge(&s->pending, x);
    if (++s->npending < s->stride)
        return;
    if (s->nhist == ND_SERIES_HISTORY) {
        /* Full: halve the resolution of everything kept so far. */
        size_t j = 0;
        for (size_t i = 0; i + 1 < s->nhist; i += 2) {
            struct nd_sample m = s->hist[i];
            nd_sample_merge(&m, &s->hist[i + 1]);
            s->hist[j++] = m;
        }
        s->nhist = j;
        s->stride *= 2;
        /* The pending bucket is only half a new bucket now: keep filling it. */
        if (s->npending < s->stride)
            return;
    }
    s->hist[s->nhist++] = s->pending;
    s->npending = 0;
}

void nd_series_push(struct nd_series *s, const struct nd_sample *in)
{
    struct nd_sample x = *in;
    const struct nd_sample *prev = nd_series_last(s);
    double dt = prev ? x.t - prev->t : 0;
    if (dt < 0)
        dt = 0;
    x.span = dt;
    if (x.ndev > s->ndev)
        x.ndev = (uint8_t)s->ndev;
    for (size_t d = x.ndev; d < ND_SERIES_MAX_DEV; d++) {
        x.util[d] = ND_SERIES_UTIL_UNKNOWN;
        x.mem_mib[d] = ND_SERIES_MEM_UNKNOWN;
    }
    x.cpu_s = (prev ? prev->cpu_s : 0) + x.cpu_cores * dt;
    x.runnable_s = (prev ? prev->runnable_s : 0) + x.runnable * dt;
    x.iowait_s = (prev ? prev->iowait_s : 0) + x.iowait * dt;
    x.stopped_s = (prev ? prev->stopped_s : 0) + x.stopped * dt;
    x.cpu_run_s = (prev ? prev->cpu_run_s : 0) + (x.sched_valid ? x.cpu_run * dt : 0);
    x.cpu_wait_s = (prev ? prev->cpu_wait_s : 0) + (x.sched_valid ? x.cpu_wait * dt : 0);
    x.sched_s = (prev ? prev->sched_s : 0) + (x.sched_valid ? dt : 0);
    x.dstate_s = (prev ? prev->dstate_s : 0) + x.dstate * dt;
    x.held_s = (prev ? prev->held_s : 0) + (x.on_device ? dt : 0);
    x.job_util_s = prev ? prev->job_util_s : 0;
    x.job_util_valid_s = prev ? prev->job_util_valid_s : 0;
    if (x.job_util >= 0) {
        x.job_util_s += x.job_util * dt;
        x.job_util_valid_s += dt;
    }
    x.dev_util_s = prev ? prev->dev_util_s : 0;
    x.dev_util_valid_s = prev ? prev->dev_util_valid_s : 0;
    double sum = 0;
    int known = 0;
    for (size_t d = 0; d < x.ndev; d++)
        if (x.util[d] != ND_SERIES_UTIL_UNKNOWN) {
            sum += x.util[d];
            known++;
        }
    if (known) {
        x.dev_util_s += sum / known * dt;
        x.dev_util_valid_s += dt;
    }

    if (s->total == 0)
        s->first = x;
    size_t slot = (s->head + s->count) % ND_SERIES_RECENT;
    if (s->count == ND_SERIES_RECENT) {
        s->recent[s->head] = x;
        s->head = (s->head + 1) % ND_SERIES_RECENT;
    } else {
        s->recent[slot] = x;
        s->count++;
    }
    s->total++;
    nd_history_add(s, &x);
}

size_t nd_series_len(const struct nd_series *s)
{
    return (size_t)s->total;
}

const struct nd_sample *nd_series_recent(const struct nd_series *s, size_t i)
{
    if (i >= s->count)
        return NULL;
    return &s->recent[(s->head + s->count - 1 - i) % ND_SERIES_RECENT];
}

const struct nd_sample *nd_series_last(const struct nd_series *s)
{
    return nd_series_recent(s, 0);
}

const struct nd_sample *nd_series_first(const struct nd_series *s)
{
    return s->total ? &s->first : NULL;
}

#define ND_T_EPS 1e-6

const struct nd_sample *nd_series_at(const struct nd_series *s, double t)
{
    if (s->count == 0)
        return NULL;
    const struct nd_sample *oldest = &s->recent[s->head];
    if (oldest->t <= t + ND_T_EPS) {
        /* Binary search in the ring: the last sample with time <= t. */
        size_t lo = 0, hi = s->count - 1;
        while (lo < hi) {
            size_t mid = (lo + hi + 1) / 2;
            if (s->recent[(s->head + mid) % ND_SERIES_RECENT].t <= t + ND_T_EPS)
                lo = mid;
            else
                hi = mid - 1;
        }
        return &s->recent[(s->head + lo) % ND_SERIES_RECENT];
    }
    /* Older than the ring: bucket ends in the history. */
    const struct nd_sample *best = s->first.t <= t + ND_T_EPS ? &s->first : NULL;
    size_t lo = 0, hi = s->nhist;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->hist[mid].t <= t + ND_T_EPS)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo > 0 && (!best || s->hist[lo - 1].t >= best->t))
        best = &s->hist[lo - 1];
    return best;
}

static double nd_span(const struct nd_sample *a, const struct nd_sample *b)
{
    return b->t - a->t;
}

double nd_series_avg_cores(const struct nd_sample *a, const struct nd_sample *b)
{
    double dt = nd_span(a, b);
    return dt > 0 ? (b->cpu_s - a->cpu_s) / dt : 0;
}

double nd_series_runnable_frac(const struct nd_sample *a, const struct nd_sample *b)
{
    double dt = nd_span(a, b);
    return dt > 0 ? (b->runnable_s - a->runnable_s) / dt : 0;
}

double nd_series_held_frac(const struct nd_sample *a, const struct nd_sample *b)
{
    double dt = nd_span(a, b);
    return dt > 0 ? (b->held_s - a->held_s) / dt : 0;
}

double nd_series_iowait_frac(const struct nd_sample *a, const struct nd_sample *b)
{
    double dt = nd_span(a, b);
    return dt > 0 ? (b->iowait_s - a->iowait_s) / dt : 0;
}

bool nd_series_sched(const struct nd_sample *a, const struct nd_sample *b, double *run_s, double *wait_s, double *span_s)
{
    double dt = nd_span(a, b);
    double known = b->sched_s - a->sched_s;
    *run_s = b->cpu_run_s - a->cpu_run_s;
    *wait_s = b->cpu_wait_s - a->cpu_wait_s;
    *span_s = known;
    if (!(dt > 0) || !(known >= 0.5 * dt) || !(*run_s >= 0) || !(*wait_s >= 0)) {
        *run_s = *wait_s = *span_s = 0;
        return false;
    }
    return true;
}

double nd_series_cpu_wait_frac(const struct nd_sample *a, const struct nd_sample *b)
{
    double run, wait, span;
    if (!nd_series_sched(a, b, &run, &wait, &span) || span <= 0)
        return 0;
    double f = wait / span;
    return f > 0.95 ? 0.95 : f;
}

double nd_series_dstate_frac(const struct nd_sample *a, const struct nd_sample *b)
{
    double dt = nd_span(a, b);
    return dt > 0 ? (b->dstate_s - a->dstate_s) / dt : 0;
}

double nd_series_runnable_own(const struct nd_sample *a, const struct nd_sample *b)
{
    double run, wait, span;
    if (!nd_series_sched(a, b, &run, &wait, &span) || span <= 0 || wait < 0.1 * span)
        return nd_series_runnable_frac(a, b);
    /* Of the time it did not wait for a CPU, the share it ran: threads'
     * worth over one thread's time, so a job of many threads that runs
     * more than the time left counts as running all of it. */
    double q = wait / span > 0.95 ? 0.95 : wait / span, r = run / span;
    double rest = 1 - q;
    return r >= rest ? 1 : r / rest;
}

double nd_series_iowait_own(const struct nd_sample *a, const struct nd_sample *b)
{
    double q = nd_series_cpu_wait_frac(a, b), io = nd_series_iowait_frac(a, b), w = io / (1 - q);
    /* The I/O wait is sampled at our ticks, and on a crowded host those
     * fall while the job is runnable more often than its share (it wakes
     * from an fsync into the run queue): judged also against the samples
     * in which it was not runnable, the same measure's own basis. */
    double r = nd_series_runnable_frac(a, b);
    if (q >= 0.1 && r < 0.95 && io / (1 - r) > w)
        w = io / (1 - r);
    return w > 1 ? 1 : w;
}

static uint64_t nd_counter_delta(uint64_t from, uint64_t to)
{
    return to >= from ? to - from : 0;
}

double nd_series_read_rate(const struct nd_sample *a, const struct nd_sample *b)
{
    double dt = b->t - a->t;
    return dt > 0 ? (double)nd_counter_delta(a->read_bytes, b->read_bytes) / dt : 0;
}

double nd_series_write_rate(const struct nd_sample *a, const struct nd_sample *b)
{
    double dt = b->t - a->t;
    uint64_t wrote = nd_counter_delta(a->write_bytes, b->write_bytes);
    uint64_t printed = nd_counter_delta(a->out_bytes, b->out_bytes);
    return dt > 0 && wrote > printed ? (double)(wrote - printed) / dt : 0;
}

double nd_series_stopped_frac(const struct nd_sample *a, const struct nd_sample *b)
{
    double dt = nd_span(a, b);
    return dt > 0 ? (b->stopped_s - a->stopped_s) / dt : 0;
}

bool nd_series_avg_job_util(const struct nd_sample *a, const struct nd_sample *b, double *pct)
{
    double v = b->job_util_valid_s - a->job_util_valid_s;
    if (v <= 0)
        return false;
    *pct = (b->job_util_s - a->job_util_s) / v;
    return true;
}

bool nd_series_avg_dev_util(const struct nd_sample *a, const struct nd_sample *b, double *pct)
{
    double v = b->dev_util_valid_s - a->dev_util_valid_s;
    if (v <= 0)
        return false;
    *pct = (b->dev_util_s - a->dev_util_s) / v;
    return true;
}

struct nd_sample *nd_series_export(const struct nd_series *s, size_t max_points, size_t *n)
{
    if (max_points == 0 || max_points > ND_SERIES_HISTORY)
        max_points = ND_SERIES_HISTORY;
    size_t total = s->nhist + (s->npending ? 1 : 0);
    struct nd_sample *all = nd_xcalloc(total ? total : 1, sizeof *all);
    memcpy(all, s->hist, s->nhist * sizeof *all);
    if (s->npending)
        all[s->nhist] = s->pending;
    if (total <= max_points) {
        *n = total;
        return all;
    }
    size_t group = (total + max_points - 1) / max_points;
    size_t j = 0;
    for (size_t i = 0; i < total; i += group) {
        struct nd_sample m = all[i];
        for (size_t k = i + 1; k < i + group && k < total; k++)
            nd_sample_merge(&m, &all[k]);
        all[j++] = m;
    }
    *n = j;
    return all;
}
