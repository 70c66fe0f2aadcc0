/* The run/watch sampler (see sampler.h). Cheap by construction: one readdir
 * of /proc per tick; a stat read only for the job's processes (one pread on a
 * kept file) and for pids never seen before (a process outside the job cannot
 * join it later, so its verdict is cached until the pid disappears); the
 * device footprint only for processes that ran since their last one (an idle
 * process cannot open a device), that are young, or every quarter window;
 * maps are re-read by the footprint cache only for processes that ran, and
 * at most every quarter window. */
#include "monitor/sampler.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/fileio.h"
#include "core/redact.h"
#include "core/rootfs.h"
#include "core/spawn.h"
#include "core/strbuf.h"
#include "device/device.h"
#include "core/environ.h"
#include "proc/footprint.h"
#include "proc/pidsig.h"
#include "proc/proc.h"
#include "proc/sched.h"
#include "proc/taskstats.h"

#define ND_FP_REFRESH_S 5.0
/* An idle process's footprint is taken again after the maps refresh period
 * at the latest (a quarter window, 1-5 s); a new one's every tick for this long. */
#define ND_FP_YOUNG_S 3.0
/* Processes whose stat file stays open between ticks (an fd each). */
#define ND_MAX_KEPT_STAT 512
/* Checkpoints of a process's CPU time over the window: its sustained use is
 * known to within an eighth of the window. */
#define ND_CP_PER_WINDOW 8
#define ND_CP_MAX (ND_CP_PER_WINDOW + 2)
/* Failed processes of the job kept for the verdict. */
#define ND_CHILD_EXITS_MAX 64
#define ND_UNSEEN_EXITS_MAX 32

struct nd_cpu_cp {
    double at;
    uint64_t ticks;
    uint64_t seen, runnable; /* samples so far, and those that found it runnable */
};

struct nd_track {
    int statfd; /* /proc/PID/stat kept open (-1 none): one pread per tick */
    pid_t pid, ppid;
    uint64_t start;
    uint64_t ticks;
    unsigned gen; /* last tick that saw it */
    char comm[32];
    char cmd[160];
    bool cmd_read;
    double cores;
    bool runnable;
    uint64_t rss;
    long threads;
    bool holds;
    unsigned fw;
    uint32_t held_mask; /* series device slots held, as of the last footprint */
    bool fp_done;       /* a footprint was taken */
    uint64_t fp_ticks;  /* CPU ticks then */
    double fp_at;
    double born_at; /* its start, on the monotonic clock */
    double seen_at; /* first seen, on the monotonic clock */
    struct nd_cpu_cp cp[ND_CP_MAX];
    size_t ncp; /* oldest first */
    double win_cores;
    double win_runnable;
    uint64_t nseen, nrunnable;
    char state;
    bool held_ever;
    bool env_final; /* its environment read after it settled */
    char rank[12], local_rank[12];
    bool distributed;
    uint64_t rchar;    /* at the last read */
    uint64_t wchar;    /* at the last read; valid with rchar */
    int iofd, wchanfd; /* /proc/PID/io and wchan kept open while read (-1 none) */
    uint64_t io_ticks; /* CPU ticks at the last io/wchan look */
    char io_state;     /* state then */
    bool io_looked;
    bool io_seen;
    char wchan[32];
    /* Its threads' schedstat summed at the last look: time on a CPU and
     * runnable but waiting for one (ns). */
    uint64_t sched_run, sched_wait;
    bool sched_seen;
};

struct nd_cand {
    pid_t pid;
    struct nd_proc_stat st;
    bool job;
};

struct nd_slot {
    int vendor; /* index into sessions */
    size_t dev; /* index into that state's devices */
};

struct nd_sampler {
    struct nd_sampler_opts opt;
    struct nd_track *tr;
    size_t ntr, captr;
    pid_t *nonjob; /* sorted */
    size_t nnonjob;
    unsigned gen;
    double last_now;
    long clk, page;
    struct nd_footprint_cache *fpc;
    struct nd_device_session *sess[ND_MAX_VENDORS];
    struct nd_device_state *state[ND_MAX_VENDORS];
    bool state_ok[ND_MAX_VENDORS];
    bool failure_noted[ND_MAX_VENDORS];
    struct nd_series_device dev[ND_SERIES_MAX_DEV];
    struct nd_slot slot[ND_SERIES_MAX_DEV];
    size_t ndev;
    /* Device nodes under the root, when no vendor library answered. */
    char node_vendor[16];
    size_t nnodes;
    struct nd_detect_proc *procs;
    size_t nprocs;
    pid_t *vanished;
    size_t nvanished, capvanished;
    bool fw_known;
    bool fds_denied; /* /proc/PID/fd of a process of the job could not be read */
    bool io_denied;  /* nor its /proc/PID/io */
    size_t kept_stat;
    int loadavg_fd;     /* /proc/loadavg kept open, -1 until needed */
    int psi_fd;         /* /proc/pressure/cpu kept open, -1 until needed, -2 absent */
    long procs_running; /* runnable tasks on the host at the last tick (-1 unknown) */
    double psi_cpu10;   /* CPU pressure, some avg10 % (-1 unknown) */
    double idle_rescan_s;
    long long last_pid; /* its last-pid field at the previous tick */
    bool have_cgroup;
    bool cgroup_v1;
    char cgroup_dir[512];
    bool job_held;        /* the job held a device at the last tick */
    bool job_dev_low;     /* ... whose utilisation was low or unknown: only then can it starve */
    uint64_t read_total;  /* bytes the job read so far (deltas summed) */
    uint64_t write_total; /* bytes the job wrote so far (deltas summed) */
    double loadavg1;
    bool root_exit_seen;
    int root_exit;
    uint64_t rlimit_as; /* the main process's ulimit -v in bytes, 0 none */
    double limits_at;
    struct nd_exit_listener *exits; /* the kernel's exit notices (NULL: not here) */
    struct nd_child_exit cexits[ND_CHILD_EXITS_MAX];
    size_t ncexits;
    /* Exits of processes never seen alive (a worker killed as it started),
     * kept until a tick tells whether their parent is the job's. */
    struct nd_exit_notice unseen[ND_UNSEEN_EXITS_MAX];
    unsigned unseen_age[ND_UNSEEN_EXITS_MAX];
    size_t nunseen;
};

static void nd_drop_stat(struct nd_sampler *s, struct nd_track *t);
static void nd_sampler_note_exit(struct nd_sampler *s, pid_t pid, int ws, const struct nd_track *t, const char *comm,
                                 bool zombie);
static ssize_t nd_read_kept(struct nd_sampler *s, pid_t pid, const char *name, int *fd, char *buf, size_t size);

/* Bounded copy that always terminates (names from vendor structs can be longer than ours). */
static void nd_copy(char *dst, size_t size, const char *src)
{
    size_t n = strnlen(src, size - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int nd_pid_cmp(const void *a, const void *b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
    return (x > y) - (x < y);
}

/* ---- cgroup ---- */

bool nd_cgroup_memory_dir(const char *buf, size_t len, char *out, size_t size, bool *v1)
{
    const char *p = buf, *end = buf + len;
    char unified[400] = "";
    bool have_unified = false;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        const char *c1 = memchr(p, ':', (size_t)(eol - p));
        const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1)) : NULL;
        if (c2 && c2 + 1 < eol && c2[1] == '/') {
            size_t plen = (size_t)(eol - c2 - 1);
            if (plen < sizeof unified) {
                bool memory = false;
                for (const char *q = c1 + 1; q < c2;) {
                    const char *comma = memchr(q, ',', (size_t)(c2 - q));
                    const char *e = comma ? comma : c2;
                    if (e - q == 6 && memcmp(q, "memory", 6) == 0)
                        memory = true;
                    q = e + 1;
                }
                if (memory) {
                    *v1 = true;
                    int n = snprintf(out, size, "/sys/fs/cgroup/memory%.*s", (int)plen, c2 + 1);
                    return n > 0 && (size_t)n < size;
                }
                if (c2 == c1 + 1 && p + 1 == c1 && *p == '0') {
                    memcpy(unified, c2 + 1, plen);
                    unified[plen] = '\0';
                    have_unified = true;
                }
            }
        }
        p = eol + 1;
    }
    if (!have_unified)
        return false;
    *v1 = false;
    int n = snprintf(out, size, "/sys/fs/cgroup%s", strcmp(unified, "/") == 0 ? "" : unified);
    return n > 0 && (size_t)n < size;
}

long long nd_cgroup_parse_oom_kill(const char *buf, size_t len)
{
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        if (eol - p > 9 && memcmp(p, "oom_kill ", 9) == 0) {
            long long v = 0;
            const char *q = p + 9;
            if (q >= eol || !isdigit((unsigned char)*q))
                return -1;
            for (; q < eol && isdigit((unsigned char)*q); q++) {
                if (v > (1LL << 53))
                    return -1;
                v = v * 10 + (*q - '0');
            }
            return v;
        }
        p = eol + 1;
    }
    return -1;
}

static void nd_cgroup_init(struct nd_sampler *s)
{
    char path[64], *buf = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "/proc/%d/cgroup", (int)s->opt.root);
    if (nd_read_file_prefix(path, 64 * 1024, &buf, &len, NULL) < 0)
        return;
    s->have_cgroup = nd_cgroup_memory_dir(buf, len, s->cgroup_dir, sizeof s->cgroup_dir, &s->cgroup_v1);
    free(buf);
}

static void nd_cgroup_read(const struct nd_sampler *s, struct nd_sample *out)
{
    out->oom_kill = -1;
    out->cg_mem_max = 0;
    if (!s->have_cgroup)
        return;
    char path[600], *buf = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/%s", s->cgroup_dir, s->cgroup_v1 ? "memory.oom_control" : "memory.events");
    if (nd_read_file_prefix(path, 8192, &buf, &len, NULL) == 0) {
        out->oom_kill = nd_cgroup_parse_oom_kill(buf, len);
        free(buf);
    }
    snprintf(path, sizeof path, "%s/%s", s->cgroup_dir, s->cgroup_v1 ? "memory.limit_in_bytes" : "memory.max");
    if (nd_read_file_prefix(path, 128, &buf, &len, NULL) == 0) {
        char *endp;
        unsigned long long v = strtoull(buf, &endp, 10);
        if (endp != buf && v < (1ULL << 60))
            out->cg_mem_max = v;
        free(buf);
    }
}

/* ---- lifecycle ---- */

int nd_sampler_new(const struct nd_sampler_opts *opt, struct nd_sampler **out, struct nd_error *err)
{
    (void)err;
    struct nd_sampler *s = nd_xcalloc(1, sizeof *s);
    s->opt = *opt;
    if (s->opt.device_timeout_s <= 0)
        s->opt.device_timeout_s = ND_DEVICE_DEFAULT_TIMEOUT;
    s->loadavg_fd = -1;
    s->psi_fd = -1;
    s->last_pid = -1;
    s->loadavg1 = -1;
    s->procs_running = -1;
    s->psi_cpu10 = -1;
    s->clk = nd_proc_clock_ticks();
    s->page = nd_proc_page_size();
    s->idle_rescan_s = opt->maps_refresh_s > 0 ? opt->maps_refresh_s : ND_FP_REFRESH_S;
    s->fpc = nd_footprint_cache_new(s->idle_rescan_s);
    nd_cgroup_init(s);
    /* Heard from now on: a launcher reaps its workers at once, so only the
     * kernel's notice keeps a worker's status (root on the host only). */
    if (nd_exit_listener_open(&s->exits) < 0)
        s->exits = NULL;
    *out = s;
    return 0;
}

void nd_sampler_free(struct nd_sampler *s)
{
    if (!s)
        return;
    for (int v = 0; v < ND_MAX_VENDORS; v++) {
        nd_device_session_close(s->sess[v]);
        free(s->state[v]);
    }
    nd_footprint_cache_free(s->fpc);
    nd_exit_listener_free(s->exits);
    for (size_t i = 0; i < s->ntr; i++)
        nd_drop_stat(s, &s->tr[i]);
    if (s->loadavg_fd >= 0)
        close(s->loadavg_fd);
    if (s->psi_fd >= 0)
        close(s->psi_fd);
    free(s->tr);
    free(s->nonjob);
    free(s->procs);
    free(s->vanished);
    free(s);
}

/* The first vendor (table order) with device nodes under the root is the
 * one the job would use when no library answers. */
static void nd_device_nodes(struct nd_sampler *s)
{
    for (size_t v = 0; v < ND_MAX_VENDORS && nd_vendors[v]; v++) {
        size_t n = nd_vendor_count_nodes(nd_vendors[v]);
        if (n) {
            snprintf(s->node_vendor, sizeof s->node_vendor, "%s", nd_vendors[v]->name);
            s->nnodes = n;
            return;
        }
    }
}

void nd_sampler_open_devices(struct nd_sampler *s, struct nd_findings *notes)
{
    if (!s->opt.no_devices) {
        for (int v = 0; v < ND_MAX_VENDORS && nd_vendors[v]; v++) {
            s->state[v] = nd_xcalloc(1, sizeof *s->state[v]);
            int rc = nd_device_session_open(nd_vendors[v], s->opt.device_timeout_s, &s->sess[v], s->state[v]);
            if (rc == 0 && s->state[v]->status == 0) {
                s->state_ok[v] = true;
                for (size_t i = 0; i < s->state[v]->ndevices && s->ndev < ND_SERIES_MAX_DEV; i++) {
                    const struct nd_device *d = &s->state[v]->devices[i];
                    struct nd_series_device *sd = &s->dev[s->ndev];
                    nd_copy(sd->vendor, sizeof sd->vendor, nd_vendors[v]->name);
                    sd->index = d->index;
                    nd_copy(sd->name, sizeof sd->name, d->name);
                    sd->mem_total_bytes = d->mem_valid ? d->mem_total_bytes : 0;
                    s->slot[s->ndev].vendor = v;
                    s->slot[s->ndev].dev = i;
                    s->ndev++;
                }
            } else if (s->state[v]->lib_found && notes) {
                /* The library is there but does not answer: worth saying. */
                nd_device_state_findings(s->state[v], notes);
                s->failure_noted[v] = true;
            }
        }
    }
    nd_device_nodes(s);
}

size_t nd_sampler_devices(const struct nd_sampler *s, struct nd_series_device *out, size_t max)
{
    size_t n = s->ndev < max ? s->ndev : max;
    memcpy(out, s->dev, n * sizeof *out);
    return n;
}

void nd_sampler_device_facts(const struct nd_sampler *s, struct nd_detect_context *ctx)
{
    ctx->device_usable = false;
    for (int v = 0; v < ND_MAX_VENDORS; v++)
        if (s->state_ok[v] && s->state[v]->ndevices > 0) {
            ctx->device_usable = true;
            nd_copy(ctx->device_vendor, sizeof ctx->device_vendor, nd_vendors[v]->name);
            ctx->ndevices = s->state[v]->ndevices;
            nd_copy(ctx->device_name, sizeof ctx->device_name, s->state[v]->devices[0].name);
            return;
        }
    /* No library answered: device nodes under the root count when the
     * library is missing altogether (a container without the driver libs). */
    if (s->nnodes) {
        bool lib_found = false;
        for (int v = 0; v < ND_MAX_VENDORS; v++)
            if (s->state[v] && s->state[v]->lib_found && strcmp(s->state[v]->vendor, s->node_vendor) == 0)
                lib_found = true;
        if (!lib_found) {
            ctx->device_usable = true;
            nd_copy(ctx->device_vendor, sizeof ctx->device_vendor, s->node_vendor);
            ctx->ndevices = s->nnodes;
            ctx->device_name[0] = '\0';
        }
    }
}

/* ---- the tick ---- */

static struct nd_track *nd_track_find(struct nd_sampler *s, pid_t pid)
{
    for (size_t i = 0; i < s->ntr; i++)
        if (s->tr[i].pid == pid)
            return &s->tr[i];
    return NULL;
}

/* The job's main process: its number, and its start time when the caller
 * knew it (watch), so a process that took the number after it is not it. */
static bool nd_is_root(const struct nd_sampler *s, pid_t pid, const struct nd_proc_stat *st)
{
    return pid == s->opt.root && (s->opt.root_start == 0 || st->starttime_ticks == s->opt.root_start);
}

static bool nd_is_job_pid(const struct nd_sampler *s, pid_t pid)
{
    for (size_t i = 0; i < s->ntr; i++)
        if (s->tr[i].pid == pid && s->tr[i].gen == s->gen)
            return true;
    return false;
}

/* The sustained CPU use: from the checkpoint that opens the window (or the
 * first one, for a process younger than the window) to now. */
static void nd_track_window(struct nd_sampler *s, struct nd_track *t, uint64_t ticks)
{
    double now = s->last_now; /* this tick's time: one clock read per tick, not per process */
    t->nseen++;
    t->nrunnable += t->runnable;
    double win = s->opt.window_s > 0 ? s->opt.window_s : 20;
    double step = win / ND_CP_PER_WINDOW;
    if (t->ncp == 0 || now - t->cp[t->ncp - 1].at >= step) {
        if (t->ncp == ND_CP_MAX) {
            memmove(t->cp, t->cp + 1, (ND_CP_MAX - 1) * sizeof *t->cp);
            t->ncp--;
        }
        t->cp[t->ncp++] = (struct nd_cpu_cp){now, ticks, t->nseen, t->nrunnable};
    }
    size_t k = 0;
    while (k + 1 < t->ncp && now - t->cp[k + 1].at >= win)
        k++;
    double span = now - t->cp[k].at;
    if (span > 0 && s->clk > 0 && ticks >= t->cp[k].ticks)
        t->win_cores = (double)(ticks - t->cp[k].ticks) / (double)s->clk / span;
    else
        t->win_cores = t->cores;
    uint64_t n = t->nseen - t->cp[k].seen;
    t->win_runnable = n > 0 ? (double)(t->nrunnable - t->cp[k].runnable) / (double)n : 0;
}

/* Threads of a process looked at for a runnable one, at most. */
#define ND_RUNNABLE_THREADS_MAX 256

/* True when a thread of pid other than the main one is runnable: the
 * process's state is its main thread's, which may sleep in a join while a
 * thread of its own computes. */
static bool nd_any_thread_runnable(pid_t pid)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    size_t seen = 0;
    struct dirent *e;
    while (!found && seen < ND_RUNNABLE_THREADS_MAX && (e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        seen++;
        char path[sizeof dir + 272], buf[1024];
        snprintf(path, sizeof path, "%s/%s/stat", dir, e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        struct nd_proc_stat st;
        if (n > 0 && (buf[n] = '\0', nd_proc_parse_stat(buf, (size_t)n, &st) == 0))
            found = st.state == 'R';
    }
    closedir(d);
    return found;
}

static void nd_track_update(struct nd_sampler *s, struct nd_track *t, const struct nd_proc_stat *st, double dt, bool fresh)
{
    uint64_t ticks = st->utime_ticks + st->stime_ticks;
    /* A process born since the last tick: all of its CPU is new (none at the very first tick). */
    uint64_t delta = fresh ? (s->gen > 1 ? ticks : 0) : (ticks >= t->ticks ? ticks - t->ticks : 0);
    t->cores = dt > 0 && s->clk > 0 ? (double)delta / (double)s->clk / dt : 0;
    t->ticks = ticks;
    t->ppid = st->ppid;
    t->runnable = st->state == 'R';
    /* A device holder whose device idles: is it computing in another
     * thread? (Only then: a look at every thread costs a read each.) */
    if (!t->runnable && t->holds && s->job_held && s->job_dev_low && st->num_threads > 1 && delta > 0)
        t->runnable = nd_any_thread_runnable(t->pid);
    t->state = st->state;
    if (nd_is_root(s, t->pid, st) && st->state == 'Z' && st->exit_code_valid) {
        s->root_exit_seen = true;
        s->root_exit = st->exit_code;
    }
    t->rss = st->rss_pages > 0 ? (uint64_t)st->rss_pages * (uint64_t)s->page : 0;
    t->threads = st->num_threads;
    t->gen = s->gen;
    if (fresh) {
        nd_copy(t->comm, sizeof t->comm, st->comm);
        t->start = st->starttime_ticks;
        /* When it started, on our monotonic clock: a process that ran long
         * before we attached (watch) is not young. */
        struct timespec boot;
        double age = 0;
        if (clock_gettime(CLOCK_BOOTTIME, &boot) == 0 && s->clk > 0) {
            age = (double)boot.tv_sec + (double)boot.tv_nsec / 1e9 - (double)st->starttime_ticks / (double)s->clk;
            age = age < 0 ? 0 : age;
        }
        t->born_at = nd_monotonic_now() - age;
        t->seen_at = nd_monotonic_now();
    }
    nd_track_window(s, t, ticks);
    /* A worker its parent has not reaped (it waits on something else):
     * where no exit notices come, the zombie still tells how it died. */
    if (t->pid != s->opt.root && st->state == 'Z' && st->exit_code_valid)
        nd_sampler_note_exit(s, t->pid, st->exit_code, t, NULL, true);
}

static struct nd_track *nd_track_add(struct nd_sampler *s, pid_t pid)
{
    if (s->ntr == s->captr) {
        s->captr = s->captr ? s->captr * 2 : 32;
        s->tr = nd_xrealloc(s->tr, s->captr * sizeof *s->tr);
    }
    struct nd_track *t = &s->tr[s->ntr++];
    memset(t, 0, sizeof *t);
    t->statfd = t->iofd = t->wchanfd = -1;
    t->pid = pid;
    return t;
}

/* Its rank and whether it is part of a distributed job, from its
 * environment. Read while it is young (a child forked but not yet exec'd
 * still has its parent's environment), then kept. */
static void nd_read_env(struct nd_track *t, bool young)
{
    if (t->env_final)
        return;
    t->env_final = !young;
    struct nd_environ env;
    struct nd_error err = {0};
    if (nd_environ_from_pid(t->pid, &env, &err) == 0) {
        const char *r = nd_environ_get(&env, "RANK");
        const char *l = nd_environ_get(&env, "LOCAL_RANK");
        nd_copy(t->rank, sizeof t->rank, r ? r : "");
        nd_copy(t->local_rank, sizeof t->local_rank, l ? l : "");
        t->distributed = r || nd_environ_has(&env, "WORLD_SIZE") || nd_environ_has(&env, "MASTER_ADDR");
    }
    nd_environ_release(&env);
}

/* Bytes read and what it sleeps on, only while the job holds a device: only
 * then can a device starve for data, and the reads cost a tick otherwise. */
static void nd_read_io(struct nd_sampler *s, struct nd_track *t, struct nd_sample *out)
{
    /* A process that did not run since the last look read nothing more and
     * still sleeps where it slept: its last figures stand (most of a big
     * job's processes, most ticks). Not a reader asleep in a read or in
     * I/O: it may have read many times without a CPU tick to show for it
     * (a pipe read costs microseconds), so it is looked at again. */
    if (t->io_looked && t->ticks == t->io_ticks && t->state == t->io_state && t->state != 'D' &&
        !nd_wchan_is_input_wait(t->wchan)) {
        out->io_valid = t->io_seen ? 1 : out->io_valid;
        return;
    }
    t->io_looked = true;
    t->io_ticks = t->ticks;
    t->io_state = t->state;
    t->wchan[0] = '\0';
    char buf[512];
    {
        ssize_t n = nd_read_kept(s, t->pid, "io", &t->iofd, buf, sizeof buf - 1);
        struct nd_proc_io io;
        if (n <= 0 && t->state != 'Z')
            s->io_denied = true;
        if (n > 0 && nd_proc_parse_io(buf, (size_t)n, &io) == 0 && io.rchar_valid) {
            if (t->io_seen && io.rchar >= t->rchar)
                s->read_total += io.rchar - t->rchar;
            if (t->io_seen && io.wchar_valid && io.wchar >= t->wchar)
                s->write_total += io.wchar - t->wchar;
            t->rchar = io.rchar;
            t->wchar = io.wchar_valid ? io.wchar : t->wchar;
            t->io_seen = true;
        }
    }
    if (t->state == 'S' || t->state == 'D') {
        ssize_t n = nd_read_kept(s, t->pid, "wchan", &t->wchanfd, buf, sizeof t->wchan - 1);
        if (n > 0 && buf[0] != '0') {
            buf[n] = '\0';
            nd_copy(t->wchan, sizeof t->wchan, buf);
        }
    }
    if (t->state == 'D' || nd_wchan_is_input_wait(t->wchan))
        out->iowait = 1;
    /* Reads known only where /proc/PID/io could be read (not across users
     * without ptrace rights, nor where a container hides it). */
    if (t->io_seen)
        out->io_valid = 1;
}

static void nd_read_cmd(struct nd_track *t, bool young)
{
    if (t->cmd_read)
        return;
    t->cmd_read = !young;
    char raw[512];
    if (nd_proc_read_cmdline(t->pid, raw, sizeof raw) < 0)
        return;
    char *red = nd_redact_text(raw);
    nd_copy(t->cmd, sizeof t->cmd, red);
    free(red);
}

/* Keeps /proc/PID/stat open: later reads are one pread, with no path walk,
 * and a read failing with ESRCH says the process is gone even if its pid
 * was reused meanwhile. Never takes fds 0-2 (they may be closed, or closed
 * by someone else later). */
static void nd_keep_stat(struct nd_sampler *s, struct nd_track *t)
{
    if (t->statfd >= 0 || s->kept_stat >= ND_MAX_KEPT_STAT)
        return;
    int fd = nd_proc_open(t->pid, "stat", O_RDONLY);
    if (fd >= 0 && fd < 3) {
        int hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        close(fd);
        fd = hi;
    }
    if (fd < 0)
        return;
    t->statfd = fd;
    s->kept_stat++;
}

static void nd_drop_stat(struct nd_sampler *s, struct nd_track *t)
{
    int *fds[] = {&t->statfd, &t->iofd, &t->wchanfd};
    for (size_t i = 0; i < sizeof fds / sizeof *fds; i++) {
        if (*fds[i] < 0)
            continue;
        close(*fds[i]);
        *fds[i] = -1;
        s->kept_stat--;
    }
}

/* A /proc/PID file kept open for preads (-1 when the fd budget is spent or
 * the process is gone); never fds 0-2. */
static int nd_keep_fd(struct nd_sampler *s, pid_t pid, const char *name)
{
    if (s->kept_stat >= ND_MAX_KEPT_STAT)
        return -1;
    int fd = nd_proc_open(pid, name, O_RDONLY);
    if (fd >= 0 && fd < 3) {
        int hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        close(fd);
        fd = hi;
    }
    if (fd >= 0)
        s->kept_stat++;
    return fd;
}

/* One pread of a kept file, or open-read-close when none could be kept. */
static ssize_t nd_read_kept(struct nd_sampler *s, pid_t pid, const char *name, int *fd, char *buf, size_t size)
{
    if (*fd < 0)
        *fd = nd_keep_fd(s, pid, name);
    if (*fd >= 0)
        return pread(*fd, buf, size, 0);
    int tmp = nd_proc_open(pid, name, O_RDONLY);
    if (tmp < 0)
        return -1;
    ssize_t n = read(tmp, buf, size);
    close(tmp);
    return n;
}

/* 0, or < 0 when the kept file says the process is gone. */
static int nd_read_kept_stat(const struct nd_track *t, struct nd_proc_stat *st)
{
    char buf[1024];
    ssize_t n = pread(t->statfd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return -ESRCH;
    buf[n] = '\0';
    return nd_proc_parse_stat(buf, (size_t)n, st);
}

static void nd_collect_vanished(struct nd_sampler *s);
static bool nd_scan_tracked_only(struct nd_sampler *s, double dt);

static int nd_scan_procs(struct nd_sampler *s, double dt, struct nd_error *err)
{
    if (nd_scan_tracked_only(s, dt))
        return 0;
    pid_t *pids = NULL;
    size_t n = 0;
    int rc = nd_proc_list(&pids, &n);
    if (rc < 0)
        return nd_error_set(err, rc, "cannot list /proc: %s", strerror(-rc));
    s->gen++;
    pid_t *nonjob = nd_xmalloc((n ? n : 1) * sizeof *nonjob);
    size_t nnj = 0;
    struct nd_cand *cand = nd_xmalloc((n ? n : 1) * sizeof *cand);
    size_t ncand = 0;
    for (size_t i = 0; i < n; i++) {
        pid_t pid = pids[i];
        struct nd_track *t = nd_track_find(s, pid);
        struct nd_proc_stat st;
        if (t) {
            if (t->statfd >= 0 && nd_read_kept_stat(t, &st) == 0) {
                nd_track_update(s, t, &st, dt, false);
                continue;
            }
            if (nd_proc_read_stat(pid, &st) < 0)
                continue;
            if (t->statfd < 0 && st.starttime_ticks == t->start) {
                nd_track_update(s, t, &st, dt, false);
                continue;
            }
            t->pid = -1; /* the pid was reused: the old process is gone */
            cand[ncand++] = (struct nd_cand){pid, st, false};
            continue;
        }
        if (s->nnonjob && bsearch(&pid, s->nonjob, s->nnonjob, sizeof *s->nonjob, nd_pid_cmp)) {
            nonjob[nnj++] = pid;
            continue;
        }
        if (nd_proc_read_stat(pid, &st) < 0)
            continue;
        cand[ncand++] = (struct nd_cand){pid, st, false};
    }
    /* New processes join the job through their parent or the job's group;
     * parents may come later in the listing, so iterate to a fixpoint. */
    bool changed = true;
    while (changed) {
        changed = false;
        for (size_t i = 0; i < ncand; i++) {
            struct nd_cand *c = &cand[i];
            if (c->job)
                continue;
            bool job = nd_is_root(s, c->pid, &c->st) || (s->opt.pgid > 0 && c->st.pgrp == s->opt.pgid) ||
                       nd_is_job_pid(s, c->st.ppid);
            for (size_t k = 0; !job && k < ncand; k++)
                job = cand[k].job && cand[k].pid == c->st.ppid;
            if (job) {
                c->job = changed = true;
                struct nd_track *t = nd_track_add(s, c->pid);
                nd_track_update(s, t, &c->st, dt, true);
                nd_keep_stat(s, t);
            }
        }
    }
    for (size_t i = 0; i < ncand; i++)
        if (!cand[i].job)
            nonjob[nnj++] = cand[i].pid;
    qsort(nonjob, nnj, sizeof *nonjob, nd_pid_cmp);
    free(s->nonjob);
    s->nonjob = nonjob;
    s->nnonjob = nnj;
    free(cand);
    free(pids);
    nd_collect_vanished(s);
    return 0;
}

/* Tracked processes not seen at this tick are gone. */
static void nd_collect_vanished(struct nd_sampler *s)
{
    s->nvanished = 0;
    size_t j = 0;
    for (size_t i = 0; i < s->ntr; i++) {
        if (s->tr[i].gen == s->gen && s->tr[i].pid > 0) {
            s->tr[j++] = s->tr[i];
            continue;
        }
        nd_drop_stat(s, &s->tr[i]);
        if (s->tr[i].pid <= 0)
            continue;
        if (s->nvanished == s->capvanished) {
            s->capvanished = s->capvanished ? s->capvanished * 2 : 16;
            s->vanished = nd_xrealloc(s->vanished, s->capvanished * sizeof *s->vanished);
        }
        s->vanished[s->nvanished++] = s->tr[i].pid;
    }
    s->ntr = j;
}

/* The last pid the kernel handed out (the 5th field of /proc/loadavg, in
 * our pid namespace); -1 when unknown. */
static long long nd_last_pid(struct nd_sampler *s)
{
    if (s->loadavg_fd < 0) {
        int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
        if (fd >= 0 && fd < 3) {
            int hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);
            close(fd);
            fd = hi;
        }
        if (fd < 0)
            return -1;
        s->loadavg_fd = fd;
    }
    char buf[256];
    ssize_t n = pread(s->loadavg_fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return -1;
    struct nd_loadavg la;
    if (nd_sched_parse_loadavg(buf, (size_t)n, &la) < 0) {
        s->loadavg1 = -1;
        s->procs_running = -1;
        return -1;
    }
    s->loadavg1 = la.avg1;
    s->procs_running = la.running;
    return la.last_pid;
}

/* /proc/pressure/cpu's some avg10, kept open; -1 where the kernel has no PSI. */
static void nd_read_psi(struct nd_sampler *s)
{
    s->psi_cpu10 = -1;
    if (s->psi_fd == -2)
        return;
    if (s->psi_fd < 0) {
        int fd = open("/proc/pressure/cpu", O_RDONLY | O_CLOEXEC);
        if (fd >= 0 && fd < 3) {
            int hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);
            close(fd);
            fd = hi;
        }
        if (fd < 0) {
            s->psi_fd = -2;
            return;
        }
        s->psi_fd = fd;
    }
    char buf[256];
    ssize_t n = pread(s->psi_fd, buf, sizeof buf - 1, 0);
    double v;
    if (n > 0 && nd_sched_parse_psi_some_avg10(buf, (size_t)n, &v) == 0)
        s->psi_cpu10 = v;
}

/* Threads of a process whose schedstat is read, at most: past that only
 * those first ones count (a huge pool's waiting is seen in part). */
#define ND_SCHED_THREADS_MAX 64

/* Its threads' schedstat summed; false when none could be read (no
 * schedstat in this kernel, another user's process). */
static bool nd_read_sched(pid_t pid, uint64_t *run, uint64_t *wait)
{
    *run = *wait = 0;
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool any = false;
    size_t seen = 0;
    struct dirent *e;
    while (seen < ND_SCHED_THREADS_MAX && (e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        seen++;
        char path[sizeof dir + 272], buf[128];
        snprintf(path, sizeof path, "%s/%s/schedstat", dir, e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        struct nd_schedstat st;
        if (n > 0 && nd_sched_parse_schedstat(buf, (size_t)n, &st) == 0) {
            *run += st.run_ns;
            *wait += st.wait_ns;
            any = true;
        }
    }
    closedir(d);
    return any;
}

/* The job's threads' run and run-queue wait over the last interval, into
 * the sample (threads' worth of each). A thread that ended takes its sums
 * with it: a total that went back counts nothing for that process. */
static void nd_sample_sched(struct nd_track *t, double dt, struct nd_sample *out, bool *any)
{
    uint64_t run, wait;
    if (t->state == 'Z' || !nd_read_sched(t->pid, &run, &wait)) {
        t->sched_seen = false;
        return;
    }
    *any = true;
    if (t->sched_seen && dt > 0) {
        if (run >= t->sched_run)
            out->cpu_run += (float)((double)(run - t->sched_run) / 1e9 / dt);
        if (wait >= t->sched_wait)
            out->cpu_wait += (float)((double)(wait - t->sched_wait) / 1e9 / dt);
    }
    t->sched_run = run;
    t->sched_wait = wait;
    t->sched_seen = true;
}

/* No process was created anywhere since the last tick: the job's set can
 * only have shrunk, so the tracked processes are read and /proc is not
 * listed (listing every pid is most of a tick's cost on a busy host). */
static bool nd_scan_tracked_only(struct nd_sampler *s, double dt)
{
    long long last = nd_last_pid(s);
    bool same = last >= 0 && last == s->last_pid && s->gen > 0;
    s->last_pid = last;
    if (!same)
        return false;
    s->gen++;
    for (size_t i = 0; i < s->ntr; i++) {
        struct nd_track *t = &s->tr[i];
        struct nd_proc_stat st;
        if (t->statfd >= 0) {
            if (nd_read_kept_stat(t, &st) == 0)
                nd_track_update(s, t, &st, dt, false);
        } else if (nd_proc_read_stat(t->pid, &st) == 0 && st.starttime_ticks == t->start) {
            nd_track_update(s, t, &st, dt, false);
        }
    }
    nd_collect_vanished(s);
    return true;
}

static int nd_slot_of(const struct nd_sampler *s, const char *vendor, int index)
{
    for (size_t d = 0; d < s->ndev; d++)
        if (s->dev[d].index == index && strcmp(s->dev[d].vendor, vendor) == 0)
            return (int)d;
    return -1;
}

static void nd_sample_devices(struct nd_sampler *s, struct nd_findings *notes)
{
    for (int v = 0; v < ND_MAX_VENDORS; v++) {
        if (!s->sess[v] || !s->state_ok[v])
            continue;
        if (nd_device_session_sample(s->sess[v], s->state[v]) < 0) {
            s->state_ok[v] = false;
            if (!s->failure_noted[v] && notes) {
                s->failure_noted[v] = true;
                struct nd_finding *f = nd_findings_add(
                    notes, "monitor.device-sampling-failed", ND_CAT_CONFIG, ND_SEV_WARNING,
                    "Device sampling stopped; the job goes on unwatched by %s", s->state[v]->vendor);
                nd_finding_add_evidence(f, NULL, 0, "%s", s->state[v]->error);
            }
        }
    }
}

/* A process of the job (not its main one) ended with ws: kept when it
 * failed. A crash or kill signal always counts; a non-zero exit only for a
 * rank or a process with an ML framework (a shell's `grep -q` fails on
 * purpose). SIGTERM/SIGINT are how launchers stop their workers. t is
 * what the sampler knew of it, NULL for one never seen alive (comm then
 * names it); zombie: ws was read from its zombie, not heard in a notice. */
static void nd_sampler_note_exit(struct nd_sampler *s, pid_t pid, int ws, const struct nd_track *t, const char *comm,
                                 bool zombie)
{
    if (pid == s->opt.root || s->ncexits >= ND_CHILD_EXITS_MAX)
        return;
    for (size_t i = 0; i < s->ncexits; i++)
        if (s->cexits[i].pid == pid)
            return; /* heard both as a zombie and as a notice */
    bool failed = false;
    if (WIFSIGNALED(ws)) {
        int sig = WTERMSIG(ws);
        failed = sig == SIGKILL || sig == SIGSEGV || sig == SIGABRT || sig == SIGBUS || sig == SIGILL || sig == SIGFPE;
    } else if (WIFEXITED(ws) && WEXITSTATUS(ws) != 0) {
        failed = t && (t->rank[0] || (t->fw & ND_FW_ML));
    }
    if (!failed)
        return;
    struct nd_child_exit *c = &s->cexits[s->ncexits++];
    memset(c, 0, sizeof *c);
    c->pid = pid;
    c->ws = ws;
    c->zombie = zombie;
    if (t) {
        nd_copy(c->cmd, sizeof c->cmd, t->cmd[0] ? t->cmd : t->comm);
        nd_copy(c->rank, sizeof c->rank, t->rank);
        c->frameworks = t->fw;
    } else {
        snprintf(c->cmd, sizeof c->cmd, "%s (ended before it was sampled)", comm && comm[0] ? comm : "?");
    }
}

static const struct nd_track *nd_tracked(const struct nd_sampler *s, pid_t pid)
{
    for (size_t i = 0; i < s->ntr; i++)
        if (s->tr[i].pid == pid)
            return &s->tr[i];
    return NULL;
}

/* An unseen process whose parent is the job's was the job's: its parent
 * launched it and it died before a tick could see it. */
static bool nd_unseen_is_job(const struct nd_sampler *s, const struct nd_exit_notice *n)
{
    return n->ppid > 0 && (n->ppid == s->opt.root || nd_tracked(s, n->ppid));
}

/* One exit notice. A thread's own notice (other than its group's main
 * thread) is not a process's end. */
static void nd_sampler_heard(const struct nd_exit_notice *n, void *arg)
{
    struct nd_sampler *s = arg;
    if (n->tgid > 0 && n->tgid != n->pid)
        return;
    const struct nd_track *t = nd_tracked(s, n->pid);
    if (t) {
        nd_sampler_note_exit(s, n->pid, n->ws, t, NULL, false);
        return;
    }
    /* Only a failure is worth keeping until the next tick. */
    if (!WIFSIGNALED(n->ws) || n->ppid <= 0)
        return;
    if (nd_unseen_is_job(s, n)) {
        nd_sampler_note_exit(s, n->pid, n->ws, NULL, n->comm, false);
        return;
    }
    if (s->nunseen < ND_UNSEEN_EXITS_MAX) {
        s->unseen[s->nunseen] = *n;
        s->unseen_age[s->nunseen++] = 0;
    }
}

/* After a scan: the parents of the unseen exits may be known now. An older
 * kernel's notices do not say which are threads: a thread of a process the
 * job knows ends with its process, so an unseen exit beside a known one
 * (same parent and status) is taken for such a thread. */
static void nd_sampler_settle_unseen(struct nd_sampler *s)
{
    size_t j = 0;
    for (size_t i = 0; i < s->nunseen; i++) {
        const struct nd_exit_notice *n = &s->unseen[i];
        if (nd_unseen_is_job(s, n)) {
            bool sibling_of_known = false;
            for (size_t k = 0; k < s->ncexits && !sibling_of_known && n->tgid == 0; k++) {
                const struct nd_track *t = nd_tracked(s, s->cexits[k].pid);
                sibling_of_known = t && t->ppid == n->ppid && s->cexits[k].ws == n->ws;
            }
            if (!sibling_of_known)
                nd_sampler_note_exit(s, n->pid, n->ws, NULL, n->comm, false);
            continue;
        }
        /* Two ticks: a parent younger than that would have been seen. */
        if (++s->unseen_age[i] < 2) {
            s->unseen[j] = s->unseen[i];
            s->unseen_age[j++] = s->unseen_age[i];
        }
    }
    s->nunseen = j;
}

const struct nd_child_exit *nd_sampler_child_exits(const struct nd_sampler *s, size_t *n, bool *heard)
{
    *n = s->ncexits;
    *heard = s->exits != NULL;
    return s->cexits;
}

int nd_sampler_tick(struct nd_sampler *s, struct nd_sample *out, struct nd_findings *notes, struct nd_error *err)
{
    double now = nd_monotonic_now();
    double dt = s->last_now > 0 ? now - s->last_now : 0;
    s->last_now = now;
    memset(out, 0, sizeof *out);
    out->job_util = -1;
    out->oom_kill = -1;
    for (size_t d = 0; d < ND_SERIES_MAX_DEV; d++) {
        out->util[d] = ND_SERIES_UTIL_UNKNOWN;
        out->mem_mib[d] = ND_SERIES_MEM_UNKNOWN;
    }

    nd_sample_devices(s, notes);
    /* Before the scan: those that ended since the last tick are still tracked. */
    if (s->exits)
        nd_exit_listener_each(s->exits, nd_sampler_heard, s);
    int rc = nd_scan_procs(s, dt, err);
    if (rc < 0)
        return rc;
    nd_sampler_settle_unseen(s);

    const struct nd_device_state *states[ND_MAX_VENDORS];
    size_t nstates = 0;
    for (int v = 0; v < ND_MAX_VENDORS; v++)
        if (s->state_ok[v])
            states[nstates++] = s->state[v];

    bool all_stopped = true, sched_any = false;
    nd_read_psi(s);
    if (s->ntr > s->nprocs || !s->procs)
        s->procs = nd_xrealloc(s->procs, (s->ntr ? s->ntr : 1) * sizeof *s->procs);
    s->nprocs = 0;
    for (size_t i = 0; i < s->ntr; i++) {
        struct nd_track *t = &s->tr[i];
        /* A process that used no CPU since its last look cannot have opened
         * or closed a device, nor loaded a library: look again only when it
         * ran, and every quarter window (idle_rescan_s) anyway. */
        bool ran = !t->fp_done || t->ticks != t->fp_ticks;
        /* Young processes are the ones setting up devices (open, then wait):
         * every tick for their first seconds, whatever their CPU says. */
        bool young = now - t->born_at < ND_FP_YOUNG_S;
        bool due = ran || young || now - t->fp_at >= s->idle_rescan_s;
        struct nd_footprint fp;
        /* Its maps cannot have changed either when it did not run. */
        unsigned flags = ran ? 0 : ND_FOOTPRINT_SKIP_MAPS;
        if (due && nd_footprint_of_flags(t->pid, states, nstates, s->fpc, flags, &fp) == 0) {
            t->fp_done = true;
            t->fp_ticks = t->ticks;
            t->fp_at = now;
            if (!(flags & ND_FOOTPRINT_SKIP_MAPS))
                t->fw = fp.frameworks;
            t->holds = fp.holds_device;
            if (fp.maps_read)
                s->fw_known = true;
            if (!fp.fds_read && t->state != 'Z')
                s->fds_denied = true;
            t->held_mask = 0;
            for (size_t k = 0; k < fp.nheld; k++) {
                int d = fp.held[k].index >= 0 ? nd_slot_of(s, fp.held[k].vendor, fp.held[k].index) : -1;
                if (d >= 0)
                    t->held_mask |= 1u << d;
            }
        }
        out->held_mask |= t->held_mask;
        nd_read_cmd(t, young);
        nd_read_env(t, young);
        if (t->holds)
            t->held_ever = true;
        if (s->job_held && s->job_dev_low)
            nd_read_io(s, t, out);
        if (t->state != 'T' && t->state != 't')
            all_stopped = false;
        nd_sample_sched(t, dt, out, &sched_any);
        if (t->state == 'D')
            out->dstate = 1;
        out->cpu_cores += (float)t->cores;
        out->runnable = t->runnable ? 1.0f : out->runnable;
        out->rss_bytes += t->rss;
        out->nthreads += (uint32_t)(t->threads > 0 ? t->threads : 0);
        out->frameworks |= t->fw;
        out->on_device = out->on_device || t->holds;
        struct nd_detect_proc *p = &s->procs[s->nprocs++];
        memset(p, 0, sizeof *p);
        p->pid = t->pid;
        p->ppid = t->ppid;
        nd_copy(p->comm, sizeof p->comm, t->comm);
        nd_copy(p->cmd, sizeof p->cmd, t->cmd);
        p->cores = t->cores;
        p->holds_device = t->holds;
        p->frameworks = t->fw;
        p->win_cores = t->win_cores;
        p->win_runnable = t->win_runnable;
        p->tracked_s = now - t->seen_at;
        p->held_ever = t->held_ever;
        p->held_mask = t->held_mask;
        p->state = t->state;
        nd_copy(p->rank, sizeof p->rank, t->rank);
        nd_copy(p->local_rank, sizeof p->local_rank, t->local_rank);
        p->distributed = t->distributed;
        p->read_bytes = t->rchar;
        p->io_valid = t->io_seen;
        nd_copy(p->wchan, sizeof p->wchan, t->wchan);
    }
    out->nprocs = (uint32_t)s->ntr;
    out->sched_valid = sched_any && dt > 0 ? 1 : 0;
    out->stopped = s->ntr > 0 && all_stopped ? 1.0f : 0.0f;
    out->read_bytes = s->read_total;
    out->write_bytes = s->write_total;
    s->job_held = out->on_device;

    out->ndev = (uint8_t)s->ndev;
    double held_sum = 0;
    int held_n = 0;
    for (size_t d = 0; d < s->ndev; d++) {
        int v = s->slot[d].vendor;
        if (!s->state_ok[v] || s->slot[d].dev >= s->state[v]->ndevices)
            continue;
        const struct nd_device *dv = &s->state[v]->devices[s->slot[d].dev];
        if (dv->util_valid)
            out->util[d] = (int16_t)(dv->util_pct > 100 ? 100 : dv->util_pct);
        if (dv->mem_valid)
            out->mem_mib[d] = (uint32_t)(dv->mem_used_bytes / (1024 * 1024));
        if ((out->held_mask & (1u << d)) && dv->util_valid) {
            held_sum += out->util[d];
            held_n++;
        }
    }
    if (held_n)
        out->job_util = (float)(held_sum / held_n);
    s->job_dev_low = !held_n || out->job_util < ND_INPUT_BOUND_UTIL;
    nd_cgroup_read(s, out);
    /* A launcher may set ulimit -v just before it execs the job: look again each second. */
    if (now - s->limits_at >= 1.0) {
        s->limits_at = now;
        char buf[4096];
        int fd = nd_proc_open(s->opt.root, "limits", O_RDONLY);
        if (fd >= 0) {
            ssize_t n = read(fd, buf, sizeof buf - 1);
            close(fd);
            uint64_t as;
            if (n > 0 && nd_proc_parse_limit_as(buf, (size_t)n, &as) == 0)
                s->rlimit_as = as;
        }
    }
    return 0;
}

uint64_t nd_sampler_rlimit_as(const struct nd_sampler *s)
{
    return s->rlimit_as;
}

bool nd_sampler_cgroup_v1(const struct nd_sampler *s)
{
    return s->have_cgroup && s->cgroup_v1;
}

const struct nd_detect_proc *nd_sampler_procs(const struct nd_sampler *s, size_t *n)
{
    *n = s->nprocs;
    return s->procs;
}

const pid_t *nd_sampler_vanished(const struct nd_sampler *s, size_t *n)
{
    *n = s->nvanished;
    return s->vanished;
}

bool nd_sampler_frameworks_known(const struct nd_sampler *s)
{
    return s->fw_known;
}

void nd_sampler_denied(const struct nd_sampler *s, bool *fds, bool *io)
{
    *fds = s->fds_denied;
    *io = s->io_denied;
}

double nd_sampler_loadavg(const struct nd_sampler *s)
{
    return s->loadavg1;
}

void nd_sampler_host_cpu(const struct nd_sampler *s, long *procs_running, double *psi_avg10)
{
    *procs_running = s->procs_running;
    *psi_avg10 = s->psi_cpu10;
}

bool nd_sampler_root_exit(struct nd_sampler *s, int *wait_status)
{
    if (!s->root_exit_seen) {
        struct nd_proc_stat st;
        if (nd_proc_read_stat(s->opt.root, &st) == 0 && nd_is_root(s, s->opt.root, &st) && st.state == 'Z' &&
            st.exit_code_valid) {
            s->root_exit_seen = true;
            s->root_exit = st.exit_code;
        }
    }
    if (s->root_exit_seen)
        *wait_status = s->root_exit;
    return s->root_exit_seen;
}

size_t nd_sampler_signal_all(struct nd_sampler *s, int sig)
{
    size_t n = 0;
    for (size_t i = 0; i < s->ntr; i++) {
        /* Held by a pidfd opened while the start time matched: a number
         * reused in between is not signalled. */
        int fd = nd_pidfd_open_verified(s->tr[i].pid, s->tr[i].start);
        if (s->tr[i].start && nd_pid_signal_verified(fd, s->tr[i].pid, s->tr[i].start, sig) == 0)
            n++;
        if (fd >= 0)
            close(fd);
    }
    return n;
}

void nd_sampler_reap(struct nd_sampler *s)
{
    for (size_t i = 0; i < s->ntr; i++)
        while (waitpid(s->tr[i].pid, NULL, WNOHANG) < 0 && errno == EINTR)
            ;
}
