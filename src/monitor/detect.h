/* The run/watch detectors: pure functions from the series (plus a few facts
 * the sampler gathered) to findings. They do no I/O, so unit tests feed them
 * synthetic series. Each is called at every tick and says what holds NOW;
 * the monitor reports a finding once, again only when its severity rises.
 * Every finding's at_s is the sampler clock of the last sample.
 *
 *   fallback.c  fallback.cpu-fallback   cpu-fallback  (error; staged, see below)
 *   idle.c      idle.input-bound        input-bound   (warning)
 *   hang.c      hang.no-progress        hang          (warning)
 *   memory.c    memory.device-full, memory.host-oom, memory.rss-near-limit
 *   exit.c      exit.oom-killed, exit.segfault, exit.bus-error-shm, exit.signal, ...
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
#include <sys/types.h>

#include "core/finding.h"
#include "monitor/series.h"

#define ND_BUSY_CORES 0.8           /* "about one core": tick rounding absorbed */
#define ND_BUSY_RUNNABLE 0.8
#define ND_INPUT_BOUND_UTIL 15.0    /* percent */
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
    char cmd[160];           /* redacted command line, shortened */
    double cores;            /* over the last interval */
    bool holds_device;
    unsigned frameworks;
};

/* Facts beside the series, gathered by the sampler. */
struct nd_detect_context {
    pid_t root_pid;
    /* A usable device: a vendor answered with devices, or device nodes exist. */
    bool device_usable;
    char device_vendor[16];          /* "ascend" or "nvidia" */
    size_t ndevices;
    char device_name[48];            /* "910B3" */
    const struct nd_detect_proc *procs;
    size_t nprocs;
    bool frameworks_known;           /* /proc/PID/maps was readable for a process */
    /* Job pids that vanished since the previous sample (OOM victims?). */
    const pid_t *vanished;
    size_t nvanished;
    /* From the output, by loglines.c. */
    long op_fallback_lines;          /* "will fall back to run on the CPU" */
    char op_fallback_example[240];
    bool dataloader_bus_error;       /* DataLoader worker killed by SIGBUS / shm */
    char dataloader_line[240];
};

/* How the job ended (exit.c). */
struct nd_exit_info {
    bool exited;             /* normal exit: code valid */
    int code;
    bool signaled;
    int signal;
    bool stopped_by_us;      /* --fail-fast or the escalation killed it */
};

void nd_detect_fallback(const struct nd_series *s, const struct nd_detect_config *cfg,
                        const struct nd_detect_context *ctx, struct nd_findings *out);
void nd_detect_input_bound(const struct nd_series *s, const struct nd_detect_config *cfg,
                           const struct nd_detect_context *ctx, struct nd_findings *out);
void nd_detect_hang(const struct nd_series *s, const struct nd_detect_config *cfg,
                    const struct nd_detect_context *ctx, struct nd_findings *out);
void nd_detect_memory(const struct nd_series *s, const struct nd_detect_config *cfg,
                      const struct nd_detect_context *ctx, struct nd_findings *out);
/* At the end only. */
void nd_detect_exit(const struct nd_series *s, const struct nd_detect_context *ctx,
                    const struct nd_exit_info *ex, struct nd_findings *out);
/* Every tick detector above, in order. */
void nd_detect_all(const struct nd_series *s, const struct nd_detect_config *cfg,
                   const struct nd_detect_context *ctx, struct nd_findings *out);

/* The device frameworks of a vendor as nd_framework bits. */
unsigned nd_detect_device_frameworks(const char *vendor);
/* "torch, torch_cpu, python" (empty when none). */
void nd_detect_frameworks_text(unsigned frameworks, char *buf, size_t size);
/* "3 processes: 1234 python train.py (1.9 cores), ..." for evidence, at most max shown. */
void nd_detect_describe_busy(const struct nd_detect_context *ctx, size_t max, char *buf, size_t size);

/* The output facts other detectors use as evidence (loglines.c): operator
 * fallbacks and DataLoader bus errors, taken from the lines the knowledge
 * base matched. classify says which a line is (ND_NOTE_* bits, pure); note
 * records it (again for each repeat). */
#define ND_NOTE_OP_FALLBACK 1u
#define ND_NOTE_BUS_ERROR   2u
unsigned nd_loglines_classify(const char *line, size_t len);
void nd_loglines_note(unsigned notes, const char *line, size_t len, struct nd_detect_context *ctx);
/* The same for every line of a block (used while the knowledge base loads,
 * so these facts never wait for it). */
void nd_loglines_note_block(const char *data, size_t len, struct nd_detect_context *ctx);

#endif
