/* Does a process hold a device? Three ways, strongest first:
 * the vendor's process list (host pids, matched through NSpid), open device
 * files in /proc/PID/fd, and runtime/framework libraries in /proc/PID/maps.
 * Maps of a torch process run to thousands of lines and cost the kernel far
 * more than anything else here, so the cache keeps the maps verdict per
 * process and re-reads it only for new processes and every refresh_s. The
 * fd scan is redone on every call, since opening a device is what we watch
 * for, but kept cheap: the cache keeps each process's /proc/PID/fd folder
 * open (one lseek + getdents per sample, and the open folder fails once the
 * process is gone, which tells a reused pid apart) and reads the link of a
 * descriptor only when its number is new, all of them every refresh_s. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/rootfs.h"
#include "core/array.h"
#include "core/spawn.h"
#include "core/strbuf.h"
#include "proc/footprint.h"
#include "proc/proc.h"

/* ---- maps ---- */

/* Scans whole lines of a maps buffer. The path is the text from the first
 * '/' on (address, perms, offset, device and inode hold none); only the
 * base name matters. */
static unsigned nd_maps_scan(const char *buf, size_t len)
{
    unsigned fw = 0;
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        const char *slash = memchr(p, '/', (size_t)(eol - p));
        if (slash) {
            const char *last = eol;
            /* " (deleted)" follows a replaced library: still mapped, still loaded. */
            static const char deleted[] = " (deleted)";
            if ((size_t)(last - slash) > sizeof deleted - 1 &&
                memcmp(last - (sizeof deleted - 1), deleted, sizeof deleted - 1) == 0)
                last -= sizeof deleted - 1;
            const char *base = last;
            while (base > slash && base[-1] != '/')
                base--;
            fw |= nd_framework_of_file(base, (size_t)(last - base));
        }
        p = eol + 1;
    }
    return fw;
}

int nd_maps_parse_frameworks(const char *buf, size_t len, unsigned *frameworks)
{
    *frameworks = 0;
    if (!buf || len == 0)
        return buf || len == 0 ? 0 : -EINVAL;
    *frameworks = nd_maps_scan(buf, len);
    return 0;
}

/* Streams /proc/PID/maps through a fixed buffer: a torch process's maps is
 * ~200 KB and we only need one pass over whole lines. */
static int nd_maps_read_frameworks(pid_t pid, unsigned *frameworks)
{
    *frameworks = 0;
    int fd = nd_proc_open(pid, "maps", O_RDONLY);
    if (fd < 0)
        return fd;
    enum { CAP = 32768 };
    char *buf = nd_xmalloc(CAP);
    size_t have = 0;
    bool skipping = false; /* inside a line longer than the buffer */
    int rc = 0;
    for (;;) {
        ssize_t n = read(fd, buf + have, CAP - have);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rc = errno == ESRCH ? -ESRCH : -errno;
            break;
        }
        if (n == 0) {
            if (!skipping)
                *frameworks |= nd_maps_scan(buf, have);
            break;
        }
        have += (size_t)n;
        char *start = buf;
        if (skipping) {
            char *nl = memchr(buf, '\n', have);
            if (!nl) {
                have = 0;
                continue;
            }
            skipping = false;
            start = nl + 1;
        }
        char *lastnl = NULL;
        for (char *q = buf + have; q > start; q--)
            if (q[-1] == '\n') {
                lastnl = q - 1;
                break;
            }
        if (!lastnl) {
            if (start == buf && have == CAP) { /* one line fills the buffer: drop it */
                skipping = true;
                have = 0;
            } else {
                have -= (size_t)(start - buf);
                memmove(buf, start, have);
            }
            continue;
        }
        *frameworks |= nd_maps_scan(start, (size_t)(lastnl - start));
        size_t rest = (size_t)(buf + have - (lastnl + 1));
        memmove(buf, lastnl + 1, rest);
        have = rest;
    }
    free(buf);
    close(fd);
    return rc;
}

/* ---- device paths ---- */

static bool nd_classify_dev(const char *p, char *vendor, size_t vsize, int *index)
{
    const struct nd_vendor *v = nd_vendor_of_node(p, index);
    if (!v)
        return false;
    snprintf(vendor, vsize, "%s", v->name);
    return true;
}

bool nd_device_path_classify(const char *path, char *vendor, size_t vsize, int *index)
{
    if (!path || path[0] != '/')
        return false;
    char vbuf[16];
    if (!vendor || vsize == 0) {
        vendor = vbuf;
        vsize = sizeof vbuf;
    }
    int dummy;
    if (!index)
        index = &dummy;
    /* Tests and container inspection stand a file inside --root for a node:
     * "/tmp/fx/dev/davinci0" with --root /tmp/fx is /dev/davinci0. */
    if (!nd_rootfs_is_default()) {
        char in_root[4096];
        if (nd_rootfs_unmap(path, in_root, sizeof in_root) && nd_classify_dev(in_root, vendor, vsize, index))
            return true;
    }
    return nd_classify_dev(path, vendor, vsize, index);
}

/* ---- the cache ---- */

/* A descriptor that pointed at a device node at the last scan. */
struct nd_fp_devfd {
    int fd;
    int index;
    char vendor[16];
};

struct nd_fp_entry {
    pid_t pid;          /* 0: empty slot */
    uint64_t starttime; /* identity when no fd folder is kept open */
    int fd_dir;         /* kept /proc/PID/fd: fails once the process is gone; -1 none */
    double maps_at;     /* monotonic time of the last maps read; < 0 never */
    double fds_full_at; /* of the last scan that read every link */
    double used_at;
    unsigned frameworks;
    bool maps_read;
    bool host_pid_valid;
    pid_t host_pid;
    int *fds; /* descriptor numbers at the last scan, ascending */
    size_t nfds, capfds;
    struct nd_fp_devfd *devs; /* the device ones among them */
    size_t ndevs, capdevs;
};

/* Kept fd folders save the path walk on every sample; past this many
 * processes the folder is opened per scan instead (fd limits). */
#define ND_FP_MAX_KEPT_DIRS 256

struct nd_footprint_cache {
    double refresh_s;
    struct nd_fp_entry *slots; /* open addressing, power-of-two size */
    size_t cap, used;
    size_t kept_dirs;
};

static void nd_entry_release(struct nd_footprint_cache *c, struct nd_fp_entry *e)
{
    if (e->fd_dir >= 0) {
        close(e->fd_dir);
        if (c)
            c->kept_dirs--;
    }
    e->fd_dir = -1;
    free(e->fds);
    free(e->devs);
    e->fds = NULL;
    e->devs = NULL;
    e->nfds = e->capfds = e->ndevs = e->capdevs = 0;
}

/* Back to "never seen", keeping the slot (and its pid) in place. */
static void nd_entry_reset(struct nd_footprint_cache *c, struct nd_fp_entry *e, pid_t pid, double now)
{
    nd_entry_release(c, e);
    memset(e, 0, sizeof *e);
    e->pid = pid;
    e->fd_dir = -1;
    e->maps_at = -1;
    e->fds_full_at = -1;
    e->used_at = now;
}

struct nd_footprint_cache *nd_footprint_cache_new(double refresh_s)
{
    struct nd_footprint_cache *c = nd_xcalloc(1, sizeof *c);
    c->refresh_s = refresh_s;
    c->cap = 256;
    c->slots = nd_xcalloc(c->cap, sizeof *c->slots);
    return c;
}

void nd_footprint_cache_free(struct nd_footprint_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->cap; i++)
        if (c->slots[i].pid)
            nd_entry_release(c, &c->slots[i]);
    free(c->slots);
    free(c);
}

static size_t nd_slot_of(const struct nd_footprint_cache *c, pid_t pid)
{
    size_t h = (size_t)(uint32_t)pid * 2654435761u;
    size_t i = h & (c->cap - 1);
    while (c->slots[i].pid != 0 && c->slots[i].pid != pid)
        i = (i + 1) & (c->cap - 1);
    return i;
}

/* Rebuilds the table, dropping entries not used for a while (dead
 * processes), and doubling when live entries still fill half of it. */
static void nd_cache_rehash(struct nd_footprint_cache *c, double now)
{
    struct nd_fp_entry *old = c->slots;
    size_t oldcap = c->cap;
    double horizon = (c->refresh_s > 10 ? c->refresh_s : 10) * 2;
    size_t live = 0;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].pid && now - old[i].used_at <= horizon)
            live++;
    size_t cap = oldcap;
    while (live * 2 >= cap)
        cap *= 2;
    c->cap = cap;
    c->slots = nd_xcalloc(cap, sizeof *c->slots);
    c->used = 0;
    for (size_t i = 0; i < oldcap; i++) {
        if (!old[i].pid)
            continue;
        if (now - old[i].used_at > horizon) {
            nd_entry_release(c, &old[i]);
            continue;
        }
        c->slots[nd_slot_of(c, old[i].pid)] = old[i];
        c->used++;
    }
    free(old);
}

static struct nd_fp_entry *nd_cache_lookup(struct nd_footprint_cache *c, pid_t pid, double now, bool *fresh)
{
    if ((c->used + 1) * 4 >= c->cap * 3)
        nd_cache_rehash(c, now);
    struct nd_fp_entry *e = &c->slots[nd_slot_of(c, pid)];
    *fresh = e->pid == 0;
    if (*fresh) {
        c->used++;
        e->fd_dir = -1; /* a calloc'ed slot holds fd 0, which is not ours to close */
        nd_entry_reset(c, e, pid, now);
    }
    e->used_at = now;
    return e;
}

/* ---- footprint ---- */

static struct nd_held_device *nd_held_find(struct nd_footprint *out, const char *vendor, int index)
{
    for (size_t i = 0; i < out->nheld; i++)
        if (out->held[i].index == index && strcmp(out->held[i].vendor, vendor) == 0)
            return &out->held[i];
    if (out->nheld == ND_FOOTPRINT_MAX_HELD)
        return NULL;
    struct nd_held_device *h = &out->held[out->nheld++];
    memset(h, 0, sizeof *h);
    snprintf(h->vendor, sizeof h->vendor, "%s", vendor);
    h->index = index;
    return h;
}

static bool nd_int_in(const int *v, size_t n, int x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] == x)
            return true;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

static int nd_int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Lists /proc/PID/fd through dfd and classifies the links. Links are read
 * for descriptors new since the last scan, and for all of them when full:
 * a descriptor number that stayed open keeps what it pointed at (a closed
 * and reopened number is caught at the next full scan, every refresh_s; the
 * vendor list sees such a job at once). Returns 0 or -ESRCH. */
/* The largest dirent64 of /proc/PID/fd: header, a 10-digit fd, NUL, padding. */
#define ND_FD_DIRENT_MAX 40

static int nd_fd_scan(int dfd, bool rewind, struct nd_fp_entry *e, bool full)
{
    if (rewind && lseek(dfd, 0, SEEK_SET) < 0)
        return errno == ENOENT || errno == ESRCH ? -ESRCH : -errno;
    int *fds = NULL;
    size_t nfds = 0, capfds = 0;
    struct nd_fp_devfd *devs = NULL;
    size_t ndevs = 0, capdevs = 0;
    char buf[8192];
    int rc = 0;
    bool links_hidden = false; /* the folder lists, but its links are not ours to read */
    for (;;) {
        ssize_t n = getdents64(dfd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rc = errno == ENOENT || errno == ESRCH ? -ESRCH : -errno;
            break;
        }
        if (n == 0)
            break;
        /* procfs fills the buffer until the next entry does not fit; a
         * buffer with room for the longest fd entry left was the last one
         * (saves the empty read on nearly every process). */
        bool last = (size_t)n + ND_FD_DIRENT_MAX <= sizeof buf;
        for (ssize_t off = 0; off < n;) {
            struct dirent64 *d = (struct dirent64 *)(buf + off);
            off += d->d_reclen;
            if (d->d_name[0] < '0' || d->d_name[0] > '9')
                continue;
            int fd = atoi(d->d_name);
            ND_ALLOC_GROW(fds, nfds + 1, capfds);
            fds[nfds++] = fd;
            struct nd_fp_devfd dev = {fd, -1, ""};
            bool is_dev = false;
            if (!full && nd_int_in(e->fds, e->nfds, fd)) {
                for (size_t i = 0; i < e->ndevs; i++)
                    if (e->devs[i].fd == fd) {
                        dev = e->devs[i];
                        is_dev = true;
                        break;
                    }
            } else if (!links_hidden) {
                char target[4096];
                ssize_t tn = readlinkat(dfd, d->d_name, target, sizeof target - 1);
                links_hidden = tn < 0 && errno == EACCES;
                if (tn > 0 && target[0] == '/') { /* not a socket, pipe or anon inode */
                    target[tn] = '\0';
                    is_dev = nd_device_path_classify(target, dev.vendor, sizeof dev.vendor, &dev.index);
                }
            }
            if (is_dev) {
                ND_ALLOC_GROW(devs, ndevs + 1, capdevs);
                devs[ndevs++] = dev;
            }
        }
        if (last)
            break;
    }
    if (rc < 0) {
        free(fds);
        free(devs);
        return rc;
    }
    if (nfds > 1) /* procfs lists in order; do not rely on it */
        qsort(fds, nfds, sizeof *fds, nd_int_cmp);
    free(e->fds);
    free(e->devs);
    e->fds = fds;
    e->nfds = nfds;
    e->capfds = capfds;
    e->devs = devs;
    e->ndevs = ndevs;
    e->capdevs = capdevs;
    return 0;
}

static void nd_fds_to_held(const struct nd_fp_entry *e, struct nd_footprint *out)
{
    for (size_t i = 0; i < e->ndevs; i++) {
        struct nd_held_device *h = nd_held_find(out, e->devs[i].vendor, e->devs[i].index);
        if (h && h->how == 0)
            h->how = ND_HOLD_DEVICE_FILE;
    }
}

static int nd_open_fd_dir(pid_t pid)
{
    return nd_proc_open(pid, "fd", O_RDONLY | O_DIRECTORY);
}

static void nd_match_vendor_lists(pid_t host_pid, const struct nd_device_state *const *states, size_t nstates,
                                  struct nd_footprint *out)
{
    for (size_t s = 0; s < nstates; s++) {
        const struct nd_device_state *st = states[s];
        if (!st || !st->procs_valid)
            continue;
        size_t np = st->nprocs < ND_MAX_DEVICE_PROCS ? st->nprocs : ND_MAX_DEVICE_PROCS;
        for (size_t i = 0; i < np; i++) {
            const struct nd_device_proc *dp = &st->procs[i];
            if (dp->pid != host_pid)
                continue;
            struct nd_held_device *h = nd_held_find(out, st->vendor, dp->device_index);
            if (!h)
                continue;
            h->how = ND_HOLD_VENDOR_LIST;
            /* A pid listed twice for one device (several contexts) is one
             * footprint; take the larger figure rather than double-count. */
            if (dp->mem_valid && (!h->mem_valid || dp->mem_bytes > h->mem_bytes)) {
                h->mem_valid = true;
                h->mem_bytes = dp->mem_bytes;
            }
        }
    }
}

static bool nd_states_have_procs(const struct nd_device_state *const *states, size_t nstates)
{
    for (size_t s = 0; s < nstates; s++)
        if (states && states[s] && states[s]->procs_valid && states[s]->nprocs > 0)
            return true;
    return false;
}

/* The fd scan through the cache entry. The kept fd folder doubles as the
 * identity check: once its process is gone it fails, even if the pid has
 * been reused, so no stat read is needed per sample. Without a kept folder
 * (too many processes, or not ours to read) the start time decides. */
static int nd_cached_fds(struct nd_footprint_cache *c, struct nd_fp_entry *e, pid_t pid, bool fresh, double now,
                         struct nd_footprint *out)
{
    bool full = e->fds_full_at < 0 || now - e->fds_full_at >= c->refresh_s;
    if (e->fd_dir >= 0) {
        int rc = nd_fd_scan(e->fd_dir, true, e, full);
        if (rc == 0) {
            out->fds_read = true;
            if (full)
                e->fds_full_at = now;
            return 0;
        }
        nd_entry_reset(c, e, pid, now); /* gone; the pid may be someone else now */
        fresh = true;
        full = true;
    }
    struct nd_proc_stat st;
    int src = nd_proc_read_stat(pid, &st);
    if (src == -ESRCH)
        return src;
    if (!fresh && src == 0 && st.starttime_ticks != e->starttime) {
        nd_entry_reset(c, e, pid, now);
        full = true;
    }
    if (src == 0)
        e->starttime = st.starttime_ticks;
    int dfd = nd_open_fd_dir(pid);
    if (dfd == -ESRCH)
        return dfd;
    if (dfd < 0)
        return 0; /* not ours to read: fds_read stays false */
    if (nd_fd_scan(dfd, false, e, full) == 0) {
        out->fds_read = true;
        if (full)
            e->fds_full_at = now;
    }
    if (c->kept_dirs < ND_FP_MAX_KEPT_DIRS) {
        e->fd_dir = dfd;
        c->kept_dirs++;
    } else {
        close(dfd);
    }
    return 0;
}

int nd_footprint_of(pid_t pid, const struct nd_device_state *const *states, size_t nstates,
                    struct nd_footprint_cache *cache, struct nd_footprint *out)
{
    return nd_footprint_of_flags(pid, states, nstates, cache, 0, out);
}

int nd_footprint_of_flags(pid_t pid, const struct nd_device_state *const *states, size_t nstates,
                          struct nd_footprint_cache *cache, unsigned flags, struct nd_footprint *out)
{
    memset(out, 0, sizeof *out);
    out->pid = pid;
    if (pid <= 0)
        return -EINVAL;
    bool want_lists = nd_states_have_procs(states, nstates);

    struct nd_fp_entry scratch;
    memset(&scratch, 0, sizeof scratch);
    scratch.fd_dir = -1;
    struct nd_fp_entry *e = &scratch;
    double now = 0;
    int rc;

    /* 2. open device files (first: it also tells whether the entry is still this process) */
    if (cache) {
        now = nd_monotonic_now();
        bool fresh;
        e = nd_cache_lookup(cache, pid, now, &fresh);
        rc = nd_cached_fds(cache, e, pid, fresh, now, out);
    } else {
        int dfd = nd_open_fd_dir(pid);
        rc = dfd == -ESRCH ? -ESRCH : 0;
        if (dfd >= 0) {
            if (nd_fd_scan(dfd, false, e, true) == 0)
                out->fds_read = true;
            close(dfd);
        }
    }
    if (rc < 0)
        goto done;

    /* 3. maps (cached) */
    bool want_maps = !(flags & ND_FOOTPRINT_SKIP_MAPS);
    if (want_maps && (!cache || e->maps_at < 0 || now - e->maps_at >= cache->refresh_s)) {
        unsigned fw = 0;
        rc = nd_maps_read_frameworks(pid, &fw);
        if (rc == -ESRCH)
            goto done;
        e->frameworks = fw;
        e->maps_read = rc == 0;
        e->maps_at = now;
        rc = 0;
    }
    if (want_maps) {
        out->frameworks = e->frameworks;
        out->maps_read = e->maps_read;
    }

    /* 1. vendor lists, through the host pid (NSpid never changes for a process) */
    if (want_lists) {
        if (!e->host_pid_valid) {
            struct nd_proc_status ps;
            int src = nd_proc_read_status(pid, &ps);
            if (src == -ESRCH) {
                rc = src;
                goto done;
            }
            e->host_pid = src == 0 ? nd_proc_status_host_pid(&ps, pid) : pid;
            e->host_pid_valid = true;
        }
        nd_match_vendor_lists(e->host_pid, states, nstates, out);
    }
    nd_fds_to_held(e, out);
    if (!out->fds_read && !out->maps_read && !nd_proc_exists(pid))
        rc = -ESRCH;

done:
    if (!cache)
        nd_entry_release(NULL, &scratch);
    else if (rc == -ESRCH)
        nd_entry_reset(cache, e, pid, now);
    if (rc < 0) {
        memset(out, 0, sizeof *out);
        out->pid = pid;
        return rc;
    }
    for (size_t i = 0; i < out->nheld; i++)
        if (out->held[i].index >= 0)
            out->holds_device = true;
    out->control_only = out->nheld > 0 && !out->holds_device;
    return 0;
}

void nd_frameworks_describe(unsigned frameworks, char *buf, size_t size)
{
    if (!buf || size == 0)
        return;
    buf[0] = '\0';
    size_t len = 0;
    for (unsigned bit = 1; bit <= ND_FW_LAST; bit <<= 1) {
        const char *name = (frameworks & bit) ? nd_framework_name(bit) : NULL;
        if (!name)
            continue;
        int n = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", name);
        if (n < 0 || (size_t)n >= size - len) {
            buf[len] = '\0'; /* never end on half a name */
            return;
        }
        len += (size_t)n;
    }
}
