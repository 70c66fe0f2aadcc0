/* The last error line of a job's output (see exit_tail.h): what a failed
 * job's summary names when no detector or rule said more. */
#include "monitor/exit_tail.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <hs/hs.h>

#include "core/strbuf.h"

/* "Name: text" or "pkg.mod.NameError" where the name ends in Error,
 * Exception, Exit or Interrupt: how Python prints the exception of a
 * traceback. */
static bool nd_python_exception(const char *line, size_t len)
{
    size_t i = 0;
    if (i >= len || !(isalpha((unsigned char)line[i]) || line[i] == '_'))
        return false;
    while (i < len && (isalnum((unsigned char)line[i]) || line[i] == '_' || line[i] == '.'))
        i++;
    if (i < len && line[i] != ':')
        return false;
    static const char *const ends[] = {"Error", "Exception", "Exit", "Interrupt", "Failure"};
    for (size_t k = 0; k < sizeof ends / sizeof *ends; k++) {
        size_t n = strlen(ends[k]);
        if (i >= n && memcmp(line + i - n, ends[k], n) == 0)
            return true;
    }
    return false;
}

static bool nd_has_word(const char *line, size_t len, const char *word)
{
    size_t n = strlen(word);
    for (size_t i = 0; i + n <= len; i++)
        if (strncasecmp(line + i, word, n) == 0)
            return true;
    return false;
}

bool nd_exit_line_is_error(const char *line, size_t len)
{
    while (len && (line[len - 1] == '\r' || line[len - 1] == '\n'))
        len--;
    if (nd_python_exception(line, len))
        return true;
    static const char *const words[] = {
        "error:",
        "error ",
        "fatal",
        "exception",
        "no such file",
        "can't open file",
        "cannot open",
        "command not found",
        "permission denied",
        "killed",
        "segmentation fault",
        "aborted",
        "traceback",
    };
    for (size_t k = 0; k < sizeof words / sizeof *words; k++)
        if (nd_has_word(line, len, words[k]))
            return true;
    return false;
}

/* A printable copy: control bytes become '?', the tail of a long line is cut. */
static void nd_keep(char *dst, const char *line, size_t len)
{
    while (len && (line[len - 1] == '\r' || line[len - 1] == '\n'))
        len--;
    if (len >= ND_EXIT_TAIL_LINE)
        len = ND_EXIT_TAIL_LINE - 1;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)line[i];
        dst[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    dst[len] = '\0';
}

void nd_exit_tail_feed(struct nd_exit_tail *t, const char *line, size_t len, long lineno)
{
    size_t i = 0;
    while (i < len && isspace((unsigned char)line[i]))
        i++;
    if (i == len)
        return;
    nd_keep(t->last_line, line, len);
    /* "Traceback (most recent call last):" opens a block whose last line is the exception. */
    static const char tb[] = "Traceback (most recent";
    bool traceback = len - i >= sizeof tb - 1 && memcmp(line + i, tb, sizeof tb - 1) == 0;
    if (!traceback && nd_exit_line_is_error(line + i, len - i)) {
        nd_keep(t->last_error, line + i, len - i);
        t->last_error_line = lineno;
    }
}

/* ---- whole blocks (run under a flood) ---- */

/* The words nd_exit_line_is_error looks for, as one caseless vectorscan
 * database: a block of output costs one scan, and only the lines that hold
 * one of them are judged line by line. */
static const char *const nd_tail_words[] = {
    "error",
    "fatal",
    "exception",
    "no such file",
    "can't open file",
    "cannot open",
    "command not found",
    "permission denied",
    "killed",
    "segmentation fault",
    "aborted",
    "exit:",
    "interrupt",
    "failure:",
};
static hs_database_t *nd_tail_db;
static hs_scratch_t *nd_tail_scratch;
static bool nd_tail_failed;

static bool nd_tail_compile(void)
{
    if (nd_tail_db || nd_tail_failed)
        return nd_tail_db != NULL;
    enum { N = sizeof nd_tail_words / sizeof *nd_tail_words };
    unsigned flags[N], ids[N];
    for (unsigned i = 0; i < N; i++) {
        flags[i] = HS_FLAG_CASELESS;
        ids[i] = i;
    }
    hs_compile_error_t *cerr = NULL;
    if (hs_compile_multi(nd_tail_words, flags, ids, N, HS_MODE_BLOCK, NULL, &nd_tail_db, &cerr) != HS_SUCCESS) {
        hs_free_compile_error(cerr);
        nd_tail_failed = true;
        return false;
    }
    if (hs_alloc_scratch(nd_tail_db, &nd_tail_scratch) != HS_SUCCESS) {
        hs_free_database(nd_tail_db);
        nd_tail_db = NULL;
        nd_tail_failed = true;
    }
    return nd_tail_db != NULL;
}

struct nd_tail_hits {
    size_t *end; /* offsets just past a matched word */
    size_t n, cap;
};

static int nd_tail_hit(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags, void *arg)
{
    (void)id;
    (void)from;
    (void)flags;
    struct nd_tail_hits *h = arg;
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 32;
        h->end = nd_xrealloc(h->end, h->cap * sizeof *h->end);
    }
    h->end[h->n++] = (size_t)to;
    return 0;
}

static size_t nd_tail_line_start(const char *data, size_t at)
{
    while (at > 0 && data[at - 1] != '\n')
        at--;
    return at;
}

static long nd_tail_lines_before(const char *data, size_t upto)
{
    long n = 0;
    for (const char *p = data, *e = data + upto; (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++)
        n++;
    return n;
}

void nd_exit_tail_feed_block(struct nd_exit_tail *t, const char *data, size_t len, long first_lineno)
{
    if (!len)
        return;
    /* The last line with something on it. */
    size_t end = len;
    while (end > 0 && isspace((unsigned char)data[end - 1]))
        end--;
    if (end == 0)
        return;
    size_t last = nd_tail_line_start(data, end);
    nd_keep(t->last_line, data + last, end - last);
    if (!nd_tail_compile()) {
        /* No database: line by line (slow, but right). */
        long lineno = first_lineno;
        for (const char *p = data, *e = data + len; p < e; lineno++) {
            const char *nl = memchr(p, '\n', (size_t)(e - p));
            size_t l = nl ? (size_t)(nl - p) : (size_t)(e - p);
            char keep[ND_EXIT_TAIL_LINE];
            memcpy(keep, t->last_line, sizeof keep);
            nd_exit_tail_feed(t, p, l, lineno);
            memcpy(t->last_line, keep, sizeof keep);
            p = nl ? nl + 1 : e;
        }
        return;
    }
    struct nd_tail_hits h = {0};
    for (size_t off = 0; off < len;) {
        size_t n = len - off > 0x40000000u ? 0x40000000u : len - off;
        size_t base = h.n;
        hs_scan(nd_tail_db, data + off, (unsigned)n, 0, nd_tail_scratch, nd_tail_hit, &h);
        for (size_t i = base; i < h.n; i++)
            h.end[i] += off;
        off += n;
    }
    /* The last candidate line that really reads like an error wins. */
    size_t i = h.n;
    size_t tried = (size_t)-1;
    while (i-- > 0) {
        size_t at = h.end[i] ? h.end[i] - 1 : 0;
        size_t ls = nd_tail_line_start(data, at);
        if (ls == tried)
            continue;
        tried = ls;
        const char *nl = memchr(data + ls, '\n', len - ls);
        size_t l = nl ? (size_t)(nl - (data + ls)) : len - ls;
        struct nd_exit_tail one;
        one.last_error[0] = '\0';
        one.last_error_line = 0;
        nd_exit_tail_feed(&one, data + ls, l, first_lineno + nd_tail_lines_before(data, ls));
        if (one.last_error[0]) {
            memcpy(t->last_error, one.last_error, sizeof t->last_error);
            t->last_error_line = one.last_error_line;
            break;
        }
    }
    free(h.end);
}

/* ---- tracebacks ---- */

static const char nd_tb_header[] = "Traceback (most recent call last):";

/* Walks the lines of [p, e) after a traceback header: frames are indented;
 * the first line that is not names the exception. Returns false when the
 * block ended first (the traceback goes on in the next one). */
static bool nd_tb_walk(struct nd_exit_tail *t, const char *data, const char *p, const char *e, long first_lineno)
{
    while (p < e) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        size_t l = nl ? (size_t)(nl - p) : (size_t)(e - p);
        size_t k = 0;
        while (k < l && (p[k] == '\r'))
            k++;
        bool frame = k < l && (p[k] == ' ' || p[k] == '\t');
        if (k < l && !frame) {
            if (nd_python_exception(p + k, l - k)) {
                nd_keep(t->traceback_error, p + k, l - k);
                t->traceback_line = first_lineno + nd_tail_lines_before(data, (size_t)(p - data));
            }
            return true;
        }
        p = nl ? nl + 1 : e;
    }
    return false;
}

void nd_exit_tail_traceback_block(struct nd_exit_tail *t, int stream, const char *data, size_t len, long first_lineno)
{
    if (!len)
        return;
    int sidx = stream == 1 || stream == 2 ? stream : 0;
    const char *e = data + len;
    if (t->tb_open[sidx])
        t->tb_open[sidx] = !nd_tb_walk(t, data, data, e, first_lineno);
    /* The last header of the block: an earlier one's exception is older. */
    const char *last = NULL;
    size_t hl = sizeof nd_tb_header - 1;
    for (const char *p = data; (p = memmem(p, (size_t)(e - p), nd_tb_header, hl)) != NULL; p += hl)
        last = p;
    if (!last)
        return;
    const char *nl = memchr(last, '\n', (size_t)(e - last));
    t->tb_open[sidx] = !nl || !nd_tb_walk(t, data, nl + 1, e, first_lineno);
}
