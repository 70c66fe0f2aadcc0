/* input-bound, storage form: the job holds its device, the device idles,
 * and the CPU idles too, because the job's processes sleep waiting for
 * reads (slow network storage, a remote bucket, a cold disk). The CPU-bound
 * form (idle.c) needs busy workers; this one needs sleeping readers. */
#include <stdio.h>
#include <string.h>

#include "monitor/detect.h"

/* A sleeping reader shows up in one of these kernel functions. Matched
 * anywhere in the name: the exact names vary with the kernel version
 * (pipe_read became anon_pipe_read in 6.x). */
static const char *const nd_input_waits[] = {
    "pipe_read",    /* a worker's queue, a streaming reader */
    "wait_on_page", /* a page of a file being read in */
    "folio_wait",
    "io_schedule",
    "bit_wait_io",
    "nfs", /* NFS and its RPCs */
    "rpc_wait",
    "fuse_", /* s3fs, gcsfuse, sshfs... */
    "request_wait_answer",
    "sk_wait_data", /* a socket read: object stores over HTTP */
    "unix_stream_read",
    "blk_",
    /* A write the job waits to reach the disk (fsync, a checkpoint): the
     * block layer, the buffer sync and the filesystem journals. Under load
     * fsync sits here rather than in a page wait. */
    "submit_bio_wait",
    "sync_dirty_buffer",
    "jbd2_",
    "xlog_",
    "xfs_log_force",
    "wait_for_completion_io",
    "lustre",
    "ptlrpc",
    "ceph",
};

bool nd_wchan_is_input_wait(const char *wchan)
{
    if (!wchan || !wchan[0])
        return false;
    for (size_t i = 0; i < sizeof nd_input_waits / sizeof *nd_input_waits; i++)
        if (strstr(wchan, nd_input_waits[i]))
            return true;
    return false;
}

long nd_detect_free_cores(const struct nd_detect_context *ctx, double job_cores)
{
    if (ctx->host_cpus <= 0)
        return 0;
    double busy = ctx->loadavg1 > job_cores ? ctx->loadavg1 : job_cores;
    double free = (double)ctx->host_cpus - busy;
    return free >= 1 ? (long)free : 0;
}

/* The readers to name: waiting processes, their wait channel. */
static bool nd_is_waiter(const struct nd_detect_proc *p)
{
    return p->state == 'D' || nd_wchan_is_input_wait(p->wchan);
}

static void nd_waits_in(const struct nd_detect_proc *p, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%s", p->state == 'D' ? "state D" : "sleeping", p->wchan[0] ? " in " : "", p->wchan);
}

void nd_detect_storage_bound(const struct nd_series *s, const struct nd_detect_config *cfg,
                             const struct nd_detect_context *ctx, struct nd_findings *out)
{
    const struct nd_sample *a, *b;
    double util;
    bool job_util;
    if (!nd_input_window(s, cfg, &a, &b, &util, &job_util))
        return;
    double cores = nd_series_avg_cores(a, b);
    /* On a contended host the job is runnable while it waits its turn for a
     * CPU: that time is neither CPU work nor sleep, and both shares are of
     * the rest (nd_series_runnable_own). */
    double runnable = nd_series_runnable_own(a, b);
    if (cores >= ND_BUSY_CORES || runnable >= ND_BUSY_RUNNABLE)
        return; /* the CPU-bound form, idle.c */
    /* Waiting on reads for most of the window: without this it is a hang, or a pause. */
    double wait = nd_series_iowait_own(a, b);
    if (wait < 0.5)
        return;
    double rate = nd_series_read_rate(a, b);
    /* Nothing read, and nobody in the disk's I/O wait (state D) over the
     * window: a read from a pipe or socket that nothing feeds (a dead
     * worker's queue, stdin, a store that never answers) is a hang's
     * picture, not slow storage. Judged over the window's samples, not the
     * last one: a job that writes and fsyncs may be runnable, waiting for a
     * CPU, at the very tick that ends it. */
    bool in_d = nd_series_dstate_frac(a, b) > 0;
    for (size_t i = 0; i < ctx->nprocs; i++)
        in_d = in_d || ctx->procs[i].state == 'D';
    if (rate <= 0 && !in_d)
        return;

    struct nd_finding *f;
    if (in_d && rate < 1024)
        f = nd_findings_add(out, "idle.storage-bound", ND_CAT_INPUT_BOUND, ND_SEV_WARNING,
                            "The device waits on storage I/O: %.0f%% utilisation, the job sleeps in the disk's I/O "
                            "wait",
                            util);
    else
        f = nd_findings_add(out, "idle.storage-bound", ND_CAT_INPUT_BOUND, ND_SEV_WARNING,
                            "The device waits for data from storage: %.0f%% utilisation, the job sleeps in reads", util);
    f->at_s = b->t;
    f->confidence = ND_CONF_MEDIUM;
    nd_finding_add_evidence(f, NULL, 0, "device utilisation: %.0f%% on average over the last %.0f s (%s)", util,
                            cfg->window_s, job_util ? "the devices the job holds" : "all devices");
    nd_finding_add_evidence(f, NULL, 0, "CPU: %.2f cores on average, %u processes: the CPU is not the limit", cores,
                            b->nprocs);
    nd_finding_add_evidence(f, NULL, 0, "a process of the job waited on input %.0f%% of the window", wait * 100);
    char who[512];
    nd_detect_name_procs(ctx, nd_is_waiter, nd_waits_in, who, sizeof who);
    if (who[0])
        nd_finding_add_evidence(f, NULL, 0, "waiting: %s", who);
    if (rate >= 1024 * 1024)
        nd_finding_add_evidence(f, NULL, 0, "read throughput: %.1f MiB/s over the window", rate / (1024 * 1024));
    else
        nd_finding_add_evidence(f, NULL, 0, "read throughput: %.0f KiB/s over the window", rate / 1024);
    nd_finding_set_cause(f, "Reading the data set is slower than the device consumes it (network or remote "
                            "storage, small random reads, a cold disk); the DataLoader workers sleep on reads.");
    long free = nd_detect_free_cores(ctx, cores);
    if (free > 0)
        nd_finding_add_fix(f,
                           "DataLoader(..., num_workers=%ld, prefetch_factor=4, persistent_workers=True)   # "
                           "%ld cores are free: more reads in flight",
                           free, free);
    else
        nd_finding_add_fix(f, "DataLoader(..., prefetch_factor=4, persistent_workers=True)   # no free cores for "
                              "more workers");
    nd_finding_add_fix(f, "copy the data set to local NVMe or /dev/shm first, or cache it after the first epoch");
    nd_finding_add_fix(f, "pack small files into large shards (WebDataset, TFRecord, LMDB) for sequential reads");
}
