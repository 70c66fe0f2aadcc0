/* The kernel log's word on a job killed by SIGKILL: the OOM killer writes
 * "Out of memory: Killed process PID (comm)" (or "oom-kill:...,pid=PID,...")
 * to the ring buffer, readable through /dev/kmsg where permitted. */
#ifndef ND_MONITOR_KMSG_H
#define ND_MONITOR_KMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The pid an OOM-kill record names (-1 none); rec is one /dev/kmsg record
 * ("6,1234,5678,-;Out of memory: Killed process 42 (python3) ..."). Pure. */
pid_t nd_kmsg_oom_pid(const char *rec, size_t len);
/* Scans the kernel log (non-blocking, at most max_records) for an OOM kill
 * of one of pids; copies the message part of the last such record into
 * line. False when none, or the log is not readable. */
bool nd_kmsg_find_oom(const pid_t *pids, size_t n, size_t max_records, char *line, size_t size);

#endif
