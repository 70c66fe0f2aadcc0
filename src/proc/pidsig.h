/* Signals to processes named by number, safe when the number was reused:
 * the target is held by a pidfd opened while its start time matched, and
 * without pidfds (old kernels) the start time is read again right before
 * the signal. A process group is signalled only through its leader's pidfd,
 * or while the leader (or its zombie) still holds the number. */
#ifndef ND_PROC_PIDSIG_H
#define ND_PROC_PIDSIG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* A pidfd for pid when it is the process that started at start_ticks (0:
 * any), else -1 (gone, another process, or no pidfds here). */
int nd_pidfd_open_verified(pid_t pid, uint64_t start_ticks);
/* Sends sig to pid when it still is the process that started at
 * start_ticks: through pidfd when one is given (>= 0), else after reading
 * its start time again. 0, or a negative errno (-ESRCH: gone or reused). */
int nd_pid_signal_verified(int pidfd, pid_t pid, uint64_t start_ticks, int sig);
/* Sends sig to the process group that pid leads, when pid still is the
 * process that started at start_ticks or its group lives on: with the
 * kernel's group signal through the leader's pidfd (Linux 6.9+), which
 * cannot reach a group that took the number after ours ended; else with
 * kill(-pid) only while the leader, alive or a zombie, holds the number.
 * 0, or a negative errno (-ESRCH: not sent, the group may be another's). */
int nd_pgrp_signal_verified(int pidfd, pid_t pid, uint64_t start_ticks, int sig);

#endif
