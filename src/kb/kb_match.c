/* Matching single lines and small buffers: `run` calls nd_kb_match_line on
 * every output line, `check` explains probe stderr, and `rules test` runs
 * each rule's examples through the same database. */
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/redact.h"
#include "core/strbuf.h"
#include "kb/kb_internal.h"
#include "kb/kb_logical.h"

#define ND_KB_LINE_HITS 16

struct nd_kb_line_ctx {
    struct nd_kb *kb;
    unsigned rules[ND_KB_LINE_HITS];
    size_t n;
    bool chain;  /* the line is a "During handling of the above exception" marker */
    size_t skip; /* cross-line scan: matches ending at or before this offset are the earlier lines' */
};

/* A key seen on the current line, remembered for nd_kb_live_keys. */
static void nd_kb_live_set(struct nd_kb *kb, unsigned key)
{
    if (!kb->live_seen)
        return;
    if (kb->live_seen[key] == kb->live_line && kb->live_nkeys > 0)
        for (size_t i = 0; i < kb->live_nkeys && i < ND_KB_LIVE_KEYS; i++)
            if (kb->live_keys[i] == key)
                return;
    kb->live_seen[key] = kb->live_line;
    if (kb->live_nkeys < ND_KB_LIVE_KEYS)
        kb->live_keys[kb->live_nkeys] = key;
    if (kb->live_nkeys <= ND_KB_LIVE_KEYS)
        kb->live_nkeys++;
}

void nd_kb_live_line(struct nd_kb *kb, long line)
{
    if (!kb)
        return;
    kb->live_line = line;
    kb->live_line_set = true;
}

int nd_kb_live_keys(const struct nd_kb *kb, unsigned *keys, size_t max, bool *depends)
{
    *depends = kb->live_dependent;
    if (kb->live_nkeys > ND_KB_LIVE_KEYS || kb->live_nkeys > max)
        return -1;
    memcpy(keys, kb->live_keys, kb->live_nkeys * sizeof *keys);
    return (int)kb->live_nkeys;
}

void nd_kb_live_touch(struct nd_kb *kb, const unsigned *keys, size_t n)
{
    if (!kb || !kb->live_seen)
        return;
    if (!kb->live_line_set)
        kb->live_line++;
    kb->live_line_set = false;
    for (size_t i = 0; i < n; i++)
        if (keys[i] < kb->nkeys) {
            kb->live_seen[keys[i]] = kb->live_line;
            /* A repeated chain marker is one more link, as when matched. */
            if (keys[i] == kb->key_chain)
                kb->live_chain++;
        }
}

/* Rule ri matched the line: once per rule, as many as the line holds. */
static void nd_kb_line_add(struct nd_kb_line_ctx *c, unsigned ri)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->rules[i] == ri)
            return;
    if (c->n < ND_KB_LINE_HITS)
        c->rules[c->n++] = ri;
}

static int nd_kb_line_cb(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags, void *ctx)
{
    (void)from;
    (void)to;
    (void)flags;
    struct nd_kb_line_ctx *c = ctx;
    unsigned ri = c->kb->pat_rule[id];
    if (ri >= c->kb->rules.n) {
        c->chain |= ri == c->kb->key_chain;
        /* A condition's regex or a fallback line: only context. */
        nd_kb_live_set(c->kb, ri);
        return 0;
    }
    if (c->kb->has_conds)
        nd_kb_live_set(c->kb, ri);
    nd_kb_line_add(c, ri);
    return 0;
}

static void nd_kb_match_rules(struct nd_kb *kb, const char *line, size_t len, struct nd_kb_line_ctx *c)
{
    c->kb = kb;
    c->n = 0;
    c->chain = false;
    c->skip = 0;
    if (len > 0xffffffffu)
        len = 0xffffffffu;
    hs_scan(kb->db, line ? line : "", (unsigned)len, 0, kb->scratch, nd_kb_line_cb, c);
}

/* A match of the cross-line database over the lines before and the line:
 * it counts when it ends on the line (not on the '\n' before it). */
static int nd_kb_cross_cb(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags, void *ctx)
{
    struct nd_kb_line_ctx *c = ctx;
    if (to <= c->skip)
        return 0;
    return nd_kb_line_cb(id, from, to, flags, ctx);
}

/* The line's matches that began on the lines before it (the block's, or
 * the stream's window: nd_kb_block_lines_after), as explain's scan of the
 * whole text finds them. True when there was one it did not have. */
static bool nd_kb_match_cross(struct nd_kb *kb, const char *line, size_t len, struct nd_kb_line_ctx *c)
{
    if (!kb->live_cross || !kb->live_prev_len || !kb->db_cross || kb->cross_state <= 0)
        return false;
    size_t before = c->n, total = kb->live_prev_len + 1 + len;
    if (total > 0xffffffffu)
        return false;
    char *j = nd_xmalloc(total + 1);
    memcpy(j, kb->live_prev, kb->live_prev_len);
    j[kb->live_prev_len] = '\n';
    memcpy(j + kb->live_prev_len + 1, line ? line : "", len);
    j[total] = '\0';
    c->skip = kb->live_prev_len + 1;
    hs_scan(kb->db_cross, j, (unsigned)total, 0, kb->scratch, nd_kb_cross_cb, c);
    c->skip = 0;
    free(j);
    return c->n > before;
}

/* The rules a line gives on its own, for a look back: no live context is
 * touched (the line was counted when it came). */
static int nd_kb_plain_cb(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags, void *ctx)
{
    (void)from;
    (void)to;
    (void)flags;
    struct nd_kb_line_ctx *c = ctx;
    unsigned ri = c->kb->pat_rule[id];
    if (ri < c->kb->rules.n)
        nd_kb_line_add(c, ri);
    return 0;
}

/* A match that crossed into this line from the window's lines makes them
 * one message with it, as explain's logical line does: what those lines
 * gave alone and the crossing rule hides is withdrawn (once per line). */
static size_t nd_kb_cross_hides(struct nd_kb *kb, const size_t *kept, size_t nkept, const bool *crossed, unsigned *out,
                                size_t max)
{
    size_t n = 0;
    const char *p = kb->live_prev, *end = kb->live_prev + kb->live_prev_len;
    while (p && p < end && n < max) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        size_t pre = nd_kb_line_prefix(p, len);
        struct nd_kb_line_ctx c = {.kb = kb};
        hs_scan(kb->db, p + pre, (unsigned)(len - pre), 0, kb->scratch, nd_kb_plain_cb, &c);
        char *text = nd_kb_trim_line(p, len);
        size_t gave[ND_KB_LINE_HITS], ngave = 0;
        for (size_t i = 0; i < c.n; i++)
            if (kb->rules.v[c.rules[i]].nconds == 0 && nd_kb_rule_accepts(&kb->rules.v[c.rules[i]], text))
                gave[ngave++] = c.rules[i];
        free(text);
        ngave = nd_kb_line_dedup(kb, gave, ngave);
        for (size_t g = 0; g < ngave && n < max; g++)
            for (size_t k = 0; k < nkept; k++)
                if (crossed[k] && kept[k] != gave[g] &&
                    nd_kb_rule_hides(&kb->rules.v[kept[k]], gave[g], &kb->rules.v[gave[g]])) {
                    out[n++] = (unsigned)gave[g];
                    break;
                }
        p = nl ? nl + 1 : end;
    }
    return n;
}

/* Live context: a job's output arrives line by line, so `requires` and
 * `unless` look back only (a key seen on an earlier line, or this one,
 * within `within` lines), as seen from the line at `line`. */
enum nd_kb_live_verdict { ND_KB_LIVE_OK, ND_KB_LIVE_MISSING, ND_KB_LIVE_EXCLUDED };

static enum nd_kb_live_verdict nd_kb_live_context(const struct nd_kb *kb, const struct nd_kb_rule *r, long line)
{
    enum nd_kb_live_verdict v = ND_KB_LIVE_OK;
    for (size_t i = 0; i < r->nconds; i++) {
        const struct nd_kb_cond *c = &r->conds[i];
        if (c->key < 0)
            continue;
        long at = kb->live_seen[c->key];
        long gap = at > line ? at - line : line - at;
        bool near = at > 0 && (r->within == 0 || gap <= r->within);
        if (c->unless && near)
            return ND_KB_LIVE_EXCLUDED;
        if (!c->unless && !near)
            v = ND_KB_LIVE_MISSING;
    }
    return v;
}

static void nd_kb_held_free(struct nd_kb_held *p)
{
    free(p->source);
    free(p->text);
}

void nd_kb_live_held_release(struct nd_kb *kb)
{
    for (size_t i = 0; i < kb->live_nheld; i++)
        nd_kb_held_free(&kb->live_held[i]);
    kb->live_nheld = 0;
}

static void nd_kb_held_drop(struct nd_kb *kb, size_t i)
{
    nd_kb_held_free(&kb->live_held[i]);
    memmove(&kb->live_held[i], &kb->live_held[i + 1], (kb->live_nheld - i - 1) * sizeof kb->live_held[0]);
    kb->live_nheld--;
}

/* Holds rule ri's match on the current line until what it requires comes.
 * A newer match of the same rule replaces the older: every line that could
 * complete the older one is as near to the newer. When all are taken the
 * oldest goes. */
static void nd_kb_hold(struct nd_kb *kb, unsigned ri, const char *text, const char *source, long lineno, int rank,
                       int chain, const size_t *kept, size_t nkept)
{
    for (size_t i = 0; i < kb->live_nheld; i++)
        if (kb->live_held[i].rule == ri) {
            nd_kb_held_drop(kb, i);
            break;
        }
    if (kb->live_nheld == ND_KB_LIVE_HELD)
        nd_kb_held_drop(kb, 0);
    struct nd_kb_held *p = &kb->live_held[kb->live_nheld++];
    p->rule = ri;
    p->line = kb->live_line;
    p->lineno = lineno;
    p->source = nd_xstrdup(source ? source : "");
    p->text = nd_xstrdup(text);
    p->rank = rank;
    p->chain = chain;
    p->nhides = 0;
    for (size_t k = 0; k < nkept && p->nhides < ND_ARRAY_SIZE(p->hides); k++)
        if (nd_kb_rule_hides(&kb->rules.v[ri], kept[k], &kb->rules.v[kept[k]]))
            p->hides[p->nhides++] = (unsigned)kept[k];
}

size_t nd_kb_live_withdrawn(const struct nd_kb *kb, const char **ids, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; kb && i < kb->live_nwithdrawn && n < max; i++)
        ids[n++] = kb->rules.v[kb->live_withdrawn[i]].id;
    return n;
}

static struct nd_finding *nd_kb_live_finding(struct nd_findings *out, const struct nd_kb_rule *r, const char *text,
                                             const char *source, long lineno, int rank, int chain)
{
    struct nd_finding *f = nd_kb_rule_finding(out, r, text, "");
    char *red = nd_redact_cut(text, strlen(text), ND_KB_EVIDENCE_MAX);
    nd_finding_add_evidence(f, source, lineno, "%s", red);
    free(red);
    f->count = 1;
    f->rank = rank;
    f->chain = chain;
    return f;
}

int nd_kb_live_resolve(struct nd_kb *kb, struct nd_findings *out)
{
    if (!kb || !out)
        return 0;
    int added = 0;
    kb->live_nwithdrawn = 0;
    for (size_t i = 0; i < kb->live_nheld;) {
        struct nd_kb_held *p = &kb->live_held[i];
        const struct nd_kb_rule *r = &kb->rules.v[p->rule];
        enum nd_kb_live_verdict v = nd_kb_live_context(kb, r, p->line);
        if (v == ND_KB_LIVE_OK) {
            nd_kb_live_finding(out, r, p->text, p->source, p->lineno, p->rank, p->chain);
            kb->live_dependent = true;
            added++;
            for (size_t k = 0; k < p->nhides && kb->live_nwithdrawn < ND_ARRAY_SIZE(kb->live_withdrawn); k++)
                kb->live_withdrawn[kb->live_nwithdrawn++] = p->hides[k];
        } else if (v == ND_KB_LIVE_MISSING && (r->within == 0 || kb->live_line - p->line < r->within)) {
            i++;
            continue;
        }
        nd_kb_held_drop(kb, i);
    }
    return added;
}

int nd_kb_match_line(struct nd_kb *kb, const char *line, size_t len, const char *source, long lineno,
                     struct nd_findings *out)
{
    if (!kb || !out)
        return 0;
    struct nd_kb_line_ctx c;
    if (!kb->live_line_set)
        kb->live_line++;
    kb->live_line_set = false;
    kb->live_nkeys = 0;
    kb->live_dependent = false;
    /* The same logical view as explain: a known per-line prefix
     * ("[rank3]: ") is not part of the message. */
    size_t pre = line ? nd_kb_line_prefix(line, len) : 0;
    nd_kb_match_rules(kb, line ? line + pre : line, len - pre, &c);
    size_t local = c.n;
    /* A match that began on an earlier line: this line's result depends
     * on those lines, a repeat of it must be matched again. */
    if (nd_kb_match_cross(kb, line ? line + pre : line, len - pre, &c))
        kb->live_dependent = true;
    /* Findings below a chain marker read the re-raise (ranking, as in
     * explain): count the markers the output has shown so far. */
    int chain = kb->live_chain;
    if (c.chain)
        kb->live_chain++;
    if (c.n == 0)
        return nd_kb_live_resolve(kb, out);
    char *text = nd_kb_trim_line(line, len);
    /* One finding per line: the require filter and context first, then the
     * most specific rules hide the others. */
    size_t rules[ND_KB_LINE_HITS], n = 0, held[ND_KB_LINE_HITS], nheld = 0;
    int rank = nd_kb_line_rank(line, len);
    for (size_t i = 0; i < c.n; i++) {
        const struct nd_kb_rule *r = &kb->rules.v[c.rules[i]];
        if (r->nconds > 0)
            kb->live_dependent = true;
        if (!nd_kb_rule_accepts(r, text))
            continue;
        enum nd_kb_live_verdict v = nd_kb_live_context(kb, r, kb->live_line);
        if (v == ND_KB_LIVE_MISSING)
            held[nheld++] = c.rules[i];
        if (v != ND_KB_LIVE_OK)
            continue;
        rules[n++] = c.rules[i];
    }
    n = nd_kb_line_dedup(kb, rules, n);
    bool crossed[ND_KB_LINE_HITS], any_crossed = false;
    for (size_t i = 0; i < n; i++) {
        crossed[i] = false;
        for (size_t j = local; j < c.n && !crossed[i]; j++)
            crossed[i] = c.rules[j] == rules[i];
        any_crossed |= crossed[i];
    }
    unsigned gone[ND_KB_LIVE_WITHDRAWN_MAX];
    size_t ngone = any_crossed ? nd_kb_cross_hides(kb, rules, n, crossed, gone, ND_ARRAY_SIZE(gone)) : 0;
    /* A held rule that counts later hides what this line gives now, as
     * explain's pending line shadows the rules kept on it. */
    for (size_t i = 0; i < nheld; i++)
        nd_kb_hold(kb, (unsigned)held[i], text, source, lineno, rank, chain, rules, n);
    int added = 0;
    for (size_t i = 0; i < n; i++)
        if (nd_kb_live_finding(out, &kb->rules.v[rules[i]], text, source, lineno, rank, chain))
            added++;
    free(text);
    /* What this line completes of the lines held before it. */
    added += nd_kb_live_resolve(kb, out);
    for (size_t i = 0; i < ngone && kb->live_nwithdrawn < ND_ARRAY_SIZE(kb->live_withdrawn); i++)
        kb->live_withdrawn[kb->live_nwithdrawn++] = gone[i];
    return added;
}

int nd_kb_explain_buffer(struct nd_kb *kb, const char *name, const char *buf, size_t len, struct nd_findings *out,
                         struct nd_error *err)
{
    (void)err;
    if (!kb || !out)
        return 0;
    struct nd_kb_scan *s = nd_kb_scan_new(kb);
    nd_kb_scan_no_fallback(s);
    nd_kb_scan_buffer(s, name ? name : "<buffer>", buf, len);
    nd_kb_scan_finish(s, out, false);
    nd_kb_scan_free(s);
    return 0;
}

static bool nd_kb_line_has(const struct nd_kb_line_ctx *c, size_t ri, const char *line)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->rules[i] == ri)
            return nd_kb_rule_accepts(&c->kb->rules.v[ri], line);
    return false;
}

/* A block is scanned as explain scans a file, so requires/unless/within
 * and the one-finding-per-line choice all apply; info findings and wrappers
 * count too. */
static bool nd_kb_block_finds(struct nd_kb *kb, const struct nd_kb_rule *r, const char *block)
{
    struct nd_findings out = ND_FINDINGS_INIT;
    struct nd_kb_scan *s = nd_kb_scan_new(kb);
    nd_kb_scan_no_fallback(s);
    nd_kb_scan_buffer(s, "example-block", block, strlen(block));
    nd_kb_scan_finish(s, &out, true);
    bool found = nd_findings_find(&out, r->id) != NULL;
    nd_findings_release(&out);
    nd_kb_scan_free(s);
    return found;
}

static void nd_kb_block_fail(FILE *fp, const struct nd_kb_rule *r, long line, const char *what, const char *block)
{
    const char *nl = strchr(block, '\n');
    int first = nl ? (int)(nl - block) : (int)strlen(block);
    fprintf(fp, "%s:%ld: [%s] %s: %.*s%s\n", r->file, line, r->id, what, first, block, nl ? " ..." : "");
}

size_t nd_kb_test_examples(struct nd_kb *kb, FILE *fp, size_t *nchecked)
{
    size_t fails = 0, checked = 0;
    struct nd_kb_line_ctx c;
    for (size_t i = 0; i < kb->rules.n; i++) {
        const struct nd_kb_rule *r = &kb->rules.v[i];
        for (size_t j = 0; j < r->examples.n; j++, checked++) {
            nd_kb_match_rules(kb, r->examples.v[j], strlen(r->examples.v[j]), &c);
            if (!nd_kb_line_has(&c, i, r->examples.v[j])) {
                fprintf(fp, "%s:%ld: [%s] example does not match: %s\n", r->file, r->examples.line[j], r->id,
                        r->examples.v[j]);
                fails++;
            }
        }
        for (size_t j = 0; j < r->example_blocks.n; j++, checked++)
            if (!nd_kb_block_finds(kb, r, r->example_blocks.v[j])) {
                nd_kb_block_fail(fp, r, r->example_blocks.line[j], "example-block gives no finding of this rule",
                                 r->example_blocks.v[j]);
                fails++;
            }
        for (size_t j = 0; j < r->counter_blocks.n; j++, checked++)
            if (nd_kb_block_finds(kb, r, r->counter_blocks.v[j])) {
                nd_kb_block_fail(fp, r, r->counter_blocks.line[j], "counter-block gives this rule's finding",
                                 r->counter_blocks.v[j]);
                fails++;
            }
        for (size_t j = 0; j < r->counters.n; j++, checked++) {
            nd_kb_match_rules(kb, r->counters.v[j], strlen(r->counters.v[j]), &c);
            if (nd_kb_line_has(&c, i, r->counters.v[j])) {
                fprintf(fp, "%s:%ld: [%s] counter example matches: %s\n", r->file, r->counters.line[j], r->id,
                        r->counters.v[j]);
                fails++;
            }
        }
    }
    if (nchecked)
        *nchecked = checked;
    return fails + nd_kb_shape_test(&kb->rules.shape, fp, nchecked);
}
