/* Matching a block of whole output lines with one scan of the database:
 * `run` hands over everything the job printed since the last read, and only
 * the lines on which some pattern matched cost more than the scan itself, so
 * a job that floods its output is matched in full at the speed of `explain`.
 * A block with per-line prefixes or continued lines is matched as explain
 * matches it: as logical lines (kb_logical.c). */
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/array.h"
#include "kb/kb_internal.h"
#include "kb/kb_logical.h"

struct nd_kb_block_start {
    size_t at;  /* offset of a line start with a match */
    bool cross; /* a pattern that can cross a line end matched there */
};

struct nd_kb_block_ctx {
    struct nd_kb *kb;
    const char *buf;
    struct nd_kb_block_start *starts; /* in arrival order */
    size_t n, cap;
    size_t last_start; /* the line of the previous match, to skip repeats */
    bool any;
};

static int nd_kb_block_cb(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags, void *arg)
{
    (void)from;
    (void)flags;
    struct nd_kb_block_ctx *c = arg;
    size_t end = to ? (size_t)to - 1 : 0; /* last byte of the match */
    /* A match that ends on the newline itself ($ under multiline) belongs to the line before it. */
    if (end > 0 && c->buf[end] == '\n')
        end--;
    bool cross = c->kb->cross_state > 0 && id < c->kb->npatterns && !c->kb->pat_local[id];
    if (c->any && end >= c->last_start) {
        const char *nl = memchr(c->buf + c->last_start, '\n', end - c->last_start);
        if (!nl) {
            /* Same line as the previous match. */
            c->starts[c->n - 1].cross |= cross;
            return 0;
        }
    }
    const char *p = c->buf + end;
    while (p > c->buf && p[-1] != '\n')
        p--;
    size_t start = (size_t)(p - c->buf);
    ND_ALLOC_GROW(c->starts, c->n + 1, c->cap);
    c->starts[c->n++] = (struct nd_kb_block_start){start, cross};
    c->last_start = start;
    c->any = true;
    return 0;
}

static int nd_kb_start_cmp(const void *a, const void *b)
{
    size_t x = ((const struct nd_kb_block_start *)a)->at, y = ((const struct nd_kb_block_start *)b)->at;
    return x < y ? -1 : x > y;
}

/* Where the ND_KB_WINDOW_LINES lines before the line at s start, within
 * buf[0..s) (s is a line start, buf[s-1] its '\n'). */
static size_t nd_kb_window_from(const char *buf, size_t s)
{
    size_t p = s ? s - 1 : 0;
    for (int k = 0; k < ND_KB_WINDOW_LINES && p > 0; k++) {
        while (p > 0 && buf[p - 1] != '\n')
            p--;
        if (k + 1 < ND_KB_WINDOW_LINES && p > 0)
            p--;
    }
    if (s - p > ND_KB_WINDOW_MAX)
        p = s - ND_KB_WINDOW_MAX;
    return p;
}

/* Scans buf[0..len); the lines before skip (a window of earlier lines, its
 * last '\n' included) only give the lines after them what crosses into
 * them: fn gets the lines from skip on, with indexes counted from there. */
static size_t nd_kb_block_scan(struct nd_kb *kb, const char *buf, size_t len, size_t skip, nd_kb_block_fn fn, void *arg)
{
    struct nd_kb_block_ctx c = {.kb = kb, .buf = buf};
    for (size_t off = 0; off < len;) {
        /* hs_scan takes an unsigned length; blocks are far smaller in practice. */
        size_t n = len - off > 0x7fffffffu ? 0x7fffffffu : len - off;
        if (n < len - off) {
            const char *nl = memrchr(buf + off, '\n', n);
            if (nl)
                n = (size_t)(nl - (buf + off)) + 1;
        }
        c.buf = buf + off;
        size_t first = c.n;
        c.any = false;
        hs_scan(kb->db, c.buf, (unsigned)n, 0, kb->scratch, nd_kb_block_cb, &c);
        for (size_t i = first; i < c.n; i++)
            c.starts[i].at += off;
        off += n;
    }
    c.buf = buf;
    /* Patterns report by end offset, which is line order except when one
     * pattern's match ends on a line after another's: sort, then drop repeats. */
    if (c.n > 1)
        qsort(c.starts, c.n, sizeof *c.starts, nd_kb_start_cmp);
    size_t lines_before = 0, pos = skip, called = 0;
    for (size_t i = 0; i < c.n; i++) {
        size_t s = c.starts[i].at;
        if (s < skip)
            continue;
        bool cross = c.starts[i].cross;
        while (i + 1 < c.n && c.starts[i + 1].at == s)
            cross |= c.starts[++i].cross;
        for (const char *q; pos < s && (q = memchr(buf + pos, '\n', s - pos)) != NULL; pos = (size_t)(q - buf) + 1)
            lines_before++;
        pos = s;
        const char *e = memchr(buf + s, '\n', len - s);
        size_t l = e ? (size_t)(e - (buf + s)) : len - s;
        /* What it may have crossed from: the lines just before it. */
        size_t from = cross && s > 0 ? nd_kb_window_from(buf, s) : s;
        kb->live_prev = buf + from;
        kb->live_prev_len = s > from ? s - from - 1 : 0;
        kb->live_cross = cross && s > from;
        fn(arg, buf + s, l, lines_before);
        called++;
    }
    kb->live_prev = NULL;
    kb->live_prev_len = 0;
    kb->live_cross = false;
    free(c.starts);
    return called;
}

bool nd_kb_live_crossed(const struct nd_kb *kb)
{
    return kb && kb->live_cross;
}

/* Hands a logical line on with its first physical line's index and prefix:
 * the matcher strips the prefix again and reads the rank from it. */
struct nd_kb_block_logical {
    const char *orig;
    const struct nd_kb_logical *lg;
    size_t *firsts; /* logical line -> its first physical line */
    size_t nfirsts;
    struct nd_strbuf text;
    nd_kb_block_fn fn;
    void *arg;
};

static void nd_kb_block_logical_cb(void *arg, const char *line, size_t len, size_t index)
{
    struct nd_kb_block_logical *t = arg;
    if (index >= t->nfirsts)
        return;
    const struct nd_kb_pline *pl = &t->lg->lines[t->firsts[index]];
    size_t pre = nd_kb_line_prefix(t->orig + pl->o_line, pl->o_end - pl->o_line);
    t->text.len = 0;
    if (t->text.cap)
        t->text.buf[0] = '\0';
    nd_strbuf_add(&t->text, t->orig + pl->o_line, pre);
    nd_strbuf_add(&t->text, line, len);
    t->fn(t->arg, t->text.buf, t->text.len, t->firsts[index]);
}

/* The window's text and the scan text after it: win + '\n' + text. */
static char *nd_kb_window_join(const struct nd_kb_window *w, const char *text, size_t len, size_t *skip, size_t *total)
{
    *skip = w && w->len ? w->len + 1 : 0;
    *total = *skip + len;
    char *j = nd_xmalloc(*total + 1);
    if (*skip) {
        memcpy(j, w->buf, w->len);
        j[w->len] = '\n';
    }
    memcpy(j + *skip, text, len);
    j[*total] = '\0';
    return j;
}

/* The last lines of j[0..len) (whole lines, as many as fit) for the next
 * block; a line longer than the window keeps its end. */
static void nd_kb_window_keep(struct nd_kb_window *w, const char *j, size_t len)
{
    if (len && j[len - 1] == '\n')
        len--;
    size_t from = nd_kb_window_from(j, len + 1); /* as if a '\n' ended it */
    if (len - from >= ND_KB_WINDOW_MAX)
        from = len - (ND_KB_WINDOW_MAX - 1);
    w->len = len - from;
    memcpy(w->buf, j + from, w->len);
}

size_t nd_kb_block_lines_after(struct nd_kb *kb, struct nd_kb_window *w, const char *buf, size_t len, nd_kb_block_fn fn,
                               void *arg)
{
    if (!kb || !buf || len == 0)
        return 0;
    /* Which patterns cross a line end: known before the first block. */
    if (w)
        nd_kb_cross_ready(kb);
    bool logical = nd_kb_logical_needed(buf, len);
    struct nd_kb_logical lg = {0};
    const char *text = buf;
    size_t n = len;
    if (logical) {
        n = nd_kb_logical_build(buf, len, &lg);
        text = lg.buf;
    }
    size_t skip = 0, total = n;
    char *j = w ? nd_kb_window_join(w, text, n, &skip, &total) : NULL;
    const char *scan = j ? j : text;
    size_t called;
    if (!logical) {
        called = nd_kb_block_scan(kb, scan, total, skip, fn, arg);
    } else {
        struct nd_kb_block_logical t = {.orig = buf, .lg = &lg, .fn = fn, .arg = arg};
        t.firsts = nd_xcalloc(lg.nlines ? lg.nlines : 1, sizeof *t.firsts);
        for (size_t i = 0; i < lg.nlines; i++)
            if (lg.lines[i].logical == i)
                t.firsts[t.nfirsts++] = i;
        nd_strbuf_init(&t.text);
        called = nd_kb_block_scan(kb, scan, total, skip, nd_kb_block_logical_cb, &t);
        nd_strbuf_release(&t.text);
        free(t.firsts);
    }
    if (w)
        nd_kb_window_keep(w, scan, total);
    free(j);
    nd_kb_logical_release(&lg);
    return called;
}

size_t nd_kb_block_lines(struct nd_kb *kb, const char *buf, size_t len, nd_kb_block_fn fn, void *arg)
{
    return nd_kb_block_lines_after(kb, NULL, buf, len, fn, arg);
}
