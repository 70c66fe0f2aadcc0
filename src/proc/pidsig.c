/* Reuse-safe signals by pidfd, with a start-time check where the kernel
 * has none (see pidsig.h). */
#include "proc/pidsig.h"

#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proc/proc.h"

#ifndef PIDFD_SIGNAL_PROCESS_GROUP
#define PIDFD_SIGNAL_PROCESS_GROUP (1U << 2)
#endif

static bool nd_started_at(pid_t pid, uint64_t start_ticks)
{
    struct nd_proc_stat st;
    return nd_proc_read_stat(pid, &st) == 0 && (start_ticks == 0 || st.starttime_ticks == start_ticks);
}

int nd_pidfd_open_verified(pid_t pid, uint64_t start_ticks)
{
#ifdef SYS_pidfd_open
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd < 0)
        return -1;
    /* Opened first, checked after: the pidfd names the process that had
     * the number when the check passed. */
    if (!nd_started_at(pid, start_ticks)) {
        close(fd);
        return -1;
    }
    return fd;
#else
    (void)pid;
    (void)start_ticks;
    return -1;
#endif
}

static int nd_pidfd_send(int pidfd, int sig, unsigned flags)
{
#ifdef SYS_pidfd_send_signal
    return syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, flags) == 0 ? 0 : -errno;
#else
    (void)pidfd;
    (void)sig;
    (void)flags;
    return -ENOSYS;
#endif
}

int nd_pid_signal_verified(int pidfd, pid_t pid, uint64_t start_ticks, int sig)
{
    if (pidfd >= 0) {
        int r = nd_pidfd_send(pidfd, sig, 0);
        if (r != -ENOSYS)
            return r;
    }
    if (!nd_started_at(pid, start_ticks))
        return -ESRCH;
    return kill(pid, sig) == 0 ? 0 : -errno;
}

int nd_pgrp_signal_verified(int pidfd, pid_t pid, uint64_t start_ticks, int sig)
{
    if (pidfd >= 0) {
        int r = nd_pidfd_send(pidfd, sig, PIDFD_SIGNAL_PROCESS_GROUP);
        if (r != -EINVAL && r != -ENOSYS)
            return r;
    }
    /* An older kernel: while the leader (a zombie too) has the number, no
     * other group can; once it is gone the number may be anyone's, and the
     * job's processes are signalled one by one instead (by start time). */
    if (!nd_started_at(pid, start_ticks))
        return -ESRCH;
    return kill(-pid, sig) == 0 ? 0 : -errno;
}
