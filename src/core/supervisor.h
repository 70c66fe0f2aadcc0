/* The supervisor of `npu-doctor run`: starts the job in its own process
 * group, passes its stdout and stderr through byte for byte (each through its
 * own pipe, or a pty when ours is a terminal), forwards signals to the group,
 * escalates a second Ctrl-C, and reaps everything at the end. Monitoring hooks
 * in through callbacks; nothing here judges the job. */
#ifndef ND_CORE_SUPERVISOR_H
#define ND_CORE_SUPERVISOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"

#define ND_SV_LINE_MAX 4096         /* a line spanning reads is matched on its first bytes */
#define ND_SV_ESCALATE_WINDOW_S 3.0 /* a second Ctrl-C within this escalates */
#define ND_SV_ESCAPED_MAX 64        /* daemons of the job (setsid) stopped with it */

struct nd_supervisor_opts {
    char *const *argv; /* the job; PATH searched */
    double grace_s;    /* SIGTERM -> SIGKILL delay */
    bool pty_stdout;   /* give the job a pty as stdout (ours is a terminal) */
    bool pty_stderr;
    int keep_fd; /* an fd the job must NOT inherit (the --json-summary fd), or -1 */
};

struct nd_supervisor_hooks {
    void *arg;
    /* Whole output lines of stream 1 or 2 as they arrive, '\n'-terminated,
     * the first one numbered first_lineno, one call per read. A line that
     * spans reads keeps at most ND_SV_LINE_MAX of the bytes read before the
     * read that ends it. */
    void (*lines)(void *arg, int stream, const char *data, size_t len, long first_lineno);
    /* Called when the deadline it returned last passes; returns the next one
     * (monotonic seconds). */
    double (*tick)(void *arg, double now);
    /* Optional: where the next read's block is to be built, up to *cap
     * (<= want) bytes; lines then gets data inside it. NULL, or a small
     * *cap: the supervisor's own buffer. */
    char *(*buffer)(void *arg, size_t want, size_t *cap);
    /* Optional, for pipes (not ptys): asked before a read whether the bytes
     * waiting in fd are to be held by the hook without a copy (tee); returns
     * how many it holds, up to max, or 0. After a read it held, held is
     * called instead of lines: the block is prefix bytes kept from earlier
     * reads, then len - prefix of the raw bytes held (len 0 when they end no
     * line). */
    size_t (*hold)(void *arg, int fd, size_t max);
    void (*held)(void *arg, int stream, const char *data, size_t len, size_t prefix, size_t raw, long first_lineno);
};

struct nd_supervisor;

/* Forks and execs the job. On an exec failure returns -errno (ENOENT: not
 * found, EACCES: not executable) with err filled as a shell would say it. */
int nd_supervisor_start(const struct nd_supervisor_opts *opt, struct nd_supervisor **sv, struct nd_error *err);
pid_t nd_supervisor_pid(const struct nd_supervisor *sv);
double nd_supervisor_started_at(const struct nd_supervisor *sv);

/* Runs until the job and every process of its group are gone and the output
 * is drained. first_tick: the first tick deadline (monotonic). */
void nd_supervisor_run(struct nd_supervisor *sv, const struct nd_supervisor_hooks *hooks, double first_tick);

/* Stops the job: SIGTERM to the group now, SIGKILL after the grace. */
void nd_supervisor_stop(struct nd_supervisor *sv);
bool nd_supervisor_stopped(const struct nd_supervisor *sv);
bool nd_supervisor_job_done(const struct nd_supervisor *sv);

/* Output so far: bytes and complete lines, both streams together. */
void nd_supervisor_output(const struct nd_supervisor *sv, uint64_t *bytes, uint64_t *lines);

/* The job's end: the raw wait status, and the shell-style code (128+N). */
int nd_supervisor_wait_status(const struct nd_supervisor *sv);
int nd_supervisor_exit_code(const struct nd_supervisor *sv);

void nd_supervisor_free(struct nd_supervisor *sv);

#endif
