/* What a stuck job's threads are doing, for the hang report: each thread's
 * state and the kernel function it sleeps in, grouped. And whether a tool
 * (py-spy, gdb) is on PATH, so the report only suggests what is there.
 * Live /proc; used by the monitor when a hang is found. */
#ifndef ND_MONITOR_THREADS_H
#define ND_MONITOR_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/finding.h"

/* True when PATH has an executable prog. */
bool nd_on_path(const char *prog);
/* Adds "pid N: 12 threads S in futex_wait_queue, 1 thread S in do_select"
 * evidence for pid's threads (at most max groups). */
void nd_threads_evidence(pid_t pid, struct nd_finding *f, size_t max);

#endif
