/* OOM kills in the kernel log (see kmsg.h). */
#include "monitor/kmsg.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The number after key inside [p, end), or -1. */
static pid_t nd_pid_after(const char *p, const char *end, const char *key)
{
    size_t k = strlen(key);
    for (; p + k <= end; p++) {
        if (memcmp(p, key, k) != 0)
            continue;
        const char *q = p + k;
        long v = 0;
        if (q >= end || !isdigit((unsigned char)*q))
            return -1;
        for (; q < end && isdigit((unsigned char)*q); q++) {
            v = v * 10 + (*q - '0');
            if (v > 0x7fffffff)
                return -1;
        }
        return v > 0 ? (pid_t)v : -1;
    }
    return -1;
}

pid_t nd_kmsg_oom_pid(const char *rec, size_t len)
{
    const char *end = rec + len;
    const char *semi = memchr(rec, ';', len);
    const char *msg = semi ? semi + 1 : rec;
    pid_t pid = nd_pid_after(msg, end, "Killed process ");
    if (pid < 0) {
        /* "oom-kill:constraint=...,task=python3,pid=42,uid=0" */
        const char *o = NULL;
        for (const char *p = msg; p + 9 <= end && !o; p++)
            if (memcmp(p, "oom-kill:", 9) == 0)
                o = p;
        if (o)
            pid = nd_pid_after(o, end, ",pid=");
    }
    return pid;
}

bool nd_kmsg_find_oom(const pid_t *pids, size_t n, size_t max_records, char *line, size_t size)
{
    int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool found = false;
    char rec[2048];
    for (size_t i = 0; i < max_records; i++) {
        ssize_t r = read(fd, rec, sizeof rec - 1);
        if (r < 0 && errno == EPIPE)
            continue; /* overwritten while we read: go on with the next */
        if (r <= 0)
            break; /* EAGAIN: the end of the log */
        pid_t pid = nd_kmsg_oom_pid(rec, (size_t)r);
        for (size_t k = 0; pid > 0 && k < n; k++)
            if (pids[k] == pid) {
                const char *semi = memchr(rec, ';', (size_t)r);
                const char *msg = semi ? semi + 1 : rec;
                size_t m = (size_t)(rec + r - msg);
                while (m && (msg[m - 1] == '\n' || msg[m - 1] == '\r'))
                    m--;
                if (m >= size)
                    m = size - 1;
                for (size_t c = 0; c < m; c++)
                    line[c] = (unsigned char)msg[c] < 0x20 ? '?' : msg[c];
                line[m] = '\0';
                found = true;
            }
    }
    close(fd);
    return found;
}
