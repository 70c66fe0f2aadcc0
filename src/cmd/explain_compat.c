/* Judges the versions a log prints. A line like "CANN package version
 * 8.0.RC1 and PyTorch version 2.4.0 do not match" says that something does
 * not fit; the tables say what does (CANN 8.0.RC3 or newer for torch 2.4.0),
 * so the fix can name the release to install. */
#include "cmd/explain_compat.h"

#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "probe/compat_log.h"
#include "probe/compat_stack.h"

struct nd_seen_at {
    const char *file;
    long line;
};

/* A pair the tables rule out is a cause that explains the runtime errors
 * after it (ACL 500001, EE9999, "CUDA driver version is insufficient"), so
 * it leads every finding of its severity and below. */
static bool nd_ranks_before(const struct nd_finding *a, const struct nd_finding *b)
{
    return a->severity >= b->severity;
}

static void nd_insert_ranked(struct nd_findings *out, size_t from)
{
    /* nd_findings_add appended at the end; move it before the first finding it outranks. */
    struct nd_finding *f = out->v[from];
    size_t at = 0;
    while (at < from && !nd_ranks_before(f, out->v[at]))
        at++;
    memmove(&out->v[at + 1], &out->v[at], (from - at) * sizeof *out->v);
    out->v[at] = f;
}

int nd_explain_compat(const struct nd_findings *seen, struct nd_findings *out)
{
    struct nd_logver lv;
    memset(&lv, 0, sizeof lv);
    struct nd_seen_at at[ND_LOGVER_COUNT] = {{0}};
    for (size_t i = 0; i < seen->n; i++)
        for (size_t e = 0; e < seen->v[i]->nevidence; e++) {
            const struct nd_evidence *ev = &seen->v[i]->evidence[e];
            struct nd_logver one;
            memset(&one, 0, sizeof one);
            if (!ev->text || nd_logver_scan(ev->text, strlen(ev->text), &one) == 0)
                continue;
            for (int k = 0; k < ND_LOGVER_COUNT; k++)
                if (one.found[k] && !lv.found[k]) {
                    lv.found[k] = true;
                    memcpy(lv.v[k], one.v[k], sizeof lv.v[k]);
                    at[k].file = ev->file;
                    at[k].line = ev->line;
                }
        }
#define ND_LV(k) (lv.found[k] ? lv.v[k] : NULL)
    struct nd_version_set v = {
        .torch = ND_LV(ND_LOGVER_TORCH),
        .torch_npu = ND_LV(ND_LOGVER_TORCH_NPU),
        .torch_cuda = ND_LV(ND_LOGVER_TORCH_CUDA),
        .python = ND_LV(ND_LOGVER_PYTHON),
        .cann = ND_LV(ND_LOGVER_CANN),
        .npu_driver = ND_LV(ND_LOGVER_NPU_DRIVER),
        .nvidia_driver = ND_LV(ND_LOGVER_NVIDIA_DRIVER),
        .driver_cuda = ND_LV(ND_LOGVER_DRIVER_CUDA),
        .cuda_toolkit = ND_LV(ND_LOGVER_CUDA_TOOLKIT),
        .rocm = ND_LV(ND_LOGVER_ROCM),
        .ascend_torch = lv.found[ND_LOGVER_CANN],
    };
#undef ND_LV
    struct nd_findings judged = ND_FINDINGS_INIT;
    nd_compat_judge_set(&v, &judged);
    int added = 0;
    for (size_t i = 0; i < judged.n; i++) {
        const struct nd_finding *j = judged.v[i];
        if (j->severity == ND_SEV_INFO || nd_findings_find(out, j->id))
            continue;
        size_t pos = out->n;
        struct nd_finding *f = nd_findings_add_copy(out, j);
        f->count = 1;
        f->rank = -1;
        /* The log lines that printed the versions, earliest first. */
        const char *first_file = NULL;
        long first_line = 0;
        for (int k = 0; k < ND_LOGVER_COUNT; k++) {
            if (!lv.found[k] || !strstr(j->title, lv.v[k]))
                continue;
            nd_finding_add_evidence(f, at[k].file, at[k].line, "%s %s printed here", nd_logver_name(k), lv.v[k]);
            if (at[k].file && (!first_file || (strcmp(at[k].file, first_file) == 0 && at[k].line < first_line))) {
                first_file = at[k].file;
                first_line = at[k].line;
            }
        }
        if (first_file) {
            free(f->first_file);
            f->first_file = nd_xstrdup(first_file);
            f->first_line = first_line;
        }
        nd_insert_ranked(out, pos);
        added++;
    }
    nd_findings_release(&judged);
    return added;
}
