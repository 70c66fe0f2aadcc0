/* Live process information from /proc: bounded parsers for stat and status
 * buffers (they never trust a NUL terminator, so captured dumps and fuzz
 * input are parsed exactly like live files) and cheap readers that use a
 * stack buffer per file, so sampling a tree does not allocate per process. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "core/strbuf.h"
#include "proc/proc.h"

/* ---- bounded number parsing over [p, end) ---- */

static const char *nd_skip_spaces(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* Parses an optionally signed decimal integer; returns the position after
 * it, or NULL when there is no digit. Saturates instead of overflowing. */
static const char *nd_parse_i64(const char *p, const char *end, int64_t *out)
{
    bool neg = false;
    if (p < end && (*p == '-' || *p == '+')) {
        neg = *p == '-';
        p++;
    }
    if (p >= end || !isdigit((unsigned char)*p))
        return NULL;
    uint64_t v = 0;
    while (p < end && isdigit((unsigned char)*p)) {
        unsigned d = (unsigned)(*p - '0');
        v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
        p++;
    }
    if (v > (uint64_t)INT64_MAX)
        v = (uint64_t)INT64_MAX;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return p;
}

static pid_t nd_clamp_pid(int64_t v)
{
    if (v < 0 || v > 0x7fffffff)
        return -1;
    return (pid_t)v;
}

/* ---- /proc/PID/stat ---- */

int nd_proc_parse_stat(const char *buf, size_t len, struct nd_proc_stat *out)
{
    memset(out, 0, sizeof *out);
    if (!buf)
        return -EINVAL;
    const char *end = buf + len;
    const char *open = memchr(buf, '(', len);
    if (!open)
        return -EINVAL;
    /* comm may itself contain ") (": the real end is the LAST ')'. */
    const char *close = NULL;
    for (const char *q = end; q > open + 1;) {
        q--;
        if (*q == ')') {
            close = q;
            break;
        }
    }
    if (!close)
        return -EINVAL;

    int64_t v;
    const char *p = nd_skip_spaces(buf, open);
    if (!(p = nd_parse_i64(p, open, &v)) || v <= 0 || nd_clamp_pid(v) < 0)
        return -EINVAL;
    out->pid = (pid_t)v;
    size_t clen = (size_t)(close - open - 1);
    if (clen >= sizeof out->comm)
        clen = sizeof out->comm - 1;
    memcpy(out->comm, open + 1, clen);
    for (size_t i = 0; i < clen; i++) /* keep the name printable and C-string safe */
        if (out->comm[i] == '\0' || out->comm[i] == '\n')
            out->comm[i] = '?';

    p = close + 1;
    p = nd_skip_spaces(p, end);
    if (p >= end || !isalpha((unsigned char)*p))
        return -EINVAL;
    out->state = *p++;

    /* Fields after state, numbered as in proc(5): ppid is field 4. */
    int64_t f[53] = {0};
    int nf = 0;
    for (int field = 4; field <= 52; field++) {
        p = nd_skip_spaces(p, end);
        const char *q = nd_parse_i64(p, end, &v);
        if (!q)
            break;
        f[field] = v;
        nf = field;
        p = q;
    }
    if (nf < 22) /* starttime is the last field we need to identify a process */
        return -EINVAL;
    out->ppid = nd_clamp_pid(f[4]) < 0 ? 0 : (pid_t)f[4];
    out->pgrp = nd_clamp_pid(f[5]) < 0 ? 0 : (pid_t)f[5];
    out->session = nd_clamp_pid(f[6]) < 0 ? 0 : (pid_t)f[6];
    out->utime_ticks = f[14] < 0 ? 0 : (uint64_t)f[14];
    out->stime_ticks = f[15] < 0 ? 0 : (uint64_t)f[15];
    out->num_threads = (long)f[20];
    out->starttime_ticks = f[22] < 0 ? 0 : (uint64_t)f[22];
    out->vsize_bytes = nf >= 23 && f[23] > 0 ? (uint64_t)f[23] : 0;
    out->rss_pages = nf >= 24 ? f[24] : 0;
    /* Field 52 (Linux 3.5+): the wait status a zombie leaves for its parent. */
    out->exit_code_valid = nf >= 52 && f[52] >= 0 && f[52] <= 0xffff;
    out->exit_code = out->exit_code_valid ? (int)f[52] : 0;
    return 0;
}

/* ---- /proc/PID/status ---- */

static bool nd_key_is(const char *line, const char *eol, const char *key, const char **value)
{
    size_t k = strlen(key);
    if ((size_t)(eol - line) < k || memcmp(line, key, k) != 0)
        return false;
    *value = line + k;
    return true;
}

int nd_proc_parse_status(const char *buf, size_t len, struct nd_proc_status *out)
{
    memset(out, 0, sizeof *out);
    if (!buf)
        return -EINVAL;
    const char *p = buf, *end = buf + len;
    bool have_uid = false;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        const char *v;
        int64_t n;
        if (nd_key_is(p, eol, "Uid:", &v)) {
            const char *q = nd_parse_i64(nd_skip_spaces(v, eol), eol, &n);
            if (q && n >= 0 && n <= 0xffffffffLL) {
                out->uid = (uid_t)n;
                have_uid = true;
            }
        } else if (nd_key_is(p, eol, "VmRSS:", &v)) {
            const char *q = nd_parse_i64(nd_skip_spaces(v, eol), eol, &n);
            if (q && n >= 0) {
                /* The kernel always prints kB here; a saturated value stays huge, not wrapped. */
                out->vm_rss_bytes = (uint64_t)n > UINT64_MAX / 1024 ? UINT64_MAX : (uint64_t)n * 1024;
                out->rss_valid = true;
            }
        } else if (nd_key_is(p, eol, "Threads:", &v)) {
            const char *q = nd_parse_i64(nd_skip_spaces(v, eol), eol, &n);
            if (q && n >= 0)
                out->threads = n > 0x7fffffff ? 0x7fffffff : (int)n;
        } else if (nd_key_is(p, eol, "NSpid:", &v)) {
            out->nnspid = 0;
            const char *q = v;
            while (out->nnspid < ND_PROC_MAX_NSPID) {
                q = nd_skip_spaces(q, eol);
                const char *r = nd_parse_i64(q, eol, &n);
                if (!r || nd_clamp_pid(n) <= 0)
                    break;
                out->nspid[out->nnspid++] = (pid_t)n;
                q = r;
            }
        }
        p = eol + 1;
    }
    return have_uid ? 0 : -EINVAL;
}

/* ---- /proc/PID/limits ---- */

int nd_proc_parse_limit_as(const char *buf, size_t len, uint64_t *bytes)
{
    *bytes = 0;
    if (!buf)
        return -EINVAL;
    static const char key[] = "Max address space";
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        if ((size_t)(eol - p) > sizeof key - 1 && memcmp(p, key, sizeof key - 1) == 0) {
            const char *v = nd_skip_spaces(p + sizeof key - 1, eol);
            if ((size_t)(eol - v) >= 9 && memcmp(v, "unlimited", 9) == 0)
                return 0;
            int64_t n;
            if (!nd_parse_i64(v, eol, &n) || n < 0)
                return -EINVAL;
            *bytes = (uint64_t)n;
            return 0;
        }
        p = eol + 1;
    }
    return -EINVAL;
}

/* ---- /proc/PID/io ---- */

int nd_proc_parse_io(const char *buf, size_t len, struct nd_proc_io *out)
{
    memset(out, 0, sizeof *out);
    if (!buf)
        return -EINVAL;
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        const char *v;
        int64_t n;
        if (nd_key_is(p, eol, "rchar:", &v)) {
            if (nd_parse_i64(nd_skip_spaces(v, eol), eol, &n) && n >= 0) {
                out->rchar = (uint64_t)n;
                out->rchar_valid = true;
            }
        } else if (nd_key_is(p, eol, "wchar:", &v)) {
            if (nd_parse_i64(nd_skip_spaces(v, eol), eol, &n) && n >= 0) {
                out->wchar = (uint64_t)n;
                out->wchar_valid = true;
            }
        } else if (nd_key_is(p, eol, "read_bytes:", &v)) {
            if (nd_parse_i64(nd_skip_spaces(v, eol), eol, &n) && n >= 0) {
                out->read_bytes = (uint64_t)n;
                out->read_bytes_valid = true;
            }
        }
        p = eol + 1;
    }
    return out->rchar_valid || out->read_bytes_valid ? 0 : -EINVAL;
}

/* ---- readers ---- */

int nd_proc_open(pid_t pid, const char *name, int flags)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
    int fd = open(path, flags | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? -ESRCH : -errno;
    return fd;
}

/* Reads at most size-1 bytes of /proc/PID/<name> into buf (NUL-terminated).
 * A vanished process reads as -ESRCH whatever errno the kernel chose. Files
 * the kernel renders whole in one read (stat, status: text ending in a
 * newline, far under a page) are done after a short read that ends the text:
 * no second read just to see EOF, a tenth of all the system calls of `ps`. */
static int nd_proc_read_small(pid_t pid, const char *name, bool rendered_whole, char *buf, size_t size, size_t *len)
{
    int fd = nd_proc_open(pid, name, O_RDONLY);
    if (fd < 0)
        return fd;
    size_t got = 0;
    while (got + 1 < size) {
        ssize_t n = read(fd, buf + got, size - 1 - got);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            return e == ESRCH || e == ENOENT ? -ESRCH : -e;
        }
        if (n == 0)
            break;
        got += (size_t)n;
        if (rendered_whole && got + 1 < size && buf[got - 1] == '\n')
            break;
    }
    close(fd);
    buf[got] = '\0';
    *len = got;
    return 0;
}

/* nd_proc_read_small of a rendered-whole file, where an empty file means
 * the process is exiting. */
static int nd_proc_read_nonempty(pid_t pid, const char *name, char *buf, size_t size, size_t *len)
{
    int rc = nd_proc_read_small(pid, name, true, buf, size, len);
    return rc < 0 ? rc : *len == 0 ? -ESRCH : 0;
}

int nd_proc_read_stat(pid_t pid, struct nd_proc_stat *out)
{
    char buf[1024];
    size_t len;
    int rc = nd_proc_read_nonempty(pid, "stat", buf, sizeof buf, &len);
    if (rc < 0) {
        memset(out, 0, sizeof *out);
        return rc;
    }
    return nd_proc_parse_stat(buf, len, out);
}

int nd_proc_read_status(pid_t pid, struct nd_proc_status *out)
{
    char buf[8192];
    size_t len;
    int rc = nd_proc_read_nonempty(pid, "status", buf, sizeof buf, &len);
    if (rc < 0) {
        memset(out, 0, sizeof *out);
        return rc;
    }
    return nd_proc_parse_status(buf, len, out);
}

int nd_proc_read_cmdline(pid_t pid, char *buf, size_t size)
{
    if (!buf || size == 0)
        return -EINVAL;
    buf[0] = '\0';
    size_t len = 0;
    int rc = nd_proc_read_small(pid, "cmdline", false, buf, size, &len);
    if (rc < 0 && rc != -EACCES)
        return rc;
    if (rc == 0) {
        while (len > 0 && buf[len - 1] == '\0')
            len--;
        for (size_t i = 0; i < len; i++)
            if (buf[i] == '\0' || buf[i] == '\n' || buf[i] == '\t')
                buf[i] = ' ';
        buf[len] = '\0';
    }
    if (len == 0) {
        /* Kernel threads and zombies have no argv: show [comm] like ps does. */
        struct nd_proc_stat st;
        int src = nd_proc_read_stat(pid, &st);
        if (src < 0)
            return src;
        snprintf(buf, size, "[%s]", st.comm);
    }
    return 0;
}

/* Looking up a uid goes through NSS (files, maybe LDAP): cache the answers,
 * since a process table repeats the same few users hundreds of times. */
#define ND_USER_CACHE 64
static struct {
    uid_t uid;
    bool used;
    char name[64];
} nd_user_cache[ND_USER_CACHE];
static size_t nd_user_cache_next;

void nd_proc_user_name(uid_t uid, char *buf, size_t size)
{
    if (!buf || size == 0)
        return;
    for (size_t i = 0; i < ND_USER_CACHE; i++)
        if (nd_user_cache[i].used && nd_user_cache[i].uid == uid) {
            snprintf(buf, size, "%s", nd_user_cache[i].name);
            return;
        }
    char name[64];
    struct passwd pw, *res = NULL;
    char tmp[4096];
    if (getpwuid_r(uid, &pw, tmp, sizeof tmp, &res) == 0 && res && res->pw_name && res->pw_name[0])
        snprintf(name, sizeof name, "%s", res->pw_name);
    else
        snprintf(name, sizeof name, "%u", (unsigned)uid);
    size_t slot = nd_user_cache_next++ % ND_USER_CACHE;
    nd_user_cache[slot].uid = uid;
    nd_user_cache[slot].used = true;
    snprintf(nd_user_cache[slot].name, sizeof nd_user_cache[slot].name, "%s", name);
    snprintf(buf, size, "%s", name);
}

int nd_proc_owner(pid_t pid, uid_t *uid)
{
    char path[32];
    snprintf(path, sizeof path, "/proc/%d", (int)pid);
    struct stat st;
    if (stat(path, &st) != 0)
        return errno == ENOENT ? -ESRCH : -errno;
    *uid = st.st_uid;
    return 0;
}

bool nd_proc_exists(pid_t pid)
{
    if (pid <= 0)
        return false;
    char path[32];
    snprintf(path, sizeof path, "/proc/%d", (int)pid);
    return access(path, F_OK) == 0;
}

static bool nd_name_to_pid(const char *name, pid_t *pid)
{
    if (!isdigit((unsigned char)name[0]))
        return false;
    int64_t v;
    const char *end = name + strlen(name);
    const char *q = nd_parse_i64(name, end, &v);
    if (!q || q != end || nd_clamp_pid(v) <= 0)
        return false;
    *pid = (pid_t)v;
    return true;
}

int nd_proc_list(pid_t **pids, size_t *n)
{
    *pids = NULL;
    *n = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return -errno;
    size_t cap = 256, cnt = 0;
    pid_t *v = nd_xmalloc(cap * sizeof *v);
    struct dirent *e;
    while ((e = readdir(d))) {
        pid_t pid;
        if (!nd_name_to_pid(e->d_name, &pid))
            continue;
        if (cnt == cap) {
            cap *= 2;
            v = nd_xrealloc(v, cap * sizeof *v);
        }
        v[cnt++] = pid;
    }
    closedir(d);
    *pids = v;
    *n = cnt;
    return 0;
}

int nd_proc_tree(pid_t root, pid_t **pids, size_t *n)
{
    *pids = NULL;
    *n = 0;
    if (root <= 0)
        return -EINVAL;
    pid_t *all;
    size_t nall;
    int rc = nd_proc_list(&all, &nall);
    if (rc < 0)
        return rc;
    /* One pass: each process's parent, then a breadth-first walk from root
     * over the (pid, ppid) pairs. A process that vanished mid-pass is simply
     * not in the tree. */
    pid_t *parent = nd_xmalloc((nall ? nall : 1) * sizeof *parent);
    bool root_seen = false;
    for (size_t i = 0; i < nall; i++) {
        struct nd_proc_stat st;
        parent[i] = nd_proc_read_stat(all[i], &st) == 0 ? st.ppid : -1;
        if (all[i] == root && parent[i] >= 0)
            root_seen = true;
    }
    if (!root_seen) {
        free(all);
        free(parent);
        return -ESRCH;
    }
    pid_t *out = nd_xmalloc((nall ? nall : 1) * sizeof *out);
    bool *taken = nd_xcalloc(nall ? nall : 1, sizeof *taken);
    size_t cnt = 0;
    out[cnt++] = root;
    for (size_t i = 0; i < nall; i++)
        if (all[i] == root)
            taken[i] = true;
    for (size_t head = 0; head < cnt; head++) {
        for (size_t i = 0; i < nall; i++) {
            if (!taken[i] && parent[i] == out[head]) {
                taken[i] = true;
                out[cnt++] = all[i];
            }
        }
    }
    free(taken);
    free(parent);
    free(all);
    *pids = out;
    *n = cnt;
    return 0;
}

long nd_proc_clock_ticks(void)
{
    static long ticks;
    if (ticks <= 0) {
        long t = sysconf(_SC_CLK_TCK);
        ticks = t > 0 ? t : 100;
    }
    return ticks;
}

long nd_proc_page_size(void)
{
    static long page;
    if (page <= 0) {
        long p = sysconf(_SC_PAGESIZE);
        page = p > 0 ? p : 4096;
    }
    return page;
}

pid_t nd_proc_status_host_pid(const struct nd_proc_status *st, pid_t local_pid)
{
    return st->nnspid > 0 ? st->nspid[0] : local_pid;
}

pid_t nd_proc_host_to_local(pid_t host_pid, const pid_t *candidates, size_t n)
{
    if (host_pid <= 0 || !candidates)
        return 0;
    for (size_t i = 0; i < n; i++) {
        struct nd_proc_status st;
        if (candidates[i] <= 0 || nd_proc_read_status(candidates[i], &st) < 0)
            continue;
        if (nd_proc_status_host_pid(&st, candidates[i]) == host_pid)
            return candidates[i];
    }
    return 0;
}
