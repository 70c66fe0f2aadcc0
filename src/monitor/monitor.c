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
#include <unistd.h>

#include "core/fileio.h"
#include "core/termsafe.h"
#include "core/json_util.h"
#include "core/metrics_prom.h"
#include "core/redact.h"
#include "core/report.h"
#include "core/rootfs.h"
#include "core/spawn.h"
#include "core/strbuf.h"
#include "kb/kb.h"
#include "monitor/kb_loader.h"
#include "monitor/sampler.h"
#include "monitor/series.h"
#include "monitor/timeline.h"
#include "probe/checkup.h"
#include "probe/environ.h"
#include "proc/footprint.h"

#define ND_MONITOR_FAIL_STREAK 3
/* Lines held while the knowledge base loads (a job rarely says much in its
 * first tens of milliseconds); past this they get the built-in table only. */
#define ND_PENDING_LINES 512

struct nd_pending_line {
    int stream;
    long lineno;
    char *text;
    size_t len;
};

struct nd_monitor {
    struct nd_monitor_opts opt;
    struct nd_sampler *sampler;
    struct nd_series series;
    struct nd_detect_context ctx;
    struct nd_findings findings;
    double start_mono;
    double next_deadline;
    double last_tick_mono;
    uint64_t k;
    bool failed;
    int fail_streak;
    uint64_t out_bytes, out_lines, skipped;
    bool want_stop;
    bool metrics_warned;
    bool env_done;
    struct nd_findings env_reasons;
    char *argv_text;
    double max_cores;
    unsigned frameworks;
    struct nd_kb *kb;               /* the matcher in use (NULL: built-in table) */
    struct nd_kb *kb_owned;         /* loaded in the background: ours to free */
    struct nd_kb_loader *loader;    /* until the background load is collected */
    struct nd_pending_line *pending;
    size_t npending;
};

static void nd_match_line(struct nd_monitor *m, int stream, const char *line, size_t len, long lineno);

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

/* A rough reason when the check probes have nothing to say (or are not
 * built): the CANN variables missing while set_env.sh is installed. */
static void nd_guess_env_reason(const struct nd_environ *env, const char *vendor, pid_t pid, struct nd_findings *out)
{
    if (strcmp(vendor, "nvidia") == 0) {
        const char *cvd = nd_environ_get(env, "CUDA_VISIBLE_DEVICES");
        if (cvd && (cvd[0] == '\0' || strcmp(cvd, "-1") == 0)) {
            struct nd_finding *f = nd_findings_add(out, "env.cuda-devices-hidden", ND_CAT_NO_DEVICE, ND_SEV_ERROR,
                                                   "CUDA_VISIBLE_DEVICES hides every GPU from the job");
            nd_finding_add_evidence(f, NULL, 0, "CUDA_VISIBLE_DEVICES=\"%s\" in the environment of pid %d", cvd, (int)pid);
            nd_finding_add_fix(f, "unset CUDA_VISIBLE_DEVICES   # or list the GPUs: CUDA_VISIBLE_DEVICES=0,1");
        }
        return;
    }
    if (nd_environ_get(env, "ASCEND_OPP_PATH") || nd_environ_get(env, "ASCEND_TOOLKIT_HOME"))
        return;
    static const char *const setenv_paths[] = {
        "/usr/local/Ascend/ascend-toolkit/set_env.sh",
        "/usr/local/Ascend/ascend-toolkit/latest/set_env.sh",
        "/usr/local/Ascend/nnae/set_env.sh",
        "/usr/local/Ascend/cann/set_env.sh",
    };
    const char *found = NULL;
    for (size_t i = 0; i < sizeof setenv_paths / sizeof *setenv_paths && !found; i++)
        if (nd_rootfs_is_file(setenv_paths[i]))
            found = setenv_paths[i];
    struct nd_finding *f = nd_findings_add(out, "env.cann-not-loaded", ND_CAT_ENV_NOT_LOADED, ND_SEV_ERROR,
                                           "The CANN environment is not loaded in the job");
    nd_finding_add_evidence(f, NULL, 0,
                            "the job's environment (pid %d) has no ASCEND_OPP_PATH and no ASCEND_TOOLKIT_HOME, "
                            "and its PYTHONPATH lacks the tbe path: CANN set_env.sh was not sourced",
                            (int)pid);
    if (found)
        nd_finding_add_fix(f, "source %s", found);
    else
        nd_finding_add_fix(f, "source /usr/local/Ascend/ascend-toolkit/set_env.sh   # where CANN is installed");
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
    if (!m->env_done) {
        m->env_done = true;
        pid_t pid = nd_busiest_pid(m);
        struct nd_environ env;   /* nd_environ_from_pid initialises it, even when it fails */
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
            if (!any)
                nd_guess_env_reason(&env, m->ctx.device_vendor[0] ? m->ctx.device_vendor : "ascend", pid,
                                    &m->env_reasons);
        }
        nd_environ_free(&env);
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
static void nd_consider(struct nd_monitor *m, const struct nd_finding *f, bool from_detector)
{
    struct nd_finding *old = NULL;
    size_t at = 0;
    for (; at < m->findings.n; at++)
        if (strcmp(m->findings.v[at]->id, f->id) == 0) {
            old = m->findings.v[at];
            break;
        }
    if (old && f->severity <= old->severity) {
        if (!from_detector)
            old->count = old->count > 0 ? old->count + 1 : 2;
        return;
    }
    double first_at = old ? old->at_s : -1;
    const char *first_sev = old ? nd_severity_name(old->severity) : NULL;
    if (old)
        nd_findings_remove(&m->findings, at);
    struct nd_finding *nf = nd_findings_add_copy(&m->findings, f);
    if (first_sev && first_at >= 0)
        nd_finding_add_evidence(nf, NULL, 0, "first reported as a %s at %.1f s", first_sev, first_at);
    if (strcmp(nf->category, ND_CAT_CPU_FALLBACK) == 0 && from_detector)
        nd_enrich_fallback(m, nf);
    if (!m->opt.quiet)
        nd_print_block(m, nf);
    if (from_detector && m->opt.fail_fast && nf->severity == ND_SEV_ERROR && !m->want_stop) {
        m->want_stop = true;
        if (!m->opt.quiet)
            fprintf(stderr, "npu-doctor: --fail-fast: stopping the job\n");
    }
}

/* ---- lifecycle ---- */

int nd_monitor_new(const struct nd_monitor_opts *opt, struct nd_monitor **out, struct nd_error *err)
{
    struct nd_monitor *m = nd_xcalloc(1, sizeof *m);
    m->opt = *opt;
    /* Maps are costly to read but must not be staler than a quarter window
     * when the window ends: they decide the cpu-fallback stage. */
    double refresh = opt->cfg.window_s / 4;
    refresh = refresh < 1 ? 1 : refresh > 5 ? 5 : refresh;
    struct nd_sampler_opts so = {opt->root, opt->pgid, 0, opt->no_devices, refresh};
    int rc = nd_sampler_new(&so, &m->sampler, err);
    if (rc < 0) {
        free(m);
        return rc;
    }
    nd_series_init(&m->series, opt->cfg.interval_s);
    m->ctx.root_pid = opt->root;
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
    nd_strbuf_free(&sb);
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
        fprintf(stderr, "npu-doctor: warning: knowledge base not loaded (%s); using the built-in line table\n", why);
    for (size_t i = 0; i < m->npending; i++) {
        nd_match_line(m, m->pending[i].stream, m->pending[i].text, m->pending[i].len, m->pending[i].lineno);
        free(m->pending[i].text);
    }
    free(m->pending);
    m->pending = NULL;
    m->npending = 0;
}

void nd_monitor_free(struct nd_monitor *m)
{
    if (!m)
        return;
    nd_sampler_free(m->sampler);
    nd_series_free(&m->series);
    nd_findings_free(&m->findings);
    nd_findings_free(&m->env_reasons);
    free(m->argv_text);
    nd_kb_loader_free(m->loader);
    for (size_t i = 0; i < m->npending; i++)
        free(m->pending[i].text);
    free(m->pending);
    nd_kb_free(m->kb_owned);
    free(m);
}

static void nd_update_ctx(struct nd_monitor *m)
{
    m->ctx.procs = nd_sampler_procs(m->sampler, &m->ctx.nprocs);
    m->ctx.vanished = nd_sampler_vanished(m->sampler, &m->ctx.nvanished);
    m->ctx.frameworks_known = nd_sampler_frameworks_known(m->sampler);
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
    struct nd_prom_snapshot snap = {x ? x->cpu_cores : 0, x && x->on_device, dev, nd, &m->findings};
    struct nd_error err = {0};
    if (nd_prom_write(m->opt.metrics_path, &snap, &err) < 0 && !m->metrics_warned) {
        m->metrics_warned = true;
        fprintf(stderr, "npu-doctor: warning: %s\n", err.msg);
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
    nd_findings_free(&notes);
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
            nd_findings_free(&one);
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
    m->frameworks |= x.frameworks;
    nd_update_ctx(m);
}

double nd_monitor_start(struct nd_monitor *m)
{
    struct nd_findings notes = ND_FINDINGS_INIT;
    nd_sampler_open_devices(m->sampler, &notes);
    struct nd_series_device dev[ND_SERIES_MAX_DEV];
    size_t nd = nd_sampler_devices(m->sampler, dev, ND_SERIES_MAX_DEV);
    nd_series_set_devices(&m->series, dev, nd);
    nd_sampler_device_facts(m->sampler, &m->ctx);
    for (size_t i = 0; i < notes.n; i++) {
        notes.v[i]->at_s = 0;
        nd_consider(m, notes.v[i], false);
    }
    nd_findings_free(&notes);
    m->start_mono = nd_monotonic_now();
    m->last_tick_mono = m->start_mono;
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

double nd_monitor_tick(struct nd_monitor *m, double now)
{
    nd_kb_collect(m, false);
    if (m->failed)
        return now + 3600;
    if (!m->opt.synthetic_clock && now < m->next_deadline)
        return m->next_deadline;
    m->k++;
    double t = nd_monitor_clock(m);
    m->last_tick_mono = now;
    nd_take_sample(m, t);
    if (!m->failed && nd_series_len(&m->series) > 1) {
        struct nd_findings found = ND_FINDINGS_INIT;
        nd_detect_all(&m->series, &m->opt.cfg, &m->ctx, &found);
        for (size_t i = 0; i < found.n; i++)
            nd_consider(m, found.v[i], true);
        nd_findings_free(&found);
    }
    nd_write_metrics(m);
    if (m->opt.synthetic_clock)
        return m->next_deadline = now;
    /* On schedule when possible; after a stall, no burst of catch-up ticks. */
    m->next_deadline += m->opt.cfg.interval_s;
    if (m->next_deadline <= now)
        m->next_deadline = now + m->opt.cfg.interval_s;
    return m->next_deadline;
}

void nd_monitor_set_output(struct nd_monitor *m, uint64_t bytes, uint64_t lines, uint64_t skipped)
{
    m->out_bytes = bytes;
    m->out_lines = lines;
    m->skipped = skipped;
}

static void nd_match_line(struct nd_monitor *m, int stream, const char *line, size_t len, long lineno)
{
    struct nd_findings found = ND_FINDINGS_INIT;
    const char *src = stream == 1 ? "stdout" : "stderr";
    int n = m->kb ? nd_kb_match_line(m->kb, line, len, src, lineno, &found) : 0;
    if (n <= 0)
        nd_loglines_match(line, len, src, lineno, &found);
    double at = nd_monitor_clock(m) + (nd_monotonic_now() - m->last_tick_mono);
    for (size_t i = 0; i < found.n; i++) {
        found.v[i]->at_s = at < 0 ? 0 : at;
        nd_consider(m, found.v[i], false);
    }
    nd_findings_free(&found);
}

void nd_monitor_line(struct nd_monitor *m, int stream, const char *line, size_t len, long lineno)
{
    /* The detectors' own notes (operator fallbacks, DataLoader bus errors)
     * must not wait for the knowledge base: it may still be loading when the
     * input-bound detector judges. */
    nd_loglines_note(line, len, &m->ctx);
    nd_kb_collect(m, false);
    if (m->loader && m->npending < ND_PENDING_LINES) {
        if (!m->pending)
            m->pending = nd_xcalloc(ND_PENDING_LINES, sizeof *m->pending);
        m->pending[m->npending++] = (struct nd_pending_line){stream, lineno, nd_xstrndup(line, len), len};
        return;
    }
    nd_match_line(m, stream, line, len, lineno);
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

void nd_monitor_reap(struct nd_monitor *m)
{
    nd_sampler_reap(m->sampler);
}

/* ---- the end ---- */

static json_t *nd_monitor_json(const struct nd_monitor *m, int exit_status, double duration_s, bool series)
{
    json_t *o = json_object();
    json_object_set_new(o, "schema", json_string(ND_JSON_SCHEMA));
    json_object_set_new(o, "command", json_string(m->opt.command));
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
    json_object_set_new(jf, "on_device_fraction", json_real(a && b ? round(nd_series_held_frac(a, b) * 1000) / 1000 : 0));
    char fw[256];
    nd_frameworks_describe(m->frameworks, fw, sizeof fw);
    json_object_set_new(jf, "frameworks", nd_json_str(fw));
    if (m->opt.out_observed) {
        json_object_set_new(jf, "output_bytes", json_integer((json_int_t)m->out_bytes));
        json_object_set_new(jf, "output_lines", json_integer((json_int_t)m->out_lines));
        json_object_set_new(jf, "lines_not_matched", json_integer((json_int_t)m->skipped));
    }
    json_object_set_new(jf, "samples", json_integer((json_int_t)nd_series_len(&m->series)));
    json_object_set_new(facts, "job", jf);
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
    fprintf(fp, "npu-doctor: %s (pid %d): %s; CPU up to %.1f cores; on a device %.0f%% of the time\n",
            m->argv_text, (int)m->opt.root, status, m->max_cores, held * 100);
    size_t shown = 0;
    for (size_t i = 0; i < m->findings.n; i++) {
        nd_finding_print_text(m->findings.v[i], fp, m->opt.color, "npu-doctor: ");
        if (m->findings.v[i]->at_s >= 0)
            fprintf(fp, "npu-doctor:   at %.1f s\n", m->findings.v[i]->at_s);
        shown++;
    }
    char sum[128];
    nd_findings_summary(&m->findings, sum, sizeof sum);
    fprintf(fp, "npu-doctor: %s\n", sum);
    fclose(fp);
    nd_write_full(STDERR_FILENO, buf, len);
    free(buf);
}

static int nd_write_json_file(const char *path, json_t *doc, struct nd_error *err)
{
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (!text)
        return nd_error_set(err, -ENOMEM, "%s: cannot encode JSON", path);
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    nd_strbuf_adds(&sb, text);
    nd_strbuf_addc(&sb, '\n');
    free(text);
    int rc = nd_write_file_atomic(path, sb.buf, sb.len, err);
    nd_strbuf_free(&sb);
    return rc;
}

static int nd_write_reports(const struct nd_monitor *m, int exit_status, double duration_s)
{
    const char *dir = m->opt.report_dir;
    struct nd_error err = {0};
    char path[PATH_MAX];
    int rc = 0;
    json_t *doc = nd_monitor_json(m, exit_status, duration_s, true);
    snprintf(path, sizeof path, "%s/report.json", dir);
    if (nd_write_json_file(path, doc, &err) < 0)
        rc = err.code;
    json_decref(doc);

    size_t len;
    char *csv = nd_timeline_csv(&m->series, &len);
    snprintf(path, sizeof path, "%s/timeline.csv", dir);
    if (rc == 0 && nd_write_file_atomic(path, csv, len, &err) < 0)
        rc = err.code;
    free(csv);

    char title[300], sub[300], sum[128];
    snprintf(title, sizeof title, "npu-doctor %s: %.200s", m->opt.command, m->argv_text);
    nd_findings_summary(&m->findings, sum, sizeof sum);
    if (exit_status >= 0)
        snprintf(sub, sizeof sub, "pid %d, exit %d after %.0f s; %s; sampled every %g s", (int)m->opt.root,
                 exit_status, duration_s, sum, m->opt.cfg.interval_s);
    else
        snprintf(sub, sizeof sub, "pid %d, watched for %.0f s; %s; sampled every %g s", (int)m->opt.root,
                 duration_s, sum, m->opt.cfg.interval_s);
    char *svg = nd_timeline_svg(&m->series, &m->findings, title, sub, &len);
    snprintf(path, sizeof path, "%s/timeline.svg", dir);
    if (rc == 0 && nd_write_file_atomic(path, svg, len, &err) < 0)
        rc = err.code;
    free(svg);
    if (rc < 0)
        fprintf(stderr, "npu-doctor: cannot write the report: %s\n", err.msg);
    return rc;
}

int nd_monitor_finish(struct nd_monitor *m, const struct nd_exit_info *ex, int exit_status, double duration_s)
{
    nd_kb_collect(m, true);
    if (ex && nd_series_len(&m->series) > 0) {
        struct nd_findings found = ND_FINDINGS_INIT;
        nd_detect_exit(&m->series, &m->ctx, ex, &found);
        bool quiet = m->opt.quiet;
        m->opt.quiet = true;   /* said once, in the summary below */
        for (size_t i = 0; i < found.n; i++) {
            found.v[i]->at_s = duration_s;
            nd_consider(m, found.v[i], false);
        }
        m->opt.quiet = quiet;
        nd_findings_free(&found);
    }
    nd_write_metrics(m);
    nd_print_summary(m, exit_status, duration_s);
    int rc = 0;
    if (m->opt.json_summary) {
        json_t *doc = nd_monitor_json(m, exit_status, duration_s, false);
        if (json_dumpf(doc, m->opt.json_summary, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0 ||
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

/* ---- before the start ---- */

static int nd_mkdir_p(const char *dir)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
        return -ENAMETOOLONG;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) < 0 && errno != EEXIST)
            return -errno;
        *p = '/';
    }
    if (mkdir(buf, 0755) < 0 && errno != EEXIST)
        return -errno;
    return 0;
}

int nd_monitor_check_outputs(const char *report_dir, const char *metrics_path, struct nd_error *err)
{
    if (report_dir) {
        struct stat st;
        if (stat(report_dir, &st) == 0 && !S_ISDIR(st.st_mode))
            return nd_error_set(err, -ENOTDIR, "--report %s: not a directory", report_dir);
        int rc = nd_mkdir_p(report_dir);
        if (rc < 0)
            return nd_error_set(err, rc, "--report %s: cannot create the directory: %s", report_dir, strerror(-rc));
        if (access(report_dir, W_OK | X_OK) < 0)
            return nd_error_set(err, -errno, "--report %s: not writable: %s", report_dir, strerror(errno));
        static const char *const names[] = {"report.json", "timeline.csv", "timeline.svg"};
        for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
            char path[PATH_MAX];
            struct nd_error e2 = {0};
            snprintf(path, sizeof path, "%s/%s", report_dir, names[i]);
            if (nd_output_check(path, &e2) < 0)
                return nd_error_set(err, e2.code, "--report %s", e2.msg);
        }
    }
    if (metrics_path) {
        struct nd_prom_snapshot empty = {0, false, NULL, 0, NULL};
        struct nd_error e2 = {0};
        if (nd_prom_write(metrics_path, &empty, &e2) < 0)
            return nd_error_set(err, e2.code, "--metrics-file %s", e2.msg);
    }
    return 0;
}
