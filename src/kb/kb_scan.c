/* The explain scanner: streams files, directories, stdin and .gz through the
 * one vectorscan database in fixed-size chunks cut at line ends, maps each
 * match back to file:line, and keeps a bounded summary per rule. Memory does
 * not grow with input size: one chunk buffer, one record per rule. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

#include "core/fileio.h"
#include "core/redact.h"
#include "core/array.h"
#include "core/strbuf.h"
#include "kb/kb_elide.h"
#include "kb/kb_frames.h"
#include "kb/kb_internal.h"
#include "kb/kb_logical.h"

#define ND_KB_CHUNK (4u << 20)  /* the buffer, and the longest line scanned whole */
#define ND_KB_READ (256u << 10) /* one read and one scan: stays in cache between them */
#define ND_KB_MAX_NOTES 40
#define ND_KB_WRAP_WINDOW 40 /* lines around a wrapper where a specific line takes over */
#define ND_KB_LOOKBACK 12    /* lines searched backwards for a timestamp */
#define ND_KB_MAX_DEPTH 40
#define ND_KB_CONTEXT 4096 /* bytes looked at around a match in a long line */

struct nd_kb_match {
    unsigned long long to;
    unsigned id;
};

#define ND_KB_MAX_MATCHES (1u << 16)
#define ND_KB_GROUP 32        /* rules matched on one logical line */
#define ND_KB_PENDING_MAX 256 /* lines waiting for their context */
#define ND_KB_FB_ERRS 3       /* ERROR lines kept for the fallback */
#define ND_KB_FB_CANDS 8      /* exception lines waiting to learn whether a rule explains them */
#define ND_KB_FB_UERRS 8      /* ERROR lines waiting to learn whether a rule explains them */
#define ND_KB_FB_WARNS 16     /* warning lines no rule explains (kb_warnfall.c) */

/* One rule's match on the logical line being collected. */
struct nd_kb_grp {
    size_t ri;
    const char *ls; /* text kept around the match (original chunk) */
    size_t llen;
    long line;            /* physical line of the match */
    size_t phys, physlen; /* that physical line in the chunk */
};

/* A line waiting for its context: a decision that needs later lines. */
struct nd_kb_pending {
    size_t ri;
    struct nd_kb_occ occ; /* text owned */
    size_t hides[4];      /* rules on its line it would hide */
    size_t nhides;
    long logical; /* its logical line: accepted, it explains an exception there */
    size_t seq;   /* its place in the order rules were first seen, kept for when it is accepted */
    /* Wrapper lines near it that defer to it if it is accepted. */
    size_t wrap_rule[4];
    long wrap_count[4];
    size_t nwrap;
    struct nd_kb_occ wrap_occ; /* the first of them, text owned */
};

/* An exception line of the current scan, and whether a rule explained it. */
struct nd_kb_fb_cand {
    struct nd_kb_occ occ; /* text owned */
    unsigned src;
    long logical;
    char *frames; /* its traceback's last frames (kb_frames.c), owned; NULL none */
};

struct nd_kb_dirid {
    dev_t dev;
    ino_t ino;
};

struct nd_kb_scan {
    struct nd_kb *kb;
    struct nd_kb_hit *hits;
    long *last_line; /* per rule: last line counted, to count a line once */
    unsigned *last_src;
    struct nd_strv names; /* interned source names */
    struct nd_strv notes;
    size_t notes_dropped;
    size_t skipped_binary; /* files skipped by name in directory walks */
    size_t skipped_empty;  /* empty files met in directory walks */
    bool walking;          /* inside a directory walk */
    bool follow;           /* --follow: symlinks out of the tree are read too */
    char *tree;            /* realpath of the directory being walked */
    size_t inputs;
    unsigned long long bytes, lines;
    size_t seq;
    char *buf;
    struct nd_kb_dirid *seen; /* files and directories already scanned */
    size_t nseen;

    /* Current source. */
    const char *name;
    unsigned src;
    int rank;
    long lineno; /* complete lines before the current chunk */
    double last_ts;
    long last_specific;
    size_t wrap_rule[8]; /* wrapper matches waiting for a specific line */
    long wrap_count[8];
    size_t nwrap;
    long wrap_line;            /* line of the oldest of them */
    struct nd_kb_occ wrap_occ; /* and its text, evidence for the line that explains it */
    size_t last_specific_rule;
    int chain; /* exception-chain markers seen so far in this source */

    struct nd_kb_match *mbuf; /* matches of the current chunk */
    struct nd_kb_match *mtmp; /* room to merge them (nd_kb_sort_matches), made on first use */
    size_t nmatch;
    unsigned long long *pat_last; /* per pattern: end offset of the last match kept, 0 none */

    /* Current chunk and the line cursor the match callback advances. */
    const char *chunk;
    size_t chunk_len;
    size_t cur_pos;
    long cur_line;
    /* What vectorscan scanned: the chunk, or its logical lines. */
    const char *scanbuf;
    size_t scan_len;
    bool lg_on;
    struct nd_kb_logical lg;
    size_t cur_pl; /* physical line cursor into lg */
    /* The logical line being collected (one finding per line). */
    struct nd_kb_grp grp[ND_KB_GROUP];
    size_t ngrp;
    long grp_logical;
    /* Context: per key, the last two lines it matched on in source key_src. */
    bool *key_ref; /* keys some condition names; NULL when none */
    unsigned *key_src;
    long *key_last, *key_prev;
    bool cond_dirty;
    struct nd_kb_pending *pending;
    size_t npending;
    struct nd_kb_repeat **repeat; /* per rule: its last line, for repeats */
    /* Fallback (no rule matched): the last exception line, first ERROR lines. */
    struct nd_kb_occ fb_exc;
    char *fb_exc_frames;         /* the frames above it, owned; NULL none */
    struct nd_kb_frames fb_ring; /* the current traceback's last frames */
    struct nd_kb_occ fb_err[ND_KB_FB_ERRS];
    size_t fb_nerr;
    long fb_errcount;
    /* The first real exception lines no rule has explained (yet). */
    struct nd_kb_fb_cand fb_cand[ND_KB_FB_CANDS];
    size_t fb_ncand;
    bool fb_cand_full; /* an unexplained one was not kept: the first is known */
    /* The first ERROR lines no rule's match explains (yet), and how many
     * such lines there were: the fallback when only hidden rules matched. */
    struct nd_kb_fb_cand fb_uerr[ND_KB_FB_UERRS];
    size_t fb_nuerr;
    long fb_uerrcount;
    /* The first warning lines no rule's match explains (yet): the fallback
     * of a log with no error line at all. */
    struct nd_kb_fb_cand fb_warn[ND_KB_FB_WARNS];
    size_t fb_nwarn;
    /* A warning line of the logical line being collected: kept as a
     * fallback line only if no rule explains that line (nd_kb_flush_line). */
    const char *warn_ls;
    size_t warn_llen;
    long warn_line, warn_logical;
    int warn_chain;
    bool warn_on;
    bool redacted; /* the kept texts are redacted (nd_kb_scan_redact) */
    char *req_buf; /* a matched line for a rule's require filter, reused */
    size_t req_cap;
    bool no_fallback;          /* callers with a fallback of their own (check) */
    struct nd_kb_elide *elide; /* repeated lines left out of the scan; NULL when off */
    char no_ts[512];           /* the last matched line found without a timestamp */
    size_t no_ts_len;
    /* Log-shape analysis of each source's tail (kb_logshape.c). */
    struct nd_kb_shape_scan *shape;
};

static void nd_kb_note(struct nd_kb_scan *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void nd_kb_note(struct nd_kb_scan *s, const char *fmt, ...)
{
    if (s->notes.n >= ND_KB_MAX_NOTES) {
        s->notes_dropped++;
        return;
    }
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    nd_strv_push(&s->notes, msg, 0);
}

struct nd_kb_scan *nd_kb_scan_new(struct nd_kb *kb)
{
    struct nd_kb_scan *s = nd_xcalloc(1, sizeof *s);
    s->kb = kb;
    size_t n = kb->rules.n ? kb->rules.n : 1;
    s->hits = nd_xcalloc(n, sizeof *s->hits);
    s->last_line = nd_xcalloc(n, sizeof *s->last_line);
    s->last_src = nd_xcalloc(n, sizeof *s->last_src);
    s->mbuf = nd_xmalloc(ND_KB_MAX_MATCHES * sizeof *s->mbuf);
    s->pat_last = nd_xcalloc(kb->npatterns ? kb->npatterns : 1, sizeof *s->pat_last);
    s->shape = nd_kb_shape_scan_new(&kb->rules.shape);
    s->elide = nd_kb_elide_new();
    if (kb->has_conds) {
        s->key_ref = nd_xcalloc(kb->nkeys, sizeof *s->key_ref);
        for (size_t i = 0; i < kb->rules.n; i++)
            for (size_t j = 0; j < kb->rules.v[i].nconds; j++)
                if (kb->rules.v[i].conds[j].key >= 0)
                    s->key_ref[kb->rules.v[i].conds[j].key] = true;
        s->key_src = nd_xcalloc(kb->nkeys, sizeof *s->key_src);
        s->key_last = nd_xcalloc(kb->nkeys, sizeof *s->key_last);
        s->key_prev = nd_xcalloc(kb->nkeys, sizeof *s->key_prev);
        s->pending = nd_xcalloc(ND_KB_PENDING_MAX, sizeof *s->pending);
    }
    return s;
}

static void nd_kb_occ_release(struct nd_kb_occ *o)
{
    free(o->text);
    o->text = NULL;
}

/* Calls fn on every line the fallback keeps: one list for releasing and for
 * redacting them, so that a line kept in a new place cannot be freed but
 * left unredacted. */
static void nd_kb_fb_each_occ(struct nd_kb_scan *s, void (*fn)(struct nd_kb_occ *))
{
    fn(&s->wrap_occ);
    fn(&s->fb_exc);
    for (size_t i = 0; i < s->fb_nerr; i++)
        fn(&s->fb_err[i]);
    for (size_t i = 0; i < s->fb_ncand; i++)
        fn(&s->fb_cand[i].occ);
    for (size_t i = 0; i < s->fb_nuerr; i++)
        fn(&s->fb_uerr[i].occ);
    for (size_t i = 0; i < s->fb_nwarn; i++)
        fn(&s->fb_warn[i].occ);
}

void nd_kb_scan_free(struct nd_kb_scan *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->kb->rules.n; i++) {
        struct nd_kb_hit *h = &s->hits[i];
        nd_kb_occ_release(&h->earliest);
        nd_kb_occ_release(&h->wrapped);
        for (size_t j = 0; j < h->nsamples; j++)
            nd_kb_occ_release(&h->samples[j]);
        nd_rank_set_release(&h->ranks);
    }
    free(s->hits);
    free(s->last_line);
    free(s->last_src);
    free(s->mbuf);
    free(s->mtmp);
    free(s->pat_last);
    nd_kb_elide_free(s->elide);
    for (size_t i = 0; i < s->npending; i++) {
        free(s->pending[i].occ.text);
        free(s->pending[i].wrap_occ.text);
    }
    free(s->pending);
    if (s->repeat)
        for (size_t i = 0; i < s->kb->rules.n; i++)
            free(s->repeat[i]);
    free(s->repeat);
    free(s->key_ref);
    free(s->key_src);
    free(s->key_last);
    free(s->key_prev);
    nd_kb_logical_release(&s->lg);
    nd_kb_fb_each_occ(s, nd_kb_occ_release);
    free(s->fb_exc_frames);
    nd_kb_frames_clear(&s->fb_ring);
    for (size_t i = 0; i < s->fb_ncand; i++)
        free(s->fb_cand[i].frames);
    nd_strv_release(&s->names);
    nd_strv_release(&s->notes);
    free(s->buf);
    free(s->seen);
    free(s->req_buf);
    nd_kb_shape_scan_free(s->shape);
    free(s);
}

char *nd_kb_trim_line(const char *line, size_t len)
{
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
        len--;
    while (len && (*line == ' ' || *line == '\t')) {
        line++;
        len--;
    }
    /* Redacted before it is cut: a secret across the cap would otherwise
     * leave a head the scrubbers no longer know for one. */
    return nd_redact_cut(line, len, ND_KB_TEXT_MAX);
}

/* Timestamp of the matched line, else of a line shortly before it in this
 * chunk (a traceback line carries none), else the last one of this source. */
static double nd_kb_line_ts(struct nd_kb_scan *s, const char *ls, size_t llen)
{
    double t;
    /* A warning repeated on every step carries no time of its own, and
     * looking for one in it costs more than the rest of its match: the
     * last such line is remembered. */
    bool known = llen == s->no_ts_len && memcmp(ls, s->no_ts, llen) == 0;
    if (!known && nd_kb_parse_timestamp(ls, llen, &t)) {
        s->last_ts = t;
        return t;
    }
    if (!known && llen <= sizeof s->no_ts) {
        memcpy(s->no_ts, ls, llen);
        s->no_ts_len = llen;
    }
    const char *lo = s->chunk;
    const char *end = ls;
    for (int i = 0; i < ND_KB_LOOKBACK && end > lo; i++) {
        const char *e = end - 1; /* the '\n' ending the previous line */
        const char *nl = e > lo ? memrchr(lo, '\n', (size_t)(e - lo)) : NULL;
        const char *b = nl ? nl + 1 : lo;
        if (nd_kb_parse_timestamp(b, (size_t)(e - b), &t))
            return t;
        end = b;
    }
    return s->last_ts;
}

/* What nd_redact_cut looks at of a text cut to ND_KB_TEXT_MAX (redact.h:
 * the first 4*max bytes, at least 4 KiB), and one byte more, so that a
 * line kept to this length redacts and cuts as the whole line would. */
#define ND_KB_RAW_SCAN (4 * ND_KB_TEXT_MAX > 4096 ? 4 * ND_KB_TEXT_MAX : 4096)
#define ND_KB_RAW_MAX (ND_KB_RAW_SCAN + 1)

/* A matched line kept during the scan: trimmed as nd_kb_trim_line does,
 * NUL bytes made '?' (as nd_redact_cut would), and long lines cut to
 * ND_KB_RAW_MAX, but not redacted. Most kept lines are replaced or dropped
 * before the scan ends (a line no rule explains yet, an earlier one from
 * another rank), and redaction costs more than all the rest of a match:
 * the lines still kept when the scan is finished are redacted then
 * (nd_kb_scan_redact), before anything reads them. */
static char *nd_kb_keep_line(const char *line, size_t len)
{
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
        len--;
    while (len && (*line == ' ' || *line == '\t')) {
        line++;
        len--;
    }
    if (len > ND_KB_RAW_MAX)
        len = ND_KB_RAW_MAX;
    char *t = nd_xmalloc(len + 1);
    for (size_t i = 0; i < len; i++)
        t[i] = line[i] ? line[i] : '?';
    t[len] = '\0';
    return t;
}

static void nd_kb_occ_set(struct nd_kb_occ *dst, const struct nd_kb_occ *src, const char *ls, size_t llen,
                          const char *text)
{
    free(dst->text);
    *dst = *src;
    dst->text = text ? nd_xstrdup(text) : nd_kb_keep_line(ls, llen);
}

/* A kept line made ready for output: redacted, then cut. */
static void nd_kb_occ_redact(struct nd_kb_occ *o)
{
    if (!o->text)
        return;
    char *red = nd_redact_cut(o->text, strlen(o->text), ND_KB_TEXT_MAX);
    free(o->text);
    o->text = red;
}

/* Redacts every line the scan still keeps, once: the summary, the
 * fallback's and waiting lines. Called before any of them is read for
 * output (nd_kb_scan_finish, which explain may call twice). */
static void nd_kb_scan_redact(struct nd_kb_scan *s)
{
    if (s->redacted)
        return;
    s->redacted = true;
    for (size_t i = 0; i < s->kb->rules.n; i++) {
        struct nd_kb_hit *h = &s->hits[i];
        nd_kb_occ_redact(&h->earliest);
        nd_kb_occ_redact(&h->wrapped);
        for (size_t j = 0; j < h->nsamples; j++)
            nd_kb_occ_redact(&h->samples[j]);
    }
    for (size_t i = 0; i < s->npending; i++) {
        nd_kb_occ_redact(&s->pending[i].occ);
        nd_kb_occ_redact(&s->pending[i].wrap_occ);
    }
    nd_kb_fb_each_occ(s, nd_kb_occ_redact);
}

/* Counts one line for rule ri. text, when given, is the line already
 * trimmed (a decision that waited for context); else it is cut from ls. The
 * timestamp is parsed only when the summary can use it: repeated lines of
 * one log cost a counter and the rank. */
static void nd_kb_count(struct nd_kb_scan *s, size_t ri, struct nd_kb_occ *o, const char *ls, size_t llen,
                        const char *text, bool *ts_done)
{
    struct nd_kb_hit *h = &s->hits[ri];
    nd_rank_set_add(&h->ranks, o->rank);
    h->count++;
    bool same = h->count > 1 && o->file == h->earliest.file && o->rank == h->earliest.rank;
    bool want_ts = !same || (h->earliest.ts < 0 && h->ts_tries < 4);
    if (want_ts && !*ts_done) {
        if (ls)
            o->ts = nd_kb_line_ts(s, ls, llen);
        *ts_done = true;
    }
    if (h->count == 1) {
        h->seq = s->seq++;
        nd_kb_occ_set(&h->earliest, o, ls, llen, text);
    } else if (same) {
        /* Within one log of one rank, order of lines is order of time: keep
         * the first line, but a later timestamp still bounds when it was. */
        if (h->earliest.ts < 0) {
            h->ts_tries++;
            h->earliest.ts = o->ts;
        }
    } else if (o->ts >= 0 && h->earliest.ts >= 0 && o->ts < h->earliest.ts) {
        nd_kb_occ_set(&h->earliest, o, ls, llen, text);
    }
    /* Samples: the first two lines, then the first line from another file
     * (another rank), so evidence shows both detail and spread. */
    if (h->nsamples < ND_KB_SAMPLES) {
        bool fresh = h->nsamples < ND_KB_SAMPLES - 1;
        if (!fresh) {
            fresh = true;
            for (size_t i = 0; i < h->nsamples; i++)
                if (h->samples[i].file == o->file)
                    fresh = false;
        }
        if (fresh) {
            h->samples[h->nsamples].text = NULL;
            nd_kb_occ_set(&h->samples[h->nsamples++], o, ls, llen, text);
        }
    }
}

/* Adds one wrapper line to a wrapper list (rule, count) of at most max. */
static void nd_kb_wrap_add(size_t *rule, long *count, size_t *n, size_t max, size_t ri, long times)
{
    size_t k = 0;
    while (k < *n && rule[k] != ri)
        k++;
    if (k == *n && k < max) {
        rule[k] = ri;
        count[k] = 0;
        (*n)++;
    }
    if (k < *n)
        count[k] += times;
}

/* A wrapper line no specific line has explained yet: if a specific line
 * just before it waits for its context, the wrapper defers to that line
 * once it is accepted, as it would to a line decided at once. */
static void nd_kb_wrap_to_pending(struct nd_kb_scan *s, size_t ri, long line, const struct nd_kb_occ *o, const char *ls,
                                  size_t llen)
{
    for (size_t i = s->npending; i-- > 0;) {
        struct nd_kb_pending *p = &s->pending[i];
        if (line - p->occ.line > ND_KB_WRAP_WINDOW)
            break;
        if (s->kb->rules.v[p->ri].role == ND_ROLE_WRAPPER)
            continue;
        if (nd_kb_consequence_names(&s->kb->rules.v[p->ri], s->kb->rules.v[ri].id))
            return;
        nd_kb_wrap_add(p->wrap_rule, p->wrap_count, &p->nwrap, ND_ARRAY_SIZE(p->wrap_rule), ri, 1);
        if (o && !p->wrap_occ.text)
            nd_kb_occ_set(&p->wrap_occ, o, ls, llen, NULL);
        return;
    }
}

/* Wrappers ("EZ9999: Inner Error!") defer to a specific line near them,
 * and become evidence of it: the finding shows the block it came from. o
 * and ls are the line's occurrence and text, or NULL for a repeated line. */
static void nd_kb_wrapper_window(struct nd_kb_scan *s, size_t ri, long line, const struct nd_kb_occ *o, const char *ls,
                                 size_t llen)
{
    const struct nd_kb_rule *r = &s->kb->rules.v[ri];
    struct nd_kb_hit *h = &s->hits[ri];
    if (r->role == ND_ROLE_WRAPPER) {
        /* A wrapper the line nearby names as its cause stands on its own. */
        if (line - s->last_specific <= ND_KB_WRAP_WINDOW && s->last_specific_rule < s->kb->rules.n &&
            nd_kb_consequence_names(&s->kb->rules.v[s->last_specific_rule], r->id))
            return;
        if (line - s->last_specific <= ND_KB_WRAP_WINDOW) {
            h->deferred++;
            struct nd_kb_hit *sh = s->last_specific_rule < s->kb->rules.n ? &s->hits[s->last_specific_rule] : NULL;
            if (sh && o && !sh->wrapped.text)
                nd_kb_occ_set(&sh->wrapped, o, ls, llen, NULL);
        } else {
            nd_kb_wrap_to_pending(s, ri, line, o, ls, llen);
            if (s->nwrap && line - s->wrap_line > ND_KB_WRAP_WINDOW)
                s->nwrap = 0;
            if (s->nwrap == 0) {
                s->wrap_line = line;
                nd_kb_occ_release(&s->wrap_occ);
                if (o)
                    nd_kb_occ_set(&s->wrap_occ, o, ls, llen, NULL);
            }
            size_t k = 0;
            while (k < s->nwrap && s->wrap_rule[k] != ri)
                k++;
            if (k == s->nwrap && k < ND_ARRAY_SIZE(s->wrap_rule)) {
                s->wrap_rule[k] = ri;
                s->wrap_count[k] = 0;
                s->nwrap++;
            }
            if (k < s->nwrap)
                s->wrap_count[k]++;
        }
    } else {
        s->last_specific = line;
        s->last_specific_rule = ri;
        if (s->nwrap && line - s->wrap_line <= ND_KB_WRAP_WINDOW) {
            for (size_t k = 0; k < s->nwrap; k++)
                if (!nd_kb_consequence_names(r, s->kb->rules.v[s->wrap_rule[k]].id))
                    s->hits[s->wrap_rule[k]].deferred += s->wrap_count[k];
            /* Those wrappers are explained: a waiting line must not count them again. */
            for (size_t i = 0; i < s->npending; i++)
                s->pending[i].nwrap = 0;
            if (s->wrap_occ.text && !h->wrapped.text) {
                h->wrapped = s->wrap_occ;
                s->wrap_occ.text = NULL;
            }
        }
        s->nwrap = 0;
    }
}

/* ---- Context conditions (requires / unless / within) ---- */

enum { ND_COND_NO = 0, ND_COND_YES = 1, ND_COND_WAIT = 2 };

/* Decides rule r's conditions for a line, from the keys seen so far in
 * this source; final is set at the end of the source. */
static int nd_kb_cond_eval(const struct nd_kb_scan *s, const struct nd_kb_rule *r, long line, bool final)
{
    bool wait = false;
    for (size_t i = 0; i < r->nconds; i++) {
        const struct nd_kb_cond *c = &r->conds[i];
        if (c->key < 0)
            continue;
        size_t k = (size_t)c->key;
        bool seen = s->key_src[k] == s->src;
        bool near = false;
        if (seen) {
            if (r->within == 0)
                near = true;
            else {
                long lo = line - r->within, hi = line + r->within;
                near = (s->key_last[k] >= lo && s->key_last[k] <= hi) || (s->key_prev[k] >= lo && s->key_prev[k] <= hi);
            }
        }
        /* Can a later line still change the answer? */
        bool open = !final && (r->within == 0 || s->cur_line <= line + r->within);
        if (c->unless) {
            if (near)
                return ND_COND_NO;
            if (open)
                wait = true;
        } else if (!near) {
            if (!open)
                return ND_COND_NO;
            wait = true;
        }
    }
    return wait ? ND_COND_WAIT : ND_COND_YES;
}

static void nd_kb_warn_line(struct nd_kb_scan *s, const char *ls, size_t llen, long line, long logical, int chain);

/* Drops the entries of v on logical line `logical` of source src; returns
 * how many it dropped. */
static size_t nd_kb_fb_drop(struct nd_kb_fb_cand *v, size_t *n, unsigned src, long logical)
{
    size_t w = 0, was = *n;
    for (size_t i = 0; i < was; i++) {
        if (v[i].src == src && v[i].logical == logical) {
            nd_kb_occ_release(&v[i].occ);
            free(v[i].frames);
        } else
            v[w++] = v[i];
    }
    *n = w;
    return was - w;
}

/* A rule accepted logical line `logical` of source src: an exception or
 * ERROR line there is explained, and stops being a candidate for the
 * fallback. */
static void nd_kb_fb_explained(struct nd_kb_scan *s, unsigned src, long logical)
{
    nd_kb_fb_drop(s->fb_cand, &s->fb_ncand, src, logical);
    s->fb_uerrcount -= (long)nd_kb_fb_drop(s->fb_uerr, &s->fb_nuerr, src, logical);
    nd_kb_fb_drop(s->fb_warn, &s->fb_nwarn, src, logical);
}

/* A line whose context was decided later ranks and defers wrappers as if
 * it had been decided on its line: its place in the order of first
 * appearance is the line's, and the wrappers near it defer to it. */
static void nd_kb_accept_pending(struct nd_kb_scan *s, struct nd_kb_pending *p)
{
    nd_kb_fb_explained(s, s->src, p->logical);
    bool ts_done = true;
    struct nd_kb_hit *h = &s->hits[p->ri];
    nd_kb_count(s, p->ri, &p->occ, NULL, 0, p->occ.text, &ts_done);
    if (h->count == 1)
        h->seq = p->seq;
    for (size_t i = 0; i < p->nhides; i++)
        s->hits[p->hides[i]].shadowed++;
    if (s->kb->rules.v[p->ri].role == ND_ROLE_WRAPPER) {
        long d = p->occ.line - s->last_specific;
        if (d <= ND_KB_WRAP_WINDOW && d >= -ND_KB_WRAP_WINDOW &&
            !(s->last_specific_rule < s->kb->rules.n &&
              nd_kb_consequence_names(&s->kb->rules.v[s->last_specific_rule], s->kb->rules.v[p->ri].id)))
            h->deferred++;
        return;
    }
    for (size_t k = 0; k < p->nwrap; k++)
        if (!nd_kb_consequence_names(&s->kb->rules.v[p->ri], s->kb->rules.v[p->wrap_rule[k]].id))
            s->hits[p->wrap_rule[k]].deferred += p->wrap_count[k];
    p->nwrap = 0;
    if (p->wrap_occ.text && !h->wrapped.text) {
        h->wrapped = p->wrap_occ;
        p->wrap_occ.text = NULL;
    }
    /* Wrappers still to come within the window defer to it too. */
    if (p->occ.line > s->last_specific) {
        s->last_specific = p->occ.line;
        s->last_specific_rule = p->ri;
    }
}

/* Decides the waiting lines that can be decided now. */
static void nd_kb_pending_run(struct nd_kb_scan *s, bool final)
{
    size_t w = 0;
    for (size_t i = 0; i < s->npending; i++) {
        struct nd_kb_pending *p = &s->pending[i];
        int v = nd_kb_cond_eval(s, &s->kb->rules.v[p->ri], p->occ.line, final);
        if (v == ND_COND_YES)
            nd_kb_accept_pending(s, p);
        if (v == ND_COND_WAIT)
            s->pending[w++] = *p;
        else {
            free(p->occ.text);
            free(p->wrap_occ.text);
        }
    }
    s->npending = w;
    s->cond_dirty = false;
}

/* Repeated identical lines (a warning printed every step: torch_npu's
 * double-dtype cast on a fifth of all lines) cost a compare and a counter:
 * a rule with no line-dependent checks that already has its first lines
 * kept only needs counting when the line is the same as its last one. */
#define ND_KB_REPEAT_MAX 512
struct nd_kb_repeat {
    unsigned src;
    unsigned short len;
    double ts; /* the time the last counted copy was given, < 0 none */
    char text[ND_KB_REPEAT_MAX];
};

/* Whether counting one more copy of the rule's last line, in the same
 * source, could change anything but its count. In the source of the
 * earliest line: not once the samples and the time are known. In another
 * source (another rank's log, read after the one that showed the line
 * first): not when that source already gave its sample, the line carries no
 * time of its own (so no timestamp is parsed from it and the last time seen
 * stays), and the copy cannot be earlier than the earliest line: either no
 * time is known for that one, or this source's last copy was no earlier
 * and a log's lines are in time order. Wrappers take the line itself as
 * evidence, and are always counted in full outside that first source. */
static bool nd_kb_repeat_settled(const struct nd_kb_scan *s, const struct nd_kb_hit *h, const struct nd_kb_rule *r,
                                 const struct nd_kb_repeat *rp, const char *line, size_t len)
{
    if (h->nsamples < ND_KB_SAMPLES - 1)
        return false;
    if (h->earliest.file == s->name)
        return h->earliest.ts >= 0 || h->ts_tries >= 4;
    if (r->role == ND_ROLE_WRAPPER || len != s->no_ts_len || memcmp(line, s->no_ts, len) != 0)
        return false;
    bool sampled = h->nsamples == ND_KB_SAMPLES;
    for (size_t i = 0; i < h->nsamples && !sampled; i++)
        sampled = h->samples[i].file == s->name;
    return sampled && (h->earliest.ts < 0 || (rp->ts >= 0 && rp->ts >= h->earliest.ts));
}

/* *fresh is set to the record of the line when it was not a repeat: the
 * caller notes the time it gave the line once it is counted. */
static bool nd_kb_repeat(struct nd_kb_scan *s, const struct nd_kb_grp *g, struct nd_kb_repeat **fresh)
{
    const struct nd_kb_rule *r = &s->kb->rules.v[g->ri];
    struct nd_kb_hit *h = &s->hits[g->ri];
    if (r->req_a || r->nconds || g->physlen >= ND_KB_REPEAT_MAX || g->phys != (size_t)(g->ls - s->chunk) ||
        g->llen != g->physlen)
        return false;
    const char *line = s->chunk + g->phys;
    struct nd_kb_repeat *rp = s->repeat ? s->repeat[g->ri] : NULL;
    if (rp && rp->src == s->src && rp->len == g->physlen && memcmp(rp->text, line, g->physlen) == 0 &&
        nd_kb_repeat_settled(s, h, r, rp, line, g->physlen)) {
        /* Same text, same source: same rank, nothing new to keep. */
        nd_kb_wrapper_window(s, g->ri, g->line, NULL, NULL, 0);
        h->count++;
        return true;
    }
    if (!s->repeat)
        s->repeat = nd_xcalloc(s->kb->rules.n, sizeof *s->repeat);
    if (!rp)
        rp = s->repeat[g->ri] = nd_xmalloc(sizeof *rp);
    rp->src = s->src;
    rp->len = (unsigned short)g->physlen;
    rp->ts = -1;
    memcpy(rp->text, line, g->physlen);
    *fresh = rp;
    return false;
}

/* The warning line of the logical line just collected, when no rule
 * explained that line: a line a rule explains would only be dropped again
 * (nd_kb_fb_explained), and a warning printed every step would pay for
 * keeping its text on every line. */
static void nd_kb_warn_settle(struct nd_kb_scan *s, bool explained)
{
    if (!s->warn_on)
        return;
    s->warn_on = false;
    if (!explained)
        nd_kb_warn_line(s, s->warn_ls, s->warn_llen, s->warn_line, s->warn_logical, s->warn_chain);
}

/* The line for a rule's require filter: at most ND_KB_TEXT_MAX bytes, in a
 * buffer the scan reuses. */
static const char *nd_kb_req_text(struct nd_kb_scan *s, const char *ls, size_t llen)
{
    size_t n = strnlen(ls, llen < ND_KB_TEXT_MAX ? llen : ND_KB_TEXT_MAX);
    if (s->req_cap < n + 1) {
        free(s->req_buf);
        s->req_cap = ND_KB_TEXT_MAX + 1;
        s->req_buf = nd_xmalloc(s->req_cap);
    }
    memcpy(s->req_buf, ls, n);
    s->req_buf[n] = '\0';
    return s->req_buf;
}

/* The matches of one logical line: require filter, context, then one
 * finding per line (the most specific rules hide the others). */
static void nd_kb_flush_line(struct nd_kb_scan *s)
{
    size_t n = s->ngrp;
    s->ngrp = 0;
    if (n == 0) {
        nd_kb_warn_settle(s, false);
        return;
    }
    const struct nd_kb *kb = s->kb;
    struct nd_kb_repeat *fresh = NULL;
    if (n == 1 && nd_kb_repeat(s, &s->grp[0], &fresh)) {
        nd_kb_warn_settle(s, true);
        nd_kb_fb_explained(s, s->src, s->grp_logical);
        return;
    }
    size_t live[ND_KB_GROUP], nlive = 0, wait[ND_KB_GROUP], nwait = 0;
    for (size_t i = 0; i < n; i++) {
        struct nd_kb_grp *g = &s->grp[i];
        const struct nd_kb_rule *r = &kb->rules.v[g->ri];
        if (r->req_a && !nd_kb_rule_accepts(r, nd_kb_req_text(s, g->ls, g->llen)))
            continue;
        int v = r->nconds ? nd_kb_cond_eval(s, r, g->line, false) : ND_COND_YES;
        if (v == ND_COND_YES)
            live[nlive++] = i;
        else if (v == ND_COND_WAIT)
            wait[nwait++] = i;
    }
    size_t rules[ND_KB_GROUP];
    for (size_t i = 0; i < nlive; i++)
        rules[i] = s->grp[live[i]].ri;
    size_t kept = nd_kb_line_dedup(kb, rules, nlive);
    nd_kb_warn_settle(s, kept > 0);
    /* The line's occurrence (rank, time) is worked out once for all its rules. */
    if (nlive == 0 && nwait == 0)
        return;
    if (kept)
        nd_kb_fb_explained(s, s->src, s->grp_logical);
    struct nd_kb_grp *g0 = &s->grp[nlive ? live[0] : wait[0]];
    struct nd_kb_occ o = {.file = s->name, .line = g0->line, .ts = -1, .rank = -1, .chain = s->chain};
    o.rank = nd_kb_line_rank(s->chunk + g0->phys, g0->physlen);
    if (o.rank < 0)
        o.rank = s->rank;
    bool ts_done = false;
    for (size_t k = 0, i = 0; k < kept; k++) {
        while (s->grp[live[i]].ri != rules[k])
            i++;
        struct nd_kb_grp *g = &s->grp[live[i]];
        nd_kb_wrapper_window(s, g->ri, g->line, &o, g->ls, g->llen);
        nd_kb_count(s, g->ri, &o, g->ls, g->llen, NULL, &ts_done);
    }
    if (fresh && kept == 1 && rules[0] == s->grp[0].ri)
        fresh->ts = o.ts;
    for (size_t i = 0; i < nwait; i++) {
        struct nd_kb_grp *g = &s->grp[wait[i]];
        if (s->npending == ND_KB_PENDING_MAX)
            nd_kb_pending_run(s, true); /* full: decide with what is known */
        struct nd_kb_pending *p = &s->pending[s->npending++];
        p->ri = g->ri;
        p->occ = o;
        p->logical = s->grp_logical;
        p->seq = s->seq++;
        p->nwrap = 0;
        p->wrap_occ = (struct nd_kb_occ){0};
        /* Wrappers just before it, not yet explained, wait with it. */
        if (kb->rules.v[g->ri].role != ND_ROLE_WRAPPER && s->nwrap && g->line - s->wrap_line <= ND_KB_WRAP_WINDOW) {
            for (size_t k = 0; k < s->nwrap; k++)
                nd_kb_wrap_add(p->wrap_rule, p->wrap_count, &p->nwrap, ND_ARRAY_SIZE(p->wrap_rule), s->wrap_rule[k],
                               s->wrap_count[k]);
            if (s->wrap_occ.text)
                nd_kb_occ_set(&p->wrap_occ, &s->wrap_occ, NULL, 0, s->wrap_occ.text);
        }
        if (!ts_done) {
            p->occ.ts = nd_kb_line_ts(s, g->ls, g->llen);
            o.ts = p->occ.ts;
            ts_done = true;
        }
        p->occ.text = nd_kb_keep_line(g->ls, g->llen);
        p->nhides = 0;
        for (size_t k = 0; k < kept && p->nhides < 4; k++)
            if (nd_kb_rule_hides(&kb->rules.v[g->ri], rules[k], &kb->rules.v[rules[k]]))
                p->hides[p->nhides++] = rules[k];
    }
}

/* Where the evidence of a match deep in a long line starts, near ls: never
 * inside a word, and with the two words before it ("password = x",
 * "token: x"), so that redaction sees a secret's name with its value; a cut
 * "password=x" would show "=x", which nothing recognises. A word longer
 * than the look-back is dropped instead of cut. */
static const char *nd_kb_window_start(const char *p, const char *ls, const char *m)
{
    const char *q = ls;
    while (q > p && ls - q < 64 && q[-1] != ' ' && q[-1] != '\t')
        q--;
    if (q > p && q[-1] != ' ' && q[-1] != '\t') {
        for (q = ls; q < m && *q != ' ' && *q != '\t'; q++)
            ;
        return q;
    }
    for (int words = 0; words < 2 && q > p && ls - q < 128; words++) {
        const char *w = q;
        while (w > p && (w[-1] == ' ' || w[-1] == '\t'))
            w--;
        while (w > p && w[-1] != ' ' && w[-1] != '\t' && ls - w < 128)
            w--;
        if (w > p && w[-1] != ' ' && w[-1] != '\t')
            break; /* that word reaches further back: keep the cut at q */
        q = w;
    }
    return q;
}

/* Vectorscan does not promise matches in end-offset order across its
 * engines, and line mapping and wrapper deferral need that order; so the
 * callback only collects (offset, pattern), and the chunk is processed
 * sorted. A pattern reporting several ends on one line is kept once. */
static void nd_kb_process(struct nd_kb_scan *s, unsigned id, unsigned long long to);

static int nd_kb_match_cmp(const void *a, const void *b)
{
    const struct nd_kb_match *x = a, *y = b;
    if (x->to != y->to)
        return x->to < y->to ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static bool nd_kb_matches_sorted(const struct nd_kb_match *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (nd_kb_match_cmp(&v[i - 1], &v[i]) > 0)
            return false;
    return true;
}

/* Sorts the chunk's matches. The last tail of them (the lines
 * kb_elide.c replays) come sorted, and the scan's mostly do: a sort only
 * where needed, then a merge. Matches equal in (to, id) are alike, so the
 * order is the one qsort gives. */
static void nd_kb_sort_matches(struct nd_kb_scan *s, size_t tail)
{
    struct nd_kb_match *v = s->mbuf;
    size_t n = s->nmatch, a = tail < n ? n - tail : 0;
    if (a == 0 || !nd_kb_matches_sorted(v + a, n - a)) {
        if (!nd_kb_matches_sorted(v, n))
            qsort(v, n, sizeof *v, nd_kb_match_cmp);
        return;
    }
    if (!nd_kb_matches_sorted(v, a))
        qsort(v, a, sizeof *v, nd_kb_match_cmp);
    if (a == n || nd_kb_match_cmp(&v[a - 1], &v[a]) <= 0)
        return;
    if (!s->mtmp)
        s->mtmp = nd_xmalloc(ND_KB_MAX_MATCHES * sizeof *s->mtmp);
    memcpy(s->mtmp, v, a * sizeof *v);
    size_t i = 0, j = a, k = 0;
    while (i < a && j < n)
        v[k++] = nd_kb_match_cmp(&v[j], &s->mtmp[i]) < 0 ? v[j++] : s->mtmp[i++];
    while (i < a)
        v[k++] = s->mtmp[i++];
}

static void nd_kb_flush_sorted(struct nd_kb_scan *s, size_t tail)
{
    nd_kb_sort_matches(s, tail);
    for (size_t i = 0; i < s->nmatch; i++)
        nd_kb_process(s, s->mbuf[i].id, s->mbuf[i].to);
    s->nmatch = 0;
    nd_kb_flush_line(s);
}

static void nd_kb_flush_matches(struct nd_kb_scan *s)
{
    nd_kb_flush_sorted(s, 0);
}

static int nd_kb_on_match(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags, void *ctx)
{
    (void)from;
    (void)flags;
    struct nd_kb_scan *s = ctx;
    unsigned long long last = s->pat_last[id];
    if (last && last <= to && !memchr(s->scanbuf + last - 1, '\n', (size_t)(to - last + 1)))
        return 0;
    s->pat_last[id] = to ? to : 1;
    if (s->nmatch == ND_KB_MAX_MATCHES)
        nd_kb_flush_matches(s);
    s->mbuf[s->nmatch].to = to;
    s->mbuf[s->nmatch].id = id;
    s->nmatch++;
    return 0;
}

/* The same for a match passed on by nd_kb_elide_scan, which must not flush
 * in the middle: a full buffer stops it, and the chunk is scanned again
 * whole. */
static int nd_kb_on_elided(void *ctx, unsigned id, unsigned long long to)
{
    struct nd_kb_scan *s = ctx;
    unsigned long long last = s->pat_last[id];
    if (last && last <= to && !memchr(s->scanbuf + last - 1, '\n', (size_t)(to - last + 1)))
        return 0;
    if (s->nmatch == ND_KB_MAX_MATCHES)
        return 1;
    s->pat_last[id] = to ? to : 1;
    s->mbuf[s->nmatch].to = to;
    s->mbuf[s->nmatch].id = id;
    s->nmatch++;
    return 0;
}

unsigned long long nd_kb_scan_elided(const struct nd_kb_scan *s)
{
    return nd_kb_elide_left_out(s->elide);
}

void nd_kb_scan_set_elide(struct nd_kb_scan *s, bool on)
{
    if (!on) {
        nd_kb_elide_free(s->elide);
        s->elide = NULL;
    } else if (!s->elide) {
        s->elide = nd_kb_elide_new();
    }
}

/* Maps a byte of the scanned text to its physical line: sets cur_line,
 * the line's bounds in the original chunk, the byte's place there, and the
 * logical line's number. */
static size_t nd_kb_count_nl(const char *p, size_t n);

static void nd_kb_locate(struct nd_kb_scan *s, size_t b, size_t *ls, size_t *le, size_t *m, long *logical, size_t *evs)
{
    if (!s->lg_on) {
        if (b < s->cur_pos) {
            s->cur_pos = 0;
            s->cur_line = s->lineno + 1;
        }
        const char *p = s->chunk + s->cur_pos;
        const char *e = s->chunk + b;
        if (p < e) {
            const char *q = memrchr(p, '\n', (size_t)(e - p));
            if (q) {
                s->cur_line += (long)nd_kb_count_nl(p, (size_t)(q + 1 - p));
                p = q + 1;
            }
        }
        s->cur_pos = (size_t)(p - s->chunk);
        const char *x = memchr(s->chunk + b, '\n', s->chunk_len - b);
        *ls = *evs = s->cur_pos;
        *le = x ? (size_t)(x - s->chunk) : s->chunk_len;
        *m = b;
        *logical = s->cur_line;
        return;
    }
    const struct nd_kb_logical *lg = &s->lg;
    size_t k = s->cur_pl;
    if (k >= lg->nlines || lg->lines[k].n_off > b)
        k = 0;
    while (k + 1 < lg->nlines && lg->lines[k + 1].n_off <= b)
        k++;
    s->cur_pl = k;
    const struct nd_kb_pline *pl = &lg->lines[k];
    s->cur_line = s->lineno + 1 + (long)k;
    *ls = pl->o_line;
    *le = pl->o_end;
    size_t mm = pl->o_content + (b - pl->n_off);
    *m = mm > pl->o_end ? pl->o_end : mm;
    *logical = s->lineno + 1 + (long)pl->logical;
    /* A match just past a joint may have begun on the line above: the
     * evidence then starts there. */
    *evs = pl->o_line;
    if (pl->logical != k && b - pl->n_off < 120)
        *evs = lg->lines[k - 1].o_line;
}

static void nd_kb_fallback_line(struct nd_kb_scan *s, size_t key, const char *ls, size_t llen, long line, long logical);

/* A traceback frame at chunk[lso, leo) and the source line under it, when
 * the chunk holds it, go to the ring of the current traceback's frames. */
static void nd_kb_frame_line(struct nd_kb_scan *s, size_t lso, size_t leo)
{
    const char *ls = s->chunk + lso;
    size_t llen = leo - lso, pre = nd_kb_line_prefix(ls, llen);
    const char *next = NULL;
    size_t nn = 0;
    if (leo < s->chunk_len) {
        size_t ns = leo + 1;
        const char *nl = memchr(s->chunk + ns, '\n', s->chunk_len - ns);
        size_t ne = nl ? (size_t)(nl - s->chunk) : s->chunk_len;
        next = s->chunk + ns;
        nn = ne - ns;
        size_t npre = nd_kb_line_prefix(next, nn);
        next += npre;
        nn -= npre;
    }
    nd_kb_frames_push(&s->fb_ring, ls + pre, llen - pre, next, nn);
}

static void nd_kb_process(struct nd_kb_scan *s, unsigned id, unsigned long long to)
{
    size_t key = s->kb->pat_rule[id];
    size_t b = to ? (size_t)to - 1 : 0;
    if (b >= s->scan_len)
        b = s->scan_len ? s->scan_len - 1 : 0;
    size_t lso, leo, mo, evs;
    long logical;
    nd_kb_locate(s, b, &lso, &leo, &mo, &logical, &evs);
    if (logical != s->grp_logical) {
        nd_kb_flush_line(s);
        s->grp_logical = logical;
        if (s->cond_dirty && s->npending)
            nd_kb_pending_run(s, false);
    }
    if (s->key_ref && s->key_ref[key]) {
        if (s->key_src[key] != s->src) {
            s->key_src[key] = s->src;
            s->key_prev[key] = s->key_last[key] = s->cur_line;
        } else if (s->key_last[key] != s->cur_line) {
            s->key_prev[key] = s->key_last[key];
            s->key_last[key] = s->cur_line;
        }
        s->cond_dirty = true;
    }
    if (key >= s->kb->rules.n) {
        if (key == s->kb->key_exc || key == s->kb->key_err)
            nd_kb_fallback_line(s, key, s->chunk + lso, leo - lso, s->cur_line, logical);
        else if (key == s->kb->key_warn) {
            /* Decided with the line's rules (nd_kb_warn_settle). */
            if (!s->warn_on) {
                s->warn_on = true;
                s->warn_ls = s->chunk + lso;
                s->warn_llen = leo - lso;
                s->warn_line = s->cur_line;
                s->warn_logical = logical;
                s->warn_chain = s->chain;
            }
        } else if (key == s->kb->key_chain)
            s->chain++;
        else if (key == s->kb->key_frame)
            nd_kb_frame_line(s, lso, leo);
        return;
    }
    size_t ri = key;
    if (s->last_src[ri] == s->src && s->last_line[ri] == logical)
        return;
    s->last_src[ri] = s->src;
    s->last_line[ri] = logical;
    /* The text kept is the part of the line around the match: progress bars
     * rewrite one "line" with '\r' for megabytes, and a match deep inside a
     * long line must still show up in the evidence. */
    const char *p = s->chunk + evs;
    const char *m = s->chunk + mo;
    const char *ls = p, *le;
    const char *lo = m - p > ND_KB_CONTEXT ? m - ND_KB_CONTEXT : p;
    const char *cr = m > lo ? memrchr(lo, '\r', (size_t)(m - lo)) : NULL;
    if (cr)
        ls = cr + 1;
    else if (m - p >= ND_KB_CONTEXT)
        ls = nd_kb_window_start(p, m - ND_KB_EVIDENCE_MAX / 2, m);
    const char *end = s->chunk + leo;
    if (end - m > ND_KB_CONTEXT)
        end = m + ND_KB_CONTEXT;
    le = m < end ? memchr(m, '\r', (size_t)(end - m)) : NULL;
    if (!le)
        le = end > m ? end : m;
    if (s->ngrp == ND_KB_GROUP)
        return;
    struct nd_kb_grp *g = &s->grp[s->ngrp++];
    g->ri = ri;
    g->ls = ls;
    g->llen = (size_t)(le - ls);
    g->line = s->cur_line;
    g->phys = lso;
    g->physlen = leo - lso;
}

/* Newlines in [p, p+n). Every byte of the input passes through here, so
 * the baseline SIMD of each architecture (SSE2 on x86-64, NEON on aarch64)
 * compares 16 bytes at a time, summing per byte lane and folding the lanes
 * before they can overflow. */
static size_t nd_kb_count_nl(const char *p, size_t n)
{
    size_t c = 0, i = 0;
#if defined(__SSE2__)
    const __m128i nl = _mm_set1_epi8('\n');
    while (n - i >= 16) {
        __m128i acc = _mm_setzero_si128();
        size_t end = i + 255 * 16 < n ? i + 255 * 16 : n - (n - i) % 16;
        for (; i < end; i += 16)
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + i)), nl));
        __m128i sum = _mm_sad_epu8(acc, _mm_setzero_si128());
        c += (size_t)_mm_cvtsi128_si32(sum) + (size_t)_mm_extract_epi16(sum, 4);
    }
#elif defined(__aarch64__)
    const uint8x16_t nl = vdupq_n_u8('\n');
    while (n - i >= 16) {
        uint8x16_t acc = vdupq_n_u8(0);
        size_t end = i + 255 * 16 < n ? i + 255 * 16 : n - (n - i) % 16;
        for (; i < end; i += 16)
            acc = vsubq_u8(acc, vceqq_u8(vld1q_u8((const uint8_t *)p + i), nl));
        c += vaddlvq_u8(acc);
    }
#endif
    for (; i < n; i++)
        c += p[i] == '\n';
    return c;
}

static void nd_kb_scan_chunk(struct nd_kb_scan *s, const char *data, size_t len)
{
    nd_kb_shape_feed(s->shape, data, len);
    s->chunk = data;
    s->chunk_len = len;
    s->cur_pos = 0;
    s->cur_pl = 0;
    s->cur_line = s->lineno + 1;
    s->grp_logical = -1;
    s->ngrp = 0;
    s->warn_on = false;
    s->redacted = false; /* lines kept from here on are not */
    memset(s->pat_last, 0, s->kb->npatterns * sizeof *s->pat_last);
    s->nmatch = 0;
    /* Prefixed or continued lines are matched as logical lines; a chunk
     * without any is scanned as it is. */
    s->lg_on = nd_kb_logical_needed(data, len);
    s->scanbuf = data;
    s->scan_len = len;
    if (s->lg_on) {
        s->scan_len = nd_kb_logical_build(data, len, &s->lg);
        s->scanbuf = s->lg.buf;
    }
    enum nd_kb_elide_result how = ND_KB_ELIDE_NONE;
    if (s->elide)
        how = nd_kb_elide_scan(s->elide, s->kb, s->scanbuf, s->scan_len, nd_kb_on_elided, s);
    if (how == ND_KB_ELIDE_STOPPED) {
        s->nmatch = 0;
        memset(s->pat_last, 0, s->kb->npatterns * sizeof *s->pat_last);
    }
    if (how != ND_KB_ELIDE_DONE)
        hs_scan(s->kb->db, s->scanbuf, (unsigned)s->scan_len, 0, s->kb->scratch, nd_kb_on_match, s);
    size_t replayed = 0;
    if (s->elide) {
        replayed = how == ND_KB_ELIDE_DONE ? nd_kb_elide_replayed(s->elide) : 0;
        size_t scanned = s->nmatch > replayed ? s->nmatch - replayed : 0;
        for (size_t i = 0; i < scanned; i++)
            nd_kb_elide_learn(s->elide, s->kb, s->scanbuf, s->scan_len, s->mbuf[i].to ? (size_t)s->mbuf[i].to - 1 : 0);
        nd_kb_elide_chunk_done(s->elide);
    }
    nd_kb_flush_sorted(s, replayed);
    if (s->lg_on)
        s->lineno += (long)s->lg.nlines - (len && data[len - 1] != '\n' ? 1 : 0);
    else
        s->lineno = s->cur_line - 1 + (long)nd_kb_count_nl(data + s->cur_pos, len - s->cur_pos);
    s->cur_line = s->lineno + 1;
}

/* One input stream: a plain fd, a gzip stream, or memory. */
struct nd_kb_in {
    int fd;
    gzFile gz;
    const char *mem;
    size_t memlen, mempos;
    bool sparse;               /* a regular file: holes are skipped with SEEK_DATA */
    off_t end;                 /* a regular file's size when opened (0: unknown) */
    unsigned long long holes;  /* bytes of holes skipped so */
    unsigned long long out_gz; /* bytes gzip gave */
    bool bomb;                 /* gzip stopped: it expands too far */
};

/* A gzip input is read to its end unless it expands past this many bytes
 * at more than ND_KB_GZ_RATIO times its compressed size (logs compress 10
 * to 50 times, a log of one line repeated a few hundred; a decompression
 * bomb about 1000), or past ND_KB_GZ_MAX at all: time stays bounded, and
 * the note says where the scan stopped and how to read it all. */
#define ND_KB_GZ_BOMB (1ull << 30)
#define ND_KB_GZ_RATIO 200
#define ND_KB_GZ_MAX (16ull << 30)

static long nd_kb_in_read(struct nd_kb_in *in, char *buf, size_t n, int *err)
{
    if (in->mem) {
        size_t k = in->memlen - in->mempos < n ? in->memlen - in->mempos : n;
        memcpy(buf, in->mem + in->mempos, k);
        in->mempos += k;
        return (long)k;
    }
    if (in->gz) {
        unsigned long long raw = (unsigned long long)gzoffset(in->gz);
        if (in->out_gz > ND_KB_GZ_MAX || (in->out_gz > ND_KB_GZ_BOMB && in->out_gz > raw * ND_KB_GZ_RATIO)) {
            in->bomb = true;
            return 0;
        }
        int r = gzread(in->gz, buf, (unsigned)n);
        if (r < 0) {
            *err = EIO;
            return -1;
        }
        in->out_gz += (unsigned long long)r;
        return r;
    }
    if (in->sparse) {
        /* A 20 GiB file of holes (preallocated, or truncated under its
         * writer) would be read as 20 GiB of NULs: jump to its data. */
        off_t at = lseek(in->fd, 0, SEEK_CUR), data = at < 0 ? -1 : lseek(in->fd, at, SEEK_DATA);
        if (data < 0 && errno == ENXIO) /* only a hole up to the end */
            data = lseek(in->fd, 0, SEEK_END);
        if (data > at)
            in->holes += (unsigned long long)(data - at);
        else if (data < 0 && at >= 0)
            lseek(in->fd, at, SEEK_SET);
        /* A log still written to is read as it was when opened: a writer
         * faster than the scan would otherwise keep it going for ever. */
        off_t now = data > at ? data : at;
        if (in->end > 0 && now >= 0) {
            if (now >= in->end)
                return 0;
            if ((off_t)n > in->end - now)
                n = (size_t)(in->end - now);
        }
    }
    for (;;) {
        ssize_t r = read(in->fd, buf, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            *err = errno;
        return (long)r;
    }
}

/* NULs in runs this long are holes: a log truncated, or preallocated, under
 * its writer starts or continues with them. They are dropped, not taken for
 * binary data. */
#define ND_KB_NUL_RUN 8

/* The compressor whose magic bytes start buf (gzip is read directly). */
static const char *nd_kb_compressed_by(const char *buf, size_t len)
{
    static const struct {
        const char *magic;
        size_t len;
        const char *tool;
    } forms[] = {
        {"\xfd"
         "7zXZ\0",
         6, "xz"},
        {"\x28\xb5\x2f\xfd", 4, "zstd"},
        {"BZh", 3, "bzip2"},
        {"\x04\x22\x4d\x18", 4, "lz4"},
        {"\x5d\0\0", 3, "lzma"},
    };
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++)
        if (len >= forms[i].len && memcmp(buf, forms[i].magic, forms[i].len) == 0)
            return forms[i].tool;
    return NULL;
}

/* Binary: NULs outside holes in more than 1% of the bytes (executables,
 * checkpoints; a few stray ones do not count), or more than 10% other
 * control bytes. One stray NUL in a log is neither. */
static bool nd_kb_binary(const char *buf, size_t len)
{
    size_t check = len < 65536 ? len : 65536;
    size_t odd = 0, nuls = 0, holes = 0;
    for (size_t i = 0; i < check;) {
        unsigned char c = (unsigned char)buf[i];
        if (c == 0) {
            size_t j = i;
            while (j < check && buf[j] == 0)
                j++;
            if (j - i >= ND_KB_NUL_RUN || j == check)
                holes += j - i;
            else
                nuls += j - i;
            i = j;
            continue;
        }
        if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v' && c != 0x1b && c != '\b')
            odd++;
        i++;
    }
    size_t text = check - holes;
    return (nuls > 16 && nuls * 100 > text) || odd * 10 > text;
}

/* Removes the NUL bytes of buf[0..n) in place; returns the new length. */
static size_t nd_kb_drop_nuls(char *buf, size_t n)
{
    char *z = memchr(buf, '\0', n);
    if (!z)
        return n;
    size_t w = (size_t)(z - buf);
    for (size_t r = w; r < n; r++)
        if (buf[r])
            buf[w++] = buf[r];
    return w;
}

/* Streams one input. Returns 0 when something was scanned. */
static int nd_kb_scan_stream(struct nd_kb_scan *s, const char *name, struct nd_kb_in *in, int path_rank)
{
    if (!s->buf)
        s->buf = nd_xmalloc(ND_KB_CHUNK);
    nd_strv_push(&s->names, name, 0);
    s->name = s->names.v[s->names.n - 1];
    s->src = (unsigned)s->names.n;
    s->rank = path_rank;
    s->lineno = 0;
    s->last_ts = -1;
    s->last_specific = -ND_KB_WRAP_WINDOW * 2;
    s->last_specific_rule = (size_t)-1;
    s->chain = 0;
    s->nwrap = 0;
    nd_kb_frames_clear(&s->fb_ring);
    nd_kb_shape_begin(s->shape, s->name);

    char *buf = s->buf;
    size_t have = 0;
    bool first = true, skipping = false, partial = false, failed = false;
    unsigned long long got = 0, nuls = 0;
    int err = 0;
    for (;;) {
        size_t want = ND_KB_CHUNK - have < ND_KB_READ ? ND_KB_CHUNK - have : ND_KB_READ;
        long n = nd_kb_in_read(in, buf + have, want, &err);
        if (n < 0 && err == EAGAIN && !in->gz) {
            /* A kernel stream with nothing more now: what came is the input. */
            if (got == 0)
                nd_kb_note(s, "%s: would wait for data (a kernel or device stream?); not read", name);
            n = 0;
        }
        if (n < 0) {
            nd_kb_note(s, "%s: read error after %llu bytes (%s); the rest was skipped", name, got,
                       in->gz ? "corrupt or truncated gzip data" : strerror(err));
            failed = true;
            break;
        }
        if (n == 0) {
            if (have && !skipping) {
                nd_kb_scan_chunk(s, buf, have);
                partial = true;
            }
            break;
        }
        if (first) {
            bool hole = true;
            for (long i = 0; i < n && hole; i++)
                hole = buf[have + (size_t)i] == '\0';
            if (hole) { /* only a hole so far: the text may follow */
                got += (unsigned long long)n;
                nuls += (unsigned long long)n;
                continue;
            }
            first = false;
            if (nd_kb_binary(buf + have, (size_t)n)) {
                const char *tool = nd_kb_compressed_by(buf + have, (size_t)n);
                if (tool)
                    nd_kb_note(s, "%s: skipped: %s-compressed (read it with: %s -dc FILE | npu-doctor explain -)", name,
                               tool, tool);
                else
                    nd_kb_note(s, "%s: skipped: binary data", name);
                return -EINVAL;
            }
        }
        got += (unsigned long long)n;
        size_t text = nd_kb_drop_nuls(buf + have, (size_t)n);
        nuls += (unsigned long long)n - text;
        n = (long)text;
        size_t total = have + (size_t)n, start = 0;
        if (skipping) {
            char *nl = memchr(buf, '\n', total);
            if (!nl) {
                have = 0;
                continue;
            }
            skipping = false;
            s->lineno++;
            start = (size_t)(nl + 1 - buf);
        }
        char *last = total > start ? memrchr(buf + start, '\n', total - start) : NULL;
        if (last) {
            size_t upto = (size_t)(last + 1 - buf);
            nd_kb_scan_chunk(s, buf + start, upto - start);
            have = total - upto;
            memmove(buf, buf + upto, have);
        } else if (total - start >= ND_KB_CHUNK) {
            nd_kb_scan_chunk(s, buf + start, total - start);
            nd_kb_note(s, "%s:%ld: line longer than %u MiB; only its first %u MiB were scanned", name, s->lineno + 1,
                       ND_KB_CHUNK >> 20, ND_KB_CHUNK >> 20);
            skipping = true;
            have = 0;
        } else {
            memmove(buf, buf + start, total - start);
            have = total - start;
        }
    }
    if (s->npending)
        nd_kb_pending_run(s, true);
    got += in->holes;
    nuls += in->holes;
    if (in->bomb)
        nd_kb_note(s,
                   "%s: gzip data expands more than %d times (a decompression bomb?); scanned its first %llu MiB "
                   "(zcat FILE | npu-doctor explain - reads it all)",
                   name, ND_KB_GZ_RATIO, (unsigned long long)(in->out_gz >> 20));
    if (nuls)
        nd_kb_note(s, "%s: %llu NUL bytes skipped (a log cut short or preallocated while it was written)", name, nuls);
    if (in->gz && !failed) {
        int zerr = 0;
        gzerror(in->gz, &zerr);
        if (zerr == Z_BUF_ERROR)
            nd_kb_note(s, "%s: gzip data is truncated; scanned the %llu bytes that could be read", name, got);
    }
    s->bytes += got;
    s->lines += (unsigned long long)s->lineno + (partial || skipping ? 1 : 0);
    nd_kb_shape_end(s->shape, s->lineno + (partial || skipping ? 1 : 0));
    if (got == 0) {
        /* Empty files are common in plog/slog trees: counted there, named
         * only when the user named the file. */
        if (err == 0 && s->walking)
            s->skipped_empty++;
        else if (err == 0)
            nd_kb_note(s, "%s: empty; skipped", name);
        return -ENODATA;
    }
    s->inputs++;
    return 0;
}

int nd_kb_scan_buffer(struct nd_kb_scan *s, const char *name, const char *buf, size_t len)
{
    struct nd_kb_in in = {.fd = -1, .mem = buf ? buf : "", .memlen = buf ? len : 0};
    return nd_kb_scan_stream(s, name, &in, nd_kb_path_rank(name));
}

static bool nd_kb_seen(struct nd_kb_scan *s, const struct stat *st, bool add)
{
    for (size_t i = 0; i < s->nseen; i++)
        if (s->seen[i].dev == st->st_dev && s->seen[i].ino == st->st_ino)
            return true;
    if (add) {
        s->seen = nd_xrealloc(s->seen, (s->nseen + 1) * sizeof *s->seen);
        s->seen[s->nseen].dev = st->st_dev;
        s->seen[s->nseen].ino = st->st_ino;
        s->nseen++;
    }
    return false;
}

static int nd_kb_scan_fd(struct nd_kb_scan *s, const char *path, int fd)
{
    unsigned char magic[2];
    struct nd_kb_in in = {.fd = fd};
    struct stat st;
    bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    in.sparse = regular;
    in.end = regular ? st.st_size : 0;
    /* Regular files are sniffed for the gzip magic; streams always go
     * through zlib, which passes plain text through unchanged. */
    if (!regular || (pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b)) {
        int dfd = dup(fd);
        in.gz = dfd >= 0 ? gzdopen(dfd, "rb") : NULL;
        if (!in.gz) {
            if (dfd >= 0)
                close(dfd);
            nd_kb_note(s, "%s: cannot read: out of memory", path);
            return -ENOMEM;
        }
        gzbuffer(in.gz, 256u << 10);
    }
    int rc = nd_kb_scan_stream(s, path, &in, nd_kb_path_rank(path));
    if (in.gz)
        gzclose(in.gz);
    return rc;
}

static int nd_kb_scan_file(struct nd_kb_scan *s, const char *path)
{
    /* Devices are refused, a FIFO must deliver, and /proc/kmsg-like files
     * stay non-blocking (core/fileio.h): explain never hangs on an input. */
    int fd;
    struct nd_error err = {0};
    int rc = nd_open_input(path, &fd, &err);
    if (rc < 0) {
        nd_kb_note(s, "%s", err.msg);
        return rc;
    }
    rc = nd_kb_scan_fd(s, path, fd);
    close(fd);
    return rc;
}

/* Checkpoints, arrays, images and libraries found while walking a job
 * directory are skipped unread (named on the command line, they are read). */
static bool nd_kb_binary_name(const char *name)
{
    static const char *const ext[] = {".pt",  ".pth", ".bin", ".safetensors", ".ckpt", ".npy", ".npz",  ".so",
                                      ".o",   ".png", ".jpg", ".jpeg",        ".pkl",  ".h5",  ".onnx", ".om",
                                      ".tar", ".zip", ".pyc", ".whl",         ".db",   NULL};
    size_t n = strlen(name);
    for (size_t i = 0; ext[i]; i++) {
        size_t e = strlen(ext[i]);
        if (n > e && strcasecmp(name + n - e, ext[i]) == 0)
            return true;
    }
    return false;
}

static int nd_kb_skip_dots(const struct dirent *de)
{
    return strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
}

static int nd_kb_scan_dir(struct nd_kb_scan *s, const char *path, struct nd_kb_dirid *stack, int depth)
{
    if (depth >= ND_KB_MAX_DEPTH) {
        nd_kb_note(s, "%s: nested too deep; not entered", path);
        return -ELOOP;
    }
    struct dirent **list = NULL;
    int n = scandir(path, &list, nd_kb_skip_dots, versionsort);
    if (n < 0) {
        int e = errno;
        nd_kb_note(s, "%s: cannot list: %s", path, strerror(e));
        return -e;
    }
    int rc = -ENODATA;
    for (int i = 0; i < n; i++) {
        char *child = nd_xasprintf("%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/", list[i]->d_name);
        struct stat st;
        bool outside = false;
        if (lstat(child, &st) == 0 && S_ISLNK(st.st_mode) && !s->follow && s->tree) {
            /* A link out of the tree (data -> /usr/share) would read what the
             * user did not name, and change the root cause. */
            char *real = realpath(child, NULL);
            size_t tl = strlen(s->tree);
            outside = !real || strncmp(real, s->tree, tl) != 0 || (real[tl] != '/' && real[tl] != '\0' && tl > 1);
            free(real);
        }
        if (outside) {
            nd_kb_note(s, "%s: symbolic link out of %s; not followed (--follow reads it)", child, s->tree);
        } else if (stat(child, &st) != 0) {
            nd_kb_note(s, "%s: cannot open: %s", child, strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
            bool loop = false;
            for (int d = 0; d <= depth; d++)
                if (stack[d].dev == st.st_dev && stack[d].ino == st.st_ino)
                    loop = true;
            if (loop) {
                nd_kb_note(s, "%s: directory loop (a symlink back to a parent); not followed", child);
            } else if (!nd_kb_seen(s, &st, true)) {
                stack[depth + 1].dev = st.st_dev;
                stack[depth + 1].ino = st.st_ino;
                if (nd_kb_scan_dir(s, child, stack, depth + 1) == 0)
                    rc = 0;
            }
        } else if (S_ISREG(st.st_mode)) {
            if (nd_kb_binary_name(list[i]->d_name))
                s->skipped_binary++;
            else if (!nd_kb_seen(s, &st, true) && nd_kb_scan_file(s, child) == 0)
                rc = 0;
        } else {
            nd_kb_note(s, "%s: skipped: not a regular file", child);
        }
        free(child);
        free(list[i]);
    }
    free(list);
    return rc;
}

void nd_kb_scan_set_follow(struct nd_kb_scan *s, bool follow)
{
    s->follow = follow;
}

int nd_kb_scan_path(struct nd_kb_scan *s, const char *path)
{
    if (strcmp(path, "-") == 0)
        return nd_kb_scan_fd(s, "<stdin>", STDIN_FILENO);
    struct stat st;
    if (stat(path, &st) != 0) {
        int e = errno;
        nd_kb_note(s, "%s: cannot open: %s", path, strerror(e));
        return -e;
    }
    if (S_ISDIR(st.st_mode)) {
        struct nd_kb_dirid stack[ND_KB_MAX_DEPTH + 1];
        stack[0].dev = st.st_dev;
        stack[0].ino = st.st_ino;
        if (nd_kb_seen(s, &st, true))
            return -EEXIST;
        size_t before = s->skipped_binary, empty = s->skipped_empty;
        s->walking = true;
        free(s->tree);
        s->tree = realpath(path, NULL);
        int rc = nd_kb_scan_dir(s, path, stack, 0);
        s->walking = false;
        free(s->tree);
        s->tree = NULL;
        if (s->skipped_binary > before)
            nd_kb_note(s, "%s: %zu binary file%s (checkpoints, arrays, libraries) skipped by name", path,
                       s->skipped_binary - before, s->skipped_binary - before == 1 ? "" : "s");
        if (s->skipped_empty > empty)
            nd_kb_note(s, "%s: %zu empty file%s skipped", path, s->skipped_empty - empty,
                       s->skipped_empty - empty == 1 ? "" : "s");
        if (rc == -ENODATA)
            nd_kb_note(s, "%s: no readable log files in this directory", path);
        return rc;
    }
    if (S_ISREG(st.st_mode) && nd_kb_seen(s, &st, true))
        return 0;
    return nd_kb_scan_file(s, path);
}

size_t nd_kb_scan_inputs(const struct nd_kb_scan *s)
{
    return s->inputs;
}

unsigned long long nd_kb_scan_bytes(const struct nd_kb_scan *s)
{
    return s->bytes;
}

unsigned long long nd_kb_scan_lines(const struct nd_kb_scan *s)
{
    return s->lines;
}

size_t nd_kb_scan_nnotes(const struct nd_kb_scan *s)
{
    return s->notes.n + (s->notes_dropped ? 1 : 0);
}

const char *nd_kb_scan_note(const struct nd_kb_scan *s, size_t i)
{
    if (i < s->notes.n)
        return s->notes.v[i];
    return s->notes_dropped ? "further notes were left out" : NULL;
}

/* An exception that reports another process's end rather than a failure
 * of its own: the launcher's ChildFailedError, a wrapper script's
 * CalledProcessError (both say only which child exited with which code). */
static bool nd_kb_launcher_report(const char *text)
{
    static const char *const names[] = {"ChildFailedError", "CalledProcessError"};
    size_t n = strcspn(text, ": ");
    for (size_t i = 0; i < ND_ARRAY_SIZE(names); i++) {
        size_t k = strlen(names[i]);
        if (n >= k && strncmp(text + n - k, names[i], k) == 0)
            return true;
    }
    return strncmp(text, "Traceback ", 10) == 0;
}

/* The fallback's lines: the last exception line (a log that ends in a
 * Python exception), the first real exception lines (kept until a rule
 * explains them), and the first few ERROR lines. */
static void nd_kb_fallback_line(struct nd_kb_scan *s, size_t key, const char *ls, size_t llen, long line, long logical)
{
    size_t pre = nd_kb_line_prefix(ls, llen);
    struct nd_kb_occ o = {.file = s->name, .line = line, .ts = -1, .rank = -1, .chain = s->chain};
    if (key == s->kb->key_exc) {
        if (s->fb_exc.text && s->fb_exc.file == o.file && s->fb_exc.line == line)
            return;
        nd_kb_occ_set(&s->fb_exc, &o, ls + pre, llen - pre, NULL);
        /* The frames above the exception are its traceback's: they go with
         * it, and a later traceback starts a ring of its own. */
        free(s->fb_exc_frames);
        s->fb_exc_frames = nd_kb_frames_join(&s->fb_ring);
        nd_kb_frames_clear(&s->fb_ring);
        if (s->fb_cand_full || nd_kb_launcher_report(s->fb_exc.text))
            return;
        if (s->fb_ncand == ND_KB_FB_CANDS) {
            s->fb_cand_full = true;
            return;
        }
        struct nd_kb_fb_cand *c = &s->fb_cand[s->fb_ncand++];
        c->occ = o;
        c->occ.text = nd_xstrdup(s->fb_exc.text);
        c->src = s->src;
        c->logical = logical;
        c->frames = s->fb_exc_frames ? nd_xstrdup(s->fb_exc_frames) : NULL;
        return;
    }
    /* A traceback header begins a new traceback. */
    if (memmem(ls + pre, llen - pre, "Traceback (most recent call ", 28))
        nd_kb_frames_clear(&s->fb_ring);
    if (s->fb_nerr && s->fb_err[s->fb_nerr - 1].file == o.file && s->fb_err[s->fb_nerr - 1].line == line)
        return;
    s->fb_errcount++;
    if (s->fb_nerr < ND_KB_FB_ERRS) {
        s->fb_err[s->fb_nerr].text = NULL;
        nd_kb_occ_set(&s->fb_err[s->fb_nerr++], &o, ls + pre, llen - pre, NULL);
    }
    if (s->fb_nuerr && s->fb_uerr[s->fb_nuerr - 1].src == s->src && s->fb_uerr[s->fb_nuerr - 1].logical == logical)
        return;
    s->fb_uerrcount++;
    if (s->fb_nuerr < ND_KB_FB_UERRS) {
        struct nd_kb_fb_cand *c = &s->fb_uerr[s->fb_nuerr++];
        c->occ.text = NULL;
        c->frames = NULL;
        nd_kb_occ_set(&c->occ, &o, ls + pre, llen - pre, NULL);
        c->src = s->src;
        c->logical = logical;
    }
}

/* A warning line: kept, one per logical line, until a rule explains it. */
static void nd_kb_warn_line(struct nd_kb_scan *s, const char *ls, size_t llen, long line, long logical, int chain)
{
    if (s->fb_nwarn && s->fb_warn[s->fb_nwarn - 1].src == s->src && s->fb_warn[s->fb_nwarn - 1].logical == logical)
        return;
    if (s->fb_nwarn == ND_KB_FB_WARNS)
        return;
    size_t pre = nd_kb_line_prefix(ls, llen);
    struct nd_kb_occ o = {.file = s->name, .line = line, .ts = -1, .rank = -1, .chain = chain};
    struct nd_kb_fb_cand *c = &s->fb_warn[s->fb_nwarn++];
    c->occ.text = NULL;
    c->frames = NULL;
    nd_kb_occ_set(&c->occ, &o, ls + pre, llen - pre, NULL);
    c->src = s->src;
    c->logical = logical;
}

void nd_kb_scan_no_fallback(struct nd_kb_scan *s)
{
    s->no_fallback = true;
}

/* True when the finding explain would put first says no more than that
 * something failed: a symptom, a wrapper, or a line less severe than an
 * unexplained exception. */
static bool nd_kb_top_is_weak(struct nd_kb_scan *s, const struct nd_finding *f, const struct nd_kb_occ *first)
{
    if (f->severity < ND_SEV_ERROR)
        return true;
    size_t ri = 0;
    const struct nd_kb_rule *r = nd_kb_ruleset_find(&s->kb->rules, f->id, &ri);
    if (!r)
        return false;
    /* A generic rule that read only the re-raise at the end of a Python
     * exception chain says less than the first exception above it. */
    const struct nd_kb_occ *e = &s->hits[ri].earliest;
    if (r->generic && first && e->file == first->file && first->chain < e->chain)
        return true;
    return r->role != ND_ROLE_CAUSE;
}

void nd_kb_scan_finish(struct nd_kb_scan *s, struct nd_findings *out, bool all)
{
    nd_kb_scan_redact(s);
    size_t before = out->n;
    nd_kb_rank_hits(s->kb, s->hits, out, all);
    if (s->no_fallback)
        return;
    bool any = false;
    for (size_t i = 0; i < s->kb->rules.n && !any; i++)
        any = s->hits[i].count > 0;
    /* Never silent on a failure. An exception no rule explained is the
     * failure unless a rule names a cause: it goes before the symptoms,
     * wrappers and consequences (another rank's abort, the launcher's exit
     * report) that follow from it. The first such exception is the root;
     * later ones are usually its consequences. */
    const struct nd_kb_occ *first = s->fb_ncand ? &s->fb_cand[0].occ : NULL;
    if (first && (out->n == before || nd_kb_top_is_weak(s, out->v[before], first))) {
        nd_kb_fallback_finding(s->kb, first, s->fb_err, s->fb_nerr, s->fb_errcount, s->fb_cand[0].frames, out);
        struct nd_finding *f = out->v[out->n - 1];
        memmove(&out->v[before + 1], &out->v[before], (out->n - 1 - before) * sizeof *out->v);
        out->v[before] = f;
    } else if (!any && out->n == before && (s->fb_exc.text || s->fb_nerr)) {
        /* Nothing known matched, but the log ends in an exception or says
         * ERROR (a traceback cut before its exception has only frames). */
        char *ring = s->fb_exc.text ? NULL : nd_kb_frames_join(&s->fb_ring);
        nd_kb_fallback_finding(s->kb, s->fb_exc.text ? &s->fb_exc : NULL, s->fb_err, s->fb_nerr, s->fb_errcount,
                               s->fb_exc.text ? s->fb_exc_frames : ring, out);
        free(ring);
    } else if (out->n == before && s->fb_nuerr) {
        /* Only rules that report nothing (info, context) matched, and a line
         * that says ERROR is on none of their lines: that line is the news. */
        struct nd_kb_occ errs[ND_KB_FB_UERRS];
        for (size_t i = 0; i < s->fb_nuerr; i++)
            errs[i] = s->fb_uerr[i].occ;
        char *ring = nd_kb_frames_join(&s->fb_ring);
        nd_kb_fallback_finding(s->kb, NULL, errs, s->fb_nuerr, s->fb_uerrcount, ring, out);
        free(ring);
    }
    /* Still nothing, or only a rule that says the job was stuck without
     * saying where: the shape of the log may tell. */
    nd_kb_shape_merge(s->shape, out, before);
    /* No error line at all and nothing found: the warnings are all the log
     * says, and the most telling one is a weak hint. */
    if (out->n == before && !s->fb_exc.text && !s->fb_nerr && !s->fb_ncand && s->fb_nwarn) {
        struct nd_kb_occ warns[ND_KB_FB_WARNS];
        for (size_t i = 0; i < s->fb_nwarn; i++)
            warns[i] = s->fb_warn[i].occ;
        nd_kb_warning_finding(s->kb, warns, s->fb_nwarn, out);
    }
}
