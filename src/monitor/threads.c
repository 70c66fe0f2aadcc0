/* Threads of a stuck process and tools on PATH (see threads.h). */
#include "monitor/threads.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/strbuf.h"
#include "proc/proc.h"

bool nd_on_path(const char *prog)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    char *dup = nd_xstrdup(path), *save = NULL;
    bool found = false;
    for (char *dir = strtok_r(dup, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char full[PATH_MAX];
        if (snprintf(full, sizeof full, "%s/%s", *dir ? dir : ".", prog) < (int)sizeof full)
            found = access(full, X_OK) == 0;
    }
    free(dup);
    return found;
}

struct nd_tgroup {
    char state;
    char wchan[48];
    size_t n;
};

/* One small read of /proc/PID/task/TID/NAME; "" when unreadable. */
static void nd_task_read(pid_t pid, const char *tid, const char *name, char *buf, size_t size)
{
    char path[128];
    buf[0] = '\0';
    snprintf(path, sizeof path, "/proc/%d/task/%s/%s", (int)pid, tid, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
}

void nd_threads_evidence(pid_t pid, struct nd_finding *f, size_t max)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct nd_tgroup g[16];
    size_t ng = 0, other = 0, total = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char buf[1024], w[48];
        nd_task_read(pid, e->d_name, "stat", buf, sizeof buf);
        struct nd_proc_stat st;
        if (nd_proc_parse_stat(buf, strlen(buf), &st) < 0)
            continue;
        nd_task_read(pid, e->d_name, "wchan", w, sizeof w);
        if (strcmp(w, "0") == 0)
            w[0] = '\0';
        for (char *c = w; *c; c++)
            if (*c < 0x20 || *c > 0x7e)
                *c = '?';
        total++;
        size_t k = 0;
        while (k < ng && !(g[k].state == st.state && strcmp(g[k].wchan, w) == 0))
            k++;
        if (k == ng) {
            if (ng == sizeof g / sizeof *g) {
                other++;
                continue;
            }
            g[ng].state = st.state;
            snprintf(g[ng].wchan, sizeof g[ng].wchan, "%s", w);
            g[ng++].n = 0;
        }
        g[k].n++;
    }
    closedir(d);
    if (!total)
        return;
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    nd_strbuf_addf(&sb, "pid %d threads:", (int)pid);
    for (size_t k = 0; k < ng && k < max; k++)
        nd_strbuf_addf(&sb, "%s %zu %s %c%s%s", k ? "," : "", g[k].n, g[k].n == 1 ? "thread" : "threads", g[k].state,
                       g[k].wchan[0] ? " in " : "", g[k].wchan);
    if (ng > max || other)
        nd_strbuf_addf(&sb, ", and more");
    nd_finding_add_evidence(f, NULL, 0, "%s", sb.buf);
    nd_strbuf_release(&sb);
}
