/* The matching backlog of `run` (see backlog.h). Blocks live either in one
 * append-only memory area or in one append-only file; each store is reset
 * when its last pending block leaves, so a backlog that keeps up uses a few
 * kilobytes and one that falls behind grows only the file. */
#include "monitor/backlog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/strbuf.h"

struct nd_backlog_seg {
    int stream;
    long first_lineno;
    double at_s;
    unsigned flags;
    bool in_file;
    uint64_t off;
    size_t len;
};

struct nd_backlog {
    struct nd_backlog_seg *seg;     /* ring */
    size_t head, n, cap;
    char *mem;
    size_t mem_len, mem_cap, mem_limit, mem_pending;
    int fd;                         /* -1 until first needed */
    bool fd_failed;
    uint64_t file_len;
    size_t file_pending;
    char *rbuf;
    size_t rbuf_cap;
    uint64_t bytes, peak, spilled, dropped;
};

struct nd_backlog *nd_backlog_new(size_t mem_limit)
{
    struct nd_backlog *b = nd_xcalloc(1, sizeof *b);
    b->mem_limit = mem_limit;
    b->fd = -1;
    return b;
}

void nd_backlog_free(struct nd_backlog *b)
{
    if (!b)
        return;
    if (b->fd >= 0)
        close(b->fd);
    free(b->seg);
    free(b->mem);
    free(b->rbuf);
    free(b);
}

/* An unlinked file of our own: O_TMPFILE where the filesystem has it, so no
 * name ever exists that another user could have placed or could open. */
static int nd_backlog_open_file(void)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || dir[0] != '/')
        dir = "/tmp";
    int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/npu-doctor-backlog-XXXXXX", dir) >= sizeof path)
        return -ENAMETOOLONG;
    fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0)
        return -errno;
    unlink(path);
    return fd;
}

static int nd_backlog_write_file(struct nd_backlog *b, const char *data, size_t len, uint64_t *off)
{
    if (b->fd < 0) {
        if (b->fd_failed)
            return -ENOSPC;
        int fd = nd_backlog_open_file();
        if (fd < 0) {
            b->fd_failed = true;
            return fd;
        }
        b->fd = fd;
    }
    *off = b->file_len;
    size_t done = 0;
    while (done < len) {
        ssize_t w = pwrite(b->fd, data + done, len - done, (off_t)(b->file_len + done));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? -errno : -ENOSPC;
        done += (size_t)w;
    }
    b->file_len += len;
    return 0;
}

int nd_backlog_push(struct nd_backlog *b, int stream, long first_lineno, double at_s, unsigned flags, const char *data,
                    size_t len)
{
    if (len == 0)
        return 0;
    struct nd_backlog_seg s = {stream, first_lineno, at_s, flags, false, 0, len};
    if (b->mem_len + len <= b->mem_limit) {
        if (b->mem_len + len > b->mem_cap) {
            size_t cap = b->mem_cap ? b->mem_cap : 64 * 1024;
            while (cap < b->mem_len + len)
                cap *= 2;
            if (cap > b->mem_limit)
                cap = b->mem_limit;
            b->mem = nd_xrealloc(b->mem, cap);
            b->mem_cap = cap;
        }
        memcpy(b->mem + b->mem_len, data, len);
        s.off = b->mem_len;
        b->mem_len += len;
        b->mem_pending++;
    } else {
        int rc = nd_backlog_write_file(b, data, len, &s.off);
        if (rc < 0) {
            b->dropped += len;
            return rc;
        }
        s.in_file = true;
        b->file_pending++;
        b->spilled += len;
    }
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        struct nd_backlog_seg *v = nd_xmalloc(cap * sizeof *v);
        for (size_t i = 0; i < b->n; i++)
            v[i] = b->seg[(b->head + i) % b->cap];
        free(b->seg);
        b->seg = v;
        b->cap = cap;
        b->head = 0;
    }
    b->seg[(b->head + b->n) % b->cap] = s;
    b->n++;
    b->bytes += len;
    if (b->bytes > b->peak)
        b->peak = b->bytes;
    return 0;
}

bool nd_backlog_empty(const struct nd_backlog *b)
{
    return b->n == 0;
}

bool nd_backlog_peek(struct nd_backlog *b, struct nd_backlog_block *out)
{
    while (b->n) {
        const struct nd_backlog_seg *s = &b->seg[b->head];
        *out = (struct nd_backlog_block){s->stream, s->first_lineno, s->at_s, s->flags, NULL, s->len};
        if (!s->in_file) {
            out->data = b->mem + s->off;
            return true;
        }
        if (b->rbuf_cap < s->len) {
            b->rbuf = nd_xrealloc(b->rbuf, s->len);
            b->rbuf_cap = s->len;
        }
        size_t done = 0;
        while (done < s->len) {
            ssize_t r = pread(b->fd, b->rbuf + done, s->len - done, (off_t)(s->off + done));
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            done += (size_t)r;
        }
        if (done == s->len) {
            out->data = b->rbuf;
            return true;
        }
        b->dropped += s->len;
        nd_backlog_pop(b);
    }
    return false;
}

void nd_backlog_pop(struct nd_backlog *b)
{
    if (!b->n)
        return;
    const struct nd_backlog_seg *s = &b->seg[b->head];
    b->bytes -= s->len;
    if (s->in_file) {
        if (--b->file_pending == 0) {
            b->file_len = 0;
            if (ftruncate(b->fd, 0) != 0) {
                /* The space comes back when the file is closed; offsets restart either way. */
            }
        }
    } else if (--b->mem_pending == 0) {
        b->mem_len = 0;
    }
    b->head = (b->head + 1) % b->cap;
    b->n--;
}

uint64_t nd_backlog_bytes(const struct nd_backlog *b)
{
    return b->bytes;
}

uint64_t nd_backlog_peak_bytes(const struct nd_backlog *b)
{
    return b->peak;
}

uint64_t nd_backlog_spilled_bytes(const struct nd_backlog *b)
{
    return b->spilled;
}

uint64_t nd_backlog_dropped_bytes(const struct nd_backlog *b)
{
    return b->dropped;
}
