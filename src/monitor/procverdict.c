/* Per-process verdicts inside a run/watch job, and the partial CPU fallback
 * they reveal: in a distributed job one rank holds its NPU while another,
 * whose environment lacks the runtime, trains on the CPU. The job as a whole
 * "holds a device", so only a verdict per process can see it. */
#include "monitor/procverdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_util.h"
#include "core/strbuf.h"
#include "device/device.h"
#include "monitor/detect.h"
#include "proc/footprint.h"

/* A process on the CPU this long (its mean over the window) computes: one
 * single-threaded Python step loop sits near 1.0, and a contended host
 * gives it less, so the cut stays well under one core. */
#define ND_PROC_BUSY_CORES 0.5

#define ND_FW_ANY_ML ND_FW_ML

enum nd_proc_verdict nd_detect_proc_verdict(const struct nd_detect_proc *p)
{
    if (p->holds_device)
        return ND_PV_ON_DEVICE;
    /* On a contended host a computing process gets less than a core, but
     * it is runnable whenever it is looked at. */
    if (p->win_cores < ND_PROC_BUSY_CORES && p->win_runnable < ND_BUSY_RUNNABLE)
        return ND_PV_IDLE;
    return (p->frameworks & ND_FW_ANY_ML) ? ND_PV_FRAMEWORK_NO_DEVICE : ND_PV_CPU_ONLY;
}

const char *nd_proc_verdict_name(enum nd_proc_verdict v)
{
    switch (v) {
    case ND_PV_ON_DEVICE: return "on-device";
    case ND_PV_FRAMEWORK_NO_DEVICE: return "framework-no-device";
    case ND_PV_CPU_ONLY: return "cpu-only";
    default: return "idle";
    }
}

static const struct nd_detect_proc *nd_proc_by_pid(const struct nd_detect_context *ctx, pid_t pid)
{
    for (size_t i = 0; i < ctx->nprocs; i++)
        if (ctx->procs[i].pid == pid)
            return &ctx->procs[i];
    return NULL;
}

/* True when a is an ancestor of b inside the job (bounded: a cycle of
 * reused pids cannot loop). */
static bool nd_is_ancestor(const struct nd_detect_context *ctx, pid_t a, const struct nd_detect_proc *b)
{
    const struct nd_detect_proc *p = b;
    for (size_t depth = 0; p && depth < ctx->nprocs + 1; depth++) {
        if (p->ppid == a)
            return true;
        if (p->ppid == p->pid)
            return false;
        p = nd_proc_by_pid(ctx, p->ppid);
    }
    return false;
}

/* A process holding a device, on none of p's lines: not an ancestor (p
 * would be its worker, feeding it) and not a descendant (p would be the
 * launcher). NULL when p has a holder on its own line, or none exists. */
static const struct nd_detect_proc *nd_sibling_holder(const struct nd_detect_context *ctx, const struct nd_detect_proc *p)
{
    const struct nd_detect_proc *other = NULL;
    for (size_t i = 0; i < ctx->nprocs; i++) {
        const struct nd_detect_proc *q = &ctx->procs[i];
        if (q == p || !q->holds_device)
            continue;
        if (nd_is_ancestor(ctx, q->pid, p) || nd_is_ancestor(ctx, p->pid, q))
            return NULL;
        if (!other)
            other = q;
    }
    return other;
}

size_t nd_detect_partial_procs(const struct nd_detect_config *cfg, const struct nd_detect_context *ctx,
                               const struct nd_detect_proc **out, size_t max)
{
    size_t n = 0;
    if (!ctx->device_usable || !ctx->frameworks_known)
        return 0;
    for (size_t i = 0; i < ctx->nprocs && n < max; i++) {
        const struct nd_detect_proc *p = &ctx->procs[i];
        if (p->held_ever || p->tracked_s + 1e-6 < cfg->window_s)
            continue;
        if (nd_detect_proc_verdict(p) != ND_PV_FRAMEWORK_NO_DEVICE)
            continue;
        if (nd_sibling_holder(ctx, p))
            out[n++] = p;
    }
    return n;
}

/* "npu:0,1" for the series slots in mask. */
static void nd_slots_text(const struct nd_series *s, uint32_t mask, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t d = 0; d < s->ndev && d < 32 && used + 1 < size; d++) {
        if (!(mask & (1u << d)))
            continue;
        const char *w = nd_vendor_word(s->dev[d].vendor);
        int n = snprintf(buf + used, size - used, "%s%s:%d", used ? "," : "", w, s->dev[d].index);
        if (n < 0)
            break;
        used += (size_t)n;
        if (used >= size)
            used = size - 1;
    }
    if (!buf[0])
        snprintf(buf, size, "a device");
}

/* "rank 1 (pid 4242)" or "pid 4242". */
static void nd_who(const struct nd_detect_proc *p, char *buf, size_t size)
{
    if (p->rank[0])
        snprintf(buf, size, "rank %s (pid %d)", p->rank, (int)p->pid);
    else if (p->local_rank[0])
        snprintf(buf, size, "local rank %s (pid %d)", p->local_rank, (int)p->pid);
    else
        snprintf(buf, size, "pid %d", (int)p->pid);
}

void nd_detect_partial_fallback(const struct nd_series *s, const struct nd_detect_config *cfg,
                                const struct nd_detect_context *ctx, struct nd_findings *out)
{
    const struct nd_sample *b = nd_series_last(s);
    if (!b)
        return;
    const struct nd_detect_proc *cpu[16];
    size_t n = nd_detect_partial_procs(cfg, ctx, cpu, sizeof cpu / sizeof *cpu);
    if (!n)
        return;
    const struct nd_detect_proc *holder = nd_sibling_holder(ctx, cpu[0]);
    const struct nd_vendor *v = nd_vendor_by_name(ctx->device_vendor);
    if (!v)
        v = nd_vendors[0];
    char who[64], hwho[64], hdev[96];
    nd_who(cpu[0], who, sizeof who);
    nd_who(holder, hwho, sizeof hwho);
    nd_slots_text(s, holder->held_mask, hdev, sizeof hdev);
    struct nd_finding *f;
    if (n == 1)
        f = nd_findings_add(out, "fallback.partial", ND_CAT_CPU_FALLBACK, ND_SEV_ERROR,
                            "Part of the job computes on the CPU: %s holds no device while %s uses %s", who, hwho, hdev);
    else
        f = nd_findings_add(out, "fallback.partial", ND_CAT_CPU_FALLBACK, ND_SEV_ERROR,
                            "Part of the job computes on the CPU: %zu processes hold no device while %s uses %s", n,
                            hwho, hdev);
    f->at_s = b->t;
    /* A rank of its own is surely meant to train on a device; a sibling
     * without one may be a helper (a preprocessing server) computing on purpose. */
    f->confidence = cpu[0]->rank[0] || cpu[0]->local_rank[0] ? ND_CONF_HIGH : ND_CONF_MEDIUM;
    unsigned devfw = v->frameworks;
    for (size_t i = 0; i < n; i++) {
        char w[64], fw[160];
        nd_who(cpu[i], w, sizeof w);
        nd_detect_frameworks_text(cpu[i]->frameworks, fw, sizeof fw);
        char use[96];
        if (cpu[i]->win_cores >= ND_PROC_BUSY_CORES)
            snprintf(use, sizeof use, "%.1f cores over the last %.0f s", cpu[i]->win_cores, cfg->window_s);
        else /* computing, but a crowded host gives it little */
            snprintf(use, sizeof use, "runnable %.0f%% of the last %.0f s (%.1f cores: the host is busy)",
                     cpu[i]->win_runnable * 100, cfg->window_s, cpu[i]->win_cores);
        nd_finding_add_evidence(f, NULL, 0, "%s %s: %s, frameworks %s%s%s%s, no device held", w,
                                cpu[i]->cmd[0] ? cpu[i]->cmd : cpu[i]->comm, use, fw[0] ? fw : "none",
                                (cpu[i]->frameworks & devfw) ? "" : " (",
                                (cpu[i]->frameworks & devfw) ? "" : v->torch_backend_text,
                                (cpu[i]->frameworks & devfw) ? "" : " not loaded)");
    }
    size_t holders = 0;
    for (size_t i = 0; i < ctx->nprocs; i++)
        holders += ctx->procs[i].holds_device;
    nd_finding_add_evidence(f, NULL, 0, "%s %s holds %s%s", hwho, holder->cmd[0] ? holder->cmd : holder->comm, hdev,
                            holders > 1 ? " (and other processes of the job hold devices)" : "");
    nd_finding_set_cause(f, "The processes of one job do not all reach the device: the one named above runs with "
                            "an environment or a device setting of its own (a rank started without the runtime's "
                            "variables, a wrong visible-devices list, a model never moved), so it trains on the "
                            "CPU and slows every collective down to its pace.");
    nd_finding_add_fix(f, "npu-doctor check --env-from %d   # what that process's environment lacks", (int)cpu[0]->pid);
    nd_finding_add_fix(f, "%s", v->set_device_fix);
}

/* ---- the registry behind the summary's "processes" ---- */

static int nd_pv_rank(enum nd_proc_verdict v)
{
    switch (v) {
    case ND_PV_ON_DEVICE: return 3;
    case ND_PV_FRAMEWORK_NO_DEVICE: return 2;
    case ND_PV_CPU_ONLY: return 1;
    default: return 0;
    }
}

void nd_proc_registry_update(struct nd_proc_registry *r, const struct nd_detect_context *ctx)
{
    for (size_t i = 0; i < ctx->nprocs; i++) {
        const struct nd_detect_proc *p = &ctx->procs[i];
        struct nd_proc_seen *e = NULL;
        /* The sampler keeps its order from tick to tick: try the same place first. */
        if (i < r->n && r->v[i].pid == p->pid)
            e = &r->v[i];
        for (size_t k = r->n; !e && k-- > 0;)
            if (r->v[k].pid == p->pid) {
                e = &r->v[k];
                break;
            }
        if (!e) {
            if (r->n >= ND_PROC_REGISTRY_MAX) {
                r->dropped++;
                continue;
            }
            if (r->n == r->cap) {
                r->cap = r->cap ? r->cap * 2 : 16;
                r->v = nd_xrealloc(r->v, r->cap * sizeof *r->v);
            }
            e = &r->v[r->n++];
            memset(e, 0, sizeof *e);
            e->pid = p->pid;
            e->verdict = ND_PV_IDLE;
        }
        e->ppid = p->ppid;
        /* Copied only while they can still change (a process exec's early, then keeps them). */
        if (p->tracked_s < 5 || !e->cmd[0]) {
            snprintf(e->cmd, sizeof e->cmd, "%s", p->cmd[0] ? p->cmd : p->comm);
            snprintf(e->rank, sizeof e->rank, "%s", p->rank);
            snprintf(e->local_rank, sizeof e->local_rank, "%s", p->local_rank);
        }
        e->held_mask |= p->held_mask;
        e->frameworks |= p->frameworks;
        if (p->win_cores > e->max_win_cores)
            e->max_win_cores = p->win_cores;
        enum nd_proc_verdict v = nd_detect_proc_verdict(p);
        if (p->held_ever)
            v = ND_PV_ON_DEVICE;
        if (nd_pv_rank(v) > nd_pv_rank(e->verdict))
            e->verdict = v;
    }
}

json_t *nd_proc_registry_json(const struct nd_proc_registry *r, const struct nd_series *s)
{
    json_t *a = json_array();
    for (size_t i = 0; i < r->n; i++) {
        const struct nd_proc_seen *e = &r->v[i];
        json_t *o = json_object();
        json_object_set_new(o, "pid", json_integer(e->pid));
        json_object_set_new(o, "ppid", json_integer(e->ppid));
        json_object_set_new(o, "command", nd_json_str(e->cmd));
        json_object_set_new(o, "rank", e->rank[0] ? nd_json_str(e->rank) : json_null());
        json_object_set_new(o, "local_rank", e->local_rank[0] ? nd_json_str(e->local_rank) : json_null());
        json_object_set_new(o, "verdict", json_string(nd_proc_verdict_name(e->verdict)));
        json_t *dev = json_array();
        for (size_t d = 0; d < s->ndev && d < 32; d++) {
            if (!(e->held_mask & (1u << d)))
                continue;
            json_t *x = json_object();
            json_object_set_new(x, "vendor", json_string(s->dev[d].vendor));
            json_object_set_new(x, "index", json_integer(s->dev[d].index));
            json_array_append_new(dev, x);
        }
        json_object_set_new(o, "devices", dev);
        json_t *fw = json_array();
        for (unsigned bit = 1; bit && bit <= ND_FW_LAST; bit <<= 1)
            if ((e->frameworks & bit) && nd_framework_name(bit))
                json_array_append_new(fw, json_string(nd_framework_name(bit)));
        json_object_set_new(o, "frameworks", fw);
        json_object_set_new(o, "max_cpu_cores", json_real((double)(long)(e->max_win_cores * 100 + 0.5) / 100));
        json_array_append_new(a, o);
    }
    return a;
}

void nd_proc_registry_release(struct nd_proc_registry *r)
{
    free(r->v);
    memset(r, 0, sizeof *r);
}
