/* Host CPU contention from real /proc: how long the job's threads wait on a
 * run queue for a CPU (/proc/PID/task/TID/schedstat) against how long they
 * run, beside the host's run queue (/proc/loadavg) and CPU pressure
 * (/proc/pressure/cpu). Parsers over buffers (fuzzed: any bytes, never a
 * crash) and a pure judgement over one window. */
#ifndef ND_PROC_SCHED_H
#define ND_PROC_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* /proc/PID/schedstat or /proc/PID/task/TID/schedstat:
 * "run_ns wait_ns timeslices": time on a CPU, time runnable but waiting on
 * a run queue, both in nanoseconds since the task started. */
struct nd_schedstat {
    uint64_t run_ns, wait_ns, slices;
};
/* 0, or -EINVAL when the first two fields are not numbers. */
int nd_sched_parse_schedstat(const char *buf, size_t len, struct nd_schedstat *out);

/* /proc/loadavg: "0.52 0.58 0.59 3/181 12345". */
struct nd_loadavg {
    double avg1, avg5, avg15;
    long running, total; /* runnable tasks now (procs_running), tasks; -1 unknown */
    long long last_pid;  /* -1 unknown */
};
/* 0 when at least the 1-minute average was read, else -EINVAL. */
int nd_sched_parse_loadavg(const char *buf, size_t len, struct nd_loadavg *out);

/* /proc/pressure/cpu: the "some avg10=" figure, the share (percent) of the
 * last 10 s in which some task waited for a CPU. -EINVAL when absent. */
int nd_sched_parse_psi_some_avg10(const char *buf, size_t len, double *avg10);

/* One window's facts about the job and the host. */
struct nd_contention_in {
    double span_s;      /* the window's length */
    double run_s;       /* the job's threads' time on a CPU over it (summed) */
    double wait_s;      /* their time runnable but waiting on a run queue */
    long host_cpus;     /* online CPUs (0 unknown) */
    double loadavg1;    /* -1 unknown */
    long procs_running; /* runnable tasks on the host at the last look (-1 unknown) */
    double psi_avg10;   /* /proc/pressure/cpu some avg10, percent (-1 unknown) */
};

struct nd_contention {
    bool known;        /* schedstat was readable: wait_cores means something */
    double wait_cores; /* threads' worth of waiting for a CPU, on average */
    double run_cores;  /* threads' worth of running */
    double wait_share; /* wait / (run + wait): of the time it wanted a CPU, the share it waited */
    bool host_crowded; /* the host's run queue is longer than its CPUs, or PSI says tasks wait */
    bool starved;      /* the job is starved by host contention */
};

/* A job is starved by host contention when, over the window, its threads
 * waited on a run queue for at least ND_CONTENTION_WAIT_CORES threads'
 * worth of time, at least ND_CONTENTION_WAIT_SHARE of the time they wanted a
 * CPU, and the host itself is crowded (more runnable tasks or load than
 * CPUs, or CPU pressure) - the job's own threads alone fighting over its
 * cores is not the host's doing. Pure. */
#define ND_CONTENTION_WAIT_CORES 0.3
#define ND_CONTENTION_WAIT_SHARE 0.6
#define ND_CONTENTION_PSI 40.0
void nd_contention_judge(const struct nd_contention_in *in, struct nd_contention *out);

#endif
