/* npu-doctor ps: every process next to every device. For each process: CPU
 * cores over a short window, RSS, the devices it holds (vendor process
 * lists, open device files), device memory, frameworks loaded, and a verdict
 * ("npu:0 (31.7 GiB)", "CPU only: 3.8 cores busy, torch loaded, no device
 * held"). The window is overlapped with the slow work: the first CPU sample
 * is taken, then devices are queried and footprints read, and only the rest
 * of the window is slept before the second sample. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "core/exitcode.h"
#include "core/fileio.h"
#include "core/json_util.h"
#include "core/parallel.h"
#include "core/redact.h"
#include "core/report.h"
#include "core/report_table.h"
#include "core/rootfs.h"
#include "core/spawn.h"
#include "core/strbuf.h"
#include "device/device.h"
#include "device/device_json.h"
#include "proc/footprint.h"
#include "proc/proc.h"
#include "proc/verdict.h"

#define ND_PS_CMD_MAX 4096
/* Below this much address space no ML runtime can be mapped (see nd_ps_footprint). */
#define ND_PS_MAPS_MIN_VSIZE (64ull << 20)
/* Looks at the process states inside the window (see nd_ps_finish_window). */
#define ND_PS_LOOK_S 0.1
#define ND_PS_MIN_LOOKS 5

static const char nd_ps_about[] = "Every process next to every device: CPU cores used, RSS, devices held,\n"
                                  "device memory, frameworks loaded, and a verdict per process.\n"
                                  "By default only the processes that hold a device (or a control node) or\n"
                                  "are busy (at least 0.5 cores over the window, see --busy) are listed,\n"
                                  "with the frameworks they loaded; --all adds the idle ones (an idle\n"
                                  "process with torch loaded shows there).\n";

static const char nd_ps_footer[] = "Exit status: 0; 1 when the devices sit idle while a CPU-bound ML process\n"
                                   "holds none; 2 when a vendor library is found but fails (hang, crash,\n"
                                   "error code); 64 usage error; 66 no such pid/user, or --root missing.\n";

struct nd_ps_opts {
    pid_t pid;
    bool have_user;
    uid_t uid;
    double interval;
    double busy;
    bool all;
    bool json;
};

struct nd_ps_row {
    pid_t pid, ppid;
    uint64_t starttime;
    uint64_t ticks0;
    uint64_t vsize;
    unsigned looks, runnable_looks;
    bool maps_skipped;
    bool gone;
    uid_t uid;
    char user[64];
    char *command; /* redacted, malloc'd */
    bool rss_valid;
    uint64_t rss_bytes;
    struct nd_proc_facts facts;
    enum nd_verdict verdict;
    char verdict_text[256];
    bool shown;
};

static int nd_ps_parse_user(const char *s, uid_t *uid)
{
    struct passwd pw, *res = NULL;
    char buf[4096];
    if (getpwnam_r(s, &pw, buf, sizeof buf, &res) == 0 && res) {
        *uid = res->pw_uid;
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (!isdigit((unsigned char)*s) || *end || errno || v > UINT_MAX - 1)
        return -ENOENT;
    /* A uid with no account is real when a process runs as it (containers
     * run as bare uids); otherwise it is as unknown as an unknown name. */
    struct passwd *pres = NULL;
    if (getpwuid_r((uid_t)v, &pw, buf, sizeof buf, &pres) != 0 || !pres) {
        bool seen = false;
        DIR *d = opendir("/proc");
        struct dirent *e;
        while (d && !seen && (e = readdir(d))) {
            struct stat st;
            seen = isdigit((unsigned char)e->d_name[0]) && fstatat(dirfd(d), e->d_name, &st, 0) == 0 &&
                   st.st_uid == (uid_t)v;
        }
        if (d)
            closedir(d);
        if (!seen)
            return -ENOENT;
    }
    *uid = (uid_t)v;
    return 0;
}

static int nd_ps_set_user(const char *cmd, const char *arg, void *ctx)
{
    struct nd_ps_opts *o = ctx;
    if (nd_ps_parse_user(arg, &o->uid) < 0)
        return nd_cmd_fail(cmd, ND_EXIT_NOINPUT, "--user %s: no such user (no account, and no process runs as it)", arg);
    o->have_user = true;
    return 0;
}

static int nd_ps_set_root(const char *cmd, const char *arg, void *ctx)
{
    (void)ctx;
    struct nd_error err = {0, ""};
    if (nd_rootfs_set(arg, &err) < 0)
        return nd_cmd_fail(cmd, ND_EXIT_NOINPUT, "%s", err.msg);
    return 0;
}

static int nd_ps_add_redact(const char *cmd, const char *arg, void *ctx)
{
    (void)ctx;
    return nd_cmd_add_redact(cmd, arg);
}

static int nd_ps_parse_args(int argc, char **argv, struct nd_ps_opts *o, bool *help)
{
    memset(o, 0, sizeof *o);
    o->interval = 1.0;
    o->busy = ND_VERDICT_BUSY_CORES;
    *help = false;
    long pid = 0;
    const struct nd_option opts[] = {
        {.name = "pid",
         .kind = ND_ARG_PID,
         .out = &pid,
         .arg_name = "N",
         .help = "that process and its descendants (all of them listed)"},
        {.name = "user",
         .kind = ND_ARG_STRING,
         .cb = nd_ps_set_user,
         .arg_name = "U",
         .help = "only processes of user U (name or uid)"},
        {.name = "interval",
         .kind = ND_ARG_SECONDS,
         .out = &o->interval,
         .min = 0,
         .max = 3600,
         .arg_name = "S",
         .help = "CPU sampling window in seconds (default 1; 0 = average over each process's lifetime, like ps aux)"},
        {.name = "busy",
         .kind = ND_ARG_NUMBER,
         .flags = ND_OPTF_ABOVE_MIN,
         .out = &o->busy,
         .min = 0,
         .max = 4096,
         .arg_name = "CORES",
         .help = "a process using this many cores is busy (default 0.5); an ML process that keeps that up without "
                 "holding a device while the devices idle is reported (a single-threaded job at one core counts, "
                 "and so does one a crowded host starves but that is runnable at nearly every look inside the "
                 "window)"},
        {.name = "all", .kind = ND_ARG_NONE, .out = &o->all, .help = "list every process"},
        {.name = "json", .kind = ND_ARG_NONE, .out = &o->json, .help = "one JSON object (devices, processes, findings)"},
        {.name = "root",
         .kind = ND_ARG_STRING,
         .cb = nd_ps_set_root,
         .arg_name = "DIR",
         .help = "read device and install paths under DIR"},
        {.name = "redact",
         .kind = ND_ARG_STRING,
         .flags = ND_OPTF_REPEAT,
         .cb = nd_ps_add_redact,
         .arg_name = "REGEX",
         .help = "also redact variables whose name matches REGEX"},
        {0},
    };
    const struct nd_cmd_spec spec = {"ps",
                                     "npu-doctor ps [--pid N] [--user U] [--interval SECONDS] [--busy CORES]\n"
                                     "              [--all] [--json] [--root DIR]",
                                     nd_ps_about,
                                     opts,
                                     nd_ps_footer,
                                     ND_SPEC_STOP_AT_OPERAND | ND_SPEC_NO_OPERANDS};
    int first;
    int rc = nd_opts_parse(&spec, argc, argv, o, &first);
    o->pid = (pid_t)pid;
    if (rc == ND_OPTS_HELP) {
        *help = true;
        return 0;
    }
    return rc;
}

/* Seconds since boot, for lifetime CPU averages (--interval 0). */
static double nd_uptime_s(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_BOOTTIME, &ts) != 0)
        return -1;
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Queries every vendor; keeps the states of vendors whose library exists.
 * A library that exists but fails is a finding (a hang in dcmi_init is a
 * diagnosis, not a hang of ours). */
static size_t nd_ps_query_devices(struct nd_device_state **states, size_t max, struct nd_findings *findings)
{
    size_t n = 0;
    for (size_t i = 0; nd_vendors[i] && n < max; i++) {
        struct nd_device_state *st = nd_xcalloc(1, sizeof *st);
        nd_device_query(nd_vendors[i], ND_DEVICE_DEFAULT_TIMEOUT, st);
        if (!st->lib_found) {
            free(st);
            continue;
        }
        if (st->status < 0)
            nd_device_state_findings(st, findings);
        states[n++] = st;
    }
    return n;
}

static int nd_ps_cmp_rows(const void *a, const void *b)
{
    const struct nd_ps_row *x = a, *y = b;
    /* Device holders first, then the busiest, then by pid. */
    if (x->facts.fp.holds_device != y->facts.fp.holds_device)
        return x->facts.fp.holds_device ? -1 : 1;
    double cx = x->facts.cpu_valid ? x->facts.cpu_cores : 0, cy = y->facts.cpu_valid ? y->facts.cpu_cores : 0;
    if (fabs(cx - cy) >= 0.05)
        return cx > cy ? -1 : 1;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

static json_t *nd_ps_row_json(const struct nd_ps_row *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "pid", json_integer(r->pid));
    json_object_set_new(o, "ppid", json_integer(r->ppid));
    json_object_set_new(o, "user", nd_json_str(r->user));
    json_object_set_new(o, "command", nd_json_str(r->command));
    json_object_set_new(o, "cpu_cores",
                        r->facts.cpu_valid ? json_real(round(r->facts.cpu_cores * 100) / 100) : json_null());
    json_object_set_new(o, "rss_bytes", r->rss_valid ? json_integer((json_int_t)r->rss_bytes) : json_null());
    json_t *devs = json_array();
    const struct nd_footprint *fp = &r->facts.fp;
    for (size_t i = 0; i < fp->nheld; i++) {
        const struct nd_held_device *h = &fp->held[i];
        if (h->index < 0)
            continue;
        json_t *d = json_object();
        json_object_set_new(d, "vendor", json_string(h->vendor));
        json_object_set_new(d, "index", json_integer(h->index));
        json_object_set_new(d, "memory_bytes", h->mem_valid ? json_integer((json_int_t)h->mem_bytes) : json_null());
        json_object_set_new(d, "how", json_string(h->how == ND_HOLD_VENDOR_LIST ? "vendor-list" : "device-file"));
        json_array_append_new(devs, d);
    }
    json_object_set_new(o, "devices", devs);
    json_object_set_new(o, "control_node_open", json_boolean(fp->control_only));
    json_t *fws = json_array();
    for (unsigned bit = 1; bit <= ND_FW_LAST; bit <<= 1)
        if ((fp->frameworks & bit) && nd_framework_name(bit))
            json_array_append_new(fws, json_string(nd_framework_name(bit)));
    json_object_set_new(o, "frameworks", fws);
    /* false when unreadable (not ours) or skipped (too small for any runtime) */
    json_object_set_new(o, "maps_read", json_boolean(fp->maps_read));
    json_object_set_new(o, "verdict", json_string(nd_verdict_name(r->verdict)));
    json_object_set_new(o, "verdict_text", nd_json_str(r->verdict_text));
    return o;
}

/* ---- text ---- */

static void nd_ps_print_devices(FILE *fp, struct nd_device_state *const *states, size_t nstates)
{
    static const struct nd_table_col cols[] = {
        {"DEVICE", false, 8, 1}, {"NAME", false, 14, 1}, {"UTIL", true, 5, 2}, {"MEMORY", false, 0, 0}};
    struct nd_table *t = nd_table_new(cols, sizeof cols / sizeof cols[0]);
    for (size_t s = 0; s < nstates; s++) {
        const struct nd_device_state *st = states[s];
        if (st->status < 0) {
            nd_report_note(fp, "%s: %s", st->vendor, st->error[0] ? st->error : "query failed");
            continue;
        }
        for (size_t i = 0; i < st->ndevices && i < ND_MAX_DEVICES; i++) {
            const struct nd_device *d = &st->devices[i];
            char id[32], util[16] = "?", mem[80] = "?";
            snprintf(id, sizeof id, "%s:%d", nd_verdict_device_word(st->vendor), d->index);
            if (d->util_valid)
                snprintf(util, sizeof util, "%u%%", d->util_pct);
            if (d->mem_valid) {
                char u[32], tot[32];
                nd_format_bytes(d->mem_used_bytes, u, sizeof u);
                nd_format_bytes(d->mem_total_bytes, tot, sizeof tot);
                snprintf(mem, sizeof mem, "%s / %s", u, tot);
            }
            const char *row[] = {id, d->name[0] ? d->name : "?", util, mem};
            nd_table_add(t, row);
        }
    }
    if (nd_table_rows(t)) {
        nd_table_print(t, fp);
        nd_report_note(fp, "%s", "");
    }
    nd_table_free(t);
}

/* Cuts a display string to width columns (bytes; commands are mostly ASCII)
 * with an ellipsis, into buf. */
static const char *nd_ps_cut(const char *s, size_t width, char *buf, size_t size)
{
    size_t n = strlen(s);
    if (n <= width || width < 4) {
        snprintf(buf, size, "%s", s);
        return buf;
    }
    snprintf(buf, size, "%.*s...", (int)(width - 3), s);
    return buf;
}

static void nd_ps_print_table(FILE *fp, struct nd_ps_row *rows, size_t n)
{
    static const struct nd_table_col cols[] = {
        {"PID", true, 0, 0},         {"USER", false, 0, 0},    {"CPU", true, 0, 0},
        {"RSS", true, 0, 0},         {"DEVICES", false, 0, 0}, {"DEV MEM", true, 0, 0},
        {"FRAMEWORKS", false, 0, 0}, {"VERDICT", false, 0, 0}, {"COMMAND", false, 0, 0}};
    struct nd_table *t = nd_table_new(cols, sizeof cols / sizeof cols[0]);
    for (size_t i = 0; i < n; i++) {
        const struct nd_ps_row *r = &rows[i];
        const struct nd_footprint *f = &r->facts.fp;
        char pid[16], user[20], cpu[16] = "?", rss[32] = "-", dev[256], dmem[32] = "-", fw[256], cmd[64];
        snprintf(pid, sizeof pid, "%d", (int)r->pid);
        snprintf(user, sizeof user, "%.16s", r->user);
        if (r->facts.cpu_valid)
            snprintf(cpu, sizeof cpu, "%.1f", r->facts.cpu_cores);
        if (r->rss_valid)
            nd_format_bytes(r->rss_bytes, rss, sizeof rss);
        nd_footprint_devices_text(f, dev, sizeof dev);
        if (!dev[0])
            snprintf(dev, sizeof dev, "-");
        uint64_t mem;
        if (nd_footprint_device_mem(f, &mem))
            nd_format_bytes(mem, dmem, sizeof dmem);
        nd_frameworks_describe(f->frameworks & ND_FW_ML_MASK, fw, sizeof fw);
        if (!fw[0])
            snprintf(fw, sizeof fw, f->maps_read || r->maps_skipped ? "-" : "?");
        nd_ps_cut(r->command ? r->command : "?", 60, cmd, sizeof cmd);
        const char *row[] = {pid, user, cpu, rss, dev, dmem, fw, r->verdict_text, cmd};
        nd_table_add(t, row);
    }
    nd_table_print(t, fp);
    nd_table_free(t);
}

/* ---- the command ---- */

/* Who exists (and is the asked user's), their CPU ticks now. Returns false
 * when the row is to be dropped. */
static bool nd_ps_stat(struct nd_ps_row *r, const struct nd_ps_opts *o, long page)
{
    struct nd_proc_stat st;
    uid_t uid = (uid_t)-1;
    /* The owner costs a stat call: only --user needs it for every process. */
    if ((o->have_user && (nd_proc_owner(r->pid, &uid) < 0 || uid != o->uid)) || nd_proc_read_stat(r->pid, &st) < 0)
        return false;
    r->ppid = st.ppid;
    r->uid = uid;
    r->starttime = st.starttime_ticks;
    r->ticks0 = st.utime_ticks + st.stime_ticks;
    r->vsize = st.vsize_bytes;
    /* Kernel threads have no memory of their own: RSS unknown, not 0. */
    r->rss_valid = st.vsize_bytes > 0 && st.rss_pages >= 0;
    r->rss_bytes = r->rss_valid ? (uint64_t)st.rss_pages * (uint64_t)page : 0;
    r->facts.pid = r->pid;
    return true;
}

/* The footprint. Reading /proc/PID/maps is the one costly read per process
 * (a torch process's maps is ~200 KB of kernel-made text), so it is read
 * only where the answer can be shown: with --pid or --all for every process,
 * otherwise for device holders and busy processes (second pass, after the
 * window). And never for a process whose whole address space is under
 * ND_PS_MAPS_MIN_VSIZE: every ML runtime and framework is larger than that
 * (libtorch_cpu alone is hundreds of MiB). */
static bool nd_ps_maps_possible(const struct nd_ps_row *r, const struct nd_ps_opts *o)
{
    return o->pid || r->vsize >= ND_PS_MAPS_MIN_VSIZE;
}

static void nd_ps_footprint(struct nd_ps_row *r, const struct nd_ps_opts *o,
                            const struct nd_device_state *const *states, size_t nstates, bool with_maps)
{
    unsigned flags = with_maps && nd_ps_maps_possible(r, o) ? 0 : ND_FOOTPRINT_SKIP_MAPS;
    r->maps_skipped = flags != 0;
    if (nd_footprint_of_flags(r->pid, states, nstates, NULL, flags, &r->facts.fp) == -ESRCH)
        r->gone = true;
}

/* The stat read and the footprint of every row, spread over threads: they
 * are nearly all system calls on /proc, and each row is its own. Capped:
 * ps should stay light on a shared node. */
#define ND_PS_SCAN_THREADS 4

struct nd_ps_scan {
    struct nd_ps_row *rows;
    const struct nd_ps_opts *o;
    const struct nd_device_state *const *states;
    size_t nstates;
    bool with_maps;
    long page;
};

static void nd_ps_scan_item(void *ctx, size_t i)
{
    struct nd_ps_scan *s = ctx;
    struct nd_ps_row *r = &s->rows[i];
    if (!nd_ps_stat(r, s->o, s->page))
        r->gone = true;
    else
        nd_ps_footprint(r, s->o, s->states, s->nstates, s->with_maps);
}

/* Every process (or --pid's tree) but ourselves, read and footprinted. */
static int nd_ps_scan(const struct nd_ps_opts *o, const struct nd_device_state *const *states, size_t nstates,
                      struct nd_ps_row **rows_out, size_t *n_out)
{
    pid_t *pids;
    size_t n;
    int rc = o->pid ? nd_proc_tree(o->pid, &pids, &n) : nd_proc_list(&pids, &n);
    if (rc < 0)
        return rc;
    struct nd_ps_row *rows = nd_xcalloc(n ? n : 1, sizeof *rows);
    pid_t self = getpid();
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (pids[i] != self)
            rows[k++].pid = pids[i];
    free(pids);
    struct nd_ps_scan scan = {rows, o, states, nstates, o->all || o->pid, nd_proc_page_size()};
    nd_parallel_for(k, ND_PS_SCAN_THREADS, nd_ps_scan_item, &scan);
    *rows_out = rows;
    *n_out = k;
    return 0;
}

/* For the rows shown: owner name and command line (redacted). */
static void nd_ps_label(struct nd_ps_row *r)
{
    if (r->uid == (uid_t)-1 && nd_proc_owner(r->pid, &r->uid) < 0)
        snprintf(r->user, sizeof r->user, "?");
    else
        nd_proc_user_name(r->uid, r->user, sizeof r->user);
    char *cmd = nd_xmalloc(ND_PS_CMD_MAX);
    if (nd_proc_read_cmdline(r->pid, cmd, ND_PS_CMD_MAX) < 0)
        snprintf(cmd, ND_PS_CMD_MAX, "?");
    r->command = nd_redact_text(cmd);
    free(cmd);
    r->facts.command = r->command;
}

/* Closes the window: CPU cores per process. */
static void nd_ps_cpu(struct nd_ps_row *rows, size_t n, double interval, double window)
{
    long hz = nd_proc_clock_ticks();
    double up = interval > 0 ? 0 : nd_uptime_s();
    for (size_t i = 0; i < n; i++) {
        struct nd_ps_row *r = &rows[i];
        if (r->gone)
            continue;
        if (interval <= 0) {
            /* No window: the lifetime average from the first read, like ps aux. */
            double age = up - (double)r->starttime / (double)hz;
            if (up > 0 && age > 0) {
                r->facts.cpu_valid = true;
                r->facts.cpu_cores = (double)r->ticks0 / (double)hz / age;
            }
            continue;
        }
        struct nd_proc_stat st;
        if (nd_proc_read_stat(r->pid, &st) < 0 || st.starttime_ticks != r->starttime) {
            r->gone = true;
            continue;
        }
        uint64_t t1 = st.utime_ticks + st.stime_ticks;
        if (window > 0) {
            r->facts.cpu_valid = true;
            r->facts.cpu_cores = (double)(t1 >= r->ticks0 ? t1 - r->ticks0 : 0) / (double)hz / window;
        }
        /* Its lifetime average too: the longer view that lets a verdict hold
         * through one short, noisy window (see nd_verdict_cpu_bound). */
        double now_up = nd_uptime_s();
        double age = now_up - (double)r->starttime / (double)hz;
        if (now_up > 0 && age > 0) {
            r->facts.life_valid = true;
            r->facts.life_cores = (double)t1 / (double)hz / age;
        }
    }
}

static void nd_ps_sleep(double s)
{
    if (s <= 0)
        return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Sleeps out what is left of the window that began at t0, looking every
 * ND_PS_LOOK_S at the state of the processes big enough to hold an ML
 * runtime: one computing on a crowded host gets a fraction of a core but is
 * runnable at nearly every look, so its verdict does not follow the host's
 * load. Returns the window's length. */
static double nd_ps_finish_window(double t0, double interval, struct nd_ps_row *rows, size_t n)
{
    if (interval <= 0)
        return 0;
    for (;;) {
        double left = t0 + interval - nd_monotonic_now();
        if (left <= 0)
            break;
        nd_ps_sleep(left < ND_PS_LOOK_S ? left : ND_PS_LOOK_S);
        if (t0 + interval - nd_monotonic_now() <= 0)
            break;
        for (size_t i = 0; i < n; i++) {
            struct nd_ps_row *r = &rows[i];
            struct nd_proc_stat st;
            if (r->gone || r->vsize < ND_PS_MAPS_MIN_VSIZE || nd_proc_read_stat(r->pid, &st) < 0 ||
                st.starttime_ticks != r->starttime)
                continue;
            r->looks++;
            r->runnable_looks += st.state == 'R';
        }
    }
    for (size_t i = 0; i < n; i++)
        if (rows[i].looks >= ND_PS_MIN_LOOKS) {
            rows[i].facts.runnable_valid = true;
            rows[i].facts.runnable_frac = (double)rows[i].runnable_looks / (double)rows[i].looks;
        }
    return nd_monotonic_now() - t0;
}

/* Drops vanished rows, sorts, judges, labels the shown ones; adds findings.
 * Returns the number of rows left (*shown of them listed). */
static size_t nd_ps_judge(struct nd_ps_row *rows, size_t n, const struct nd_ps_opts *o,
                          const struct nd_device_state *const *states, size_t nstates, struct nd_findings *findings,
                          size_t *shown)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!rows[i].gone)
            rows[k++] = rows[i];
    n = k;
    qsort(rows, n, sizeof *rows, nd_ps_cmp_rows);
    struct nd_proc_facts *facts = nd_xcalloc(n ? n : 1, sizeof *facts);
    *shown = 0;
    for (size_t i = 0; i < n; i++) {
        struct nd_ps_row *r = &rows[i];
        r->shown = o->all || o->pid || nd_verdict_interesting(&r->facts, o->busy);
        if (r->shown) {
            nd_ps_label(r);
            (*shown)++;
        }
        r->verdict = nd_verdict_judge(&r->facts, states, nstates, o->busy, r->verdict_text, sizeof r->verdict_text);
        facts[i] = r->facts;
    }
    /* A DataLoader worker holds no device but its parent does: say so, or
     * the worker reads like a CPU-only job of its own. */
    for (size_t i = 0; i < n; i++) {
        struct nd_ps_row *r = &rows[i];
        if (!r->shown || r->verdict == ND_VERDICT_ON_DEVICE)
            continue;
        for (size_t j = 0; j < n; j++) {
            if (rows[j].pid != r->ppid || !rows[j].facts.fp.holds_device)
                continue;
            char dev[64];
            nd_footprint_devices_text(&rows[j].facts.fp, dev, sizeof dev);
            size_t len = strlen(r->verdict_text);
            snprintf(r->verdict_text + len, sizeof r->verdict_text - len, " (worker of %d on %s)", (int)r->ppid, dev);
            break;
        }
    }
    nd_verdict_findings(facts, n, states, nstates, o->busy, findings);
    free(facts);
    return n;
}

static int nd_ps_print_json(struct nd_report *rep, struct nd_device_state *const *states, size_t nstates,
                            const struct nd_ps_row *rows, size_t n, const struct nd_ps_opts *o, double window)
{
    json_t *devs = json_array();
    for (size_t s = 0; s < nstates; s++)
        if (states[s]->status == 0)
            for (size_t i = 0; i < states[s]->ndevices && i < ND_MAX_DEVICES; i++)
                json_array_append_new(devs, nd_device_json(states[s]->vendor, &states[s]->devices[i]));
    nd_report_set_extra(rep, "devices", devs);
    json_t *procs = json_array();
    for (size_t i = 0; i < n; i++)
        if (rows[i].shown)
            json_array_append_new(procs, nd_ps_row_json(&rows[i]));
    nd_report_set_extra(rep, "processes", procs);
    nd_report_set_extra(rep, "processes_total", json_integer((json_int_t)n));
    nd_report_set_extra(rep, "listing", json_string(o->all || o->pid ? "all" : "interesting"));
    nd_report_set_extra(rep, "cpu_window_s", json_real(round(window * 1000) / 1000));
    return nd_report_print_json(rep, stdout);
}

static int nd_ps_print_text(const struct nd_report *rep, struct nd_device_state *const *states, size_t nstates,
                            const struct nd_ps_row *rows, size_t n, size_t shown, const struct nd_ps_opts *o)
{
    nd_ps_print_devices(stdout, states, nstates);
    struct nd_ps_row *vis = nd_xcalloc(shown ? shown : 1, sizeof *vis);
    size_t v = 0;
    for (size_t i = 0; i < n; i++)
        if (rows[i].shown)
            vis[v++] = rows[i];
    if (v)
        nd_ps_print_table(stdout, vis, v);
    else
        nd_report_note(stdout, "No process holds a device or is busy.");
    free(vis);
    if (!o->all && !o->pid)
        nd_report_note(stdout, "%zu of %zu processes shown (device holders and busy ones); --all lists every one",
                       shown, n);
    if (o->interval <= 0 && v)
        nd_report_note(stdout, "CPU is the average over each process's lifetime (--interval 0)");
    bool color = nd_term_wants_color(stdout);
    for (size_t i = 0; i < rep->findings.n; i++) {
        nd_report_note(stdout, "%s", "");
        nd_finding_print_text(rep->findings.v[i], stdout, color, NULL);
    }
    return fflush(stdout) == 0 ? 0 : -EIO;
}

int cmd_ps(int argc, char **argv)
{
    struct nd_ps_opts o;
    bool help;
    int rc = nd_ps_parse_args(argc, argv, &o, &help);
    if (rc != 0)
        return rc;
    if (help)
        return ND_EXIT_OK;
    if (o.pid && !nd_proc_exists(o.pid))
        return nd_cmd_fail("ps", ND_EXIT_NOINPUT, "--pid %d: no such process", (int)o.pid);

    struct nd_report rep;
    nd_report_init(&rep, "ps");
    struct nd_device_state *states[ND_MAX_VENDORS];
    size_t nstates = nd_ps_query_devices(states, sizeof states / sizeof states[0], &rep.findings);
    const struct nd_device_state *const *cstates = (const struct nd_device_state *const *)states;

    /* The window opens with the first CPU read; the footprints are taken
     * inside it, so only what is left is slept. */
    double t0 = nd_monotonic_now();
    struct nd_ps_row *rows;
    size_t n;
    rc = nd_ps_scan(&o, cstates, nstates, &rows, &n);
    if (rc < 0) {
        for (size_t s = 0; s < nstates; s++)
            free(states[s]);
        nd_report_release(&rep);
        if (rc == -ESRCH)
            return nd_cmd_fail("ps", ND_EXIT_NOINPUT, "--pid %d: no such process", (int)o.pid);
        return nd_cmd_fail("ps", ND_EXIT_INTERNAL, "cannot list /proc: %s", strerror(-rc));
    }
    bool every_maps = o.all || o.pid;
    double window = nd_ps_finish_window(t0, o.interval, rows, n);
    nd_ps_cpu(rows, n, o.interval, window);
    /* Second pass: the frameworks of holders and busy processes. */
    for (size_t i = 0; i < n && !every_maps; i++) {
        struct nd_ps_row *r = &rows[i];
        if (!r->gone && r->maps_skipped && nd_ps_maps_possible(r, &o) &&
            (r->facts.fp.nheld > 0 || (r->facts.cpu_valid && r->facts.cpu_cores >= o.busy) ||
             (r->facts.runnable_valid && r->facts.runnable_frac >= ND_VERDICT_RUNNABLE)))
            nd_ps_footprint(r, &o, cstates, nstates, true);
    }

    size_t shown;
    n = nd_ps_judge(rows, n, &o, cstates, nstates, &rep.findings, &shown);
    int exit_code = nd_findings_exit_code(&rep.findings);
    rc = o.json ? nd_ps_print_json(&rep, states, nstates, rows, n, &o, window)
                : nd_ps_print_text(&rep, states, nstates, rows, n, shown, &o);
    if (rc < 0 && !ferror(stdout))
        exit_code = nd_cmd_fail("ps", ND_EXIT_INTERNAL, "cannot write the output");
    else if (rc < 0)
        exit_code = ND_EXIT_INTERNAL; /* a write error: main's stdout check names it */

    for (size_t i = 0; i < n; i++)
        free(rows[i].command);
    free(rows);
    for (size_t s = 0; s < nstates; s++)
        free(states[s]);
    nd_report_release(&rep);
    return exit_code;
}
