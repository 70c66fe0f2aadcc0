/* Verdicts for `ps`: on a device, computing on the CPU, or idle, with one
 * line of text a user can paste; and the finding that devices idle while a
 * CPU-bound ML process holds none. No I/O here: facts in, words out. */
#include <stdio.h>
#include <string.h>

#include "core/fileio.h"
#include "device/device.h"
#include "proc/verdict.h"

const char *nd_verdict_name(enum nd_verdict v)
{
    switch (v) {
    case ND_VERDICT_ON_DEVICE: return "on-device";
    case ND_VERDICT_CPU_ONLY: return "cpu-only";
    default: return "idle";
    }
}

const char *nd_verdict_device_word(const char *vendor)
{
    return nd_vendor_word(vendor);
}

bool nd_footprint_device_mem(const struct nd_footprint *fp, uint64_t *bytes)
{
    bool any = false;
    uint64_t sum = 0;
    for (size_t i = 0; i < fp->nheld && i < ND_FOOTPRINT_MAX_HELD; i++) {
        if (fp->held[i].index < 0 || !fp->held[i].mem_valid)
            continue;
        sum += fp->held[i].mem_bytes;
        any = true;
    }
    *bytes = sum;
    return any;
}

/* Appends with snprintf semantics, never past size. */
static void nd_append(char *buf, size_t size, size_t *len, const char *fmt, const char *a, int n)
{
    if (*len >= size)
        return;
    int w = snprintf(buf + *len, size - *len, fmt, a, n);
    if (w > 0)
        *len = (size_t)w >= size - *len ? size - 1 : *len + (size_t)w;
}

void nd_footprint_devices_text(const struct nd_footprint *fp, char *buf, size_t size)
{
    if (!buf || size == 0)
        return;
    buf[0] = '\0';
    size_t len = 0;
    size_t n = fp->nheld < ND_FOOTPRINT_MAX_HELD ? fp->nheld : ND_FOOTPRINT_MAX_HELD;
    bool done[ND_FOOTPRINT_MAX_HELD] = {false};
    /* Group by vendor: "npu:0,1 gpu:3". */
    for (size_t i = 0; i < n; i++) {
        if (done[i] || fp->held[i].index < 0)
            continue;
        nd_append(buf, size, &len, len ? " %s:%d" : "%s:%d", nd_verdict_device_word(fp->held[i].vendor),
                  fp->held[i].index);
        done[i] = true;
        for (size_t j = i + 1; j < n; j++) {
            if (done[j] || fp->held[j].index < 0 || strcmp(fp->held[j].vendor, fp->held[i].vendor) != 0)
                continue;
            nd_append(buf, size, &len, "%s%d", ",", fp->held[j].index);
            done[j] = true;
        }
    }
}

static bool nd_have_devices(const struct nd_device_state *const *states, size_t nstates, const char *vendor)
{
    for (size_t i = 0; i < nstates; i++)
        if (states && states[i] && states[i]->status == 0 && states[i]->ndevices > 0 &&
            strcmp(states[i]->vendor, vendor) == 0)
            return true;
    return false;
}

/* "torch loaded", "torch_npu loaded", "torch loaded but not torch_npu". */
static void nd_frameworks_phrase(unsigned fw, const struct nd_device_state *const *states, size_t nstates, char *buf,
                                 size_t size)
{
    buf[0] = '\0';
    /* A torch backend for a device: "torch_npu loaded", "libtorch_cuda loaded". */
    for (size_t i = 0; nd_vendors[i]; i++)
        if (fw & nd_vendors[i]->torch_backend) {
            snprintf(buf, size, "%s loaded", nd_vendors[i]->torch_backend_text);
            return;
        }
    if (fw & (ND_FW_TORCH | ND_FW_TORCH_CPU)) {
        /* Plain torch on a host with devices: name the backend it lacks. */
        const char *missing = NULL;
        for (size_t i = 0; nd_vendors[i] && !missing; i++)
            if (nd_have_devices(states, nstates, nd_vendors[i]->name))
                missing = nd_vendors[i]->torch_backend_text;
        snprintf(buf, size, "torch loaded%s%s", missing ? " but not " : "", missing ? missing : "");
    } else if (fw & ND_FW_ML_MASK) {
        char names[128];
        nd_frameworks_describe(fw & ND_FW_ML_MASK, names, sizeof names);
        snprintf(buf, size, "%s loaded", names);
    }
}

/* "3.8" but "0.02": a small figure must not print as 0.0 cores busy. */
static void nd_cores_text(double cores, char *buf, size_t size)
{
    snprintf(buf, size, cores >= 0.095 || cores <= 0 ? "%.1f" : "%.2f", cores);
}

static double nd_busy(double busy_cores)
{
    return busy_cores > 0 ? busy_cores : ND_VERDICT_BUSY_CORES;
}

enum nd_verdict nd_verdict_judge(const struct nd_proc_facts *p, const struct nd_device_state *const *states,
                                 size_t nstates, double busy_cores, char *buf, size_t size)
{
    char fw[160], dev[128];
    nd_frameworks_phrase(p->fp.frameworks, states, nstates, fw, sizeof fw);
    if (p->fp.holds_device) {
        nd_footprint_devices_text(&p->fp, dev, sizeof dev);
        uint64_t mem;
        if (nd_footprint_device_mem(&p->fp, &mem)) {
            char m[32];
            nd_format_bytes(mem, m, sizeof m);
            snprintf(buf, size, "%s (%s)", dev, m);
        } else {
            snprintf(buf, size, "%s", dev);
        }
        return ND_VERDICT_ON_DEVICE;
    }
    bool ml = (p->fp.frameworks & ND_FW_ML_MASK) != 0;
    const char *held = p->fp.control_only ? "control node open, no device held" : "no device held";
    if ((p->cpu_valid && p->cpu_cores >= nd_busy(busy_cores)) || nd_verdict_cpu_bound(p, busy_cores)) {
        char cores[32];
        nd_cores_text(p->cpu_cores, cores, sizeof cores);
        if (ml)
            snprintf(buf, size, "CPU only: %s cores busy, %s, %s", cores, fw, held);
        else if (p->fp.control_only)
            snprintf(buf, size, "CPU only: %s cores busy, %s", cores, held);
        else
            snprintf(buf, size, "CPU: %s cores busy", cores);
        return ND_VERDICT_CPU_ONLY;
    }
    if (ml)
        snprintf(buf, size, "idle: %s, %s", fw, held);
    else if (p->fp.control_only)
        snprintf(buf, size, "idle: %s", held);
    else
        snprintf(buf, size, "idle");
    return ND_VERDICT_IDLE;
}

bool nd_verdict_interesting(const struct nd_proc_facts *p, double busy_cores)
{
    return p->fp.holds_device || p->fp.control_only || (p->fp.frameworks & ND_FW_ML_MASK) ||
           (p->cpu_valid && p->cpu_cores >= nd_busy(busy_cores)) || nd_verdict_cpu_bound(p, busy_cores);
}

/* Every device of the state known to be idle (a device with unknown
 * utilisation makes the whole vendor unknown: no claim). */
static bool nd_state_idle(const struct nd_device_state *st, const struct nd_proc_facts *procs, size_t nprocs)
{
    if (st->status != 0 || st->ndevices == 0)
        return false;
    size_t nd = st->ndevices < ND_MAX_DEVICES ? st->ndevices : ND_MAX_DEVICES;
    for (size_t i = 0; i < nd; i++)
        if (!st->devices[i].util_valid || st->devices[i].util_pct > ND_VERDICT_IDLE_UTIL_PCT)
            return false;
    /* Anyone on the vendor's list uses a device, listed by us or not
     * (ps --pid, --user); the memory in use alone says nothing: an idle
     * device holds a baseline for firmware and reserves. */
    if (st->procs_valid && st->nprocs > 0)
        return false;
    for (size_t i = 0; i < nprocs; i++)
        for (size_t h = 0; h < procs[i].fp.nheld && h < ND_FOOTPRINT_MAX_HELD; h++)
            if (procs[i].fp.held[h].index >= 0 && strcmp(procs[i].fp.held[h].vendor, st->vendor) == 0)
                return false;
    return true;
}

bool nd_verdict_cpu_bound(const struct nd_proc_facts *p, double busy_cores)
{
    if (p->fp.holds_device || !(p->fp.frameworks & ND_FW_ML_MASK) || !p->cpu_valid)
        return false;
    double busy = nd_busy(busy_cores);
    if (p->cpu_cores >= busy)
        return true;
    if (p->runnable_valid && p->runnable_frac >= ND_VERDICT_RUNNABLE && p->cpu_cores > 0)
        return true;
    return p->cpu_cores >= busy / 2 && p->life_valid && p->life_cores >= busy;
}

static bool nd_cpu_bound_ml(const struct nd_proc_facts *p, double busy_cores)
{
    return nd_verdict_cpu_bound(p, busy_cores);
}

void nd_verdict_findings(const struct nd_proc_facts *procs, size_t nprocs, const struct nd_device_state *const *states,
                         size_t nstates, double busy_cores, struct nd_findings *out)
{
    size_t nbound = 0;
    const struct nd_proc_facts *first = NULL;
    unsigned fw_union = 0;
    for (size_t i = 0; i < nprocs; i++)
        if (nd_cpu_bound_ml(&procs[i], busy_cores)) {
            if (!first || procs[i].cpu_cores > first->cpu_cores)
                first = &procs[i];
            fw_union |= procs[i].fp.frameworks;
            nbound++;
        }
    if (!first)
        return;
    for (size_t s = 0; s < nstates; s++) {
        const struct nd_device_state *st = states ? states[s] : NULL;
        if (!st || !nd_state_idle(st, procs, nprocs))
            continue;
        const struct nd_vendor *v = nd_vendor_by_name(st->vendor);
        if (!v)
            continue;
        const char *word = v->device_noun;
        struct nd_finding *f;
        if (nbound == 1)
            f = nd_findings_add(out, "ps.devices-idle-cpu-job", ND_CAT_CPU_FALLBACK, ND_SEV_WARNING,
                                "%zu %s%s idle while PID %d computes on the CPU (%.1f cores) without holding one",
                                st->ndevices, word, st->ndevices == 1 ? "" : "s", (int)first->pid, first->cpu_cores);
        else
            f = nd_findings_add(out, "ps.devices-idle-cpu-job", ND_CAT_CPU_FALLBACK, ND_SEV_WARNING,
                                "%zu %s%s idle while %zu ML processes compute on the CPU without holding one",
                                st->ndevices, word, st->ndevices == 1 ? "" : "s", nbound);
        bool torch_without_backend = (fw_union & (ND_FW_TORCH | ND_FW_TORCH_CPU)) && !(fw_union & v->torch_backend);
        f->confidence = torch_without_backend ? ND_CONF_HIGH : ND_CONF_MEDIUM;
        for (size_t i = 0; i < nprocs; i++) {
            if (!nd_cpu_bound_ml(&procs[i], busy_cores))
                continue;
            char text[256];
            nd_verdict_judge(&procs[i], states, nstates, busy_cores, text, sizeof text);
            nd_finding_add_evidence(f, NULL, 0, "PID %d (%s): %s", (int)procs[i].pid,
                                    procs[i].command ? procs[i].command : "?", text);
        }
        size_t nd = st->ndevices < ND_MAX_DEVICES ? st->ndevices : ND_MAX_DEVICES;
        unsigned maxu = 0;
        for (size_t i = 0; i < nd; i++)
            if (st->devices[i].util_pct > maxu)
                maxu = st->devices[i].util_pct;
        nd_finding_add_evidence(f, NULL, 0, "%zu %s device%s (%s), utilisation at most %u%%, no process holds one",
                                st->ndevices, st->vendor, st->ndevices == 1 ? "" : "s",
                                st->devices[0].name[0] ? st->devices[0].name : "?", maxu);
        if (torch_without_backend)
            nd_finding_set_cause(f,
                                 "The job computes on the CPU: torch is loaded but %s is not (a CPU-only torch "
                                 "build), so no tensor can reach the %s.",
                                 v->torch_backend_text, v->device_noun);
        else
            nd_finding_set_cause(f,
                                 "The job computes on the CPU: it never opened a%s %s (%s hides them, or the "
                                 "model and tensors are never moved), so they stay in host memory.",
                                 v->device_noun[0] == 'N' ? "n" : "", v->device_noun,
                                 v->visible_env && v->visible_env[0] ? v->visible_env[0] : "a visible-devices list");
        nd_finding_add_fix(f, "npu-doctor check --env-from %d   # what the job's own environment lacks", (int)first->pid);
        nd_finding_add_fix(f, "%s   # in the job's environment: must print True", v->torch_check);
        nd_finding_add_fix(f, "move the model and inputs: model.to('%s:0')", v->torch_device);
        return; /* one finding: the first idle vendor tells the story */
    }
}
