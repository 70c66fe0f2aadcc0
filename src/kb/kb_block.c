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

struct nd_kb_block_ctx {
    const char *buf;
    size_t *starts; /* offsets of line starts with a match, in arrival order */
    size_t n, cap;
    size_t last_start; /* the line of the previous match, to skip repeats */
    bool any;
};

static int nd_kb_block_cb(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags, void *arg)
{
    (void)id;
    (void)from;
    (void)flags;
    struct nd_kb_block_ctx *c = arg;
    size_t end = to ? (size_t)to - 1 : 0; /* last byte of the match */
    /* A match that ends on the newline itself ($ under multiline) belongs to the line before it. */
    if (end > 0 && c->buf[end] == '\n')
        end--;
    if (c->any && end >= c->last_start) {
        const char *nl = memchr(c->buf + c->last_start, '\n', end - c->last_start);
        if (!nl)
            return 0; /* same line as the previous match */
    }
    const char *p = c->buf + end;
    while (p > c->buf && p[-1] != '\n')
        p--;
    size_t start = (size_t)(p - c->buf);
    ND_ALLOC_GROW(c->starts, c->n + 1, c->cap);
    c->starts[c->n++] = start;
    c->last_start = start;
    c->any = true;
    return 0;
}

static int nd_kb_size_cmp(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

static size_t nd_kb_block_scan(struct nd_kb *kb, const char *buf, size_t len, nd_kb_block_fn fn, void *arg)
{
    struct nd_kb_block_ctx c = {.buf = buf};
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
            c.starts[i] += off;
        off += n;
    }
    c.buf = buf;
    /* Patterns report by end offset, which is line order except when one
     * pattern's match ends on a line after another's: sort, then drop repeats. */
    if (c.n > 1)
        qsort(c.starts, c.n, sizeof *c.starts, nd_kb_size_cmp);
    size_t lines_before = 0, pos = 0, called = 0;
    for (size_t i = 0; i < c.n; i++) {
        if (i > 0 && c.starts[i] == c.starts[i - 1])
            continue;
        size_t s = c.starts[i];
        for (const char *q; pos < s && (q = memchr(buf + pos, '\n', s - pos)) != NULL; pos = (size_t)(q - buf) + 1)
            lines_before++;
        pos = s;
        const char *e = memchr(buf + s, '\n', len - s);
        size_t l = e ? (size_t)(e - (buf + s)) : len - s;
        fn(arg, buf + s, l, lines_before);
        called++;
    }
    free(c.starts);
    return called;
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

size_t nd_kb_block_lines(struct nd_kb *kb, const char *buf, size_t len, nd_kb_block_fn fn, void *arg)
{
    if (!kb || !buf || len == 0)
        return 0;
    if (!nd_kb_logical_needed(buf, len))
        return nd_kb_block_scan(kb, buf, len, fn, arg);
    struct nd_kb_logical lg = {0};
    size_t n = nd_kb_logical_build(buf, len, &lg);
    struct nd_kb_block_logical t = {.orig = buf, .lg = &lg, .fn = fn, .arg = arg};
    t.firsts = nd_xcalloc(lg.nlines ? lg.nlines : 1, sizeof *t.firsts);
    for (size_t i = 0; i < lg.nlines; i++)
        if (lg.lines[i].logical == i)
            t.firsts[t.nfirsts++] = i;
    nd_strbuf_init(&t.text);
    size_t called = nd_kb_block_scan(kb, lg.buf, n, nd_kb_block_logical_cb, &t);
    nd_strbuf_release(&t.text);
    free(t.firsts);
    nd_kb_logical_release(&lg);
    return called;
}
