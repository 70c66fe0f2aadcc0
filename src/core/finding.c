/* Construction, copying and bookkeeping of findings. */
#include "core/finding.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/strbuf.h"

static const char *const nd_categories[] = {
    ND_CAT_ENV_NOT_LOADED, ND_CAT_VERSION_MISMATCH, ND_CAT_NO_DEVICE,   ND_CAT_UNSUPPORTED_OP,
    ND_CAT_DEVICE_OOM,     ND_CAT_HOST_OOM,         ND_CAT_DISTRIBUTED, ND_CAT_NUMERICS,
    ND_CAT_DEVICE_FAULT,   ND_CAT_CPU_FALLBACK,     ND_CAT_INPUT_BOUND, ND_CAT_HANG,
    ND_CAT_CONFIG,
};

static char *nd_vformat(const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n < 0)
        return nd_xstrdup("");
    char *s = nd_xmalloc((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

static struct nd_finding *nd_findings_push(struct nd_findings *list)
{
    ND_ALLOC_GROW(list->v, list->n + 1, list->cap);
    struct nd_finding *f = nd_xcalloc(1, sizeof *f);
    f->rank = -1;
    f->at_s = -1.0;
    f->confidence = ND_CONF_HIGH;
    list->v[list->n++] = f;
    return f;
}

struct nd_finding *nd_findings_add(struct nd_findings *list, const char *id, const char *category,
                                   enum nd_severity severity, const char *title_fmt, ...)
{
    struct nd_finding *f = nd_findings_push(list);
    f->id = nd_xstrdup(id);
    f->category = nd_xstrdup(category);
    f->severity = severity;
    va_list ap;
    va_start(ap, title_fmt);
    f->title = nd_vformat(title_fmt, ap);
    va_end(ap);
    return f;
}

void nd_finding_set_cause(struct nd_finding *f, const char *fmt, ...)
{
    free(f->cause);
    va_list ap;
    va_start(ap, fmt);
    f->cause = nd_vformat(fmt, ap);
    va_end(ap);
}

void nd_finding_add_fix(struct nd_finding *f, const char *fmt, ...)
{
    f->fix = nd_xrealloc(f->fix, (f->nfix + 1) * sizeof *f->fix);
    va_list ap;
    va_start(ap, fmt);
    f->fix[f->nfix++] = nd_vformat(fmt, ap);
    va_end(ap);
}

void nd_finding_add_evidence(struct nd_finding *f, const char *file, long line, const char *fmt, ...)
{
    f->evidence = nd_xrealloc(f->evidence, (f->nevidence + 1) * sizeof *f->evidence);
    struct nd_evidence *e = &f->evidence[f->nevidence++];
    va_list ap;
    va_start(ap, fmt);
    e->text = nd_vformat(fmt, ap);
    va_end(ap);
    e->file = file ? nd_xstrdup(file) : NULL;
    e->line = line;
}

struct nd_finding *nd_findings_add_copy(struct nd_findings *list, const struct nd_finding *src)
{
    struct nd_finding *f = nd_findings_push(list);
    f->id = nd_xstrdup(src->id);
    f->category = nd_xstrdup(src->category);
    f->severity = src->severity;
    f->confidence = src->confidence;
    f->title = nd_xstrdup(src->title);
    f->cause = src->cause ? nd_xstrdup(src->cause) : NULL;
    for (size_t i = 0; i < src->nfix; i++)
        nd_finding_add_fix(f, "%s", src->fix[i]);
    for (size_t i = 0; i < src->nevidence; i++)
        nd_finding_add_evidence(f, src->evidence[i].file, src->evidence[i].line, "%s", src->evidence[i].text);
    f->count = src->count;
    f->first_file = src->first_file ? nd_xstrdup(src->first_file) : NULL;
    f->first_line = src->first_line;
    f->rank = src->rank;
    f->chain = src->chain;
    f->at_s = src->at_s;
    return f;
}

void nd_finding_free(struct nd_finding *f)
{
    if (!f)
        return;
    free(f->id);
    free(f->category);
    free(f->title);
    free(f->cause);
    for (size_t i = 0; i < f->nfix; i++)
        free(f->fix[i]);
    free(f->fix);
    for (size_t i = 0; i < f->nevidence; i++) {
        free(f->evidence[i].text);
        free(f->evidence[i].file);
    }
    free(f->evidence);
    free(f->first_file);
    free(f);
}

void nd_findings_remove(struct nd_findings *list, size_t i)
{
    if (i >= list->n)
        return;
    nd_finding_free(list->v[i]);
    memmove(&list->v[i], &list->v[i + 1], (list->n - i - 1) * sizeof *list->v);
    list->n--;
}

struct nd_finding *nd_findings_find(const struct nd_findings *list, const char *id)
{
    for (size_t i = 0; i < list->n; i++)
        if (strcmp(list->v[i]->id, id) == 0)
            return list->v[i];
    return NULL;
}

void nd_findings_release(struct nd_findings *list)
{
    for (size_t i = 0; i < list->n; i++)
        nd_finding_free(list->v[i]);
    free(list->v);
    list->v = NULL;
    list->n = list->cap = 0;
}

int nd_findings_max_severity(const struct nd_findings *list)
{
    int max = -1;
    for (size_t i = 0; i < list->n; i++)
        if ((int)list->v[i]->severity > max)
            max = (int)list->v[i]->severity;
    return max;
}

int nd_findings_exit_code(const struct nd_findings *list)
{
    int max = nd_findings_max_severity(list);
    if (max >= ND_SEV_ERROR)
        return 2;
    if (max == ND_SEV_WARNING)
        return 1;
    return 0;
}

const char *nd_severity_name(enum nd_severity s)
{
    switch (s) {
    case ND_SEV_ERROR: return "error";
    case ND_SEV_WARNING: return "warning";
    default: return "info";
    }
}

const char *nd_confidence_name(enum nd_confidence c)
{
    switch (c) {
    case ND_CONF_HIGH: return "high";
    case ND_CONF_MEDIUM: return "medium";
    default: return "low";
    }
}

bool nd_category_is_valid(const char *category)
{
    for (size_t i = 0; i < ND_ARRAY_SIZE(nd_categories); i++)
        if (strcmp(category, nd_categories[i]) == 0)
            return true;
    return false;
}

int nd_severity_parse(const char *s)
{
    if (strcmp(s, "error") == 0)
        return ND_SEV_ERROR;
    if (strcmp(s, "warning") == 0)
        return ND_SEV_WARNING;
    if (strcmp(s, "info") == 0)
        return ND_SEV_INFO;
    return -1;
}
