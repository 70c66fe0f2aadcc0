/* The order of findings, root cause first: explain's per-rule hits become
 * findings in this order, and run's summary puts its log-line findings in it.
 * Order: severity, then the rule's tier (cause categories above symptoms,
 * wrappers last), then the earliest timestamp across files, then first
 * appearance; wrappers go after any other finding of warning or above;
 * then a finding goes before those that name it in `consequence-of` or,
 * across files, in `echo-of` (the
 * causal chain as the vendors document it: an unloaded environment before
 * the runtime codes it causes, a mechanism before a bare return code, the
 * first exception of a Python chain before a generic reading of its
 * re-raise);
 * finally each rule's `outranks` list is enforced. Pure. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/redact.h"
#include "core/strbuf.h"
#include "kb/kb_internal.h"

/* A capture's value from line: the last group that took part in the match
 * (POSIX has no non-capturing groups, so alternatives may come first), else
 * the whole match; printable and short, since it lands in titles. */
static char *nd_kb_capture_value(const struct nd_kb_capture *c, const char *line)
{
    regmatch_t m[10];
    if (!line || regexec(&c->re, line, 10, m, 0) != 0)
        return NULL;
    regmatch_t g = m[0];
    for (int i = 9; i >= 1; i--)
        if (m[i].rm_so >= 0) {
            g = m[i];
            break;
        }
    size_t n = (size_t)(g.rm_eo - g.rm_so);
    if (n == 0)
        return NULL;
    if (n > 80)
        n = 80;
    char *v = nd_xstrndup(line + g.rm_so, n);
    for (char *p = v; *p; p++)
        if ((unsigned char)*p < 0x20)
            *p = ' ';
    /* Values come from user logs and land in titles: redact like evidence. */
    char *red = nd_redact_text(v);
    free(v);
    return red;
}

char *nd_kb_expand(const struct nd_kb_rule *r, const char *tmpl, const char *line)
{
    if (!tmpl)
        return NULL;
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    for (const char *p = tmpl; *p;) {
        const char *e = p + 1;
        if (*p == '{') {
            while (*e && (isalnum((unsigned char)*e) || *e == '_'))
                e++;
        }
        if (*p != '{' || e == p + 1 || (*e != '}' && *e != '|' && *e != '?')) {
            nd_strbuf_addc(&sb, *p++);
            continue;
        }
        size_t nlen = (size_t)(e - p - 1);
        const char *dflt = NULL;
        size_t dlen = 0;
        const char *close = strchr(e, '}');
        if (!close) {
            nd_strbuf_addc(&sb, *p++);
            continue;
        }
        if (*e == '|') {
            dflt = e + 1;
            dlen = (size_t)(close - dflt);
        }
        char *val = NULL;
        for (size_t i = 0; i < r->ncaptures && !val; i++)
            if (strlen(r->captures[i].name) == nlen && strncmp(r->captures[i].name, p + 1, nlen) == 0)
                val = nd_kb_capture_value(&r->captures[i], line);
        if (*e == '?') {
            /* {name?text}: text only when the capture matched, $ = value. */
            for (const char *t = e + 1; val && t < close; t++) {
                if (*t == '$')
                    nd_strbuf_adds(&sb, val);
                else
                    nd_strbuf_addc(&sb, *t);
            }
        } else if (val)
            nd_strbuf_adds(&sb, val);
        else if (dflt)
            nd_strbuf_add(&sb, dflt, dlen);
        else
            nd_strbuf_adds(&sb, "(unknown)");
        free(val);
        p = close + 1;
    }
    return nd_strbuf_detach(&sb, NULL);
}

struct nd_kb_cand {
    size_t ri;
    const struct nd_kb_hit *h;
    const struct nd_kb_rule *r;
};

/* Negative when a should come before b. */
static int nd_kb_cand_cmp(const struct nd_kb_cand *a, const struct nd_kb_cand *b)
{
    if (a->r->severity != b->r->severity)
        return b->r->severity - a->r->severity;
    if (a->r->tier != b->r->tier)
        return b->r->tier - a->r->tier;
    double ta = a->h->earliest.ts, tb = b->h->earliest.ts;
    if (ta >= 0 && tb >= 0 && ta != tb)
        return ta < tb ? -1 : 1;
    if (a->h->seq != b->h->seq)
        return a->h->seq < b->h->seq ? -1 : 1;
    return 0;
}

/* True when a's finding explains b's: b's rule names a's category, a's id,
 * or "mechanism" for a specific INI rule at least as severe, in
 * consequence-of, and both first appear in the same file (in another rank's
 * log the order of time decides, not the chain). A wrapper explains only
 * where named by its id: "cannot open shared object file" says what is
 * missing, while a wrapper's category alone ("inner error" is device-fault)
 * says nothing about why. */
static bool nd_kb_explains(const struct nd_kb_cand *a, const struct nd_kb_cand *b)
{
    const struct nd_kb_rule *ra = a->r, *rb = b->r;
    if (ra == rb || ra->severity < ND_SEV_WARNING)
        return false;
    /* echo-of: a peer's timeout or lost connection follows the failure of
     * the rank that stopped answering, in whichever file that rank wrote. */
    for (size_t i = 0; i < rb->echo_of.n && ra->role != ND_ROLE_WRAPPER; i++) {
        const char *item = rb->echo_of.v[i];
        if (nd_kb_consequence_item_is_id(item) ? strcmp(item, ra->id) == 0
                                               : (ra->category && strcmp(item, ra->category) == 0))
            return true;
    }
    if (!a->h->earliest.file || a->h->earliest.file != b->h->earliest.file)
        return false;
    /* Python's exception chain: a generic rule that first matched below a
     * "During handling of the above exception" marker reads the re-raise;
     * a specific rule above that marker read the exception it wraps. */
    if ((rb->generic || rb->role == ND_ROLE_WRAPPER) && !ra->generic && ra->role != ND_ROLE_WRAPPER &&
        a->h->earliest.chain < b->h->earliest.chain)
        return true;
    for (size_t i = 0; i < rb->consequence_of.n; i++) {
        const char *item = rb->consequence_of.v[i];
        if (nd_kb_consequence_item_is_id(item)) {
            if (strcmp(item, ra->id) == 0)
                return true;
            continue;
        }
        if (ra->role == ND_ROLE_WRAPPER)
            continue;
        if (strcmp(item, ND_KB_MECHANISM) == 0) {
            if (!ra->family && !ra->generic && ra->role == ND_ROLE_CAUSE && ra->severity >= rb->severity)
                return true;
        } else if (ra->category && strcmp(item, ra->category) == 0) {
            return true;
        }
    }
    return false;
}

/* Moves each explaining finding just before the first finding it explains
 * (unless that one explains it back). Bounded passes: data cannot loop. */
static void nd_kb_order_chain(struct nd_kb_cand *c, size_t n)
{
    for (size_t pass = 0; pass < n * n + 1; pass++) {
        bool moved = false;
        for (size_t a = 1; a < n && !moved; a++)
            for (size_t b = 0; b < a; b++) {
                if (!nd_kb_explains(&c[a], &c[b]) || nd_kb_explains(&c[b], &c[a]))
                    continue;
                struct nd_kb_cand x = c[a];
                memmove(&c[b + 1], &c[b], (a - b) * sizeof *c);
                c[b] = x;
                moved = true;
                break;
            }
        if (!moved)
            break;
    }
}

static void nd_kb_add_evidence(struct nd_finding *f, const struct nd_kb_occ *o)
{
    if (!o->text)
        return;
    for (size_t i = 0; i < f->nevidence; i++)
        if (f->evidence[i].line == o->line && f->evidence[i].file && o->file && strcmp(f->evidence[i].file, o->file) == 0)
            return;
    char *red = nd_redact_cut(o->text, strlen(o->text), ND_KB_EVIDENCE_MAX);
    nd_finding_add_evidence(f, o->file, o->line, "%s", red);
    free(red);
}

struct nd_finding *nd_kb_rule_finding(struct nd_findings *out, const struct nd_kb_rule *r, const char *line,
                                      const char *title_suffix)
{
    char *title = nd_kb_expand(r, r->title, line);
    struct nd_finding *f = nd_findings_add(out, r->id, r->category, (enum nd_severity)r->severity, "%s%s", title,
                                           title_suffix);
    free(title);
    f->confidence = (enum nd_confidence)r->confidence;
    if (r->cause) {
        char *cause = nd_kb_expand(r, r->cause, line);
        nd_finding_set_cause(f, "%s", cause);
        free(cause);
    }
    for (size_t i = 0; i < r->fixes.n; i++) {
        char *fx = nd_kb_expand(r, r->fixes.v[i], line);
        nd_finding_add_fix(f, "%s", fx);
        free(fx);
    }
    if (r->see)
        nd_finding_add_fix(f, "see %s", r->see);
    return f;
}

static void nd_kb_make_finding(const struct nd_kb_cand *c, struct nd_findings *out)
{
    const struct nd_kb_rule *r = c->r;
    const struct nd_kb_hit *h = c->h;
    /* Captures look at every kept line, root-cause line first: the line
     * that came first ("rtMalloc failed") may lack the sizes a later one
     * ("Tried to allocate 2.00 GiB") has. */
    struct nd_strbuf lines = ND_STRBUF_INIT;
    nd_strbuf_init(&lines);
    if (h->earliest.text)
        nd_strbuf_adds(&lines, h->earliest.text);
    for (size_t i = 0; i < h->nsamples; i++)
        if (h->samples[i].text) {
            nd_strbuf_addc(&lines, '\n');
            nd_strbuf_adds(&lines, h->samples[i].text);
        }
    const char *line = lines.buf;
    /* Seen on several ranks: say which, cluster users need the spread. */
    struct nd_strbuf ranks = ND_STRBUF_INIT;
    nd_strbuf_init(&ranks);
    if (nd_rank_set_count(&h->ranks) > 1)
        nd_rank_set_text(&h->ranks, &ranks);
    char *suffix = ranks.len ? nd_xasprintf(" (ranks %s)", ranks.buf) : nd_xstrdup("");
    nd_strbuf_release(&ranks);
    struct nd_finding *f = nd_kb_rule_finding(out, r, line, suffix);
    free(suffix);
    nd_kb_add_evidence(f, &h->earliest);
    for (size_t i = 0; i < h->nsamples && f->nevidence < ND_KB_SAMPLES; i++)
        nd_kb_add_evidence(f, &h->samples[i]);
    /* The wrapper block it resolved, for the reader who searches for it. */
    if (h->wrapped.text && h->wrapped.file == h->earliest.file)
        nd_kb_add_evidence(f, &h->wrapped);
    nd_strbuf_release(&lines);
    f->count = h->count;
    if (h->earliest.file) {
        f->first_file = nd_xstrdup(h->earliest.file);
        f->first_line = h->earliest.line;
    }
    f->rank = h->earliest.rank;
}

/* The one ranking, for explain's hits and for run's findings alike. */
static void nd_kb_order_cands(struct nd_kb_cand *c, size_t n)
{
    /* Insertion sort: n is small, and it stays stable and well-behaved even
     * where timestamps are known for only some findings. */
    for (size_t i = 1; i < n; i++) {
        struct nd_kb_cand x = c[i];
        size_t j = i;
        while (j > 0 && nd_kb_cand_cmp(&x, &c[j - 1]) < 0) {
            c[j] = c[j - 1];
            j--;
        }
        c[j] = x;
    }
    /* A wrapper ("EZ9999: Inner Error!") says only that something failed:
     * when the same logs also hold a finding that names a cause, even one
     * printed as a warning ("ASCEND_HOME_PATH is not set"), or a symptom,
     * every wrapper goes after it, wherever in the logs the two are (the
     * scanner's wrapper window only hides wrappers next to such a line). */
    bool named = false;
    for (size_t i = 0; i < n && !named; i++)
        named = c[i].r->role != ND_ROLE_WRAPPER && c[i].r->severity >= ND_SEV_WARNING;
    if (named) {
        struct nd_kb_cand *tmp = nd_xcalloc(n ? n : 1, sizeof *tmp);
        size_t w = 0;
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 0; i < n; i++)
                if ((c[i].r->role == ND_ROLE_WRAPPER) == (pass == 1))
                    tmp[w++] = c[i];
        memcpy(c, tmp, n * sizeof *c);
        free(tmp);
    }
    nd_kb_order_chain(c, n);
    /* outranks: a rule goes before every rule it names. Bounded passes, so a
     * cycle in user rules cannot loop forever. */
    for (size_t pass = 0; pass < n * n + 1; pass++) {
        bool moved = false;
        for (size_t a = 0; a < n && !moved; a++) {
            for (size_t k = 0; k < c[a].r->noutrank_idx && !moved; k++) {
                size_t target = c[a].r->outrank_idx[k];
                for (size_t b = 0; b < a; b++) {
                    if (c[b].ri != target)
                        continue;
                    struct nd_kb_cand x = c[a];
                    memmove(&c[b + 1], &c[b], (a - b) * sizeof *c);
                    c[b] = x;
                    moved = true;
                    break;
                }
            }
        }
        if (!moved)
            break;
    }
}

void nd_kb_rank_hits(const struct nd_kb *kb, const struct nd_kb_hit *hits, struct nd_findings *out, bool all)
{
    size_t n = 0;
    struct nd_kb_cand *c = nd_xcalloc(kb->rules.n ? kb->rules.n : 1, sizeof *c);
    for (size_t i = 0; i < kb->rules.n; i++) {
        const struct nd_kb_hit *h = &hits[i];
        const struct nd_kb_rule *r = &kb->rules.v[i];
        if (h->count == 0)
            continue;
        if (!all && (r->severity == ND_SEV_INFO || (r->role == ND_ROLE_WRAPPER && h->deferred >= h->count)))
            continue;
        /* Every line of it was explained by a more specific rule whose
         * context was only known later (one finding per line). */
        if (!all && h->shadowed >= h->count)
            continue;
        c[n].ri = i;
        c[n].h = h;
        c[n].r = r;
        n++;
    }
    nd_kb_order_cands(c, n);
    for (size_t i = 0; i < n; i++)
        nd_kb_make_finding(&c[i], out);
    free(c);
}

void nd_kb_order_findings(struct nd_kb *kb, struct nd_findings *list)
{
    if (!kb || list->n < 2)
        return;
    /* run's output is one log: both streams count as one file for the
     * causal chain, and the list's order is the order of arrival (the
     * tie-break explain takes from first appearance). */
    static const char output[] = "output";
    size_t *slot = nd_xcalloc(list->n, sizeof *slot);
    struct nd_kb_hit *hits = nd_xcalloc(list->n, sizeof *hits);
    struct nd_kb_cand *c = nd_xcalloc(list->n, sizeof *c);
    size_t n = 0;
    for (size_t i = 0; i < list->n; i++) {
        size_t ri = 0;
        const struct nd_kb_rule *r = nd_kb_ruleset_find(&kb->rules, list->v[i]->id, &ri);
        if (!r)
            continue;
        hits[n].count = 1;
        hits[n].earliest.file = output;
        hits[n].earliest.ts = -1;
        hits[n].earliest.rank = -1;
        /* Where the line stood in a Python exception chain (live matcher). */
        hits[n].earliest.chain = list->v[i]->chain;
        hits[n].seq = i;
        slot[n] = i;
        c[n].ri = ri;
        c[n].h = &hits[n];
        c[n].r = r;
        n++;
    }
    nd_kb_order_cands(c, n);
    /* The ranked findings take the places rule findings held, in order. */
    struct nd_finding **ranked = nd_xcalloc(n ? n : 1, sizeof *ranked);
    for (size_t k = 0; k < n; k++)
        ranked[k] = list->v[c[k].h->seq];
    for (size_t k = 0; k < n; k++)
        list->v[slot[k]] = ranked[k];
    free(ranked);
    free(c);
    free(hits);
    free(slot);
    /* What run measured keeps its place unless its entry says it yields. */
    nd_kb_rank_code_findings(kb, list);
}
