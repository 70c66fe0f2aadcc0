/* Finding the job's daemons among our re-parented children (see escaped.h). */
#include "core/escaped.h"
#include "core/ownkids.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int nd_escaped_parse_stat(const char *line, pid_t *ppid, pid_t *sid)
{
    pid_t pgid;
    return nd_escaped_parse_stat_pg(line, ppid, &pgid, sid);
}

int nd_escaped_parse_stat_pg(const char *line, pid_t *ppid, pid_t *pgid, pid_t *sid)
{
    /* The command name may hold spaces and ')': fields count from the last ')'. */
    const char *p = strrchr(line, ')');
    if (!p)
        return -1;
    p++;
    while (*p == ' ')
        p++;
    if (!*p || *p == ' ')
        return -1;
    p++; /* the state letter */
    long f[3];
    for (int i = 0; i < 3; i++) { /* ppid, pgrp, session */
        char *end;
        errno = 0;
        f[i] = strtol(p, &end, 10);
        if (end == p || errno || f[i] < 0 || f[i] > INT_MAX || (*end != ' ' && *end != '\0' && *end != '\n'))
            return -1;
        p = end;
    }
    *ppid = (pid_t)f[0];
    *pgid = (pid_t)f[1];
    *sid = (pid_t)f[2];
    return 0;
}

int nd_escaped_read_stat_pg(const char *name, pid_t *ppid, pid_t *pgid, pid_t *sid)
{
    char path[300], buf[1024];
    snprintf(path, sizeof path, "/proc/%s/stat", name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t k = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (k <= 0)
        return -1;
    buf[k] = '\0';
    return nd_escaped_parse_stat_pg(buf, ppid, pgid, sid);
}

size_t nd_escaped_children(pid_t self, pid_t job, pid_t *out, bool *daemon, size_t max)
{
    pid_t our_sid = getsid(0), our_pgid = getpgrp();
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *e;
    while (n < max && (e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        pid_t ppid, pgid, sid, pid = (pid_t)atol(e->d_name);
        if (nd_escaped_read_stat_pg(e->d_name, &ppid, &pgid, &sid) != 0 || ppid != self || pid == job)
            continue;
        /* In our session: the job's only when its group is none of ours
         * (a helper leads a group of its own, its children stay in it). */
        if (sid == our_sid && (pgid == our_pgid || nd_ownkids_has(pid) || nd_ownkids_has(pgid)))
            continue;
        daemon[n] = sid != our_sid;
        out[n++] = pid;
    }
    closedir(d);
    return n;
}
