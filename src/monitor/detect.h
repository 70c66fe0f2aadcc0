/* The run/watch detectors: pure functions from the series (plus a few facts
 * the sampler gathered) to findings. They do no I/O, so unit tests feed them
 * synthetic series. Each is called at every tick and says what holds NOW;
 * the monitor reports a finding once, again only when its severity rises.
 * Every finding's at_s is the sampler clock of the last sample.
 *
 *   fallback.c  fallback.cpu-fallback   cpu-fallback  (error; staged, see below)
 *   procverdict.c fallback.partial     cpu-fallback  (error: one process of the job on the
 *               CPU while a sibling holds a device; per-process verdicts)
 *   inproc.c    fallback.in-process     cpu-fallback  (warning: the device holder computes on the
 *               CPU itself while its device idles, reading little)
 *   storage.c   idle.storage-bound      input-bound   (warning: the device waits on reads)
 *   starved.c   idle.device-starved     input-bound   (warning: the device idles while the job sleeps
 *               between steps that still come: per-sample latency, not reads)
 *   idle.c      idle.input-bound        input-bound   (warning)
 *   hang.c      hang.no-progress        hang          (warning)
 *               hang.stopped            hang          (warning: state T, SIGTTIN/SIGTSTP/SIGSTOP)
 *   memory.c    memory.device-full, memory.host-oom, memory.rss-near-limit
 *   exit.c      exit.oom-killed, exit.segfault, exit.bus-error-shm, exit.signal, ...
 *   childexit.c exit.child-failed     config        (warning: a process of the job failed while
 *               the main one runs on; exit.c says the same at the end of a job that exited 0)
 *   blind.c     monitor.limited-view  config        (info, at the end: parts of /proc hidden)
 *   pause.c     at the end, a phase finding of a job that then worked again: a note
 *   loglines.c  output facts for the other detectors (no findings of its own)
 *
 * cpu-fallback staging: a usable device is present, the job used about one
 * core or more (>= ND_BUSY_CORES on average, or a process runnable in
 * >= ND_BUSY_RUNNABLE of the samples when the host is contended), and no
 * process of the job held a device, over the whole --window.
 *   - When no framework for the device is mapped in any process of the job
 *     (torch without torch_npu, no libascendcl/libcuda...), it is an error at
 *     the end of the window: nothing in the job can ever reach the device.
 *   - Otherwise (the framework is loaded, maybe still moving data) it is a
 *     warning at the end of the window, and an error once no device has been
 *     held for --fallback-after seconds. */
#ifndef ND_MONITOR_DETECT_H
#define ND_MONITOR_DETECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/finding.h"
#include "core/series.h"

#define ND_BUSY_CORES 0.8 /* "about one core": tick rounding absorbed */
#define ND_BUSY_RUNNABLE 0.8
#define ND_INPUT_BOUND_UTIL 15.0 /* percent */
#define ND_HANG_MAX_CORES 0.05
#define ND_DEVICE_MEM_FULL 0.95
#define ND_DEVICE_MEM_FULL_SAMPLES 10
#define ND_RSS_NEAR_LIMIT 0.90

struct nd_detect_config {
    double interval_s;       /* --interval (default 1) */
    double window_s;         /* --window (default 20) */
    double fallback_after_s; /* --fallback-after (default 120) */
    double warmup_s;         /* --warmup (default 60) */
    double hang_after_s;     /* --hang-after (default 300) */
};

void nd_detect_config_default(struct nd_detect_config *cfg);

/* One process of the job at the last sample. */
struct nd_detect_proc {
    pid_t pid, ppid;
    char comm[32];
    char cmd[160]; /* redacted command line, shortened */
    double cores;  /* over the last interval */
    bool holds_device;
    unsigned frameworks;
    /* Sustained use: the mean over the last --window (or since it was first
     * seen, when younger), so a verdict does not follow one noisy tick. */
    double win_cores;
    double win_runnable; /* share of the window's samples that found it runnable */
    double tracked_s;    /* seconds since the sampler first saw it */
    bool held_ever;      /* held a device at some tick */
    uint32_t held_mask;  /* series device slots held now */
    char state;          /* R, S, D, T, t, Z (from stat) */
    char rank[12];       /* RANK from its environment ("" when none) */
    char local_rank[12]; /* LOCAL_RANK */
    bool distributed;    /* RANK, WORLD_SIZE or MASTER_ADDR set */
    uint64_t read_bytes; /* /proc/PID/io rchar: bytes read, cache or storage */
    bool io_valid;
    char wchan[32]; /* the kernel function it sleeps in ("" unknown or running) */
};

/* What one process of the job does, judged over the window. */
enum nd_proc_verdict {
    ND_PV_ON_DEVICE,           /* holds a device */
    ND_PV_FRAMEWORK_NO_DEVICE, /* computes with an ML framework loaded, holds none */
    ND_PV_CPU_ONLY,            /* computes, no framework */
    ND_PV_IDLE,
};

/* A process of the job (not its main one) whose end the kernel's exit
 * notices or its unreaped zombie told: its wait status, and what it was. */
struct nd_child_exit {
    pid_t pid;
    int ws;      /* a wait() status */
    bool zombie; /* read from the zombie's /proc stat, not from an exit notice */
    char cmd[160];
    char rank[12];
    unsigned frameworks;
};

/* Facts beside the series, gathered by the sampler. */
struct nd_detect_context {
    pid_t root_pid;
    /* A usable device: a vendor answered with devices, or device nodes exist. */
    bool device_usable;
    char device_vendor[16]; /* "ascend" or "nvidia" */
    size_t ndevices;
    char device_name[48]; /* "910B3" */
    const struct nd_detect_proc *procs;
    size_t nprocs;
    bool frameworks_known;      /* /proc/PID/maps was readable for a process */
    bool fds_denied;            /* /proc/PID/fd of a process was not readable: who holds a device is partly unknown */
    bool io_denied;             /* /proc/PID/io of a process was not readable: its reads are unknown */
    long host_cpus;             /* online CPUs (0 unknown) */
    uint64_t rlimit_as;         /* the main process's ulimit -v in bytes (0 none) */
    bool cgroup_v1;             /* the memory limit is v1's memory.limit_in_bytes */
    uint64_t peak_rss;          /* the job's largest RSS so far */
    bool have_py_spy, have_gdb; /* on PATH: the hang fix uses what is there */
    double loadavg1;            /* 1-minute load average (-1 unknown) */
    long procs_running;         /* runnable tasks on the host (/proc/loadavg; -1 unknown) */
    double psi_cpu10;           /* /proc/pressure/cpu some avg10, percent (-1 unknown) */
    /* Job pids that vanished since the previous sample (OOM victims?). */
    const pid_t *vanished;
    size_t nvanished;
    /* From the output, by loglines.c. */
    long op_fallback_lines; /* "will fall back to run on the CPU" */
    char op_fallback_example[240];
    bool dataloader_bus_error; /* DataLoader worker killed by SIGBUS / shm */
    char dataloader_line[240];
    /* The job's other processes that failed (a crash or kill signal; a
     * non-zero exit of a rank or a framework process), as the kernel's
     * exit notices or a zombie told; exit_notices: whether notices can be
     * heard here. */
    const struct nd_child_exit *child_exits;
    size_t nchild_exits;
    bool exit_notices;
};

/* How the job ended (exit.c). */
struct nd_exit_info {
    bool exited; /* normal exit: code valid */
    int code;
    bool signaled;
    int signal;
    bool stopped_by_us; /* --fail-fast or the escalation killed it */
    double timeout_s;   /* > 0: run --timeout stopped it after this long */
    /* The last line of the job's output that reads like an error or
     * exception (run only; "" when none), and its line number. */
    const char *last_error;
    long last_error_line;
    const char *last_line; /* the very last line printed, "" when none */
    /* The exception line of the last Python traceback printed (run only;
     * NULL or "" when none), and its line number. */
    const char *traceback_error;
    long traceback_line;
};

void nd_detect_fallback(const struct nd_series *s, const struct nd_detect_config *cfg,
                        const struct nd_detect_context *ctx, struct nd_findings *out);
void nd_detect_input_bound(const struct nd_series *s, const struct nd_detect_config *cfg,
                           const struct nd_detect_context *ctx, struct nd_findings *out);
/* The window both input-bound forms (idle.c, storage.c) judge: after
 * --warmup, the last --window [a, b], the job holding a device for at least
 * 90% of it, and the device utilisation over it (*job_util: of the job's own
 * devices, else of all) below ND_INPUT_BOUND_UTIL. False when too early, not
 * on a device or busy enough. */
bool nd_input_window(const struct nd_series *s, const struct nd_detect_config *cfg, const struct nd_sample **a,
                     const struct nd_sample **b, double *util, bool *job_util);
void nd_detect_hang(const struct nd_series *s, const struct nd_detect_config *cfg, const struct nd_detect_context *ctx,
                    struct nd_findings *out);
void nd_detect_stopped(const struct nd_series *s, const struct nd_detect_config *cfg,
                       const struct nd_detect_context *ctx, struct nd_findings *out);
void nd_detect_memory(const struct nd_series *s, const struct nd_detect_config *cfg,
                      const struct nd_detect_context *ctx, struct nd_findings *out);
/* At the end only. */
void nd_detect_exit(const struct nd_series *s, const struct nd_detect_context *ctx, const struct nd_exit_info *ex,
                    struct nd_findings *out);
/* One process of the job on the CPU while a sibling holds a device (procverdict.c). */
void nd_detect_partial_fallback(const struct nd_series *s, const struct nd_detect_config *cfg,
                                const struct nd_detect_context *ctx, struct nd_findings *out);
/* The in-process CPU fallback's window (inproc.c): the input window, the
 * job busy, the busiest device holders computing most of it themselves,
 * reading under ND_INPROC_READ_RATE. idle.c leaves such a window to it. */
#define ND_INPROC_READ_RATE (1024.0 * 1024.0) /* bytes/s */
struct nd_inproc {
    const struct nd_sample *a, *b;
    double util;
    bool job_util;
    double cores;                        /* the job's, over the window */
    double holder_cores;                 /* of the busy holders */
    double read_rate;                    /* the job's reads, bytes/s */
    bool io_known;                       /* /proc/PID/io was readable: read_rate holds */
    const struct nd_detect_proc *holder; /* the busiest holder */
};
bool nd_inproc_window(const struct nd_series *s, const struct nd_detect_config *cfg,
                      const struct nd_detect_context *ctx, struct nd_inproc *out);
void nd_detect_inproc_fallback(const struct nd_series *s, const struct nd_detect_config *cfg,
                               const struct nd_detect_context *ctx, struct nd_findings *out);
/* The device idles while the job sleeps between steps that still come (starved.c). */
void nd_detect_starved(const struct nd_series *s, const struct nd_detect_config *cfg,
                       const struct nd_detect_context *ctx, struct nd_findings *out);
/* At the end (pause.c): a finding about what the job did at one time (a
 * fallback, a starved device, no progress; warnings) whose job then worked
 * on its device again for the whole last --window and exited 0 was a pause,
 * not a fault: true with when that work began and its utilisation (-1: a
 * job without a device that printed and computed again). demote makes it
 * a note that says so. */
bool nd_detect_pause_over(const struct nd_series *s, const struct nd_detect_config *cfg, const struct nd_finding *f,
                          const struct nd_exit_info *ex, double *from_s, double *util);
void nd_detect_pause_demote(struct nd_finding *f, double from_s, double util, double end_s);
/* At the end (blind.c): an info note naming what of the job's /proc could
 * not be read (fds_denied, io_denied, no maps), so that a quiet summary is
 * not taken for a clean one. */
void nd_detect_limited_view(const struct nd_detect_context *ctx, double at_s, struct nd_findings *out);
/* A process of the job failed while its main process runs on (childexit.c). */
void nd_detect_child_exit(const struct nd_series *s, const struct nd_detect_config *cfg,
                          const struct nd_detect_context *ctx, struct nd_findings *out);
/* The job's threads wait on the run queue most of the time they want a CPU
 * while other processes crowd the host (contention.c): host.cpu-contention. */
void nd_detect_contention(const struct nd_series *s, const struct nd_detect_config *cfg,
                          const struct nd_detect_context *ctx, struct nd_findings *out);
/* True when over a..b the job's threads waited on a run queue at least
 * ND_CONTENTION_WAIT_SHARE of the time they wanted a CPU, on a crowded host
 * (see proc/sched.h): the window's time is the host's, not the job's. */
bool nd_detect_contended(const struct nd_sample *a, const struct nd_sample *b, const struct nd_detect_context *ctx);
/* The device waits on storage: low utilisation, the job asleep in reads (storage.c). */
void nd_detect_storage_bound(const struct nd_series *s, const struct nd_detect_config *cfg,
                             const struct nd_detect_context *ctx, struct nd_findings *out);
/* "memory.max", or "memory.limit_in_bytes (v1)" on a cgroup-v1 host (memory.c). */
const char *nd_cgroup_limit_file(const struct nd_detect_context *ctx);
/* "pid 42 python3 worker.py (rank 1): SIGKILL" for the failed processes,
 * at most max named (exit.c). */
void nd_detect_describe_child_exits(const struct nd_detect_context *ctx, size_t max, char *buf, size_t size);
/* True when the job's last error line is a host allocation failure
 * (MemoryError, bad_alloc...), not a device OOM (exit.c). */
bool nd_exit_line_is_host_oom(const char *line);
/* A kernel wait channel that means waiting for input: a read from a pipe,
 * socket or network file system, a page being read in (storage.c). */
bool nd_wchan_is_input_wait(const char *wchan);
/* Free cores for more DataLoader workers: online CPUs less the load (at
 * least the job's own use); 0 when none or unknown. */
long nd_detect_free_cores(const struct nd_detect_context *ctx, double job_cores);
/* A process's verdict over the window; "on-device", "framework-no-device", "cpu-only", "idle". */
enum nd_proc_verdict nd_detect_proc_verdict(const struct nd_detect_proc *p);
const char *nd_proc_verdict_name(enum nd_proc_verdict v);
/* The processes of the job computing on the CPU with a framework loaded
 * while a process that is not their ancestor holds a device (a DataLoader
 * worker under a device holder is the holder's input pipeline, not a
 * fallback). Fills up to max pointers; returns how many. */
size_t nd_detect_partial_procs(const struct nd_detect_config *cfg, const struct nd_detect_context *ctx,
                               const struct nd_detect_proc **out, size_t max);
/* Every tick detector above, in order. */
void nd_detect_all(const struct nd_series *s, const struct nd_detect_config *cfg, const struct nd_detect_context *ctx,
                   struct nd_findings *out);

/* The device frameworks of a vendor as nd_framework bits. */
unsigned nd_detect_device_frameworks(const char *vendor);
/* "torch, torch_cpu, python" (empty when none). */
void nd_detect_frameworks_text(unsigned frameworks, char *buf, size_t size);
/* "3 processes: 1234 python train.py (1.9 cores), ..." for evidence, at most max shown. */
void nd_detect_describe_busy(const struct nd_detect_context *ctx, size_t max, char *buf, size_t size);
/* "1234 python train.py (in futex_wait), ..., and 2 more": the first three
 * processes pick() accepts, each with what where() writes of it. */
void nd_detect_name_procs(const struct nd_detect_context *ctx, bool (*pick)(const struct nd_detect_proc *),
                          void (*where)(const struct nd_detect_proc *, char *, size_t), char *buf, size_t size);

/* The output facts other detectors use as evidence (loglines.c): operator
 * fallbacks and DataLoader bus errors, taken from the lines the knowledge
 * base matched. classify says which a line is (ND_NOTE_* bits, pure); note
 * records it (again for each repeat). */
#define ND_NOTE_OP_FALLBACK 1u
#define ND_NOTE_BUS_ERROR 2u
unsigned nd_loglines_classify(const char *line, size_t len);
void nd_loglines_note(unsigned notes, const char *line, size_t len, struct nd_detect_context *ctx);
/* The same for every line of a block (used while the knowledge base loads,
 * so these facts never wait for it). */
void nd_loglines_note_block(const char *data, size_t len, struct nd_detect_context *ctx);

#endif
