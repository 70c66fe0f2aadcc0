/* Judgements of a node's whole version set against the compatibility tables:
 * CANN against the NPU driver, torch and torch_npu against Python, torch's
 * CUDA or ROCm build against the driver and the installed toolkit. The tables
 * say which pairs are published; everything outside them is a finding with a
 * fix that names a published pair. */
#include "probe/compat_stack.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/embedded.h"
#include "core/strbuf.h"
#include "probe/pathfmt.h"

static bool nd_known(const char *s)
{
    return s && *s && strcmp(s, "-") != 0;
}

/* ---- tables ---- */

static void nd_cann_driver_row_add(char **f, void *arg)
{
    struct nd_cann_driver *t = arg;
    t->rows = nd_xrealloc(t->rows, (t->n + 1) * sizeof *t->rows);
    struct nd_cann_driver_row *r = &t->rows[t->n++];
    nd_pfmt(r->cann, sizeof r->cann, "%s", f[0]);
    nd_pfmt(r->hdk, sizeof r->hdk, "%s", f[1]);
    nd_pfmt(r->hdk_oldest, sizeof r->hdk_oldest, "%s", nd_known(f[2]) ? f[2] : "");
}

void nd_cann_driver_parse(const char *buf, size_t len, struct nd_cann_driver *t)
{
    t->rows = NULL;
    t->n = 0;
    nd_compat_tsv_each(buf, len, 3, nd_cann_driver_row_add, t);
}

void nd_cann_driver_builtin(struct nd_cann_driver *t)
{
    const struct nd_embedded_file *f = nd_embedded_find("data/cann_driver.tsv");
    nd_cann_driver_parse(f ? f->data : "", f ? f->len : 0, t);
}

void nd_cann_driver_release(struct nd_cann_driver *t)
{
    free(t->rows);
    t->rows = NULL;
    t->n = 0;
}

static void nd_torch_wheel_row_add(char **f, void *arg)
{
    struct nd_torch_wheels *t = arg;
    t->rows = nd_xrealloc(t->rows, (t->n + 1) * sizeof *t->rows);
    struct nd_torch_wheel_row *r = &t->rows[t->n++];
    nd_pfmt(r->torch, sizeof r->torch, "%s", f[0]);
    nd_pfmt(r->python_min, sizeof r->python_min, "%s", f[1]);
    nd_pfmt(r->python_max, sizeof r->python_max, "%s", f[2]);
    nd_pfmt(r->cuda, sizeof r->cuda, "%s", nd_known(f[3]) ? f[3] : "");
    nd_pfmt(r->rocm, sizeof r->rocm, "%s", nd_known(f[4]) ? f[4] : "");
    nd_pfmt(r->cuda_default, sizeof r->cuda_default, "%s", nd_known(f[5]) ? f[5] : "");
}

void nd_torch_wheels_parse(const char *buf, size_t len, struct nd_torch_wheels *t)
{
    t->rows = NULL;
    t->n = 0;
    nd_compat_tsv_each(buf, len, 3, nd_torch_wheel_row_add, t);
}

void nd_torch_wheels_builtin(struct nd_torch_wheels *t)
{
    const struct nd_embedded_file *f = nd_embedded_find("data/torch_wheels.tsv");
    nd_torch_wheels_parse(f ? f->data : "", f ? f->len : 0, t);
}

void nd_torch_wheels_release(struct nd_torch_wheels *t)
{
    free(t->rows);
    t->rows = NULL;
    t->n = 0;
}

/* Compares a driver release with a table bound on the bound's components only:
 * a patch build "24.1.rc3.b999" is release 24.1.RC3. */
static int nd_release_cmp(const char *driver, const char *bound)
{
    int comps = 1;
    for (const char *p = bound; *p; p++)
        comps += *p == '.';
    char d[64];
    nd_version_prefix(driver, comps, d, sizeof d);
    return nd_version_cmp(d, bound);
}

const struct nd_cann_driver_row *nd_cann_driver_lookup(const struct nd_cann_driver *t, const char *cann)
{
    if (!nd_known(cann))
        return NULL;
    char mm[32], rmm[32];
    nd_version_prefix(cann, 2, mm, sizeof mm);
    const struct nd_cann_driver_row *best = NULL, *oldest = NULL;
    /* "8.0.RC3.beta1" is a build of 8.0.RC3, though it sorts before it. */
    for (size_t i = 0; i < t->n; i++)
        if (nd_release_cmp(cann, t->rows[i].cann) == 0)
            return &t->rows[i];
    for (size_t i = 0; i < t->n; i++) {
        nd_version_prefix(t->rows[i].cann, 2, rmm, sizeof rmm);
        if (strcasecmp(rmm, mm) != 0)
            continue;
        if (nd_version_cmp(t->rows[i].cann, cann) <= 0 && (!best || nd_version_cmp(t->rows[i].cann, best->cann) > 0))
            best = &t->rows[i];
        if (!oldest || nd_version_cmp(t->rows[i].cann, oldest->cann) < 0)
            oldest = &t->rows[i];
    }
    return best ? best : oldest;
}

const struct nd_torch_wheel_row *nd_torch_wheels_lookup(const struct nd_torch_wheels *t, const char *torch)
{
    if (!nd_known(torch))
        return NULL;
    char mm[32];
    nd_version_prefix(torch, 2, mm, sizeof mm);
    for (size_t i = 0; i < t->n; i++)
        if (nd_version_cmp(t->rows[i].torch, mm) == 0)
            return &t->rows[i];
    return NULL;
}

/* Calls fn for each space-separated entry of list; stops when fn returns true. */
static bool nd_list_each(const char *list, bool (*fn)(const char *entry, void *arg), void *arg)
{
    char buf[128];
    nd_pfmt(buf, sizeof buf, "%s", list ? list : "");
    char *save = NULL;
    for (char *e = strtok_r(buf, " ,", &save); e; e = strtok_r(NULL, " ,", &save))
        if (fn(e, arg))
            return true;
    return false;
}

static bool nd_list_eq(const char *entry, void *arg)
{
    return nd_version_cmp(entry, arg) == 0;
}

bool nd_compat_list_has(const char *list, const char *v)
{
    return nd_known(v) && nd_list_each(list, nd_list_eq, (void *)v);
}

struct nd_list_best {
    const char *max;
    char best[32];
};

static bool nd_list_best_fn(const char *entry, void *arg)
{
    struct nd_list_best *b = arg;
    if (nd_version_cmp(entry, b->max) <= 0 && (!b->best[0] || nd_version_cmp(entry, b->best) > 0))
        nd_pfmt(b->best, sizeof b->best, "%s", entry);
    return false;
}

void nd_compat_list_best(const char *list, const char *max, char *out, size_t size)
{
    struct nd_list_best b = {max, ""};
    if (nd_known(max))
        nd_list_each(list, nd_list_best_fn, &b);
    nd_pfmt(out, size, "%s", b.best);
}

bool nd_compat_local_cuda(const char *local, char *out, size_t size)
{
    nd_pfmt(out, size, "%s", "");
    if (!local || strncmp(local, "cu", 2) != 0)
        return false;
    const char *d = local + 2;
    size_t n = strspn(d, "0123456789");
    if (n < 2 || n > 4 || d[n])
        return false;
    /* The last digit is the minor: cu118 -> 11.8, cu92 -> 9.2, cu130 -> 13.0. */
    nd_pfmt(out, size, "%.*s.%c", (int)(n - 1), d, d[n - 1]);
    return true;
}

bool nd_compat_local_rocm(const char *local, char *out, size_t size)
{
    nd_pfmt(out, size, "%s", "");
    if (!local || strncmp(local, "rocm", 4) != 0 || !isdigit((unsigned char)local[4]))
        return false;
    nd_pfmt(out, size, "%s", local + 4);
    return true;
}

/* ---- judgements ---- */

int nd_compat_judge_cann_driver(const struct nd_cann_driver *t, const char *cann, const char *driver,
                                struct nd_findings *out)
{
    if (!nd_known(cann) || !nd_known(driver))
        return 0;
    const struct nd_cann_driver_row *r = nd_cann_driver_lookup(t, cann);
    if (!r)
        return 0;
    char dmm[32], hmm[32];
    nd_version_prefix(driver, 2, dmm, sizeof dmm);
    nd_version_prefix(r->hdk, 2, hmm, sizeof hmm);
    bool older = r->hdk_oldest[0] ? nd_release_cmp(driver, r->hdk_oldest) < 0 : nd_release_cmp(driver, r->hdk) < 0;
    bool newer = nd_version_cmp(dmm, hmm) > 0;
    if (!older && !newer)
        return 0;
    bool error = older && r->hdk_oldest[0];
    struct nd_finding *f;
    if (older)
        f = nd_findings_add(out, "compat.cann-driver", ND_CAT_VERSION_MISMATCH, error ? ND_SEV_ERROR : ND_SEV_WARNING,
                            "NPU driver %s is older than CANN %s supports (Ascend HDK %s%s%s)", driver, cann,
                            r->hdk_oldest[0] ? r->hdk_oldest : r->hdk, r->hdk_oldest[0] ? " to " : "",
                            r->hdk_oldest[0] ? r->hdk : "");
    else
        /* Drivers run older toolkits for a while past the published window: a year's
         * difference is a note, two or more a warning. */
        f = nd_findings_add(out, "compat.cann-driver", ND_CAT_VERSION_MISMATCH,
                            atol(dmm) - atol(hmm) >= 2 ? ND_SEV_WARNING : ND_SEV_INFO,
                            "NPU driver %s is newer than every Ascend HDK release CANN %s is published with (up to %s)",
                            driver, cann, r->hdk);
    nd_finding_add_evidence(f, NULL, 0, "CANN %s, NPU driver %s", cann, driver);
    nd_finding_add_evidence(f, NULL, 0, "CANN %s is published with Ascend HDK %s%s%s", r->cann, r->hdk,
                            r->hdk_oldest[0] ? "; oldest supported " : "", r->hdk_oldest);
    f->confidence = error ? ND_CONF_HIGH : older ? ND_CONF_MEDIUM : ND_CONF_LOW;
    nd_finding_set_cause(f, older ? "The toolkit calls driver interfaces that an older driver lacks: aclInit, device "
                                    "set-up or the first kernel launch fail (often as error 507899 or EE9999)."
                                  : "Each CANN release is validated against a window of driver releases; outside it "
                                    "runtime and driver disagree on interfaces.");
    if (older)
        nd_finding_add_fix(f, "upgrade the NPU driver and firmware to Ascend HDK %s (then reboot)", r->hdk);
    else
        nd_finding_add_fix(f, "install the CANN release published with driver %s", dmm);
    /* The newest CANN whose published window holds this driver. */
    const struct nd_cann_driver_row *fit = NULL;
    for (size_t i = 0; i < t->n; i++) {
        const struct nd_cann_driver_row *c = &t->rows[i];
        char cmm[32];
        nd_version_prefix(c->hdk, 2, cmm, sizeof cmm);
        if (c->hdk_oldest[0] && nd_release_cmp(driver, c->hdk_oldest) >= 0 && nd_version_cmp(dmm, cmm) <= 0 &&
            (!fit || nd_version_cmp(c->cann, fit->cann) > 0))
            fit = c;
    }
    if (fit)
        nd_finding_add_fix(f, "or install CANN %s, the newest release that supports driver %s", fit->cann, driver);
    return 1;
}

/* "3.9-3.11" -> lo, hi. */
static bool nd_range_split(const char *range, char *lo, size_t los, char *hi, size_t his)
{
    const char *dash = range ? strchr(range, '-') : NULL;
    if (!dash || dash == range || !dash[1])
        return false;
    nd_pfmt(lo, los, "%.*s", (int)(dash - range), range);
    nd_pfmt(hi, his, "%s", dash + 1);
    return true;
}

static bool nd_python_in(const char *python, const char *lo, const char *hi)
{
    char mm[32];
    nd_version_prefix(python, 2, mm, sizeof mm);
    return nd_version_cmp(mm, lo) >= 0 && nd_version_cmp(mm, hi) <= 0;
}

int nd_compat_judge_torch_python(const struct nd_torch_wheels *t, const char *torch, const char *python,
                                 struct nd_findings *out)
{
    const struct nd_torch_wheel_row *r = nd_torch_wheels_lookup(t, torch);
    if (!r || !nd_known(python) || nd_python_in(python, r->python_min, r->python_max))
        return 0;
    struct nd_finding *f = nd_findings_add(out, "compat.torch-python", ND_CAT_VERSION_MISMATCH, ND_SEV_WARNING,
                                           "torch %s publishes wheels for Python %s to %s, not for Python %s", torch,
                                           r->python_min, r->python_max, python);
    nd_finding_add_evidence(f, NULL, 0, "torch %s, Python %s", torch, python);
    f->confidence = ND_CONF_MEDIUM;
    nd_finding_set_cause(f, "A torch wheel contains extension modules for one CPython ABI: one copied from another "
                            "environment or built elsewhere fails to import or misbehaves.");
    nd_finding_add_fix(f, "use Python %s to %s for torch %s, or install a torch release built for Python %s",
                       r->python_min, r->python_max, r->torch, python);
    return 1;
}

int nd_compat_judge_npu_python(const struct nd_npu_compat *t, const char *torch_npu, const char *python,
                               struct nd_findings *out)
{
    if (!nd_known(torch_npu) || !nd_known(python))
        return 0;
    const struct nd_npu_compat_row *row = NULL;
    for (size_t i = 0; i < t->n && !row; i++)
        if (t->rows[i].python[0] && nd_version_cmp(t->rows[i].torch_npu, torch_npu) == 0)
            row = &t->rows[i];
    char lo[16], hi[16];
    if (!row || !nd_range_split(row->python, lo, sizeof lo, hi, sizeof hi) || nd_python_in(python, lo, hi))
        return 0;
    struct nd_finding *f = nd_findings_add(out, "compat.torch-npu-python", ND_CAT_VERSION_MISMATCH, ND_SEV_WARNING,
                                           "torch_npu %s is published for Python %s to %s, not for Python %s",
                                           torch_npu, lo, hi, python);
    nd_finding_add_evidence(f, NULL, 0, "torch_npu %s, Python %s", torch_npu, python);
    f->confidence = ND_CONF_MEDIUM;
    nd_finding_set_cause(f, "torch_npu ships compiled modules for a few CPython versions only; under another "
                            "interpreter the import fails.");
    nd_finding_add_fix(f, "create the environment with Python %s (conda create -n npu python=%s)", hi, hi);
    return 1;
}

/* The pip command for a CUDA build of this torch release. */
static void nd_fix_torch_build(struct nd_finding *f, const char *torch, const char *cuda)
{
    char digits[16] = "";
    size_t k = 0;
    for (const char *p = cuda; *p && k + 1 < sizeof digits; p++)
        if (isdigit((unsigned char)*p))
            digits[k++] = *p;
    digits[k] = '\0';
    char base[40];
    nd_version_base(torch, base, sizeof base);
    nd_finding_add_fix(f,
                       "or install torch %s built for CUDA %s: pip install torch==%s --index-url "
                       "https://download.pytorch.org/whl/cu%s",
                       base, cuda, base, digits);
}

int nd_compat_judge_torch_cuda(const struct nd_cuda_compat *ct, const struct nd_torch_wheels *wt, const char *torch,
                               const char *torch_cuda, const char *driver_version, const char *driver_cuda,
                               struct nd_findings *out)
{
    size_t mark = out->n;
    int added = nd_compat_judge_cuda(ct, torch_cuda, driver_version, driver_cuda, out);
    const struct nd_torch_wheel_row *r = nd_torch_wheels_lookup(wt, torch);
    if (!added || !r || !r->cuda[0])
        return added;
    struct nd_finding *f = out->v[mark];
    char dc[32] = "", best[32];
    if (nd_known(driver_cuda))
        nd_pfmt(dc, sizeof dc, "%s", driver_cuda);
    else
        nd_cuda_for_driver(ct, driver_version, dc, sizeof dc);
    nd_compat_list_best(r->cuda, dc, best, sizeof best);
    /* Replace the generic "cu<driver's CUDA>" advice: that index may not exist for this release. */
    for (size_t i = 0; i < f->nfix; i++)
        if (strstr(f->fix[i], "download.pytorch.org")) {
            free(f->fix[i]);
            memmove(&f->fix[i], &f->fix[i + 1], (f->nfix - i - 1) * sizeof *f->fix);
            f->nfix--;
            break;
        }
    if (best[0])
        nd_fix_torch_build(f, torch, best);
    else
        nd_finding_add_fix(f, "torch %s publishes CUDA builds %s only: update the driver", r->torch, r->cuda);
    return added;
}

int nd_compat_judge_cuda_toolkit(const struct nd_cuda_compat *t, const struct nd_torch_wheels *wt, const char *toolkit,
                                 const char *torch, const char *torch_cuda, const char *driver_version,
                                 const char *driver_cuda, struct nd_findings *out)
{
    if (!nd_known(toolkit))
        return 0;
    int added = 0;
    char tk[32], dc[32] = "";
    nd_version_prefix(toolkit, 2, tk, sizeof tk);
    if (nd_known(driver_cuda))
        nd_pfmt(dc, sizeof dc, "%s", driver_cuda);
    else if (nd_known(driver_version))
        nd_cuda_for_driver(t, driver_version, dc, sizeof dc);
    if (dc[0] && nd_version_cmp(tk, dc) > 0) {
        const struct nd_cuda_compat_row *row = NULL;
        for (size_t i = 0; i < t->n; i++)
            if (nd_version_cmp(t->rows[i].cuda, tk) == 0)
                row = &t->rows[i];
        char tmaj[16], dmaj[16];
        nd_version_prefix(tk, 1, tmaj, sizeof tmaj);
        nd_version_prefix(dc, 1, dmaj, sizeof dmaj);
        bool minor = row && nd_known(driver_version) && strcmp(tmaj, dmaj) == 0 &&
                     nd_version_cmp(driver_version, row->family_min) >= 0;
        struct nd_finding *f = nd_findings_add(
            out, "compat.cuda-toolkit-driver", ND_CAT_VERSION_MISMATCH, minor ? ND_SEV_WARNING : ND_SEV_ERROR,
            "the CUDA toolkit is %s, but the NVIDIA driver%s%s supports CUDA %s at most", toolkit,
            nd_known(driver_version) ? " " : "", nd_known(driver_version) ? driver_version : "", dc);
        nd_finding_add_evidence(f, NULL, 0, "CUDA toolkit %s, driver CUDA %s", toolkit, dc);
        f->confidence = ND_CONF_HIGH;
        nd_finding_set_cause(f, minor
                                    ? "Programs built with this nvcc run only through minor-version compatibility: "
                                      "PTX JIT and newer driver APIs fail."
                                    : "Programs and extensions built with this nvcc fail with 'CUDA driver version is "
                                      "insufficient for CUDA runtime version'.");
        if (row)
            nd_finding_add_fix(f, "update the NVIDIA driver to %s or newer", row->min_driver);
        nd_finding_add_fix(f, "or use the CUDA %s toolkit that the driver runs (export CUDA_HOME=/usr/local/cuda-%s)",
                           dc, dc);
        added++;
    }
    if (nd_known(torch_cuda)) {
        char tmaj[16], pmaj[16], pt[32];
        nd_version_prefix(tk, 1, tmaj, sizeof tmaj);
        nd_version_prefix(torch_cuda, 1, pmaj, sizeof pmaj);
        nd_version_prefix(torch_cuda, 2, pt, sizeof pt);
        if (strcmp(tmaj, pmaj) != 0) {
            struct nd_finding *f = nd_findings_add(out, "compat.cuda-toolkit-torch", ND_CAT_VERSION_MISMATCH,
                                                   ND_SEV_WARNING,
                                                   "the CUDA toolkit is %s, but torch is built for CUDA %s", toolkit, pt);
            nd_finding_add_evidence(f, NULL, 0, "CUDA toolkit %s, torch CUDA %s", toolkit, torch_cuda);
            f->confidence = ND_CONF_HIGH;
            nd_finding_set_cause(f, "torch.utils.cpp_extension refuses to build against a toolkit of another CUDA "
                                    "major (\"The detected CUDA version mismatches the version that was used to "
                                    "compile PyTorch\"): apex, flash-attn and DeepSpeed ops do not build.");
            nd_finding_add_fix(f, "install the CUDA %s toolkit and export CUDA_HOME=/usr/local/cuda-%s", pt, pt);
            if (wt) {
                const struct nd_torch_wheel_row *r = nd_torch_wheels_lookup(wt, torch);
                char best[32] = "";
                if (r)
                    nd_compat_list_best(r->cuda, tk, best, sizeof best);
                char bmaj[16];
                nd_version_prefix(best, 1, bmaj, sizeof bmaj);
                if (best[0] && strcmp(bmaj, tmaj) == 0)
                    nd_fix_torch_build(f, torch, best);
            }
            added++;
        }
    }
    return added;
}

int nd_compat_judge_rocm(const struct nd_torch_wheels *t, const char *torch, const char *rocm, struct nd_findings *out)
{
    char built[32];
    if (!nd_known(torch) || !nd_compat_local_rocm(nd_version_local(torch), built, sizeof built))
        return 0;
    const struct nd_torch_wheel_row *r = nd_torch_wheels_lookup(t, torch);
    if (nd_known(rocm)) {
        char have[32], want[32];
        nd_version_prefix(rocm, 2, have, sizeof have);
        nd_version_prefix(built, 2, want, sizeof want);
        if (nd_version_cmp(have, want) != 0) {
            struct nd_finding *f = nd_findings_add(out, "compat.torch-rocm", ND_CAT_VERSION_MISMATCH, ND_SEV_WARNING,
                                                   "torch %s is built for ROCm %s, but ROCm %s is installed", torch,
                                                   built, rocm);
            nd_finding_add_evidence(f, NULL, 0, "torch %s, /opt/rocm %s", torch, rocm);
            f->confidence = ND_CONF_MEDIUM;
            nd_finding_set_cause(f, "The wheel brings its own ROCm libraries, but extensions built with the "
                                    "installed hipcc and a kernel driver of another release do not match them.");
            char best[32] = "";
            if (r)
                nd_compat_list_best(r->rocm, have, best, sizeof best);
            if (best[0])
                nd_finding_add_fix(f, "pip install torch --index-url https://download.pytorch.org/whl/rocm%s", best);
            else
                nd_finding_add_fix(f, "install ROCm %s, or a torch build for ROCm %s", built, have);
            return 1;
        }
    }
    if (r && r->rocm[0] && !nd_compat_list_has(r->rocm, built)) {
        struct nd_finding *f = nd_findings_add(out, "compat.torch-rocm", ND_CAT_VERSION_MISMATCH, ND_SEV_INFO,
                                               "torch %s: PyTorch publishes ROCm builds %s of %s, not ROCm %s", torch,
                                               r->rocm, r->torch, built);
        nd_finding_add_evidence(f, NULL, 0, "torch %s", torch);
        f->confidence = ND_CONF_LOW;
        nd_finding_add_fix(f, "prefer a published build: pip install torch --index-url "
                              "https://download.pytorch.org/whl/rocm<version>");
        return 1;
    }
    return 0;
}

int nd_compat_judge_torch_cann(const struct nd_npu_compat *t, const char *torch, const char *cann, struct nd_findings *out)
{
    if (!nd_known(torch) || !nd_known(cann))
        return 0;
    char want[40], mm[32], rmm[32];
    nd_version_prefix(torch, 3, want, sizeof want);
    nd_version_prefix(cann, 2, mm, sizeof mm);
    const char *oldest = NULL, *newest = NULL;
    struct nd_strbuf list;
    nd_strbuf_init(&list);
    for (size_t i = 0; i < t->n; i++) {
        const struct nd_npu_compat_row *r = &t->rows[i];
        char rt[40];
        nd_version_prefix(r->torch, 3, rt, sizeof rt);
        if (nd_version_cmp(rt, want) != 0)
            continue;
        nd_version_prefix(r->cann, 2, rmm, sizeof rmm);
        if (strcmp(rmm, mm) == 0 && nd_version_cmp(cann, r->cann) >= 0) {
            nd_strbuf_release(&list);
            return 0; /* a listed pairing */
        }
        if (!oldest || nd_version_cmp(r->cann, oldest) < 0)
            oldest = r->cann;
        if (!newest || nd_version_cmp(r->cann, newest) > 0)
            newest = r->cann;
        nd_strbuf_addf(&list, "%s%s (torch_npu %s)", list.len ? ", " : "", r->cann, r->torch_npu);
    }
    if (!oldest) {
        nd_strbuf_release(&list);
        return 0; /* a torch the table does not know */
    }
    bool older = nd_version_cmp(cann, oldest) < 0;
    struct nd_finding *f = nd_findings_add(
        out, "compat.torch-cann", ND_CAT_VERSION_MISMATCH, older ? ND_SEV_ERROR : ND_SEV_WARNING,
        "torch %s is paired with CANN %s%s%s, not with CANN %s", want, oldest, strcmp(oldest, newest) ? " to " : "",
        strcmp(oldest, newest) ? newest : "", cann);
    nd_finding_add_evidence(f, NULL, 0, "torch %s, CANN %s", torch, cann);
    nd_finding_add_evidence(f, NULL, 0, "listed pairings: %s", list.buf);
    f->confidence = older ? ND_CONF_HIGH : ND_CONF_MEDIUM;
    nd_finding_set_cause(f, older ? "Every torch_npu built for this torch needs a newer CANN: the import or the first "
                                    "operator fails."
                                  : "No torch_npu for this torch is published for this CANN release.");
    nd_finding_add_fix(f, "install CANN %s with the torch_npu built for torch %s", newest, want);
    nd_strbuf_release(&list);
    return 1;
}

int nd_compat_judge_set(const struct nd_version_set *v, struct nd_findings *out)
{
    struct nd_npu_compat nt;
    struct nd_cuda_compat ct;
    struct nd_cann_driver dt;
    struct nd_torch_wheels wt;
    nd_npu_compat_builtin(&nt);
    nd_cuda_compat_builtin(&ct);
    nd_cann_driver_builtin(&dt);
    nd_torch_wheels_builtin(&wt);
    int added = 0;
    if (nd_known(v->torch_npu))
        added += nd_compat_judge_npu(&nt, v->torch, v->torch_npu, v->cann, out);
    else if (v->ascend_torch)
        added += nd_compat_judge_torch_cann(&nt, v->torch, v->cann, out);
    added += nd_compat_judge_cann_driver(&dt, v->cann, v->npu_driver, out);
    added += nd_compat_judge_torch_python(&wt, v->torch, v->python, out);
    added += nd_compat_judge_npu_python(&nt, v->torch_npu, v->python, out);
    if (nd_known(v->torch_cuda) && (nd_known(v->nvidia_driver) || nd_known(v->driver_cuda)))
        added += nd_compat_judge_torch_cuda(&ct, &wt, v->torch, v->torch_cuda, v->nvidia_driver, v->driver_cuda, out);
    added += nd_compat_judge_cuda_toolkit(&ct, &wt, v->cuda_toolkit, v->torch, v->torch_cuda, v->nvidia_driver,
                                          v->driver_cuda, out);
    added += nd_compat_judge_rocm(&wt, v->torch, v->rocm, out);
    nd_npu_compat_release(&nt);
    nd_cuda_compat_release(&ct);
    nd_cann_driver_release(&dt);
    nd_torch_wheels_release(&wt);
    return added;
}
