/* The monitor shared by run and watch (see monitor.h): sampler -> series ->
 * detectors -> alerts, and at the end the summary and the report files.
 * Findings are kept once per id; a finding is printed again only when its
 * severity rises (cpu-fallback: warning, then error). */
#include "monitor/monitor.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/fileio.h"
#include "core/termsafe.h"
#include "core/json_util.h"
#include "core/linecount.h"
#include "core/metrics_prom.h"
#include "core/redact.h"
#include "core/json_envelope.h"
#include "core/report.h"
#include "core/rootfs.h"
#include "core/spawn.h"
#include "core/array.h"
#include "core/strbuf.h"
#include "device/device.h"
#include "kb/kb.h"
#include "monitor/backlog.h"
#include "monitor/exit_tail.h"
#include "kb/kb_loader.h"
#include "monitor/kmsg.h"
#include "monitor/linecache.h"
#include "monitor/msgcarry.h"
#include "monitor/outtail.h"
#include "monitor/procverdict.h"
#include "monitor/sampler.h"
#include "core/series.h"
#include "monitor/threads.h"
#include "core/timeline.h"
#include "probe/checkup.h"
#include "core/environ.h"
#include "proc/footprint.h"
#include "proc/proc.h"

#define ND_MONITOR_FAIL_STREAK 3
/* Live matching may use this share of one core, banking at most BURST
 * seconds of it; past that, output waits in the backlog (every line is still
 * matched: late while the job floods, in full before the summary). */
#define ND_MATCH_SHARE 0.05
#define ND_MATCH_BURST 0.05
/* Backlog bytes held in memory before they go to a temporary file (less
 * when little memory is free), and the most it may hold in all: past that,
 * matching catches up before more output is read, so only a job printing
 * faster than matching runs for longer than this lasts waits for it. */
#define ND_BACKLOG_MEM (256u << 20)
#define ND_BACKLOG_MAX (1ull << 30)
#define ND_LINECACHE_SLOTS 4096
/* How long the knowledge base may load at idle priority. */
#define ND_KB_IDLE_S 1.0
/* A backlog block whose detector notes were taken when it arrived, and how
 * much output gets its notes that way while the knowledge base loads (a job
 * flooding its output before then is noted as its backlog is matched). */
#define ND_BLOCK_NOTED 1u
#define ND_EARLY_NOTES_MAX (4u << 20)

struct nd_monitor {
    struct nd_monitor_opts opt;
    struct nd_sampler *sampler;
    struct nd_series series;
    struct nd_detect_context ctx;
    struct nd_findings findings;
    char *detector_ids[64]; /* ids among findings that a detector measured */
    size_t ndetector_ids;
    double start_mono;
    double next_deadline;
    double last_tick_mono;
    uint64_t k;
    bool failed;
    int fail_streak;
    uint64_t out_bytes, out_lines;
    bool want_stop;
    /* We stop the job (--fail-fast, run --timeout): its processes that die
     * from then on were killed by us, not failures; how many exits were
     * known before. */
    bool stopping;
    size_t stop_exits;
    bool metrics_warned;
    bool env_done;
    pid_t env_pid; /* whose environment env_reasons describe */
    struct nd_findings env_reasons;
    struct nd_proc_registry procs; /* every process seen, with its verdict */
    uint64_t peak_rss;
    double last_sample_wall;                /* time(2) of the last sample, for the metrics */
    bool ended;                             /* nd_monitor_finish: the metrics say running 0 */
    char *label_names[8], *label_values[8]; /* the job's labels on the metrics */
    size_t nlabels;
    char *argv_text;
    double max_cores;
    unsigned frameworks;
    struct nd_kb *kb;            /* the matcher in use (NULL: built-in table) */
    struct nd_kb *kb_owned;      /* loaded in the background: ours to free */
    struct nd_kb_loader *loader; /* until the background load is collected */
    struct nd_backlog *backlog;  /* output not matched yet, oldest first */
    struct nd_linecache *seen;   /* lines matched before */
    double tokens, tokens_at;    /* the live-matching budget */
    uint64_t lines_late;         /* lines matched from the backlog */
    uint64_t lines_dropped;      /* no room to hold them: never matched */
    double max_lag_s;            /* the most a line waited to be matched */
    size_t alerts_late;          /* findings first seen from the backlog */
    double max_alert_lag_s;
    double final_drain_s;          /* matching left when the job had ended */
    struct nd_exit_tail tail;      /* the output's last error line, from the matched blocks */
    struct nd_outtail outtail;     /* the output's end, for explain's whole-log steps at the end */
    size_t noted_early;            /* bytes noted on arrival while the kb loaded */
    long lines_matched;            /* output lines matched so far, both streams, in order */
    struct nd_msgcarry carry[2];   /* per stream: the last message, for its continuation */
    struct nd_kb_window window[2]; /* per stream: the last lines matched, for what crosses into the next */
};

static void nd_drain(struct nd_monitor *m, bool all);

/* ---- alerts ---- */

static void nd_print_block(const struct nd_monitor *m, const struct nd_finding *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    if (!fp)
        return;
    nd_finding_print_text(f, fp, m->opt.color, "npu-doctor: ");
    if (f->at_s >= 0)
        fprintf(fp, "npu-doctor:   at %.1f s\n", f->at_s);
    fclose(fp);
    /* One write, so the block does not interleave with the job's stderr. */
    nd_write_full(STDERR_FILENO, buf, len);
    free(buf);
}

static void nd_prepend_fixes(struct nd_finding *f, char **fix, size_t nfix)
{
    if (!nfix)
        return;
    char **v = nd_xmalloc((f->nfix + nfix) * sizeof *v);
    for (size_t i = 0; i < nfix; i++)
        v[i] = nd_xstrdup(fix[i]);
    for (size_t i = 0; i < f->nfix; i++)
        v[nfix + i] = f->fix[i];
    free(f->fix);
    f->fix = v;
    f->nfix += nfix;
}

static pid_t nd_busiest_pid(const struct nd_monitor *m)
{
    pid_t best = m->opt.root;
    double cores = -1;
    for (size_t i = 0; i < m->ctx.nprocs; i++)
        if (m->ctx.procs[i].cores > cores) {
            cores = m->ctx.procs[i].cores;
            best = m->ctx.procs[i].pid;
        }
    return best;
}

/* The reason for a CPU fallback, from the job's own environment. */
static void nd_enrich_fallback(struct nd_monitor *m, struct nd_finding *f)
{
    /* The partial form names one process: its own environment says why. */
    pid_t pid = nd_busiest_pid(m);
    const struct nd_detect_proc *part[1];
    if (strcmp(f->id, "fallback.partial") == 0 && nd_detect_partial_procs(&m->opt.cfg, &m->ctx, part, 1) == 1)
        pid = part[0]->pid;
    if (m->env_done && m->env_pid != pid) {
        nd_findings_release(&m->env_reasons);
        m->env_done = false;
    }
    if (!m->env_done) {
        m->env_done = true;
        m->env_pid = pid;
        struct nd_environ env; /* nd_environ_from_pid initialises it, even when it fails */
        struct nd_error err = {0};
        if (nd_environ_from_pid(pid, &env, &err) == 0) {
            char exe[64], python[PATH_MAX] = "";
            snprintf(exe, sizeof exe, "/proc/%d/exe", (int)pid);
            ssize_t n = readlink(exe, python, sizeof python - 1);
            python[n > 0 ? n : 0] = '\0';
            const char *base = strrchr(python, '/');
            bool is_python = base && strncmp(base + 1, "python", 6) == 0;
            nd_checkup_job_env(&env, is_python ? python : NULL, &m->env_reasons);
            bool any = false;
            for (size_t i = 0; i < m->env_reasons.n; i++)
                any = any || m->env_reasons.v[i]->severity >= ND_SEV_WARNING;
            if (!any) {
                /* A rough reason when the check probes have nothing to say (or are not built). */
                const struct nd_vendor *v = nd_vendor_by_name(m->ctx.device_vendor);
                if (!v)
                    v = nd_vendors[0];
                if (v->env_findings)
                    v->env_findings(&env, pid, &m->env_reasons);
            }
        }
        nd_environ_release(&env);
    }
    for (size_t i = 0; i < m->env_reasons.n; i++) {
        const struct nd_finding *r = m->env_reasons.v[i];
        if (r->severity < ND_SEV_WARNING)
            continue;
        nd_finding_add_evidence(f, NULL, 0, "reason: %s [%s]", r->title, r->id);
        for (size_t e = 0; e < r->nevidence; e++)
            nd_finding_add_evidence(f, r->evidence[e].file, r->evidence[e].line, "%s", r->evidence[e].text);
        nd_prepend_fixes(f, r->fix, r->nfix);
    }
}

/* Keeps f (a finding just made) when it is new or more severe than what was
 * reported under its id; prints it at once. */
/* Counts one more line behind a finding already reported. */
static void nd_count_repeat(struct nd_finding *f)
{
    f->count = f->count > 0 ? f->count + 1 : 2;
}

static bool nd_from_detector(const struct nd_monitor *m, const char *id)
{
    for (size_t i = 0; i < m->ndetector_ids; i++)
        if (strcmp(m->detector_ids[i], id) == 0)
            return true;
    return false;
}

/* The output's word for what a detector measured ("training on cpu" next to
 * the measured CPU fallback) is one finding, not two: a log-line finding of
 * the detector finding's category and of lower severity becomes evidence of
 * it. A log line of equal or higher severity (an HCCL timeout beside a
 * measured hang) names more than the measurement and stays its own. */
static void nd_fold_into(struct nd_finding *into, const struct nd_finding *from)
{
    for (size_t e = 0; e < from->nevidence; e++)
        nd_finding_add_evidence(into, from->evidence[e].file, from->evidence[e].line, "the output says so: %s",
                                from->evidence[e].text);
}

/* Whether detector finding d covers line finding f. The output saying the
 * job fell back to the CPU names what a measured CPU fallback measured, at
 * any severity up to the measurement's; the measurement's wording is the
 * right one (it knows whether a device is there and who holds it). */
static bool nd_line_covered(const struct nd_finding *d, const struct nd_finding *f)
{
    if (strcmp(d->category, f->category) != 0)
        return false;
    return f->severity < d->severity || (f->severity == d->severity && strcmp(d->category, ND_CAT_CPU_FALLBACK) == 0);
}

/* Folds f (from the output) into a detector finding when one covers it;
 * true when it did. */
static bool nd_fold_line_finding(struct nd_monitor *m, const struct nd_finding *f)
{
    for (size_t i = 0; i < m->findings.n; i++) {
        struct nd_finding *d = m->findings.v[i];
        if (nd_line_covered(d, f) && nd_from_detector(m, d->id)) {
            bool seen = false;
            for (size_t e = 0; e < d->nevidence && !seen; e++)
                seen = strncmp(d->evidence[e].text, "the output says so: ", 20) == 0;
            if (!seen)
                nd_fold_into(d, f);
            return true;
        }
    }
    return false;
}

/* A detector finding just added takes in the output's findings it covers. */
static void nd_absorb_line_findings(struct nd_monitor *m, struct nd_finding *nf)
{
    for (size_t i = 0; i < m->findings.n;) {
        struct nd_finding *o = m->findings.v[i];
        if (o != nf && nd_line_covered(nf, o) && !nd_from_detector(m, o->id)) {
            nd_fold_into(nf, o);
            nd_findings_remove(&m->findings, i);
            continue;
        }
        i++;
    }
}

/* Keeps f (a copy) unless a finding with its id is there at the same or a
 * higher severity; true when f was new or raised the severity. */
static bool nd_consider(struct nd_monitor *m, const struct nd_finding *f, bool from_detector)
{
    if (!from_detector && nd_fold_line_finding(m, f))
        return false;
    struct nd_finding *old = NULL;
    size_t at = 0;
    for (; at < m->findings.n; at++)
        if (strcmp(m->findings.v[at]->id, f->id) == 0) {
            old = m->findings.v[at];
            break;
        }
    if (old && f->severity <= old->severity) {
        if (!from_detector)
            nd_count_repeat(old);
        return false;
    }
    double first_at = old ? old->at_s : -1;
    const char *first_sev = old ? nd_severity_name(old->severity) : NULL;
    if (old)
        nd_findings_remove(&m->findings, at);
    struct nd_finding *nf = nd_findings_add_copy(&m->findings, f);
    if (first_sev && first_at >= 0)
        nd_finding_add_evidence(nf, NULL, 0, "first reported as a %s at %.1f s", first_sev, first_at);
    if (from_detector) {
        if (!nd_from_detector(m, nf->id) && m->ndetector_ids < ND_ARRAY_SIZE(m->detector_ids))
            m->detector_ids[m->ndetector_ids++] = nd_xstrdup(nf->id);
        nd_absorb_line_findings(m, nf);
    }
    /* A process that holds its device reached it: its environment is not why
     * it computes on the CPU (fallback.in-process). */
    if (strcmp(nf->category, ND_CAT_CPU_FALLBACK) == 0 && from_detector && strcmp(nf->id, "fallback.in-process") != 0)
        nd_enrich_fallback(m, nf);
    /* Where the stuck job waits: each thread's state and wait channel. */
    if (strcmp(nf->id, "hang.no-progress") == 0 && from_detector)
        nd_threads_evidence(m->opt.root, nf, 6);
    if (!m->opt.quiet)
        nd_print_block(m, nf);
    if (from_detector && m->opt.fail_fast && nf->severity == ND_SEV_ERROR && !m->want_stop) {
        m->want_stop = true;
        nd_monitor_stopping(m);
        if (!m->opt.quiet)
            fprintf(stderr, "npu-doctor: --fail-fast: stopping the job\n");
    }
    return true;
}

/* ---- lifecycle ---- */

int nd_monitor_new(const struct nd_monitor_opts *opt, struct nd_monitor **out, struct nd_error *err)
{
    struct nd_monitor *m = nd_xcalloc(1, sizeof *m);
    m->opt = *opt;
    m->seen = nd_linecache_new(ND_LINECACHE_SLOTS);
    /* Its memory is address space until output fills it. */
    m->backlog = nd_backlog_new(nd_backlog_mem_bound(ND_BACKLOG_MEM));
    /* Maps are costly to read but must not be staler than a quarter window
     * when the window ends: they decide the cpu-fallback stage. */
    double refresh = opt->cfg.window_s / 4;
    refresh = refresh < 1 ? 1 : refresh > 5 ? 5 : refresh;
    struct nd_sampler_opts so = {.root = opt->root,
                                 .root_start = opt->root_start,
                                 .pgid = opt->pgid,
                                 .device_timeout_s = 0,
                                 .no_devices = opt->no_devices,
                                 .maps_refresh_s = refresh,
                                 .window_s = opt->cfg.window_s};
    int rc = nd_sampler_new(&so, &m->sampler, err);
    if (rc < 0) {
        nd_linecache_free(m->seen);
        nd_backlog_free(m->backlog);
        free(m);
        return rc;
    }
    nd_series_init(&m->series, opt->cfg.interval_s);
    m->ctx.root_pid = opt->root;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    m->ctx.host_cpus = ncpu > 0 ? ncpu : 0;
    m->ctx.have_py_spy = nd_on_path("py-spy");
    m->ctx.have_gdb = nd_on_path("gdb");
    m->ctx.loadavg1 = -1;
    m->ctx.procs_running = -1;
    m->ctx.psi_cpu10 = -1;
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    for (size_t i = 0; opt->argv && opt->argv[i]; i++) {
        if (i)
            nd_strbuf_addc(&sb, ' ');
        nd_strbuf_adds(&sb, opt->argv[i]);
    }
    /* Printed on root's terminal and in the SVG: redacted, then made
     * printable (a watched process's argv is another user's bytes). */
    char *redacted = nd_redact_text(sb.buf);
    m->argv_text = nd_term_printable(redacted);
    free(redacted);
    nd_strbuf_release(&sb);
    m->kb = opt->kb;
    *out = m;
    return 0;
}

/* Collects the background knowledge base once it is there, then matches the
 * lines held meanwhile. */
static void nd_kb_collect(struct nd_monitor *m, bool wait)
{
    if (!m->loader)
        return;
    struct nd_kb *kb = NULL;
    char why[512];
    if (!nd_kb_loader_done(m->loader, wait, &kb, why, sizeof why))
        return;
    nd_kb_loader_free(m->loader);
    m->loader = NULL;
    m->kb = m->kb_owned = kb;
    if (!kb)
        nd_term_eprintf("npu-doctor: warning: knowledge base not loaded (%s); output lines are not explained\n", why);
}

void nd_monitor_free(struct nd_monitor *m)
{
    if (!m)
        return;
    nd_sampler_free(m->sampler);
    nd_series_release(&m->series);
    nd_findings_release(&m->findings);
    for (size_t i = 0; i < m->ndetector_ids; i++)
        free(m->detector_ids[i]);
    nd_findings_release(&m->env_reasons);
    nd_proc_registry_release(&m->procs);
    for (size_t i = 0; i < m->nlabels; i++) {
        free(m->label_names[i]);
        free(m->label_values[i]);
    }
    free(m->argv_text);
    nd_kb_loader_free(m->loader);
    nd_backlog_free(m->backlog);
    nd_linecache_free(m->seen);
    nd_outtail_free(&m->outtail);
    nd_kb_free(m->kb_owned);
    free(m);
}

static void nd_update_ctx(struct nd_monitor *m)
{
    m->ctx.procs = nd_sampler_procs(m->sampler, &m->ctx.nprocs);
    m->ctx.vanished = nd_sampler_vanished(m->sampler, &m->ctx.nvanished);
    m->ctx.frameworks_known = nd_sampler_frameworks_known(m->sampler);
    nd_sampler_denied(m->sampler, &m->ctx.fds_denied, &m->ctx.io_denied);
    m->ctx.loadavg1 = nd_sampler_loadavg(m->sampler);
    nd_sampler_host_cpu(m->sampler, &m->ctx.procs_running, &m->ctx.psi_cpu10);
    m->ctx.rlimit_as = nd_sampler_rlimit_as(m->sampler);
    m->ctx.cgroup_v1 = nd_sampler_cgroup_v1(m->sampler);
    m->ctx.peak_rss = m->peak_rss;
    m->ctx.child_exits = nd_sampler_child_exits(m->sampler, &m->ctx.nchild_exits, &m->ctx.exit_notices);
    if (m->stopping && m->ctx.nchild_exits > m->stop_exits)
        m->ctx.nchild_exits = m->stop_exits;
    nd_proc_registry_update(&m->procs, &m->ctx);
}

static void nd_add_label(struct nd_monitor *m, const char *name, const char *value)
{
    if (!value || !value[0] || m->nlabels >= sizeof m->label_names / sizeof *m->label_names)
        return;
    char *red = nd_redact_text(value);
    /* A label is for telling jobs apart on a dashboard, not for the whole command line. */
    if (strlen(red) > 120)
        red[120] = '\0';
    m->label_names[m->nlabels] = nd_xstrdup(name);
    m->label_values[m->nlabels++] = red;
}

/* The job's labels on the metrics: its command and pid, and where its
 * environment says so its rank, Slurm job and Kubernetes pod. */
static void nd_job_labels(struct nd_monitor *m)
{
    char pid[24];
    snprintf(pid, sizeof pid, "%d", (int)m->opt.root);
    nd_add_label(m, "command", m->argv_text);
    nd_add_label(m, "pid", pid);
    struct nd_environ env;
    struct nd_error err = {0};
    if (nd_environ_from_pid(m->opt.root, &env, &err) == 0) {
        nd_add_label(m, "rank", nd_environ_get(&env, "RANK"));
        nd_add_label(m, "slurm_job_id", nd_environ_get(&env, "SLURM_JOB_ID"));
        const char *pod = nd_environ_get(&env, "POD_NAME");
        if (!pod && nd_environ_get(&env, "KUBERNETES_SERVICE_HOST"))
            pod = nd_environ_get(&env, "HOSTNAME"); /* a pod's hostname is its name */
        nd_add_label(m, "pod", pod);
        nd_add_label(m, "namespace", nd_environ_get(&env, "POD_NAMESPACE"));
    }
    nd_environ_release(&env);
}

static void nd_write_metrics(struct nd_monitor *m)
{
    if (!m->opt.metrics_path)
        return;
    const struct nd_sample *x = nd_series_last(&m->series);
    struct nd_prom_device dev[ND_SERIES_MAX_DEV];
    size_t nd = 0;
    for (size_t d = 0; x && d < m->series.ndev; d++, nd++) {
        memset(&dev[nd], 0, sizeof dev[nd]);
        snprintf(dev[nd].vendor, sizeof dev[nd].vendor, "%s", m->series.dev[d].vendor);
        dev[nd].index = m->series.dev[d].index;
        dev[nd].util_valid = x->util[d] != ND_SERIES_UTIL_UNKNOWN;
        dev[nd].util_ratio = dev[nd].util_valid ? x->util[d] / 100.0 : 0;
        dev[nd].mem_valid = x->mem_mib[d] != ND_SERIES_MEM_UNKNOWN;
        dev[nd].mem_used_bytes = dev[nd].mem_valid ? (uint64_t)x->mem_mib[d] * 1024 * 1024 : 0;
    }
    struct nd_prom_snapshot snap = {.cpu_cores = x ? x->cpu_cores : 0,
                                    .on_device = x && x->on_device,
                                    .dev = dev,
                                    .ndev = nd,
                                    .findings = &m->findings,
                                    .job_known = true,
                                    .running = !m->ended,
                                    .last_sample_unix_s = m->last_sample_wall,
                                    .label_names = (const char *const *)m->label_names,
                                    .label_values = (const char *const *)m->label_values,
                                    .nlabels = m->nlabels};
    struct nd_error err = {0};
    if (nd_prom_write(m->opt.metrics_path, &snap, &err) < 0 && !m->metrics_warned) {
        m->metrics_warned = true;
        nd_term_eprintf("npu-doctor: warning: %s\n", err.msg);
    }
}

static void nd_take_sample(struct nd_monitor *m, double t)
{
    struct nd_sample x;
    struct nd_findings notes = ND_FINDINGS_INIT;
    struct nd_error err = {0};
    int rc = nd_sampler_tick(m->sampler, &x, &notes, &err);
    for (size_t i = 0; i < notes.n; i++) {
        notes.v[i]->at_s = t;
        nd_consider(m, notes.v[i], false);
    }
    nd_findings_release(&notes);
    if (rc < 0) {
        if (++m->fail_streak >= ND_MONITOR_FAIL_STREAK && !m->failed) {
            /* The job goes on; we say once that it is no longer watched. */
            m->failed = true;
            struct nd_findings one = ND_FINDINGS_INIT;
            struct nd_finding *f = nd_findings_add(&one, "monitor.failed", ND_CAT_CONFIG, ND_SEV_WARNING,
                                                   "Monitoring stopped; the job goes on unwatched");
            nd_finding_add_evidence(f, NULL, 0, "%s", err.msg);
            f->at_s = t;
            bool quiet = m->opt.quiet;
            m->opt.quiet = false;
            nd_consider(m, f, false);
            m->opt.quiet = quiet;
            nd_findings_release(&one);
        }
        return;
    }
    m->fail_streak = 0;
    x.t = t;
    x.out_valid = m->opt.out_observed;
    x.out_bytes = m->out_bytes;
    x.out_lines = m->out_lines;
    nd_series_push(&m->series, &x);
    if (x.cpu_cores > m->max_cores)
        m->max_cores = x.cpu_cores;
    if (x.rss_bytes > m->peak_rss)
        m->peak_rss = x.rss_bytes;
    m->last_sample_wall = (double)time(NULL);
    m->frameworks |= x.frameworks;
    nd_update_ctx(m);
}

double nd_monitor_start(struct nd_monitor *m)
{
    struct nd_findings notes = ND_FINDINGS_INIT;
    nd_sampler_open_devices(m->sampler, &notes);
    struct nd_series_device dev[ND_SERIES_MAX_DEV];
    size_t nd = nd_sampler_devices(m->sampler, dev, ND_SERIES_MAX_DEV);
    for (size_t d = 0; d < nd; d++)
        snprintf(dev[d].word, sizeof dev[d].word, "%s", nd_vendor_word(dev[d].vendor));
    nd_series_set_devices(&m->series, dev, nd);
    nd_sampler_device_facts(m->sampler, &m->ctx);
    for (size_t i = 0; i < notes.n; i++) {
        notes.v[i]->at_s = 0;
        nd_consider(m, notes.v[i], false);
    }
    nd_findings_release(&notes);
    m->start_mono = nd_monotonic_now();
    m->last_tick_mono = m->start_mono;
    if (m->opt.metrics_path)
        nd_job_labels(m);
    nd_take_sample(m, 0);
    nd_write_metrics(m);
    m->next_deadline = m->opt.synthetic_clock ? m->start_mono : m->start_mono + m->opt.cfg.interval_s;
    return m->next_deadline;
}

void nd_monitor_adopt_kb_loader(struct nd_monitor *m, struct nd_kb_loader *loader)
{
    nd_kb_loader_free(m->loader);
    m->loader = loader;
}

void nd_monitor_use_kb(struct nd_monitor *m, struct nd_kb *kb)
{
    m->kb = kb;
}

double nd_monitor_clock(const struct nd_monitor *m)
{
    return (double)m->k * m->opt.cfg.interval_s;
}

static void nd_carry_release_settled(struct nd_monitor *m, bool all);

/* The next tick: at deadline, or sooner when a carried message settles
 * (monotonic time, as the run loop's deadlines). */
static double nd_carry_wake(const struct nd_monitor *m, double deadline)
{
    for (int i = 0; i < 2; i++)
        if (m->carry[i].len && m->carry[i].since + ND_MSGCARRY_SETTLE_S < deadline)
            deadline = m->carry[i].since + ND_MSGCARRY_SETTLE_S;
    return deadline;
}

double nd_monitor_tick(struct nd_monitor *m, double now)
{
    /* The load runs at idle priority so a flood at the start does not wait
     * for it; a job that keeps every core busy must not delay it for long. */
    if (m->loader && now - m->start_mono >= ND_KB_IDLE_S)
        nd_kb_loader_hurry(m->loader);
    nd_kb_collect(m, false);
    nd_drain(m, false);
    nd_carry_release_settled(m, false);
    if (m->failed)
        return now + 3600;
    if (!m->opt.synthetic_clock && now < m->next_deadline)
        return nd_carry_wake(m, m->next_deadline);
    m->k++;
    double t = nd_monitor_clock(m);
    m->last_tick_mono = now;
    nd_take_sample(m, t);
    if (!m->failed && nd_series_len(&m->series) > 1) {
        struct nd_findings found = ND_FINDINGS_INIT;
        nd_detect_all(&m->series, &m->opt.cfg, &m->ctx, &found);
        for (size_t i = 0; i < found.n; i++)
            nd_consider(m, found.v[i], true);
        nd_findings_release(&found);
    }
    nd_write_metrics(m);
    if (m->opt.synthetic_clock)
        return m->next_deadline = now;
    /* On schedule when possible; after a stall, no burst of catch-up ticks. */
    m->next_deadline += m->opt.cfg.interval_s;
    if (m->next_deadline <= now)
        m->next_deadline = now + m->opt.cfg.interval_s;
    return nd_carry_wake(m, m->next_deadline);
}

void nd_monitor_set_output(struct nd_monitor *m, uint64_t bytes, uint64_t lines)
{
    m->out_bytes = bytes;
    m->out_lines = lines;
}

/* ---- output lines ---- */

struct nd_block_match {
    struct nd_monitor *m;
    const char *source;
    long first_lineno;
    double at_s;
    bool late;
    bool noted; /* notes taken on arrival */
    double matched_at;
    long line_base; /* output lines before the block, both streams */
};

/* Lines in a block (the last one may lack its newline). */
static uint64_t nd_count_lines(const char *data, size_t len)
{
    return len ? nd_count_newlines(data, len) + (data[len - 1] != '\n') : 0;
}

/* A context rule's line held until the line it requires came (see
 * nd_kb_live_resolve) arrives after findings of later lines: it goes back
 * before those of its stream, so that arrival order stays output order. */
static void nd_place_held(struct nd_monitor *m, const struct nd_finding *f)
{
    size_t at = m->findings.n;
    if (at == 0 || m->findings.v[at - 1]->nevidence == 0 || f->nevidence == 0)
        return;
    const struct nd_evidence *ev = &f->evidence[0];
    if (!ev->file)
        return;
    struct nd_finding *nf = m->findings.v[at - 1];
    size_t to = at - 1;
    while (to > 0) {
        const struct nd_finding *prev = m->findings.v[to - 1];
        if (nd_from_detector(m, prev->id) || prev->nevidence == 0 || !prev->evidence[0].file ||
            strcmp(prev->evidence[0].file, ev->file) != 0 || prev->evidence[0].line <= ev->line)
            break;
        to--;
    }
    memmove(&m->findings.v[to + 1], &m->findings.v[to], (at - 1 - to) * sizeof m->findings.v[0]);
    m->findings.v[to] = nf;
}

/* A held line that counted just now hides what its own line gave before
 * (a generic reading of it): one line fewer for each such finding, and
 * gone when that was its only line, as explain keeps one finding per line. */
static void nd_withdraw_hidden(struct nd_monitor *m)
{
    const char *ids[ND_KB_LIVE_WITHDRAWN_MAX];
    size_t n = nd_kb_live_withdrawn(m->kb, ids, ND_ARRAY_SIZE(ids));
    for (size_t i = 0; i < n; i++)
        for (size_t at = 0; at < m->findings.n; at++) {
            struct nd_finding *f = m->findings.v[at];
            if (strcmp(f->id, ids[i]) != 0 || nd_from_detector(m, f->id))
                continue;
            if (f->count > 1)
                f->count--;
            else
                nd_findings_remove(&m->findings, at);
            break;
        }
}

/* One line on which some pattern matched: a repeat costs a lookup. */
static void nd_match_candidate(void *arg, const char *line, size_t len, size_t index)
{
    struct nd_block_match *b = arg;
    struct nd_monitor *m = b->m;
    /* Context rules' `within` counts output lines, not candidates. */
    nd_kb_live_line(m->kb, b->line_base + (long)index + 1);
    /* A line a match crossed into from the lines before it is not its
     * text alone: no cached result. */
    const struct nd_linecache_entry *e = nd_kb_live_crossed(m->kb) ? NULL : nd_linecache_get(m->seen, line, len);
    if (e) {
        nd_kb_live_touch(m->kb, e->keys, e->nkeys);
        if (!b->noted)
            nd_loglines_note(e->flags, line, len, &m->ctx);
        for (size_t i = 0; i < e->nids; i++) {
            struct nd_finding *old = nd_findings_find(&m->findings, e->ids[i]);
            if (old)
                nd_count_repeat(old);
        }
        /* A repeat can still complete a context rule's earlier line. */
        struct nd_findings held = ND_FINDINGS_INIT;
        nd_kb_live_resolve(m->kb, &held);
        nd_withdraw_hidden(m);
        for (size_t i = 0; i < held.n; i++) {
            held.v[i]->at_s = b->at_s;
            if (nd_consider(m, held.v[i], false))
                nd_place_held(m, held.v[i]);
        }
        nd_findings_release(&held);
        return;
    }
    unsigned notes = nd_loglines_classify(line, len);
    if (!b->noted)
        nd_loglines_note(notes, line, len, &m->ctx);
    struct nd_findings found = ND_FINDINGS_INIT;
    long lineno = b->first_lineno + (long)index;
    nd_kb_match_line(m->kb, line, len, b->source, lineno, &found);
    nd_withdraw_hidden(m);
    const char *ids[ND_LINECACHE_IDS];
    for (size_t i = 0; i < found.n; i++) {
        found.v[i]->at_s = b->at_s;
        bool added = nd_consider(m, found.v[i], false);
        if (added && found.v[i]->nevidence && found.v[i]->evidence[0].line < lineno)
            nd_place_held(m, found.v[i]);
        if (added && b->late) {
            m->alerts_late++;
            if (b->matched_at - b->at_s > m->max_alert_lag_s)
                m->max_alert_lag_s = b->matched_at - b->at_s;
        }
        if (i < ND_LINECACHE_IDS)
            ids[i] = found.v[i]->id;
    }
    /* A line whose result depended on the lines before it is matched again
     * when it comes again; any other repeat sets the same context. */
    unsigned keys[ND_LINECACHE_KEYS];
    bool depends = false;
    int nkeys = nd_kb_live_keys(m->kb, keys, ND_LINECACHE_KEYS, &depends);
    if (nkeys >= 0 && !depends)
        nd_linecache_put(m->seen, line, len, ids, found.n, keys, (size_t)nkeys, notes);
    nd_findings_release(&found);
}

static double nd_monitor_now(const struct nd_monitor *m)
{
    double at = nd_monitor_clock(m) + (nd_monotonic_now() - m->last_tick_mono);
    return at < 0 ? 0 : at;
}

/* The knowledge base's pass over whole lines that arrived at at_s. */
static void nd_kb_match_lines(struct nd_monitor *m, int stream, const char *data, size_t len, long first_lineno,
                              double at_s, bool late, bool noted)
{
    if (len == 0)
        return;
    struct nd_block_match b = {
        m, stream == 1 ? "stdout" : "stderr", first_lineno, at_s, late, noted, 0, m->lines_matched};
    uint64_t nlines = nd_count_lines(data, len);
    if (late) {
        b.matched_at = nd_monitor_now(m);
        if (b.matched_at - at_s > m->max_lag_s)
            m->max_lag_s = b.matched_at - at_s;
        m->lines_late += nlines;
    }
    nd_kb_block_lines_after(m->kb, &m->window[stream == 1 ? 0 : 1], data, len, nd_match_candidate, &b);
    m->lines_matched += (long)nlines;
}

/* Matches the message carried from stream's last block, if any. */
static void nd_carry_release(struct nd_monitor *m, int stream)
{
    struct nd_msgcarry *c = &m->carry[stream == 1 ? 0 : 1];
    if (!c->len)
        return;
    size_t len = c->len;
    c->len = 0;
    nd_kb_match_lines(m, stream, c->buf, len, c->first_lineno, c->at_s, c->late, c->noted);
}

/* Carried messages whose continuation did not come within the settle time
 * (all of them: the end), once no older output waits in the backlog. */
static void nd_carry_release_settled(struct nd_monitor *m, bool all)
{
    double now = nd_monotonic_now();
    for (int i = 0; i < 2; i++)
        if (m->carry[i].len && (all || (nd_backlog_empty(m->backlog) && now - m->carry[i].since >= ND_MSGCARRY_SETTLE_S)))
            nd_carry_release(m, i + 1);
}

/* Matches a block of whole lines that arrived at at_s. */
static void nd_match_block(struct nd_monitor *m, int stream, const char *data, size_t len, long first_lineno,
                           double at_s, bool late, bool noted)
{
    /* Blocks come here in output order (live, then the backlog's oldest
     * first), so the tail's last error is the job's; off the passthrough
     * path, on the matching budget. */
    nd_exit_tail_feed_block(&m->tail, data, len, first_lineno);
    nd_exit_tail_traceback_block(&m->tail, stream, data, len, first_lineno);
    if (!m->kb)
        return;
    nd_outtail_feed(&m->outtail, data, len);
    /* The carried message first, with the lines here that continue it. */
    struct nd_msgcarry *c = &m->carry[stream == 1 ? 0 : 1];
    double now = nd_monotonic_now();
    if (c->len) {
        size_t lead = nd_msgcarry_lead(c, data, len);
        if (lead && nd_msgcarry_append(c, data, lead, now)) {
            first_lineno += (long)nd_count_newlines(data, lead);
            data += lead;
            len -= lead;
            if (len == 0)
                return; /* it may go on in the next block */
        }
        nd_carry_release(m, stream);
    }
    /* This block's last message waits for its continuation. */
    size_t tail = nd_msgcarry_tail_start(data, len);
    nd_kb_match_lines(m, stream, data, tail, first_lineno, at_s, late, noted);
    if (tail < len)
        nd_msgcarry_set(c, data + tail, len - tail, first_lineno + (long)nd_count_newlines(data, tail), at_s, late,
                        noted, now);
}

static void nd_budget_refill(struct nd_monitor *m, double now)
{
    if (m->tokens_at > 0)
        m->tokens += (now - m->tokens_at) * ND_MATCH_SHARE;
    if (m->tokens > ND_MATCH_BURST || m->tokens_at == 0)
        m->tokens = ND_MATCH_BURST;
    m->tokens_at = now;
}

/* Matches what waits in the backlog, oldest first: within the budget, or
 * all of it (the end, before the summary). */
static void nd_drain(struct nd_monitor *m, bool all)
{
    if (m->loader)
        return;
    struct nd_backlog_block blk;
    double now = nd_monotonic_now();
    nd_budget_refill(m, now);
    while ((all || m->tokens > 0) && nd_backlog_peek(m->backlog, &blk)) {
        nd_match_block(m, blk.stream, blk.data, blk.len, blk.first_lineno, blk.at_s, true, blk.flags & ND_BLOCK_NOTED);
        nd_backlog_pop(m->backlog);
        double t = nd_monotonic_now();
        m->tokens -= t - now;
        now = t;
    }
}

char *nd_monitor_buffer(struct nd_monitor *m, size_t want, size_t *cap)
{
    return nd_backlog_tail(m->backlog, want, cap);
}

/* Matching cannot take output now: the knowledge base loads, older output
 * waits, or the budget is spent. */
static bool nd_must_wait(struct nd_monitor *m)
{
    return m->loader || !nd_backlog_empty(m->backlog) || m->tokens <= 0;
}

size_t nd_monitor_hold(struct nd_monitor *m, int fd, size_t max)
{
    nd_kb_collect(m, false);
    nd_budget_refill(m, nd_monotonic_now());
    return nd_must_wait(m) ? nd_backlog_hold(m->backlog, fd, max) : 0;
}

/* A block of output: matched now, or held (raw > 0: its bytes are in the
 * backlog's pipes already, see nd_monitor_hold). */
static void nd_monitor_take(struct nd_monitor *m, int stream, const char *data, size_t len, long first_lineno,
                            size_t prefix, size_t raw)
{
    nd_kb_collect(m, false);
    double at = nd_monitor_now(m);
    nd_drain(m, false);
    if (nd_backlog_bytes(m->backlog) + len > ND_BACKLOG_MAX) {
        nd_kb_collect(m, true);
        nd_drain(m, true);
    }
    /* Also when nothing waits (nd_drain did not look): a knowledge base
     * there from the start matches the first block at once. */
    nd_budget_refill(m, nd_monotonic_now());
    if (raw || nd_must_wait(m)) {
        /* While the knowledge base loads, the detectors' notes are taken now:
         * the input-bound judgement must not wait for a slow load. */
        unsigned flags = 0;
        if (m->loader && m->noted_early < ND_EARLY_NOTES_MAX && len) {
            nd_loglines_note_block(data, len, &m->ctx);
            m->noted_early += len;
            flags = ND_BLOCK_NOTED;
        }
        int rc = raw ? nd_backlog_push_held(m->backlog, stream, first_lineno, at, flags, data, len, prefix, raw)
                     : nd_backlog_push(m->backlog, stream, first_lineno, at, flags, data, len);
        if (rc < 0)
            m->lines_dropped += nd_count_lines(data, len);
        return;
    }
    double t0 = nd_monotonic_now();
    nd_match_block(m, stream, data, len, first_lineno, at, false, false);
    m->tokens -= nd_monotonic_now() - t0;
}

void nd_monitor_lines(struct nd_monitor *m, int stream, const char *data, size_t len, long first_lineno)
{
    nd_monitor_take(m, stream, data, len, first_lineno, 0, 0);
}

void nd_monitor_held_lines(struct nd_monitor *m, int stream, const char *data, size_t len, size_t prefix, size_t raw,
                           long first_lineno)
{
    nd_monitor_take(m, stream, data, len, first_lineno, prefix, raw);
}

void nd_monitor_stopping(struct nd_monitor *m)
{
    if (m->stopping)
        return;
    m->stopping = true;
    nd_sampler_child_exits(m->sampler, &m->stop_exits, &m->ctx.exit_notices);
}

bool nd_monitor_wants_stop(const struct nd_monitor *m)
{
    return m->want_stop;
}

const struct nd_findings *nd_monitor_findings(const struct nd_monitor *m)
{
    return &m->findings;
}

size_t nd_monitor_signal_all(struct nd_monitor *m, int sig)
{
    return nd_sampler_signal_all(m->sampler, sig);
}

bool nd_monitor_root_exit(struct nd_monitor *m, int *wait_status)
{
    return nd_sampler_root_exit(m->sampler, wait_status);
}

void nd_monitor_reap(struct nd_monitor *m)
{
    nd_sampler_reap(m->sampler);
}

/* ---- the end ---- */

static json_t *nd_monitor_json(const struct nd_monitor *m, int exit_status, double duration_s, bool series)
{
    json_t *o = nd_json_envelope(m->opt.command);
    json_object_set_new(o, "findings", nd_findings_to_json(&m->findings));
    json_t *job = json_object();
    json_t *argv = json_array();
    for (size_t i = 0; m->opt.argv && m->opt.argv[i]; i++) {
        char *r = nd_redact_text(m->opt.argv[i]);
        json_array_append_new(argv, nd_json_str(r));
        free(r);
    }
    json_object_set_new(job, "argv", argv);
    json_object_set_new(job, "pid", json_integer(m->opt.root));
    json_object_set_new(job, "exit_status", exit_status >= 0 ? json_integer(exit_status) : json_null());
    json_object_set_new(job, "duration_s", json_real(round(duration_s * 1000) / 1000));
    json_object_set_new(o, "job", job);

    json_t *facts = json_object();
    json_t *dev = json_object();
    json_object_set_new(dev, "usable", json_boolean(m->ctx.device_usable));
    json_object_set_new(dev, "vendor", m->ctx.device_vendor[0] ? json_string(m->ctx.device_vendor) : json_null());
    json_object_set_new(dev, "count", json_integer((json_int_t)m->ctx.ndevices));
    json_object_set_new(dev, "name", nd_json_str(m->ctx.device_name));
    json_object_set_new(facts, "devices", dev);
    json_t *jf = json_object();
    const struct nd_sample *a = nd_series_first(&m->series), *b = nd_series_last(&m->series);
    json_object_set_new(jf, "max_cpu_cores", json_real(round(m->max_cores * 100) / 100));
    json_object_set_new(jf, "avg_cpu_cores", json_real(a && b ? round(nd_series_avg_cores(a, b) * 100) / 100 : 0));
    json_object_set_new(jf, "on_device_ratio", json_real(a && b ? round(nd_series_held_frac(a, b) * 1000) / 1000 : 0));
    char fw[256];
    nd_frameworks_describe(m->frameworks, fw, sizeof fw);
    json_object_set_new(jf, "frameworks", nd_json_str(fw));
    if (m->opt.out_observed) {
        json_object_set_new(jf, "output_bytes", json_integer((json_int_t)m->out_bytes));
        json_object_set_new(jf, "output_lines", json_integer((json_int_t)m->out_lines));
        json_object_set_new(jf, "lines_not_matched", json_integer((json_int_t)m->lines_dropped));
        json_t *lm = json_object();
        json_object_set_new(lm, "lines_matched_late", json_integer((json_int_t)m->lines_late));
        json_object_set_new(lm, "max_lag_s", json_real(round(m->max_lag_s * 1000) / 1000));
        json_object_set_new(lm, "alerts_late", json_integer((json_int_t)m->alerts_late));
        json_object_set_new(lm, "max_alert_lag_s", json_real(round(m->max_alert_lag_s * 1000) / 1000));
        json_object_set_new(lm, "caught_up_after_exit_s", json_real(round(m->final_drain_s * 1000) / 1000));
        json_object_set_new(lm, "repeats_from_cache",
                            json_integer((json_int_t)(m->seen ? nd_linecache_hits(m->seen) : 0)));
        json_object_set_new(lm, "backlog_peak_bytes", json_integer((json_int_t)nd_backlog_peak_bytes(m->backlog)));
        json_object_set_new(lm, "backlog_spilled_bytes", json_integer((json_int_t)nd_backlog_spilled_bytes(m->backlog)));
        json_object_set_new(lm, "bytes_not_matched", json_integer((json_int_t)nd_backlog_dropped_bytes(m->backlog)));
        json_object_set_new(jf, "matching", lm);
    }
    json_object_set_new(jf, "samples", json_integer((json_int_t)nd_series_len(&m->series)));
    json_object_set_new(jf, "peak_rss_bytes", json_integer((json_int_t)m->peak_rss));
    json_object_set_new(jf, "exit_notices", json_boolean(m->ctx.exit_notices));
    json_object_set_new(facts, "job", jf);
    json_object_set_new(o, "processes", nd_proc_registry_json(&m->procs, &m->series));
    json_t *set = json_object();
    json_object_set_new(set, "interval_s", json_real(m->opt.cfg.interval_s));
    json_object_set_new(set, "window_s", json_real(m->opt.cfg.window_s));
    json_object_set_new(set, "fallback_after_s", json_real(m->opt.cfg.fallback_after_s));
    json_object_set_new(set, "warmup_s", json_real(m->opt.cfg.warmup_s));
    json_object_set_new(set, "hang_after_s", json_real(m->opt.cfg.hang_after_s));
    json_object_set_new(facts, "settings", set);
    json_object_set_new(o, "facts", facts);
    if (series)
        json_object_set_new(o, "series", nd_timeline_json(&m->series, ND_SERIES_HISTORY));
    nd_redact_json(o);
    return o;
}

static void nd_print_summary(const struct nd_monitor *m, int exit_status, double duration_s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    if (!fp)
        return;
    char status[64];
    if (exit_status >= 0)
        snprintf(status, sizeof status, "exit %d after %.1f s", exit_status, duration_s);
    else
        snprintf(status, sizeof status, "watched for %.1f s", duration_s);
    const struct nd_sample *a = nd_series_first(&m->series), *b = nd_series_last(&m->series);
    double held = a && b ? nd_series_held_frac(a, b) : 0;
    fprintf(fp, "npu-doctor: %s (pid %d): %s; CPU up to %.1f cores; on a device %.0f%% of the time\n", m->argv_text,
            (int)m->opt.root, status, m->max_cores, held * 100);
    size_t shown = 0;
    for (size_t i = 0; i < m->findings.n; i++) {
        nd_finding_print_text(m->findings.v[i], fp, m->opt.color, "npu-doctor: ");
        if (m->findings.v[i]->at_s >= 0)
            fprintf(fp, "npu-doctor:   at %.1f s\n", m->findings.v[i]->at_s);
        shown++;
    }
    if (m->alerts_late)
        fprintf(fp,
                "npu-doctor: the job printed faster than live matching: %zu alert%s came up to %.1f s late "
                "(%llu lines matched late; all lines were matched)\n",
                m->alerts_late, m->alerts_late == 1 ? "" : "s", m->max_alert_lag_s, (unsigned long long)m->lines_late);
    if (m->lines_dropped)
        fprintf(fp, "npu-doctor: warning: %llu output lines could not be held for matching (no memory or disk left)\n",
                (unsigned long long)m->lines_dropped);
    char sum[128];
    nd_findings_summary(&m->findings, sum, sizeof sum);
    fprintf(fp, "npu-doctor: %s\n", sum);
    fclose(fp);
    nd_write_full(STDERR_FILENO, buf, len);
    free(buf);
}

static int nd_write_json_file(int dirfd, const char *dir, const char *name, json_t *doc, struct nd_error *err)
{
    char *text = nd_json_dumps_safe(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (!text)
        return nd_error_set(err, -ENOMEM, "%s/%s: cannot encode JSON", dir, name);
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    nd_strbuf_adds(&sb, text);
    nd_strbuf_addc(&sb, '\n');
    free(text);
    int rc = nd_write_file_at(dirfd, dir, name, sb.buf, sb.len, err);
    nd_strbuf_release(&sb);
    return rc;
}

static int nd_write_reports(const struct nd_monitor *m, int exit_status, double duration_s)
{
    const char *dir = m->opt.report_dir;
    struct nd_error err = {0};
    /* The folder is walked and judged again (it was made before the job
     * started, which had the whole run to change it), and every file is
     * written in that one descriptor. */
    int dirfd = nd_output_dir_make(dir, &err);
    if (dirfd < 0) {
        nd_term_eprintf("npu-doctor: cannot write the report: --report %s\n", err.msg);
        return dirfd;
    }
    int rc = 0;
    json_t *doc = nd_monitor_json(m, exit_status, duration_s, true);
    if (nd_write_json_file(dirfd, dir, "report.json", doc, &err) < 0)
        rc = err.code;
    json_decref(doc);

    size_t len;
    char *csv = nd_timeline_csv(&m->series, &len);
    if (rc == 0 && nd_write_file_at(dirfd, dir, "timeline.csv", csv, len, &err) < 0)
        rc = err.code;
    free(csv);

    char title[300], sub[300], sum[128];
    snprintf(title, sizeof title, "npu-doctor %s: %.200s", m->opt.command, m->argv_text);
    nd_findings_summary(&m->findings, sum, sizeof sum);
    if (exit_status >= 0)
        snprintf(sub, sizeof sub, "pid %d, exit %d after %.0f s; %s; sampled every %g s", (int)m->opt.root, exit_status,
                 duration_s, sum, m->opt.cfg.interval_s);
    else
        snprintf(sub, sizeof sub, "pid %d, watched for %.0f s; %s; sampled every %g s", (int)m->opt.root, duration_s,
                 sum, m->opt.cfg.interval_s);
    char *svg = nd_timeline_svg(&m->series, &m->findings, title, sub, &len);
    if (rc == 0 && nd_write_file_at(dirfd, dir, "timeline.svg", svg, len, &err) < 0)
        rc = err.code;
    free(svg);
    close(dirfd);
    if (rc < 0)
        nd_term_eprintf("npu-doctor: cannot write the report: %s\n", err.msg);
    return rc;
}

/* A SIGKILL: the kernel log, where readable, says whether the OOM killer
 * sent it, to which of the job's processes. */
static void nd_kmsg_enrich(const struct nd_monitor *m, struct nd_finding *f)
{
    if (strcmp(f->id, "exit.killed") != 0 && strcmp(f->id, "exit.oom-killed") != 0 &&
        strcmp(f->id, "exit.child-signal") != 0)
        return;
    pid_t *pids = nd_xmalloc((m->procs.n ? m->procs.n : 1) * sizeof *pids);
    for (size_t i = 0; i < m->procs.n; i++)
        pids[i] = m->procs.v[i].pid;
    char line[512];
    if (nd_kmsg_find_oom(pids, m->procs.n, 100000, line, sizeof line)) {
        nd_finding_add_evidence(f, "kernel log", 0, "%s", line);
        f->confidence = ND_CONF_HIGH;
    }
    free(pids);
}

/* The end-of-job verdict on a failure already alerted while the job ran
 * (exit.child-failed: "failed while the job goes on", then "the job exited
 * 0, but ..."): the same failure, so not a repeat, and the end's wording
 * wins, since it knows how the job ended; the alert's time stays. True when
 * f was taken that way. */
static bool nd_exit_rewords(struct nd_monitor *m, const struct nd_finding *f)
{
    for (size_t at = 0; at < m->findings.n; at++) {
        struct nd_finding *old = m->findings.v[at];
        if (strcmp(old->id, f->id) != 0)
            continue;
        if (old->severity != f->severity)
            return false;
        struct nd_finding *nf = nd_findings_add_copy(&m->findings, f);
        nf->at_s = old->at_s;
        nf->count = old->count;
        m->findings.v[at] = nf;
        m->findings.n--;
        nd_finding_free(old);
        return true;
    }
    return false;
}

static void nd_whole_log_steps(struct nd_monitor *m, double duration_s);

int nd_monitor_finish(struct nd_monitor *m, const struct nd_exit_info *ex, int exit_status, double duration_s)
{
    double t0 = nd_monotonic_now();
    nd_kb_collect(m, true);
    nd_drain(m, true);
    nd_carry_release_settled(m, true);
    m->final_drain_s = nd_monotonic_now() - t0;
    /* run's output, all matched now: its last error line for the exit verdict. */
    struct nd_exit_info with_tail;
    if (ex && m->opt.out_observed) {
        with_tail = *ex;
        with_tail.last_error = m->tail.last_error;
        with_tail.last_error_line = m->tail.last_error_line;
        with_tail.last_line = m->tail.last_line;
        with_tail.traceback_error = m->tail.traceback_error;
        with_tail.traceback_line = m->tail.traceback_line;
        ex = &with_tail;
    }
    if (ex && nd_series_len(&m->series) > 0) {
        struct nd_findings found = ND_FINDINGS_INIT;
        nd_detect_exit(&m->series, &m->ctx, ex, &found);
        bool quiet = m->opt.quiet;
        m->opt.quiet = true; /* said once, in the summary below */
        for (size_t i = 0; i < found.n; i++) {
            found.v[i]->at_s = duration_s;
            nd_kmsg_enrich(m, found.v[i]);
            if (!nd_exit_rewords(m, found.v[i]))
                nd_consider(m, found.v[i], false);
        }
        m->opt.quiet = quiet;
        nd_findings_release(&found);
        for (size_t i = 0; i < m->findings.n; i++) {
            double from = 0, util = 0;
            struct nd_finding *f = m->findings.v[i];
            if (nd_from_detector(m, f->id) && nd_detect_pause_over(&m->series, &m->opt.cfg, f, ex, &from, &util))
                nd_detect_pause_demote(f, from, util, duration_s);
        }
    }
    if (nd_series_len(&m->series) > 0) {
        /* Added as it is: a note of its own, never folded into a finding. */
        nd_detect_limited_view(&m->ctx, duration_s, &m->findings);
    }
    /* watch --for may stop watching a job that goes on: it still runs, and
     * the frozen last-sample time tells a dashboard nobody watches it. */
    struct nd_proc_stat st;
    m->ended = ex || exit_status >= 0 || nd_proc_read_stat(m->opt.root, &st) < 0 || st.state == 'Z' || st.state == 'X';
    /* The log-line findings in explain's order, root cause first (they came
     * in the order of the output); what was measured keeps its place. */
    nd_kb_order_findings(m->kb, &m->findings);
    if (m->opt.out_observed)
        nd_whole_log_steps(m, duration_s);
    nd_write_metrics(m);
    nd_print_summary(m, exit_status, duration_s);
    int rc = 0;
    if (m->opt.json_summary) {
        json_t *doc = nd_monitor_json(m, exit_status, duration_s, false);
        if (nd_json_dumpf_safe(doc, m->opt.json_summary, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0 ||
            fputc('\n', m->opt.json_summary) == EOF || fflush(m->opt.json_summary) != 0) {
            fprintf(stderr, "npu-doctor: cannot write the JSON summary: %s\n", strerror(errno));
            rc = -EIO;
        }
        json_decref(doc);
    }
    if (m->opt.report_dir && nd_write_reports(m, exit_status, duration_s) < 0)
        rc = -EIO;
    return rc;
}

/* The first place a log finding, or how the job ended, holds: what a
 * detector measured before it keeps its place. */
static size_t nd_first_log_place(const struct nd_monitor *m)
{
    for (size_t i = 0; i < m->findings.n; i++) {
        const struct nd_finding *f = m->findings.v[i];
        if (!nd_from_detector(m, f->id) || strncmp(f->id, "exit.", 5) == 0)
            return i;
    }
    return m->findings.n;
}

/* explain's steps that read a whole log rather than a line (the fallback
 * for an exception no rule knows, the log's shape, the versions it prints),
 * run over the output's end as explain would run them over the same text.
 * Their findings join the summary; when explain's answer on that text is
 * one of them and it saw every rule finding the live matcher made, it is
 * the root cause here too. Output longer than the tail: the fallback, which
 * weighs the whole log, is left out. */
static void nd_whole_log_steps(struct nd_monitor *m, double duration_s)
{
    size_t len = 0;
    bool cut = false;
    const char *text = nd_outtail_text(&m->outtail, &len, &cut);
    if (!m->kb || !text)
        return;
    struct nd_kb_scan *s = nd_kb_scan_new(m->kb);
    struct nd_findings ex = ND_FINDINGS_INIT;
    if (s && nd_kb_scan_buffer(s, "output", text, len) == 0) {
        nd_kb_scan_finish(s, &ex, false);
        if (m->opt.log_compat) {
            struct nd_findings seen = ND_FINDINGS_INIT;
            nd_kb_scan_finish(s, &seen, true);
            m->opt.log_compat(&seen, &ex);
            nd_findings_release(&seen);
        }
        nd_kb_rank_code_findings(m->kb, &ex);
    }
    nd_kb_scan_free(s);
    bool covers = true; /* explain's list has every rule finding the matcher made */
    for (size_t i = 0; i < m->findings.n && covers; i++) {
        const struct nd_finding *f = m->findings.v[i];
        if (nd_kb_has_rule(m->kb, f->id) && f->severity >= ND_SEV_WARNING)
            covers = nd_findings_find(&ex, f->id) != NULL;
    }
    struct nd_finding *lead = NULL;
    for (size_t i = 0; i < ex.n; i++) {
        const struct nd_finding *f = ex.v[i];
        if (nd_kb_has_rule(m->kb, f->id) || nd_findings_find(&m->findings, f->id))
            continue;
        if (cut && strncmp(f->id, "generic.", 8) == 0)
            continue;
        struct nd_finding *nf = nd_findings_add_copy(&m->findings, f);
        nf->at_s = duration_s;
        if (i == 0)
            lead = nf;
    }
    nd_findings_release(&ex);
    if (!lead || !covers)
        return;
    size_t to = nd_first_log_place(m), at = 0;
    while (m->findings.v[at] != lead)
        at++;
    if (at > to) {
        memmove(&m->findings.v[to + 1], &m->findings.v[to], (at - to) * sizeof *m->findings.v);
        m->findings.v[to] = lead;
    }
}

/* ---- before the start ---- */

int nd_monitor_check_outputs(const char *report_dir, const char *metrics_path, struct nd_error *err)
{
    if (report_dir) {
        struct stat st;
        if (stat(report_dir, &st) == 0 && !S_ISDIR(st.st_mode))
            return nd_error_set(err, -ENOTDIR, "--report %s: not a directory", report_dir);
        /* Made (what is missing) and judged one component at a time, in
         * opened folders: see nd_output_dir_make. */
        struct nd_error e1 = {0};
        int dirfd = nd_output_dir_make(report_dir, &e1);
        if (dirfd < 0)
            return nd_error_set(err, e1.code, "--report %s", e1.msg);
        static const char *const names[] = {"report.json", "timeline.csv", "timeline.svg"};
        for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
            struct nd_error e2 = {0};
            if (nd_output_check_at(dirfd, report_dir, names[i], &e2) < 0) {
                close(dirfd);
                return nd_error_set(err, e2.code, "--report %s", e2.msg);
            }
        }
        close(dirfd);
    }
    if (metrics_path) {
        struct nd_prom_snapshot empty = {.cpu_cores = 0};
        struct nd_error e2 = {0};
        if (nd_prom_write(metrics_path, &empty, &e2) < 0)
            return nd_error_set(err, e2.code, "--metrics-file %s", e2.msg);
    }
    return 0;
}
