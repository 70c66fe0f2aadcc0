/* The job's processes that left its process group for a session of their
 * own (a daemon: fork, setsid, fork) and came back to us, the child
 * subreaper, when their parent exited. Signalling the group misses them;
 * `run` stops them with it so that nothing of the job outlives it. */
#ifndef ND_CORE_ESCAPED_H
#define ND_CORE_ESCAPED_H

#include <stddef.h>
#include <sys/types.h>

/* Children of self (re-parented orphans) whose session is not self's: our
 * own helpers (device sessions, probes) stay in our session, so only the
 * job's daemons match. Fills out with up to max pids; returns how many. */
size_t nd_escaped_children(pid_t self, pid_t *out, size_t max);

/* Parses a /proc/PID/stat line for its parent pid and session id; 0, or -1
 * when malformed. */
int nd_escaped_parse_stat(const char *line, pid_t *ppid, pid_t *sid);

#endif
