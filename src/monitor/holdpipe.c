/* The tee-held output of `run` (see holdpipe.h). Pipes are made as needed,
 * each as large as the kernel allows us; the newest takes new bytes, the
 * oldest gives them back, and a pipe read empty that no longer takes bytes
 * is closed. Both ends are non-blocking: a full pipe means a new one (or
 * nothing held), and a read that finds less than was held reports it
 * instead of waiting. */
#include "monitor/holdpipe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/strbuf.h"

/* Pipe sizes tried, largest first: above the system's pipe-max-size only
 * with CAP_SYS_RESOURCE (root), else 1 MiB (the default pipe-max-size). */
static const int nd_hold_sizes[] = {64 << 20, 16 << 20, 4 << 20, 1 << 20};
/* Pipes at most: past the user's pipe quota (unprivileged: 64 MiB in all)
 * new pipes get one page, useless here. */
#define ND_HOLD_PIPES_MAX 64
#define ND_HOLD_PIPE_MIN (1u << 20)

struct nd_hold_one {
    int rd, wr;
    size_t held;
    bool full; /* takes no more bytes */
};

struct nd_holdpipe {
    struct nd_hold_one p[ND_HOLD_PIPES_MAX];
    size_t first, n; /* p[first .. first+n): oldest to newest */
    size_t size_at;  /* nd_hold_sizes[size_at] is the largest allowed */
    size_t bytes, max_bytes;
    bool off; /* tee refused: never again */
};

struct nd_holdpipe *nd_holdpipe_new(size_t max_bytes)
{
    struct nd_holdpipe *h = nd_xcalloc(1, sizeof *h);
    h->max_bytes = max_bytes;
    return h;
}

static void nd_hold_close(struct nd_hold_one *o)
{
    close(o->rd);
    close(o->wr);
}

void nd_holdpipe_free(struct nd_holdpipe *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->n; i++)
        nd_hold_close(&h->p[(h->first + i) % ND_HOLD_PIPES_MAX]);
    free(h);
}

size_t nd_holdpipe_bytes(const struct nd_holdpipe *h)
{
    return h->bytes;
}

/* A new newest pipe; false when none can be made large enough. */
static bool nd_hold_grow(struct nd_holdpipe *h)
{
    if (h->n == ND_HOLD_PIPES_MAX)
        return false;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
        return false;
    int got = -1;
    const size_t nsizes = sizeof nd_hold_sizes / sizeof *nd_hold_sizes;
    while (h->size_at < nsizes && (got = fcntl(fds[1], F_SETPIPE_SZ, nd_hold_sizes[h->size_at])) < 0 &&
           errno == EPERM && h->size_at + 1 < nsizes)
        h->size_at++; /* over what we may have: smaller from now on */
    if (got < (int)ND_HOLD_PIPE_MIN) {
        /* The user's pipe quota is spent (for now): the caller copies. */
        close(fds[0]);
        close(fds[1]);
        return false;
    }
    struct nd_hold_one *o = &h->p[(h->first + h->n) % ND_HOLD_PIPES_MAX];
    *o = (struct nd_hold_one){fds[0], fds[1], 0, false};
    h->n++;
    return true;
}

size_t nd_holdpipe_tee(struct nd_holdpipe *h, int fd, size_t max)
{
    if (h->off || max == 0)
        return 0;
    if (h->bytes + max > h->max_bytes) {
        if (h->bytes >= h->max_bytes)
            return 0;
        max = h->max_bytes - h->bytes;
    }
    for (int attempt = 0; attempt < 2; attempt++) {
        struct nd_hold_one *o = h->n ? &h->p[(h->first + h->n - 1) % ND_HOLD_PIPES_MAX] : NULL;
        if ((!o || o->full) && !nd_hold_grow(h))
            return 0;
        o = &h->p[(h->first + h->n - 1) % ND_HOLD_PIPES_MAX];
        ssize_t t = tee(fd, o->wr, max, SPLICE_F_NONBLOCK);
        if (t > 0) {
            o->held += (size_t)t;
            h->bytes += (size_t)t;
            return (size_t)t;
        }
        if (t < 0 && errno == EAGAIN) {
            /* Ours is full, or the job's pipe is empty: an empty pipe of
             * ours tells which. */
            if (o->held == 0)
                return 0;
            o->full = true;
            continue;
        }
        if (t < 0 && errno != EINTR)
            h->off = true; /* not a pipe (a pty), or no tee here */
        return 0;
    }
    return 0;
}

int nd_holdpipe_read(struct nd_holdpipe *h, char *dst, size_t n)
{
    char sink[4096];
    while (n > 0) {
        if (h->n == 0)
            return -ENODATA;
        struct nd_hold_one *o = &h->p[h->first];
        if (o->held == 0) {
            if (!o->full && h->n == 1)
                return -ENODATA;
            nd_hold_close(o);
            h->first = (h->first + 1) % ND_HOLD_PIPES_MAX;
            h->n--;
            continue;
        }
        size_t want = n < o->held ? n : o->held;
        char *to = dst ? dst : sink;
        if (!dst && want > sizeof sink)
            want = sizeof sink;
        ssize_t r = read(o->rd, to, want);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            /* Should not happen (the bytes were counted in): say so, lose this pipe. */
            h->bytes -= o->held;
            o->held = 0;
            o->full = true;
            return r < 0 ? -errno : -ENODATA;
        }
        o->held -= (size_t)r;
        h->bytes -= (size_t)r;
        n -= (size_t)r;
        if (dst)
            dst += r;
    }
    /* An emptied pipe that takes no more bytes goes now, not at the next read. */
    if (h->n > 0 && h->p[h->first].held == 0 && (h->p[h->first].full || h->n > 1)) {
        nd_hold_close(&h->p[h->first]);
        h->first = (h->first + 1) % ND_HOLD_PIPES_MAX;
        h->n--;
    }
    return 0;
}
