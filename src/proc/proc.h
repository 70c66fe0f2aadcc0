/* Live process information from /proc: parsers over buffers (fuzzed and
 * unit-tested on captured dumps) and readers for a pid or a process tree.
 * /proc/PID is always the live one, never root-prefixed. */
#ifndef ND_PROC_PROC_H
#define ND_PROC_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"

struct nd_proc_stat {
    pid_t pid, ppid, pgrp, session;
    char state;    /* R, S, D, Z, T... */
    char comm[64]; /* may contain spaces and parentheses */
    uint64_t utime_ticks, stime_ticks;
    long num_threads;
    uint64_t starttime_ticks; /* since boot; with pid, identifies a process */
    int64_t rss_pages;
    uint64_t vsize_bytes; /* virtual memory size (field 23) */
    bool exit_code_valid; /* field 52 present */
    int exit_code;        /* wait(2) status of a zombie (field 52) */
};

/* /proc/PID/io: what a process read, through the page cache (rchar) and
 * from storage (read_bytes). */
struct nd_proc_io {
    bool rchar_valid, read_bytes_valid, wchar_valid;
    uint64_t rchar, read_bytes, wchar; /* wchar: what it wrote, pipes and files alike */
};

#define ND_PROC_MAX_NSPID 8

struct nd_proc_status {
    uid_t uid; /* real uid */
    bool rss_valid;
    uint64_t vm_rss_bytes;
    int threads;
    int nnspid; /* NSpid: outermost (host) first, ours last */
    pid_t nspid[ND_PROC_MAX_NSPID];
};

/* Parsers: return 0, or -EINVAL for malformed input. */
int nd_proc_parse_stat(const char *buf, size_t len, struct nd_proc_stat *out);
int nd_proc_parse_status(const char *buf, size_t len, struct nd_proc_status *out);
int nd_proc_parse_io(const char *buf, size_t len, struct nd_proc_io *out);
/* The soft "Max address space" of /proc/PID/limits (ulimit -v, RLIMIT_AS)
 * in bytes: 0 when unlimited. -EINVAL when the line is missing or malformed. */
int nd_proc_parse_limit_as(const char *buf, size_t len, uint64_t *bytes);

/* Readers: 0, or -ESRCH when the process is gone, -EACCES, ... */
/* The owner (effective uid) of a process, from its /proc folder: one stat
 * call, cheaper than reading status when only the owner matters. */
/* Opens /proc/PID/<name> (close-on-exec added); the fd, or -ESRCH when the
 * process is gone, or -errno. */
int nd_proc_open(pid_t pid, const char *name, int flags);
int nd_proc_owner(pid_t pid, uid_t *uid);
int nd_proc_read_stat(pid_t pid, struct nd_proc_stat *out);
int nd_proc_read_status(pid_t pid, struct nd_proc_status *out);
/* argv joined with spaces, at most size-1 bytes; falls back to [comm]. */
int nd_proc_read_cmdline(pid_t pid, char *buf, size_t size);
/* The user name for uid, or the number as text. */
void nd_proc_user_name(uid_t uid, char *buf, size_t size);
bool nd_proc_exists(pid_t pid);

/* Every pid in /proc (malloc'd array). */
int nd_proc_list(pid_t **pids, size_t *n);
/* root and all its descendants, found in one pass over /proc (malloc'd). */
int nd_proc_tree(pid_t root, pid_t **pids, size_t *n);

long nd_proc_clock_ticks(void); /* sysconf(_SC_CLK_TCK), cached */
long nd_proc_page_size(void);

/* The pid of a host pid as seen in our pid namespace: matches NSpid lines.
 * Returns our pid, or 0 when not found (different namespace and no match). */
pid_t nd_proc_host_to_local(pid_t host_pid, const pid_t *candidates, size_t n);
/* The outermost pid NSpid names for a process (its pid in the namespace of
 * the /proc we read, the host's when we run on the host); local_pid when the
 * kernel prints no NSpid line. */
pid_t nd_proc_status_host_pid(const struct nd_proc_status *st, pid_t local_pid);

#endif
