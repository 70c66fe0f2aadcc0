/* Version comparison and the compatibility tables: torch_npu <-> torch <->
 * CANN from data/torch_npu_compat.tsv, torch's CUDA <-> the driver from
 * data/cuda_driver.tsv. Pure: strings in, findings out. */
#include "probe/compat.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/embedded.h"
#include "core/strbuf.h"
#include "probe/pathfmt.h"

#define ND_VER_MAX_COMPS 8

struct nd_ver_comp {
    long num;
    bool pre; /* a pre-release (rc, alpha, beta, a, b, dev): below the plain number */
    long pre_num;
};

struct nd_ver {
    struct nd_ver_comp c[ND_VER_MAX_COMPS];
    int n;
    long post; /* -1 when none */
};

static long nd_digits(const char **p)
{
    long v = 0;
    while (isdigit((unsigned char)**p)) {
        if (v < 100000000)
            v = v * 10 + (**p - '0');
        (*p)++;
    }
    return v;
}

/* Applies an alphabetic label ("rc1", "post2", "a0") at *p to the version. */
static void nd_ver_label(struct nd_ver *v, const char *p, bool new_comp)
{
    if (strncasecmp(p, "post", 4) == 0) {
        p += 4;
        v->post = nd_digits(&p);
        return;
    }
    while (isalpha((unsigned char)*p))
        p++;
    long n = isdigit((unsigned char)*p) ? nd_digits(&p) : 0;
    if (new_comp || v->n == 0) {
        if (v->n == ND_VER_MAX_COMPS)
            return;
        v->c[v->n].num = 0;
        v->n++;
    }
    v->c[v->n - 1].pre = true;
    v->c[v->n - 1].pre_num = n;
}

static void nd_ver_parse(const char *s, struct nd_ver *v)
{
    memset(v, 0, sizeof *v);
    v->post = -1;
    if (!s)
        return;
    const char *p = s;
    while (*p && *p != '+') {
        if (*p == '.' || *p == '-' || *p == '_' || isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        if (isdigit((unsigned char)*p)) {
            long num = nd_digits(&p);
            if (v->n < ND_VER_MAX_COMPS) {
                v->c[v->n].num = num;
                v->n++;
            }
            if (isalpha((unsigned char)*p))
                nd_ver_label(v, p, false);
        } else if (isalpha((unsigned char)*p)) {
            nd_ver_label(v, p, true);
        } else {
            p++;
            continue;
        }
        while (*p && *p != '.' && *p != '-' && *p != '_' && *p != '+')
            p++;
    }
}

int nd_version_cmp(const char *a, const char *b)
{
    struct nd_ver va, vb;
    nd_ver_parse(a, &va);
    nd_ver_parse(b, &vb);
    int n = va.n > vb.n ? va.n : vb.n;
    for (int i = 0; i < n; i++) {
        struct nd_ver_comp ca = i < va.n ? va.c[i] : (struct nd_ver_comp){0, false, 0};
        struct nd_ver_comp cb = i < vb.n ? vb.c[i] : (struct nd_ver_comp){0, false, 0};
        if (ca.num != cb.num)
            return ca.num < cb.num ? -1 : 1;
        if (ca.pre != cb.pre)
            return ca.pre ? -1 : 1;
        if (ca.pre && ca.pre_num != cb.pre_num)
            return ca.pre_num < cb.pre_num ? -1 : 1;
    }
    if (va.post != vb.post)
        return va.post < vb.post ? -1 : 1;
    return 0;
}

const char *nd_version_local(const char *v)
{
    const char *plus = v ? strchr(v, '+') : NULL;
    return plus ? plus + 1 : "";
}

void nd_version_base(const char *v, char *out, size_t size)
{
    if (!size)
        return;
    nd_pfmt(out, size, "%s", v ? v : "");
    char *plus = strchr(out, '+');
    if (plus)
        *plus = '\0';
    for (char *p = out; *p; p++) {
        if ((*p == '.' || *p == '-') && (strncasecmp(p + 1, "post", 4) == 0 || strncasecmp(p + 1, "dev", 3) == 0)) {
            *p = '\0';
            break;
        }
    }
}

void nd_version_prefix(const char *v, int n, char *out, size_t size)
{
    char base[128];
    nd_version_base(v, base, sizeof base);
    int seen = 0;
    char *p = base;
    for (; *p; p++)
        if (*p == '.' && ++seen == n) {
            *p = '\0';
            break;
        }
    nd_pfmt(out, size, "%s", base);
}

/* Splits one TSV line into up to max fields, in place. */
static int nd_tsv_fields(char *line, char **f, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, "\t", &save); t && n < max; t = strtok_r(NULL, "\t", &save))
        f[n++] = t;
    return n;
}

void nd_compat_tsv_each(const char *buf, size_t len, int nfields, void (*fn)(char **f, void *arg), void *arg)
{
    char *copy = nd_xstrndup(buf, len);
    char *save = NULL;
    for (char *line = strtok_r(copy, "\r\n", &save); line; line = strtok_r(NULL, "\r\n", &save)) {
        if (line[0] == '#' || !isdigit((unsigned char)line[0]))
            continue; /* comment or header */
        char *f[9] = {NULL};
        if (nd_tsv_fields(line, f, 8) < nfields)
            continue;
        fn(f, arg);
    }
    free(copy);
}

static void nd_npu_row(char **f, void *arg)
{
    struct nd_npu_compat *t = arg;
    t->rows = nd_xrealloc(t->rows, (t->n + 1) * sizeof *t->rows);
    struct nd_npu_compat_row *r = &t->rows[t->n++];
    nd_pfmt(r->torch_npu, sizeof r->torch_npu, "%s", f[0]);
    nd_pfmt(r->torch, sizeof r->torch, "%s", f[1]);
    nd_pfmt(r->cann, sizeof r->cann, "%s", f[2]);
    /* The python column came later: "-" or absent means unknown. */
    r->python[0] = '\0';
    if (f[3] && strcmp(f[3], "-") != 0)
        nd_pfmt(r->python, sizeof r->python, "%s", f[3]);
}

static void nd_cuda_row(char **f, void *arg)
{
    struct nd_cuda_compat *t = arg;
    t->rows = nd_xrealloc(t->rows, (t->n + 1) * sizeof *t->rows);
    struct nd_cuda_compat_row *r = &t->rows[t->n++];
    nd_pfmt(r->cuda, sizeof r->cuda, "%s", f[0]);
    nd_pfmt(r->min_driver, sizeof r->min_driver, "%s", f[1]);
    nd_pfmt(r->family_min, sizeof r->family_min, "%s", f[2]);
}

void nd_npu_compat_parse(const char *buf, size_t len, struct nd_npu_compat *t)
{
    t->rows = NULL;
    t->n = 0;
    nd_compat_tsv_each(buf, len, 3, nd_npu_row, t);
}

void nd_cuda_compat_parse(const char *buf, size_t len, struct nd_cuda_compat *t)
{
    t->rows = NULL;
    t->n = 0;
    nd_compat_tsv_each(buf, len, 3, nd_cuda_row, t);
}

void nd_npu_compat_builtin(struct nd_npu_compat *t)
{
    const struct nd_embedded_file *f = nd_embedded_find("data/torch_npu_compat.tsv");
    nd_npu_compat_parse(f ? f->data : "", f ? f->len : 0, t);
}

void nd_cuda_compat_builtin(struct nd_cuda_compat *t)
{
    const struct nd_embedded_file *f = nd_embedded_find("data/cuda_driver.tsv");
    nd_cuda_compat_parse(f ? f->data : "", f ? f->len : 0, t);
}

void nd_npu_compat_release(struct nd_npu_compat *t)
{
    free(t->rows);
    t->rows = NULL;
    t->n = 0;
}

void nd_cuda_compat_release(struct nd_cuda_compat *t)
{
    free(t->rows);
    t->rows = NULL;
    t->n = 0;
}

int nd_compat_judge_npu(const struct nd_npu_compat *t, const char *torch, const char *torch_npu, const char *cann,
                        struct nd_findings *out)
{
    if (!torch_npu || !*torch_npu)
        return 0;
    int added = 0;
    const struct nd_npu_compat_row *row = NULL;
    char npu_base[64], want_torch[64], have_torch[64];
    nd_version_base(torch_npu, npu_base, sizeof npu_base);
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->rows[i].torch_npu, torch_npu) == 0 ||
            (!row && nd_version_cmp(t->rows[i].torch_npu, torch_npu) == 0 && !strchr(torch_npu, '+')))
            row = &t->rows[i];
    /* A torch_npu wheel pins torch to its own base version. */
    nd_version_prefix(row ? row->torch : npu_base, 3, want_torch, sizeof want_torch);
    if (!torch || !*torch) {
        struct nd_finding *f = nd_findings_add(out, "compat.torch-npu-torch", ND_CAT_VERSION_MISMATCH, ND_SEV_ERROR,
                                               "torch_npu %s is installed without torch", torch_npu);
        nd_finding_add_evidence(f, NULL, 0, "torch_npu %s", torch_npu);
        nd_finding_set_cause(f, "torch_npu is a plug-in for torch and cannot load without it.");
        nd_finding_add_fix(f, "pip install torch==%s", want_torch);
        return 1;
    }
    nd_version_prefix(torch, 3, have_torch, sizeof have_torch);
    if (nd_version_cmp(want_torch, have_torch) != 0) {
        struct nd_finding *f = nd_findings_add(out, "compat.torch-npu-torch", ND_CAT_VERSION_MISMATCH, ND_SEV_ERROR,
                                               "torch_npu %s needs torch %s, but torch %s is installed", torch_npu,
                                               want_torch, torch);
        nd_finding_add_evidence(f, NULL, 0, "torch %s", torch);
        nd_finding_add_evidence(f, NULL, 0, "torch_npu %s (built for torch %s)", torch_npu, want_torch);
        f->confidence = ND_CONF_HIGH;
        nd_finding_set_cause(f, "A torch_npu wheel is built against one torch release; with another torch it "
                                "fails to import or misbehaves.");
        nd_finding_add_fix(f, "pip install torch==%s", want_torch);
        nd_finding_add_fix(f, "or install the torch_npu release built for torch %s", have_torch);
        added++;
    }
    if (!cann || !*cann)
        return added;
    if (row) {
        int c = nd_version_cmp(cann, row->cann);
        char have_mm[32], want_mm[32];
        nd_version_prefix(cann, 2, have_mm, sizeof have_mm);
        nd_version_prefix(row->cann, 2, want_mm, sizeof want_mm);
        if (c < 0 || strcmp(have_mm, want_mm) != 0) {
            struct nd_finding *f = nd_findings_add(
                out, "compat.torch-npu-cann", ND_CAT_VERSION_MISMATCH, c < 0 ? ND_SEV_ERROR : ND_SEV_WARNING,
                "torch_npu %s is paired with CANN %s, but CANN %s is installed", torch_npu, row->cann, cann);
            nd_finding_add_evidence(f, NULL, 0, "torch_npu %s, torch %s", torch_npu, torch);
            nd_finding_add_evidence(f, NULL, 0, "CANN %s installed; Ascend/pytorch pairs this torch_npu with CANN %s",
                                    cann, row->cann);
            nd_finding_set_cause(f, c < 0 ? "This torch_npu calls CANN interfaces that the installed, older CANN "
                                            "lacks: import or the first operator fails."
                                          : "This combination is not one Ascend/pytorch lists as supported.");
            nd_finding_add_fix(f, "install CANN %s, or the torch_npu release listed for CANN %s", row->cann, cann);
            added++;
        }
        return added;
    }
    /* Not listed: compare with the oldest CANN any listed build of the same base needs. */
    const char *min_cann = NULL;
    for (size_t i = 0; i < t->n; i++) {
        char b[64];
        nd_version_base(t->rows[i].torch_npu, b, sizeof b);
        if (strcmp(b, npu_base) == 0 && (!min_cann || nd_version_cmp(t->rows[i].cann, min_cann) < 0))
            min_cann = t->rows[i].cann;
    }
    if (min_cann && nd_version_cmp(cann, min_cann) < 0) {
        struct nd_finding *f = nd_findings_add(out, "compat.torch-npu-cann", ND_CAT_VERSION_MISMATCH, ND_SEV_ERROR,
                                               "torch_npu %s needs CANN %s or newer, but CANN %s is installed",
                                               torch_npu, min_cann, cann);
        nd_finding_add_evidence(f, NULL, 0, "torch_npu %s, CANN %s", torch_npu, cann);
        nd_finding_set_cause(f, "Every listed torch_npu %s build needs CANN %s or newer.", npu_base, min_cann);
        nd_finding_add_fix(f, "install CANN %s or newer, or an older torch_npu", min_cann);
        return added + 1;
    }
    struct nd_finding *f = nd_findings_add(out, "compat.torch-npu-unknown", ND_CAT_VERSION_MISMATCH, ND_SEV_INFO,
                                           "torch_npu %s with CANN %s is not in the compatibility table", torch_npu,
                                           cann);
    nd_finding_add_evidence(f, NULL, 0, "torch_npu %s, torch %s, CANN %s", torch_npu, torch, cann);
    f->confidence = ND_CONF_LOW;
    nd_finding_add_fix(f, "compare with the table in Ascend/pytorch's README");
    return added + 1;
}

void nd_cuda_for_driver(const struct nd_cuda_compat *t, const char *driver, char *out, size_t size)
{
    const char *best = NULL;
    if (size)
        out[0] = '\0';
    if (!driver || !*driver)
        return;
    for (size_t i = 0; i < t->n; i++)
        if (nd_version_cmp(driver, t->rows[i].min_driver) >= 0 && (!best || nd_version_cmp(t->rows[i].cuda, best) > 0))
            best = t->rows[i].cuda;
    if (best)
        nd_pfmt(out, size, "%s", best);
}

int nd_compat_judge_cuda(const struct nd_cuda_compat *t, const char *torch_cuda, const char *driver_version,
                         const char *driver_cuda, struct nd_findings *out)
{
    if (!torch_cuda || !*torch_cuda)
        return 0;
    char dc[32] = "", want[32];
    if (driver_cuda && *driver_cuda)
        nd_pfmt(dc, sizeof dc, "%s", driver_cuda);
    else
        nd_cuda_for_driver(t, driver_version, dc, sizeof dc);
    if (!dc[0] && (!driver_version || !*driver_version))
        return 0; /* no driver facts: nothing to compare */
    nd_version_prefix(torch_cuda, 2, want, sizeof want);
    if (dc[0] && nd_version_cmp(want, dc) <= 0)
        return 0;
    const struct nd_cuda_compat_row *row = NULL;
    for (size_t i = 0; i < t->n; i++)
        if (nd_version_cmp(t->rows[i].cuda, want) == 0)
            row = &t->rows[i];
    char want_major[16], dc_major[16];
    nd_version_prefix(want, 1, want_major, sizeof want_major);
    nd_version_prefix(dc, 1, dc_major, sizeof dc_major);
    bool minor_compat = row && driver_version && *driver_version && strcmp(want_major, dc_major) == 0 &&
                        nd_version_cmp(driver_version, row->family_min) >= 0;
    struct nd_finding *f = nd_findings_add(
        out, "compat.torch-cuda-driver", ND_CAT_VERSION_MISMATCH, minor_compat ? ND_SEV_WARNING : ND_SEV_ERROR,
        "torch is built for CUDA %s, but the NVIDIA driver%s%s supports CUDA %s at most", want,
        driver_version && *driver_version ? " " : "", driver_version ? driver_version : "", dc[0] ? dc : "< 9.0");
    nd_finding_add_evidence(f, NULL, 0, "torch CUDA %s", torch_cuda);
    if (driver_version && *driver_version)
        nd_finding_add_evidence(f, NULL, 0, "driver %s (CUDA %s)", driver_version, dc[0] ? dc : "unknown");
    else
        nd_finding_add_evidence(f, NULL, 0, "driver supports CUDA %s", dc);
    f->confidence = ND_CONF_HIGH;
    nd_finding_set_cause(f, minor_compat ? "The driver runs this CUDA only through minor-version compatibility: "
                                           "kernels that need PTX JIT or newer driver features fail."
                                         : "CUDA initialisation fails on a driver older than the CUDA torch was "
                                           "built for, and torch then silently falls back to the CPU.");
    if (row)
        nd_finding_add_fix(f, "update the NVIDIA driver to %s or newer", row->min_driver);
    else
        nd_finding_add_fix(f, "update the NVIDIA driver to one that supports CUDA %s", want);
    if (dc[0]) {
        char digits[16] = "";
        size_t k = 0;
        for (const char *p = dc; *p && k + 1 < sizeof digits; p++)
            if (isdigit((unsigned char)*p))
                digits[k++] = *p;
        digits[k] = '\0';
        nd_finding_add_fix(f,
                           "or install a torch build for CUDA %s: pip install torch --index-url "
                           "https://download.pytorch.org/whl/cu%s",
                           dc, digits);
    }
    return 1;
}
