/* Repeated lines left out of the scan. A warning printed on every step
 * (torch_npu's double-dtype cast on a fifth of all lines) costs the
 * database far more than a quiet line: its words start many patterns. Once
 * such a line is known, later copies of it are cut out of the text handed
 * to vectorscan and their matches are replayed from the first copy, which
 * was matched on its own.
 *
 * That is exact for the patterns that stay within a line
 * (nd_kb_pattern_line_local): their matches on a line depend on nothing
 * else. The few that can cross a line end run in a second, small database
 * over the whole text, and their matches from the shortened text are
 * dropped. The explain output is the same with or without this; only the
 * time differs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hs/hs.h>

#include "core/array.h"
#include "core/strbuf.h"
#include "kb/kb_elide.h"
#include "kb/kb_internal.h"

#define ND_ELIDE_LINE_MAX 512         /* longer lines are not remembered */
#define ND_ELIDE_ENTRIES 16           /* lines remembered */
#define ND_ELIDE_SEEN 64              /* hashes of matched lines seen once */
#define ND_ELIDE_HITS 8               /* matches kept per remembered line */
#define ND_ELIDE_HOT_LINES 32         /* matched lines in a chunk that make the next one worth it */
#define ND_ELIDE_LEARN_MAX 256        /* matched lines looked at per chunk */
#define ND_ELIDE_MIN_TEXT (64u << 10) /* smaller chunks (short inputs, the end of a file) teach nothing */

struct nd_kb_elide_hit {
    unsigned id;
    unsigned to; /* end, in "\n" line "\n" */
};

struct nd_kb_elide_entry {
    size_t len;
    unsigned long uses;
    size_t nhits;
    struct nd_kb_elide_hit hits[ND_ELIDE_HITS];
    char text[ND_ELIDE_LINE_MAX];
};

/* A run of the text kept in the shortened copy. */
struct nd_kb_elide_seg {
    size_t e_off, s_off;
};

struct nd_kb_elide_line {
    size_t off; /* start of the left-out line in the text */
    size_t entry;
};

struct nd_kb_elide {
    struct nd_kb_elide_entry ent[ND_ELIDE_ENTRIES];
    size_t nent;
    unsigned char nlen[ND_ELIDE_LINE_MAX + 1]; /* remembered lines of each length */
    uint64_t seen[ND_ELIDE_SEEN];
    bool hot;
    size_t chunk_lines, learn_left;
    size_t last_start;
    bool last_valid;
    size_t replayed;
    unsigned long long left_out; /* lines left out, in all */
    /* The shortened text and its map back. */
    char *buf;
    size_t cap;
    struct nd_kb_elide_seg *seg;
    size_t nseg, segcap, seg_at; /* seg_at: the run of the last match */
    struct nd_kb_elide_line *el;
    size_t nel, elcap;
    /* The scan in progress. */
    struct nd_kb *kb;
    nd_kb_elide_add_fn add;
    void *arg;
    bool stop;
    struct nd_kb_elide_entry *learning;
    bool overflow;
    char line[ND_ELIDE_LINE_MAX + 2];
};

struct nd_kb_elide *nd_kb_elide_new(void)
{
    struct nd_kb_elide *e = nd_xcalloc(1, sizeof *e);
    e->learn_left = ND_ELIDE_LEARN_MAX;
    return e;
}

void nd_kb_elide_free(struct nd_kb_elide *e)
{
    if (!e)
        return;
    free(e->buf);
    free(e->seg);
    free(e->el);
    free(e);
}

/* The cross-line patterns' database and the per-pattern verdict, made on
 * first use: a quiet log never pays for them. */
static bool nd_kb_elide_ready(struct nd_kb *kb)
{
    if (kb->cross_state)
        return kb->cross_state > 0;
    kb->cross_state = -1;
    if (!kb->pat_expr || !kb->db || kb->npatterns == 0)
        return false;
    kb->pat_local = nd_xcalloc(kb->npatterns, sizeof *kb->pat_local);
    const char **v = nd_xcalloc(kb->npatterns + 1, sizeof *v);
    unsigned *flags = nd_xcalloc(kb->npatterns + 1, sizeof *flags);
    unsigned *ids = nd_xcalloc(kb->npatterns, sizeof *ids);
    size_t n = 0;
    for (size_t i = 0; i < kb->npatterns; i++) {
        kb->pat_local[i] = nd_kb_pattern_line_local(kb->pat_expr[i]);
        if (!kb->pat_local[i]) {
            v[n] = kb->pat_expr[i];
            flags[n] = HS_FLAG_MULTILINE;
            ids[n++] = (unsigned)i;
        }
    }
    bool ok = true;
    if (n > 0) {
        /* Same flags as the main database, and its pattern ids, so that a
         * match names the same pattern. Cached like it (kb_cache.c), under
         * a key that also covers the ids. */
        struct nd_strbuf tag = ND_STRBUF_INIT;
        nd_strbuf_init(&tag);
        nd_strbuf_adds(&tag, "cross-line ids:");
        for (size_t i = 0; i < n; i++)
            nd_strbuf_addf(&tag, " %u", ids[i]);
        v[n] = tag.buf;
        flags[n] = 0;
        char key[33];
        nd_kb_cache_key(v, flags, n + 1, key);
        v[n] = NULL;
        nd_strbuf_release(&tag);
        kb->db_cross = nd_kb_cache_load(key);
        if (!kb->db_cross) {
            hs_compile_error_t *cerr = NULL;
            if (hs_compile_multi(v, flags, ids, (unsigned)n, HS_MODE_BLOCK, NULL, &kb->db_cross, &cerr) != HS_SUCCESS) {
                hs_free_compile_error(cerr);
                kb->db_cross = NULL;
                ok = false;
            } else {
                nd_kb_cache_store(kb->db_cross, key);
            }
        }
        if (ok && hs_alloc_scratch(kb->db_cross, &kb->scratch) != HS_SUCCESS)
            ok = false;
    }
    free(v);
    free(flags);
    free(ids);
    kb->cross_state = ok ? 1 : -1;
    return ok;
}

bool nd_kb_cross_ready(struct nd_kb *kb)
{
    return nd_kb_elide_ready(kb);
}

static bool nd_kb_elide_blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\f' && p[i] != '\v')
            return false;
    return true;
}

static long nd_kb_elide_find(const struct nd_kb_elide *e, const char *p, size_t len)
{
    if (len == 0 || len > ND_ELIDE_LINE_MAX || e->nlen[len] == 0)
        return -1;
    for (size_t k = 0; k < e->nent; k++)
        if (e->ent[k].len == len && e->ent[k].text[0] == p[0] && memcmp(e->ent[k].text, p, len) == 0)
            return (long)k;
    return -1;
}

static int nd_kb_elide_on_short(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags,
                                void *ctx)
{
    (void)from;
    (void)flags;
    struct nd_kb_elide *e = ctx;
    if (!e->kb->pat_local[id] || to == 0)
        return 0;
    /* Back to the text: the run the last byte of the match lies in. The
     * matches come mostly in order: the run of the last one, or the next,
     * is tried before a search. */
    size_t b = (size_t)to - 1, lo = e->seg_at, hi = e->nseg;
    if (lo < hi && e->seg[lo].e_off <= b && (lo + 1 == hi || b < e->seg[lo + 1].e_off))
        hi = lo + 1;
    else if (lo + 1 < hi && e->seg[lo + 1].e_off <= b && (lo + 2 == hi || b < e->seg[lo + 2].e_off))
        hi = ++lo + 1;
    else
        lo = 0;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (e->seg[mid].e_off <= b)
            lo = mid;
        else
            hi = mid;
    }
    e->seg_at = lo;
    size_t sb = e->seg[lo].s_off + (b - e->seg[lo].e_off);
    if (e->add(e->arg, id, (unsigned long long)sb + 1)) {
        e->stop = true;
        return 1;
    }
    return 0;
}

static int nd_kb_elide_on_cross(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags,
                                void *ctx)
{
    (void)from;
    (void)flags;
    struct nd_kb_elide *e = ctx;
    if (e->add(e->arg, id, to)) {
        e->stop = true;
        return 1;
    }
    return 0;
}

static void nd_kb_elide_seg(struct nd_kb_elide *e, const char *text, size_t from, size_t to, size_t *w)
{
    if (to <= from)
        return;
    ND_ALLOC_GROW(e->seg, e->nseg + 1, e->segcap);
    e->seg[e->nseg].e_off = *w;
    e->seg[e->nseg].s_off = from;
    e->nseg++;
    memcpy(e->buf + *w, text + from, to - from);
    *w += to - from;
}

enum nd_kb_elide_result nd_kb_elide_scan(struct nd_kb_elide *e, struct nd_kb *kb, const char *text, size_t len,
                                         nd_kb_elide_add_fn add, void *arg)
{
    e->replayed = 0;
    if (!e->hot || e->nent == 0 || len < 2 || len > 0xffffffffu || kb->cross_state <= 0)
        return ND_KB_ELIDE_NONE;
    if (e->cap < len) {
        free(e->buf);
        e->buf = nd_xmalloc(len);
        e->cap = len;
    }
    e->nseg = e->nel = 0;
    size_t w = 0, run = 0, left_out = 0;
    /* The first line has no line end before it (a leading class could not
     * take one), the last may lack its own: both are always scanned. */
    const char *p = memchr(text, '\n', len);
    /* The end of the line after a remembered one, found by its blank test. */
    size_t ahead_off = 0;
    const char *ahead_nl = NULL;
    while (p && (size_t)(p - text) + 1 < len) {
        size_t off = (size_t)(p - text) + 1;
        const char *nl = ahead_off == off ? ahead_nl : memchr(text + off, '\n', len - off);
        if (!nl)
            break;
        size_t n = (size_t)(nl - (text + off));
        long k = nd_kb_elide_find(e, text + off, n);
        /* A blank line after it could carry a "\s*$" match on from it
         * (nd_kb_pattern_line_local); the text's last line is kept too. */
        if (k >= 0 && (size_t)(nl - text) + 1 < len) {
            size_t next = (size_t)(nl - text) + 1;
            const char *ne = memchr(text + next, '\n', len - next);
            ahead_off = next;
            ahead_nl = ne;
            if (nd_kb_elide_blank(text + next, ne ? (size_t)(ne - (text + next)) : len - next))
                k = -1;
        } else {
            k = -1;
        }
        if (k >= 0) {
            nd_kb_elide_seg(e, text, run, off, &w);
            ND_ALLOC_GROW(e->el, e->nel + 1, e->elcap);
            e->el[e->nel].off = off;
            e->el[e->nel].entry = (size_t)k;
            e->nel++;
            left_out += n + 1;
            run = off + n + 1;
        }
        p = nl;
    }
    /* Too little left out to pay for the second scan. */
    if (left_out * 8 < len)
        return ND_KB_ELIDE_NONE;
    nd_kb_elide_seg(e, text, run, len, &w);
    e->kb = kb;
    e->add = add;
    e->arg = arg;
    e->stop = false;
    e->seg_at = 0;
    if (w > 0 && e->nseg > 0)
        hs_scan(kb->db, e->buf, (unsigned)w, 0, kb->scratch, nd_kb_elide_on_short, e);
    if (!e->stop && kb->db_cross)
        hs_scan(kb->db_cross, text, (unsigned)len, 0, kb->scratch, nd_kb_elide_on_cross, e);
    if (e->stop)
        return ND_KB_ELIDE_STOPPED;
    for (size_t i = 0; i < e->nel; i++) {
        struct nd_kb_elide_entry *en = &e->ent[e->el[i].entry];
        en->uses++;
        /* hits[].to counts from the line end before the line. */
        for (size_t j = 0; j < en->nhits; j++, e->replayed++)
            if (add(arg, en->hits[j].id, (unsigned long long)(e->el[i].off - 1 + en->hits[j].to)))
                return ND_KB_ELIDE_STOPPED;
    }
    e->chunk_lines += e->nel;
    e->left_out += e->nel;
    return ND_KB_ELIDE_DONE;
}

size_t nd_kb_elide_replayed(const struct nd_kb_elide *e)
{
    return e->replayed;
}

unsigned long long nd_kb_elide_left_out(const struct nd_kb_elide *e)
{
    return e ? e->left_out : 0;
}

static int nd_kb_elide_on_line(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags,
                               void *ctx)
{
    (void)from;
    (void)flags;
    struct nd_kb_elide *e = ctx;
    struct nd_kb_elide_entry *en = e->learning;
    /* A match ending on the line end before the line is that line's. */
    if (!e->kb->pat_local[id] || to < 2)
        return 0;
    for (size_t j = 0; j < en->nhits; j++)
        if (en->hits[j].id == id) {
            if (to < en->hits[j].to)
                en->hits[j].to = (unsigned)to;
            return 0;
        }
    if (en->nhits == ND_ELIDE_HITS) {
        e->overflow = true;
        return 1;
    }
    en->hits[en->nhits].id = id;
    en->hits[en->nhits].to = (unsigned)to;
    en->nhits++;
    return 0;
}

static uint64_t nd_kb_elide_hash(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull ^ n; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 1099511628211ull;
    }
    return h ? h : 1;
}

/* Remembers the line: matched on its own, between two line ends, as it
 * would be anywhere in a text. */
static void nd_kb_elide_remember(struct nd_kb_elide *e, struct nd_kb *kb, const char *p, size_t n)
{
    size_t k = e->nent;
    if (k == ND_ELIDE_ENTRIES) {
        /* Full: the least used goes, and the others' counts age. */
        k = 0;
        for (size_t i = 1; i < e->nent; i++)
            if (e->ent[i].uses < e->ent[k].uses)
                k = i;
        for (size_t i = 0; i < e->nent; i++)
            e->ent[i].uses /= 2;
        e->nlen[e->ent[k].len]--;
    } else {
        e->nent++;
    }
    struct nd_kb_elide_entry *en = &e->ent[k];
    en->len = n;
    en->uses = 1;
    en->nhits = 0;
    memcpy(en->text, p, n);
    e->line[0] = '\n';
    memcpy(e->line + 1, p, n);
    e->line[n + 1] = '\n';
    e->kb = kb;
    e->learning = en;
    e->overflow = false;
    hs_error_t rc = hs_scan(kb->db, e->line, (unsigned)n + 2, 0, kb->scratch, nd_kb_elide_on_line, e);
    if (e->overflow || (rc != HS_SUCCESS && rc != HS_SCAN_TERMINATED)) {
        /* Too many matches to replay cheaply: not worth remembering. */
        e->nent--;
        if (k != e->nent)
            e->ent[k] = e->ent[e->nent];
        return;
    }
    /* In match order, (end, pattern): the replays of a chunk then come
     * sorted, as kb_scan.c takes them. */
    for (size_t i = 1; i < en->nhits; i++) {
        struct nd_kb_elide_hit h = en->hits[i];
        size_t j = i;
        for (; j > 0 && (en->hits[j - 1].to > h.to || (en->hits[j - 1].to == h.to && en->hits[j - 1].id > h.id)); j--)
            en->hits[j] = en->hits[j - 1];
        en->hits[j] = h;
    }
    e->nlen[n]++;
}

void nd_kb_elide_learn(struct nd_kb_elide *e, struct nd_kb *kb, const char *text, size_t len, size_t b)
{
    /* A short input ends before anything could be left out: it must not
     * pay for the second database. */
    if (e->learn_left == 0 || b >= len || len < ND_ELIDE_MIN_TEXT)
        return;
    const char *ls = b ? memrchr(text, '\n', b) : NULL;
    size_t start = ls ? (size_t)(ls - text) + 1 : 0;
    if (e->last_valid && start == e->last_start)
        return;
    e->last_start = start;
    e->last_valid = true;
    e->learn_left--;
    e->chunk_lines++;
    if (start == 0)
        return;
    const char *nl = memchr(text + start, '\n', len - start);
    if (!nl)
        return;
    size_t n = (size_t)(nl - (text + start));
    if (n == 0 || n > ND_ELIDE_LINE_MAX || nd_kb_elide_blank(text + start, n) || nd_kb_elide_find(e, text + start, n) >= 0)
        return;
    /* Seen once: noted. Seen again: remembered. */
    uint64_t h = nd_kb_elide_hash(text + start, n);
    uint64_t *slot = &e->seen[h % ND_ELIDE_SEEN];
    if (*slot != h) {
        *slot = h;
        return;
    }
    *slot = 0;
    if (nd_kb_elide_ready(kb))
        nd_kb_elide_remember(e, kb, text + start, n);
}

void nd_kb_elide_chunk_done(struct nd_kb_elide *e)
{
    e->hot = e->chunk_lines >= ND_ELIDE_HOT_LINES;
    e->chunk_lines = 0;
    e->learn_left = ND_ELIDE_LEARN_MAX;
    e->last_valid = false;
}
