/* The matching backlog of `run` (see backlog.h). Blocks live in the pipes
 * the job's own output pages were tee'd into (holdpipe.h: the cheapest,
 * tried first for a read from a pipe), in one append-only memory area, or
 * in one append-only file; the pipes and the area share the memory bound.
 * The area and the file are each reset
 * when its last pending block leaves, so a backlog that keeps up uses the
 * first megabyte of its area over and over. The area is one anonymous
 * mapping of the whole memory bound, touched only as far as it is used: it
 * never moves (no realloc copies), the supervisor reads the job's output
 * straight into its tail (no copy on the passthrough path), and its pages
 * are faulted in a few MiB at a time. (Not huge pages: where the kernel
 * compacts memory to make them, a fault can stall the passthrough for
 * seconds.) */
#include "monitor/backlog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/strbuf.h"
#include "monitor/holdpipe.h"

/* Resident pages kept when the backlog empties, and how far ahead of the
 * writes pages are faulted in at once past those. */
#define ND_BACKLOG_KEEP_RESIDENT (2u << 20)
#define ND_BACKLOG_PREFAULT (4u << 20)
#define ND_BACKLOG_PAGE ((size_t)4096)
/* The least memory bound nd_backlog_mem_bound gives, however little is free. */
#define ND_BACKLOG_MEM_FLOOR (4u << 20)

struct nd_backlog_seg {
    int stream;
    long first_lineno;
    double at_s;
    unsigned flags;
    bool in_file;
    uint64_t off;
    size_t len;
    /* Held in the pipes: the block is prefix (copied here) then the first
     * len - prefix_len of raw bytes read back from the pipes. */
    bool in_pipe, loaded;
    char *prefix;
    size_t prefix_len, raw;
};

struct nd_backlog {
    struct nd_backlog_seg *seg; /* ring */
    size_t head, n, cap;
    char *mem; /* the mapping; NULL until first needed */
    size_t mem_len, mem_limit, mem_pending;
    size_t mem_touched; /* how far pages may be resident */
    bool mem_failed;
    bool no_populate;
    int fd; /* -1 until first needed */
    bool fd_failed;
    uint64_t file_len;
    size_t file_pending;
    char *rbuf;
    size_t rbuf_cap;
    struct nd_holdpipe *hold; /* NULL until first needed */
    uint64_t bytes, peak, spilled, dropped;
};

size_t nd_backlog_mem_bound(size_t most)
{
    FILE *f = fopen("/proc/meminfo", "re");
    if (!f)
        return most;
    char line[256];
    unsigned long long kib = 0;
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        found = sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
    fclose(f);
    if (!found)
        return most;
    unsigned long long quarter = kib * 1024 / 4;
    if (quarter < ND_BACKLOG_MEM_FLOOR)
        quarter = ND_BACKLOG_MEM_FLOOR;
    return quarter < most ? (size_t)quarter : most;
}

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
    if (b->mem)
        munmap(b->mem, b->mem_limit);
    for (size_t i = 0; i < b->n; i++)
        free(b->seg[(b->head + i) % b->cap].prefix);
    nd_holdpipe_free(b->hold);
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

/* Memory left under the bound: the area's and the pipes' bytes share it. */
static size_t nd_backlog_room(const struct nd_backlog *b)
{
    size_t used = b->mem_len + (b->hold ? nd_holdpipe_bytes(b->hold) : 0);
    return used < b->mem_limit ? b->mem_limit - used : 0;
}

/* The area, mapped on first use. Without it (no address space left) all
 * blocks go to the file. */
static bool nd_backlog_map(struct nd_backlog *b)
{
    if (b->mem || b->mem_failed || b->mem_limit == 0)
        return b->mem != NULL;
    void *p = mmap(NULL, b->mem_limit, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        b->mem_failed = true;
        return false;
    }
    b->mem = p;
    return true;
}

char *nd_backlog_tail(struct nd_backlog *b, size_t want, size_t *cap)
{
    *cap = 0;
    if (!nd_backlog_map(b))
        return NULL;
    if (b->mem_pending == 0) {
        b->mem_len = 0;
        /* Nothing held: a flood's pages go back, but for the first ones,
         * which the next reads reuse. */
        if (b->mem_touched > ND_BACKLOG_KEEP_RESIDENT) {
            madvise(b->mem + ND_BACKLOG_KEEP_RESIDENT, b->mem_touched - ND_BACKLOG_KEEP_RESIDENT, MADV_DONTNEED);
            b->mem_touched = ND_BACKLOG_KEEP_RESIDENT;
        }
    }
    size_t room = nd_backlog_room(b);
    if (room == 0)
        return NULL;
    *cap = room < want ? room : want;
    size_t end = b->mem_len + *cap;
    if (end > b->mem_touched) {
        /* Past the first pages (a job that keeps up never goes there), the
         * pages ahead of the writes come in one call: a flood held here
         * costs their clearing, not also a fault for each 4 KiB. */
        size_t upto = end;
        if (b->mem_touched >= ND_BACKLOG_KEEP_RESIDENT) {
            upto = b->mem_touched + ND_BACKLOG_PREFAULT;
            upto = upto < end ? end : upto > b->mem_limit ? b->mem_limit : upto;
#ifdef MADV_POPULATE_WRITE
            size_t from = b->mem_touched & ~(ND_BACKLOG_PAGE - 1);
            upto = (upto + ND_BACKLOG_PAGE - 1) & ~(ND_BACKLOG_PAGE - 1);
            if (upto > b->mem_limit)
                upto = b->mem_limit;
            if (!b->no_populate && madvise(b->mem + from, upto - from, MADV_POPULATE_WRITE) != 0)
                b->no_populate = true; /* older kernels: the pages fault in one by one */
#endif
        }
        b->mem_touched = upto;
    }
    return b->mem + b->mem_len;
}

static void nd_backlog_append(struct nd_backlog *b, const struct nd_backlog_seg *s);

int nd_backlog_push(struct nd_backlog *b, int stream, long first_lineno, double at_s, unsigned flags, const char *data,
                    size_t len)
{
    if (len == 0)
        return 0;
    struct nd_backlog_seg s = {stream, first_lineno, at_s, flags, false, 0, len, false, false, NULL, 0, 0};
    /* Bytes already in the area past what is held (written there through
     * nd_backlog_tail) stay where they are. */
    uintptr_t d = (uintptr_t)data, lo = (uintptr_t)b->mem;
    if (b->mem && d >= lo + b->mem_len && d - lo <= b->mem_limit && len <= b->mem_limit - (d - lo)) {
        s.off = d - lo;
        b->mem_len = s.off + len;
        b->mem_pending++;
    } else if (len <= nd_backlog_room(b) && nd_backlog_map(b)) {
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
    if (b->mem_len > b->mem_touched)
        b->mem_touched = b->mem_len;
    nd_backlog_append(b, &s);
    return 0;
}

static void nd_backlog_append(struct nd_backlog *b, const struct nd_backlog_seg *s)
{
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
    b->seg[(b->head + b->n) % b->cap] = *s;
    b->n++;
    b->bytes += s->len;
    if (b->bytes > b->peak)
        b->peak = b->bytes;
}

size_t nd_backlog_hold(struct nd_backlog *b, int fd, size_t max)
{
    if (!b->hold)
        b->hold = nd_holdpipe_new(b->mem_limit);
    size_t room = nd_backlog_room(b);
    return nd_holdpipe_tee(b->hold, fd, max < room ? max : room);
}

int nd_backlog_push_held(struct nd_backlog *b, int stream, long first_lineno, double at_s, unsigned flags,
                         const char *data, size_t len, size_t prefix_len, size_t raw)
{
    struct nd_backlog_seg s = {stream, first_lineno, at_s, flags, false, 0, len, true, false, NULL, prefix_len, raw};
    if (prefix_len) {
        s.prefix = nd_xmalloc(prefix_len);
        memcpy(s.prefix, data, prefix_len);
    }
    nd_backlog_append(b, &s);
    return 0;
}

bool nd_backlog_empty(const struct nd_backlog *b)
{
    return b->n == 0;
}

bool nd_backlog_peek(struct nd_backlog *b, struct nd_backlog_block *out)
{
    while (b->n) {
        struct nd_backlog_seg *s = &b->seg[b->head];
        *out = (struct nd_backlog_block){s->stream, s->first_lineno, s->at_s, s->flags, NULL, s->len};
        if (s->in_pipe) {
            if (!s->loaded) {
                size_t need = s->prefix_len + s->raw;
                if (b->rbuf_cap < need) {
                    b->rbuf = nd_xrealloc(b->rbuf, need ? need : 1);
                    b->rbuf_cap = need;
                }
                if (s->prefix_len)
                    memcpy(b->rbuf, s->prefix, s->prefix_len);
                s->loaded = true;
                if (nd_holdpipe_read(b->hold, b->rbuf + s->prefix_len, s->raw) != 0) {
                    b->dropped += s->len;
                    nd_backlog_pop(b);
                    continue;
                }
            }
            if (s->len == 0) { /* only the start of a line the next block has */
                nd_backlog_pop(b);
                continue;
            }
            out->data = b->rbuf;
            return true;
        }
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
    struct nd_backlog_seg *s = &b->seg[b->head];
    b->bytes -= s->len;
    if (s->in_pipe) {
        if (!s->loaded)
            nd_holdpipe_read(b->hold, NULL, s->raw);
        free(s->prefix);
        s->prefix = NULL;
    } else if (s->in_file) {
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
