/* Judging a process from its footprint and CPU use: "npu:0 (31.7 GiB)",
 * "CPU only: 3.8 cores busy, torch loaded, no device held", and the finding
 * that devices sit idle while a CPU-bound ML process holds none. Pure
 * functions over facts (no I/O), used by `ps` and unit-tested on plain data. */
#ifndef ND_PROC_VERDICT_H
#define ND_PROC_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/finding.h"
#include "device/device.h"
#include "proc/footprint.h"

/* By default a process is "busy" from 0.5 cores on. An ML process is
 * "CPU-bound" (worth a finding when the devices idle) when it keeps that up:
 * busy over the window, or over half of it while its lifetime average is
 * busy (hysteresis: one slow window on a loaded host does not clear a
 * verdict, one fast window does not make one for a process idle all its
 * life). A single-threaded job at 0.9-1.1 cores is far from either cut,
 * and one that a crowded host starves to 0.2 cores still counts when it is
 * runnable at nearly every look inside the window.
 * Callers pass busy_cores (`ps --busy`); <= 0 means the default. */
#define ND_VERDICT_BUSY_CORES 0.5
/* Runnable at this share of the looks: computing, whatever CPU share a
 * crowded host gives it. */
#define ND_VERDICT_RUNNABLE 0.8
/* A device at or below this utilisation counts as idle. */
#define ND_VERDICT_IDLE_UTIL_PCT 5u

/* Frameworks that make a process an ML job (python alone does not). */
#define ND_FW_ML_MASK ND_FW_ML

enum nd_verdict { ND_VERDICT_ON_DEVICE, ND_VERDICT_CPU_ONLY, ND_VERDICT_IDLE };

/* What is known of one process. */
struct nd_proc_facts {
    pid_t pid;
    const char *command; /* already redacted; may be NULL */
    bool cpu_valid;
    double cpu_cores; /* over the window */
    bool life_valid;
    double life_cores; /* over its lifetime */
    bool runnable_valid;
    double runnable_frac;   /* share of looks inside the window that found it runnable */
    struct nd_footprint fp; /* fp.pid == 0 when the footprint is unknown */
};

/* "on-device", "cpu-only", "idle". */
const char *nd_verdict_name(enum nd_verdict v);
/* "npu" for ascend, "gpu" for nvidia, the vendor name otherwise. */
const char *nd_verdict_device_word(const char *vendor);
/* The device memory the footprint names (sum over held devices); false when
 * no held device has a known figure. */
bool nd_footprint_device_mem(const struct nd_footprint *fp, uint64_t *bytes);
/* "npu:0,1" for the devices held (control nodes left out); "" when none. */
void nd_footprint_devices_text(const struct nd_footprint *fp, char *buf, size_t size);

/* The verdict, and its one-line text in buf. states are the devices the
 * host has (may be NULL/0): "torch loaded but not torch_npu" is only said
 * when an Ascend device exists. */
enum nd_verdict nd_verdict_judge(const struct nd_proc_facts *p, const struct nd_device_state *const *states,
                                 size_t nstates, double busy_cores, char *buf, size_t size);
/* An ML process computing on the CPU without a device, sustained (above). */
bool nd_verdict_cpu_bound(const struct nd_proc_facts *p, double busy_cores);
/* Worth a line in the default `ps` listing: holds a device or a control
 * node, has an ML framework loaded, or is busy. */
bool nd_verdict_interesting(const struct nd_proc_facts *p, double busy_cores);

/* Adds "ps.devices-idle-cpu-job" (cpu-fallback, warning) when a vendor's
 * devices are all idle and held by no process while an ML process runs
 * CPU-bound without holding any device. */
void nd_verdict_findings(const struct nd_proc_facts *procs, size_t nprocs, const struct nd_device_state *const *states,
                         size_t nstates, double busy_cores, struct nd_findings *out);

#endif
