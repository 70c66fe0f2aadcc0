/* The kernel's exit notices (taskstats over generic netlink): the exit
 * status of a process that someone else reaps. watch cannot wait() for a
 * job it did not start, and a launcher (torchrun, a shell) collects its
 * children at once, so the zombie's status is often gone before watch looks.
 * A listener registered before the job exits hears the status anyway.
 * Needs CAP_NET_ADMIN in the initial user and pid namespaces (root on the
 * host, not inside a container): elsewhere opening fails and watch falls
 * back to the zombie. */
#ifndef ND_PROC_TASKSTATS_H
#define ND_PROC_TASKSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct nd_exit_listener;

/* One exit notice: the task (a process's main thread has its pid), its
 * thread group and parent when it ended (0 unknown: an older kernel's
 * shorter record), and its command name ("" unknown). */
struct nd_exit_notice {
    pid_t pid, tgid, ppid;
    int ws; /* a wait() status */
    char comm[32];
};

/* Registers for the exit notices of every CPU. Returns 0, or a negative
 * errno (-EPERM without the capability, -EINVAL in a container). */
int nd_exit_listener_open(struct nd_exit_listener **out);
/* Reads what has arrived (waiting up to wait_ms for the first notice) and
 * returns true with *ws (a wait() status) once pid's exit was heard. */
bool nd_exit_listener_status(struct nd_exit_listener *l, pid_t pid, int wait_ms, int *ws);
/* Reads what has arrived, without waiting, and calls fn for each exit heard
 * (every thread's too: a process's main thread has its pid). */
void nd_exit_listener_each(struct nd_exit_listener *l, void (*fn)(const struct nd_exit_notice *n, void *arg), void *arg);
void nd_exit_listener_free(struct nd_exit_listener *l);

/* One netlink datagram of taskstats notices: true with *ws when it holds
 * the exit of pid (the per-thread notice of its main thread). Exposed for
 * the fuzz target; any bytes are safe. */
bool nd_taskstats_parse(const void *buf, size_t len, pid_t pid, int *ws);
/* Every exit notice in one datagram, to fn; returns how many. Any bytes are safe. */
size_t nd_taskstats_each(const void *buf, size_t len, void (*fn)(const struct nd_exit_notice *n, void *arg), void *arg);

#endif
