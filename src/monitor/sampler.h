/* The sampler of run/watch: at each tick it reads the job's whole process
 * tree (new children included, plus anything left in the job's process
 * group), per-process CPU time, RSS, threads and device footprint, the
 * devices' utilisation and memory through guarded vendor sessions, and the
 * cgroup's OOM counter, and turns them into one series sample. Live /proc
 * and /sys/fs/cgroup; device nodes through the --root prefix. */
#ifndef ND_MONITOR_SAMPLER_H
#define ND_MONITOR_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"
#include "core/finding.h"
#include "monitor/detect.h"
#include "core/series.h"

struct nd_sampler_opts {
    pid_t root;              /* the job's main process */
    uint64_t root_start;     /* its start time (ticks since boot; 0: unknown): a process that has its
                                number later but started at another time is not the job */
    pid_t pgid;              /* its process group when it leads one (run), else 0 */
    double device_timeout_s; /* per vendor call (default 5) */
    bool no_devices;         /* skip vendor libraries (tests, benches) */
    double maps_refresh_s;   /* how stale an idle process's footprint and mapped frameworks may be (default 5) */
    double window_s;         /* --window: span of each process's sustained CPU average (default 20) */
};

struct nd_sampler;

int nd_sampler_new(const struct nd_sampler_opts *opt, struct nd_sampler **out, struct nd_error *err);
void nd_sampler_free(struct nd_sampler *s);

/* Opens a guarded session per vendor whose library is found. Problems (a
 * hanging dcmi_init...) are appended to notes as findings. */
void nd_sampler_open_devices(struct nd_sampler *s, struct nd_findings *notes);
/* The devices the series tracks (filled after open_devices). */
size_t nd_sampler_devices(const struct nd_sampler *s, struct nd_series_device *out, size_t max);
/* Fills the device part of ctx: usable, vendor, count, name. */
void nd_sampler_device_facts(const struct nd_sampler *s, struct nd_detect_context *ctx);

/* One tick: fills out (all but t and the output counters, which the caller
 * sets) and the process view. Returns 0, -ESRCH when no process of the job is
 * left, or another -errno with err filled when sampling failed. A session
 * that died mid-run is reported once in notes. */
int nd_sampler_tick(struct nd_sampler *s, struct nd_sample *out, struct nd_findings *notes, struct nd_error *err);

/* The job's processes at the last tick, and those gone since the one before. */
const struct nd_detect_proc *nd_sampler_procs(const struct nd_sampler *s, size_t *n);
const pid_t *nd_sampler_vanished(const struct nd_sampler *s, size_t *n);
bool nd_sampler_frameworks_known(const struct nd_sampler *s);
/* Whether /proc/PID/fd, or /proc/PID/io, of a process of the job could not
 * be read at some tick (another user's job, a container that hides them). */
void nd_sampler_denied(const struct nd_sampler *s, bool *fds, bool *io);
/* The main process's address-space limit (ulimit -v, RLIMIT_AS) in bytes; 0 none. */
uint64_t nd_sampler_rlimit_as(const struct nd_sampler *s);
/* True when the job's memory cgroup is a v1 one (memory.limit_in_bytes). */
bool nd_sampler_cgroup_v1(const struct nd_sampler *s);
/* The job's other processes that failed, as the kernel's exit notices told
 * (see nd_detect_context); *heard: whether notices can be heard here. */
const struct nd_child_exit *nd_sampler_child_exits(const struct nd_sampler *s, size_t *n, bool *heard);
/* The 1-minute load average at the last tick (-1 unknown). */
double nd_sampler_loadavg(const struct nd_sampler *s);
/* The host's runnable tasks (/proc/loadavg) and CPU pressure (PSI some
 * avg10, percent) at the last tick; -1 each when unknown. */
void nd_sampler_host_cpu(const struct nd_sampler *s, long *procs_running, double *psi_avg10);
/* The wait status the kernel keeps for the job's main process while it is a
 * zombie (its parent has not reaped it yet): true when seen. watch uses it,
 * since it cannot wait() for a process it did not start. */
bool nd_sampler_root_exit(struct nd_sampler *s, int *wait_status);
/* Sends sig to every process of the job seen so far that still runs (same
 * start time), for those that left the process group. Returns how many. */
size_t nd_sampler_signal_all(struct nd_sampler *s, int sig);
/* Reaps those of them that became our children (run is a child subreaper). */
void nd_sampler_reap(struct nd_sampler *s);

/* The cgroup directory of a process (v2 unified, or v1 memory controller)
 * parsed from a /proc/PID/cgroup buffer: "/sys/fs/cgroup/<path>". Pure. */
bool nd_cgroup_memory_dir(const char *buf, size_t len, char *out, size_t size, bool *v1);
/* "oom_kill N" from memory.events (v2) or memory.oom_control (v1); -1 when absent. Pure. */
long long nd_cgroup_parse_oom_kill(const char *buf, size_t len);

#endif
