/* The log-shape vocabulary: [shape.*] sections of the rule files
 * (rules/logshape.rules). kb_rules.c hands each of their keys here, so a
 * site can extend or replace the vocabulary like any rule, and `rules lint`
 * and `rules test` check it with the rules. */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "kb/kb_internal.h"
#include "kb/kb_shape.h"

static const struct {
    const char *prefix;
    enum nd_shape_kind kind;
    bool named;
} nd_shape_kinds[] = {
    {"frames.", ND_SHAPE_FRAMES, true},   {"step.", ND_SHAPE_STEP, true}, {"dump.", ND_SHAPE_DUMP, true},
    {"signal.", ND_SHAPE_SIGNAL, true},   {"wait", ND_SHAPE_WAIT, false}, {"end", ND_SHAPE_END, false},
    {"refines", ND_SHAPE_REFINES, false}, {"rate.", ND_SHAPE_RATE, true}, {"ratio.", ND_SHAPE_RATIO, true},
};

static void nd_shape_res_release(struct nd_shape_res *r)
{
    for (size_t i = 0; i < r->n; i++) {
        if (r->v[i].ok)
            regfree(&r->v[i].re);
        nd_shape_prefilter_release(&r->v[i]);
        free(r->v[i].src);
    }
    free(r->v);
    memset(r, 0, sizeof *r);
}

static void nd_shape_entry_release(struct nd_shape_entry *e)
{
    free(e->name);
    free(e->file);
    free(e->category);
    free(e->title);
    free(e->cause);
    free(e->unit);
    for (size_t i = 0; i < e->nfix; i++)
        free(e->fix[i]);
    free(e->fix);
    for (size_t i = 0; i < e->nexample; i++)
        free(e->example[i]);
    for (size_t i = 0; i < e->ncounter; i++)
        free(e->counter[i]);
    free(e->example);
    free(e->counter);
    free(e->example_line);
    free(e->counter_line);
    nd_shape_res_release(&e->pat);
    nd_shape_res_release(&e->done);
    nd_shape_res_release(&e->ctx);
    nd_shape_res_release(&e->alone);
    memset(e, 0, sizeof *e);
}

void nd_kb_shape_release(struct nd_kb_shape_set *set)
{
    for (size_t i = 0; i < set->n; i++)
        nd_shape_entry_release(&set->v[i]);
    free(set->v);
    memset(set, 0, sizeof *set);
}

const struct nd_shape_entry *nd_kb_shape_find(const struct nd_kb_shape_set *set, enum nd_shape_kind kind, const char *name)
{
    for (size_t i = 0; set && i < set->n; i++)
        if (set->v[i].kind == kind && (!name || strcmp(set->v[i].name, name) == 0))
            return &set->v[i];
    return NULL;
}

bool nd_shape_res_match(const struct nd_shape_res *res, const char *text)
{
    for (size_t i = 0; i < res->n; i++)
        if (res->v[i].ok && nd_shape_prefilter_may_match(&res->v[i], text) &&
            regexec(&res->v[i].re, text, 0, NULL, 0) == 0)
            return true;
    return false;
}

/* A group's text holds a number when it starts with one. */
static bool nd_shape_group_number(const char *text, const regmatch_t *g, double *v)
{
    if (g->rm_so < 0 || g->rm_eo <= g->rm_so)
        return false;
    const char *p = text + g->rm_so;
    if (!(isdigit((unsigned char)*p) || (*p == '.' && g->rm_eo - g->rm_so > 1 && isdigit((unsigned char)p[1]))))
        return false;
    char *end = NULL;
    double x = strtod(p, &end);
    if (end == p || !(x >= 0) || x > 1e15)
        return false;
    *v = x;
    return true;
}

bool nd_shape_res_number(const struct nd_shape_res *res, const char *text, double *v)
{
    for (size_t i = 0; i < res->n; i++) {
        regmatch_t m[10];
        /* Most lines match none of these: asking for no groups first spares
         * glibc the per-position state log that group positions need. */
        if (!res->v[i].ok || !nd_shape_prefilter_may_match(&res->v[i], text) ||
            regexec(&res->v[i].re, text, 0, NULL, 0) != 0 || regexec(&res->v[i].re, text, 10, m, 0) != 0)
            continue;
        /* The last group that starts with a number and lies inside no other
         * group: "([0-9]+(\.[0-9]+)?) ?it/s" reads the whole number, not its
         * decimals, and a trailing "([^a-z]|$)" is no number. */
        for (size_t g = 10; g-- > 1;) {
            if (m[g].rm_so < 0)
                continue;
            bool nested = false;
            for (size_t h = 1; h < g && !nested; h++)
                nested = m[h].rm_so >= 0 && m[h].rm_so <= m[g].rm_so && m[g].rm_eo <= m[h].rm_eo;
            if (!nested && nd_shape_group_number(text, &m[g], v))
                return true;
        }
    }
    return false;
}

static void nd_shape_res_add(struct nd_shape_res *r, const char *src, long line, int flags, bool compile,
                             const char *file, struct nd_strv *problems)
{
    r->v = nd_xrealloc(r->v, (r->n + 1) * sizeof *r->v);
    struct nd_shape_re *x = &r->v[r->n++];
    memset(x, 0, sizeof *x);
    x->src = nd_xstrdup(src);
    x->line = line;
    if (!compile)
        return;
    int rc = regcomp(&x->re, src, REG_EXTENDED | flags);
    if (rc != 0) {
        char msg[200];
        regerror(rc, &x->re, msg, sizeof msg);
        nd_kb_problem(problems, file, line, "pattern does not compile (%s): %s", msg, src);
        return;
    }
    x->ok = true;
    nd_shape_prefilter_build(x, (flags & REG_ICASE) != 0);
}

static void nd_shape_strs_add(char ***v, long **lines, size_t *n, const char *s, long line)
{
    *v = nd_xrealloc(*v, (*n + 1) * sizeof **v);
    if (lines)
        *lines = nd_xrealloc(*lines, (*n + 1) * sizeof **lines);
    (*v)[*n] = nd_xstrdup(s);
    if (lines)
        (*lines)[*n] = line;
    (*n)++;
}

static void nd_shape_single(char **slot, bool cont, const char *val, const char *key, const char *file, long line,
                            struct nd_strv *problems)
{
    if (cont && *slot) {
        char *j = nd_xasprintf("%s %s", *slot, val);
        free(*slot);
        *slot = j;
        return;
    }
    if (*slot) {
        nd_kb_problem(problems, file, line, "key '%s' given twice", key);
        return;
    }
    *slot = nd_xstrdup(val);
}

/* The entry a key goes to: the last one of this kind and name, or a new
 * one. A section met again in a later file replaces the earlier one. */
static struct nd_shape_entry *nd_shape_entry_for(struct nd_kb_shape_set *set, enum nd_shape_kind kind, const char *name,
                                                 const char *file, long line, unsigned parse_id, bool fresh)
{
    for (size_t i = set->n; i-- > 0;) {
        struct nd_shape_entry *e = &set->v[i];
        if (e->kind != kind || strcmp(e->name, name) != 0)
            continue;
        if (!fresh || e->parse_id == parse_id)
            return e;
        nd_shape_entry_release(e);
        memmove(e, e + 1, (set->n - i - 1) * sizeof *e);
        set->n--;
        break;
    }
    set->v = nd_xrealloc(set->v, (set->n + 1) * sizeof *set->v);
    struct nd_shape_entry *e = &set->v[set->n++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->name = nd_xstrdup(name);
    e->file = nd_xstrdup(file);
    e->line = line;
    e->parse_id = parse_id;
    e->tail = 6;
    e->priority = 5;
    e->scale = 1;
    e->max = 1.05;
    e->count = 3;
    return e;
}

void nd_kb_shape_key(struct nd_kb_shape_set *set, const char *file, long line, unsigned parse_id, bool fresh, bool cont,
                     const char *section, const char *key, const char *val, struct nd_strv *problems)
{
    enum nd_shape_kind kind = ND_SHAPE_END;
    const char *name = NULL;
    for (size_t i = 0; i < sizeof nd_shape_kinds / sizeof nd_shape_kinds[0] && !name; i++) {
        size_t pn = strlen(nd_shape_kinds[i].prefix);
        if (nd_shape_kinds[i].named ? strncmp(section, nd_shape_kinds[i].prefix, pn) == 0 && section[pn]
                                    : strcmp(section, nd_shape_kinds[i].prefix) == 0) {
            kind = nd_shape_kinds[i].kind;
            name = nd_shape_kinds[i].named ? section + pn : section;
        }
    }
    if (!name) {
        nd_kb_problem(problems, file, line,
                      "[shape.%s]: not a shape section (frames.NAME, step.NAME, dump.NAME, signal.NAME, rate.NAME, "
                      "ratio.NAME, wait, end, refines)",
                      section);
        return;
    }
    struct nd_shape_entry *e = nd_shape_entry_for(set, kind, name, file, line, parse_id, fresh);
    bool described = kind == ND_SHAPE_FRAMES || kind == ND_SHAPE_STEP || kind == ND_SHAPE_DUMP ||
                     kind == ND_SHAPE_SIGNAL || kind == ND_SHAPE_RATIO;
    if (cont && strcmp(key, "title") != 0 && strcmp(key, "cause") != 0 && strcmp(key, "fix") != 0) {
        nd_kb_problem(problems, file, line, "indented line continues '%s', which cannot span lines", key);
        return;
    }
    if (described && strcmp(key, "category") == 0) {
        nd_shape_single(&e->category, false, val, key, file, line, problems);
        if (!nd_category_is_valid(val))
            nd_kb_problem(problems, file, line, "[shape.%s]: '%s' is not a known category", section, val);
    } else if (described && strcmp(key, "title") == 0) {
        nd_shape_single(&e->title, cont, val, key, file, line, problems);
    } else if (described && strcmp(key, "cause") == 0) {
        nd_shape_single(&e->cause, cont, val, key, file, line, problems);
    } else if (described && strcmp(key, "fix") == 0) {
        if (cont && e->nfix) {
            char *j = nd_xasprintf("%s %s", e->fix[e->nfix - 1], val);
            free(e->fix[e->nfix - 1]);
            e->fix[e->nfix - 1] = j;
        } else {
            nd_shape_strs_add(&e->fix, NULL, &e->nfix, val, line);
        }
    } else if (strcmp(key, "frame") == 0 && (kind == ND_SHAPE_FRAMES || kind == ND_SHAPE_WAIT)) {
        nd_shape_res_add(&e->pat, val, line, REG_ICASE | REG_NOSUB, true, file, problems);
    } else if (strcmp(key, "pattern") == 0 && (kind == ND_SHAPE_STEP || kind == ND_SHAPE_END)) {
        nd_shape_res_add(&e->pat, val, line, REG_NOSUB, true, file, problems);
    } else if (strcmp(key, "header") == 0 && kind == ND_SHAPE_DUMP) {
        nd_shape_res_add(&e->pat, val, line, REG_NOSUB, true, file, problems);
    } else if ((strcmp(key, "done") == 0 && kind == ND_SHAPE_STEP) ||
               (strcmp(key, "fault") == 0 && kind == ND_SHAPE_DUMP)) {
        nd_shape_res_add(&e->done, val, line, REG_NOSUB, true, file, problems);
    } else if ((strcmp(key, "context") == 0 && kind == ND_SHAPE_DUMP) ||
               (strcmp(key, "skip") == 0 && kind == ND_SHAPE_RATE)) {
        nd_shape_res_add(&e->ctx, val, line, REG_NOSUB, true, file, problems);
    } else if (strcmp(key, "alone") == 0 && kind == ND_SHAPE_DUMP) {
        nd_shape_res_add(&e->alone, val, line, REG_NOSUB, true, file, problems);
    } else if ((strcmp(key, "value") == 0 && kind == ND_SHAPE_RATE) ||
               (strcmp(key, "part") == 0 && kind == ND_SHAPE_RATIO)) {
        nd_shape_res_add(&e->pat, val, line, 0, true, file, problems);
    } else if ((strcmp(key, "inverse") == 0 && kind == ND_SHAPE_RATE) ||
               (strcmp(key, "whole") == 0 && kind == ND_SHAPE_RATIO)) {
        nd_shape_res_add(&e->done, val, line, 0, true, file, problems);
    } else if (strcmp(key, "unit") == 0 && kind == ND_SHAPE_RATE) {
        nd_shape_single(&e->unit, false, val, key, file, line, problems);
    } else if ((strcmp(key, "scale") == 0 && kind == ND_SHAPE_RATE) ||
               (strcmp(key, "max") == 0 && kind == ND_SHAPE_RATIO)) {
        char *end = NULL;
        double v = strtod(val, &end);
        if (end == val || *end || !(v > 0) || v > 1e9)
            nd_kb_problem(problems, file, line, "%s must be a positive number", key);
        else if (key[0] == 's')
            e->scale = v;
        else
            e->max = v;
    } else if (strcmp(key, "count") == 0 && kind == ND_SHAPE_RATIO) {
        char *end = NULL;
        long n = strtol(val, &end, 10);
        if (end == val || *end || n < 1 || n > 100)
            nd_kb_problem(problems, file, line, "count must be a number of lines (1-100)");
        else
            e->count = n;
    } else if (strcmp(key, "rule") == 0 && kind == ND_SHAPE_REFINES) {
        nd_shape_res_add(&e->pat, val, line, 0, false, file, problems);
    } else if (strcmp(key, "tail") == 0 && kind == ND_SHAPE_STEP) {
        char *end = NULL;
        long n = strtol(val, &end, 10);
        if (end == val || *end || n < 1 || n > 200)
            nd_kb_problem(problems, file, line, "tail must be a number of lines (1-200)");
        else
            e->tail = n;
    } else if (strcmp(key, "priority") == 0 && (kind == ND_SHAPE_FRAMES || kind == ND_SHAPE_STEP)) {
        char *end = NULL;
        long n = strtol(val, &end, 10);
        if (end == val || *end || n < 1 || n > 9)
            nd_kb_problem(problems, file, line, "priority must be 1-9");
        else
            e->priority = (int)n;
    } else if (strcmp(key, "min") == 0 && (kind == ND_SHAPE_SIGNAL || kind == ND_SHAPE_RATIO)) {
        char *end = NULL;
        double v = strtod(val, &end);
        if (end == val || *end || v <= 0)
            nd_kb_problem(problems, file, line, "min must be a positive number");
        else {
            e->min = v;
            e->has_min = true;
        }
    } else if (strcmp(key, "example") == 0 && kind != ND_SHAPE_REFINES) {
        nd_shape_strs_add(&e->example, &e->example_line, &e->nexample, val, line);
    } else if (strcmp(key, "counter") == 0 && kind != ND_SHAPE_REFINES && kind != ND_SHAPE_SIGNAL) {
        nd_shape_strs_add(&e->counter, &e->counter_line, &e->ncounter, val, line);
    } else {
        nd_kb_problem(problems, file, line, "unknown key '%s' in [shape.%s]", key, section);
    }
}

void nd_kb_shape_check(const struct nd_kb_shape_set *set, struct nd_strv *problems)
{
    for (size_t i = 0; i < set->n; i++) {
        const struct nd_shape_entry *e = &set->v[i];
        bool described = e->kind == ND_SHAPE_FRAMES || e->kind == ND_SHAPE_STEP || e->kind == ND_SHAPE_DUMP ||
                         e->kind == ND_SHAPE_SIGNAL || e->kind == ND_SHAPE_RATIO;
        const char *what = e->kind == ND_SHAPE_DUMP                                 ? "header"
                           : e->kind == ND_SHAPE_REFINES                            ? "rule"
                           : e->kind == ND_SHAPE_FRAMES || e->kind == ND_SHAPE_WAIT ? "frame"
                                                                                    : "pattern";
        if (described && !e->category)
            nd_kb_problem(problems, e->file, e->line, "[shape] %s has no category", e->name);
        if (described && !e->title)
            nd_kb_problem(problems, e->file, e->line, "[shape] %s has no title", e->name);
        if (described && e->nfix == 0)
            nd_kb_problem(problems, e->file, e->line, "[shape] %s has no fix", e->name);
        if (e->kind == ND_SHAPE_RATE) {
            if (e->pat.n == 0 && e->done.n == 0)
                nd_kb_problem(problems, e->file, e->line, "[shape] %s has no value or inverse", e->name);
            if (!e->unit)
                nd_kb_problem(problems, e->file, e->line, "[shape] %s has no unit", e->name);
        } else if (e->kind == ND_SHAPE_RATIO) {
            if (e->pat.n == 0 || e->done.n == 0)
                nd_kb_problem(problems, e->file, e->line, "[shape] %s needs a part and a whole", e->name);
            if (!e->has_min)
                nd_kb_problem(problems, e->file, e->line, "[shape] %s has no min", e->name);
            else if (e->min >= e->max)
                nd_kb_problem(problems, e->file, e->line, "[shape] %s: min is not below max", e->name);
        } else if (e->kind != ND_SHAPE_SIGNAL && e->pat.n == 0)
            nd_kb_problem(problems, e->file, e->line, "[shape] %s has no %s", e->name, what);
        if (e->kind == ND_SHAPE_DUMP && e->done.n == 0)
            nd_kb_problem(problems, e->file, e->line, "[shape] %s has no fault", e->name);
        if (e->kind != ND_SHAPE_SIGNAL && e->kind != ND_SHAPE_REFINES && e->nexample == 0)
            nd_kb_problem(problems, e->file, e->line, "[shape] %s has no example", e->name);
    }
}

/* What an example is checked against: the frame or step patterns, or, for
 * a dump, its fault lines. */
static const struct nd_shape_res *nd_shape_example_res(const struct nd_shape_entry *e)
{
    return e->kind == ND_SHAPE_DUMP ? &e->done : &e->pat;
}

bool nd_shape_rate_of(const struct nd_shape_entry *e, const char *text, double *rate)
{
    double v = 0;
    if (nd_shape_res_match(&e->ctx, text))
        return false;
    if (nd_shape_res_number(&e->pat, text, &v)) {
        *rate = v * e->scale;
        return true;
    }
    if (nd_shape_res_number(&e->done, text, &v) && v > 0) {
        *rate = e->scale / v;
        return true;
    }
    return false;
}

bool nd_shape_ratio_of(const struct nd_shape_entry *e, const char *text, double *ratio)
{
    double part = 0, whole = 0;
    if (!nd_shape_res_number(&e->pat, text, &part) || !nd_shape_res_number(&e->done, text, &whole) || !(whole > 0))
        return false;
    *ratio = part / whole;
    return true;
}

/* Rates and ratios: an example must give a number (a ratio in [min, max]),
 * a counter must not. */
static bool nd_shape_measures(const struct nd_shape_entry *e, const char *text)
{
    double v = 0;
    if (e->kind == ND_SHAPE_RATE)
        return nd_shape_rate_of(e, text, &v);
    return nd_shape_ratio_of(e, text, &v) && v >= e->min && v <= e->max;
}

size_t nd_kb_shape_test(const struct nd_kb_shape_set *set, FILE *fp, size_t *nchecked)
{
    size_t fails = 0, checked = 0;
    for (size_t i = 0; set && i < set->n; i++) {
        const struct nd_shape_entry *e = &set->v[i];
        if (e->kind == ND_SHAPE_SIGNAL || e->kind == ND_SHAPE_REFINES)
            continue;
        if (e->kind == ND_SHAPE_RATE || e->kind == ND_SHAPE_RATIO) {
            for (size_t j = 0; j < e->nexample; j++, checked++)
                if (!nd_shape_measures(e, e->example[j])) {
                    fprintf(fp, "%s:%ld: [shape.%s] example gives no %s: %s\n", e->file, e->example_line[j], e->name,
                            e->kind == ND_SHAPE_RATE ? "rate" : "ratio in range", e->example[j]);
                    fails++;
                }
            for (size_t j = 0; j < e->ncounter; j++, checked++)
                if (nd_shape_measures(e, e->counter[j])) {
                    fprintf(fp, "%s:%ld: [shape.%s] counter example gives a %s: %s\n", e->file, e->counter_line[j],
                            e->name, e->kind == ND_SHAPE_RATE ? "rate" : "ratio in range", e->counter[j]);
                    fails++;
                }
            continue;
        }
        const struct nd_shape_res *res = nd_shape_example_res(e);
        for (size_t j = 0; j < e->nexample; j++, checked++)
            if (!nd_shape_res_match(res, e->example[j])) {
                fprintf(fp, "%s:%ld: [shape.%s] example does not match: %s\n", e->file, e->example_line[j], e->name,
                        e->example[j]);
                fails++;
            }
        /* A step's counter may start the step if it also shows it done. */
        for (size_t j = 0; j < e->ncounter; j++, checked++)
            if (nd_shape_res_match(res, e->counter[j]) &&
                !(e->kind == ND_SHAPE_STEP && nd_shape_res_match(&e->done, e->counter[j]))) {
                fprintf(fp, "%s:%ld: [shape.%s] counter example matches: %s\n", e->file, e->counter_line[j], e->name,
                        e->counter[j]);
                fails++;
            }
    }
    if (nchecked)
        *nchecked += checked;
    return fails;
}
