/* The job's processes that left its process group (a daemon: fork,
 * setsid, fork; a shell's job under "set -m") and came back to us, the
 * child subreaper, when their parent exited. Signalling the group misses them;
 * `run` stops them with it so that nothing of the job outlives it. */
#ifndef ND_CORE_ESCAPED_H
#define ND_CORE_ESCAPED_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Children of self (re-parented orphans) but the job itself: those in a
 * session of their own (a daemon), and those of our session in a group
 * that is neither ours nor one of our helpers' (ownkids.h), which a job
 * made with "set -m" or a double fork into a group of its own. Fills out
 * with up to max pids, daemon[i] telling which; returns how many. */
size_t nd_escaped_children(pid_t self, pid_t job, pid_t *out, bool *daemon, size_t max);

/* Parses a /proc/PID/stat line for its parent pid and session id; 0, or -1
 * when malformed. */
int nd_escaped_parse_stat(const char *line, pid_t *ppid, pid_t *sid);
/* The same with the process group. */
int nd_escaped_parse_stat_pg(const char *line, pid_t *ppid, pid_t *pgid, pid_t *sid);
/* Reads /proc/NAME/stat (NAME a pid as a directory entry gives it) and
 * parses it as above; -1 when it is gone, unreadable or malformed. */
int nd_escaped_read_stat_pg(const char *name, pid_t *ppid, pid_t *pgid, pid_t *sid);

#endif
