/* Child processes with deadlines. Every probe that can block
 * (a Python import, npu-smi, a vendor library's init) runs through here, so a
 * hang or a crash becomes a described result instead of a hang of ours. */
#ifndef ND_CORE_SPAWN_H
#define ND_CORE_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/error.h"

struct nd_spawn_result {
    bool started; /* false when exec failed; exec_errno says why */
    int exec_errno;
    bool timed_out; /* killed at the deadline */
    bool exited;    /* exited normally: exit_code is valid */
    int exit_code;
    bool signaled; /* died from a signal (includes our kill at timeout) */
    int signal;
    double elapsed_s;
    char *out; /* stdout (spawn) or the result channel (guard); NUL-terminated */
    size_t out_len;
    bool out_truncated;
    char *err; /* stderr, NUL-terminated */
    size_t err_len;
};

/* Runs argv (PATH searched) with envp (NULL: inherit) and stdin from
 * /dev/null, capturing at most max_output bytes of each stream. The child
 * gets its own process group, killed whole at the deadline. Returns 0 when
 * the child ran (whatever its status) or -errno if it could not be started;
 * an exec failure is reported as started=false with exec_errno. */
int nd_spawn_capture(char *const argv[], char *const envp[], double timeout_s, size_t max_output,
                     struct nd_spawn_result *res, struct nd_error *err);

/* Runs fn(arg, out_fd) in a forked child with a deadline. Whatever fn writes
 * to out_fd comes back in res->out; anything the child prints on stdout or
 * stderr (vendor libraries do) goes to res->err. fn's return value becomes
 * the exit code. Use for dlopen'd vendor calls that may hang or crash. */
int nd_guard_call(int (*fn)(void *arg, int out_fd), void *arg, double timeout_s, size_t max_output,
                  struct nd_spawn_result *res, struct nd_error *err);

void nd_spawn_result_release(struct nd_spawn_result *res);

/* A child that runs our code after fork (nd_guard_call, the device session)
 * is only safe while the process has one thread: a lock another thread held
 * at the fork (malloc's, the sanitizer allocator's, the loader's) stays held
 * in the child forever. Debug builds abort when that order is broken, naming
 * `what`; release builds check nothing. */
void nd_assert_fork_safe(const char *what);

/* "timed out after 5 s", "crashed with SIGSEGV", "exited with status 3",
 * "could not be started: No such file or directory". */
void nd_spawn_describe(const struct nd_spawn_result *res, double timeout_s, char *buf, size_t size);
/* True when the child exited 0 and did not time out. */
bool nd_spawn_ok(const struct nd_spawn_result *res);

/* Monotonic clock in seconds. */
double nd_monotonic_now(void);
/* Reads exactly len bytes from fd before the monotonic deadline.
 * Returns 0, -ETIMEDOUT, -EPIPE (EOF early) or -errno. */
int nd_read_full_deadline(int fd, void *buf, size_t len, double deadline);
/* Writes all of buf to fd, retrying on EINTR/partial writes. 0 or -errno. */
int nd_write_full(int fd, const void *buf, size_t len);
/* In a freshly forked child: default dispositions for every signal and an
 * empty mask, so the child is not deaf to the SIGTERM/SIGKILL we send it. */
void nd_child_reset_signals(void);
/* Kills a process group, waits for the leader (no zombie). */
void nd_kill_and_reap(pid_t pid);

#endif
