/* Fuzz target for the line-local reading of patterns (kb_linelocal.c). The
 * input's first line is a pattern, the rest a text. Any pattern must be
 * read without a crash; one read as line-local must keep its promise: on
 * every line the scanner may leave out (not the first or last, not blank,
 * not before a blank line), the matches that end on that line in the whole
 * text end where they end when the line is scanned alone between two line
 * ends (kb_elide.c replays them from there). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hs/hs.h>

#include "kb/kb_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct nd_fz_ends {
    const size_t *starts; /* line starts of the text */
    size_t nlines;
    size_t base;   /* added to each end (the standalone scan's offset) */
    size_t *first; /* per line: first match end + 1, 0 none */
    bool one_line; /* standalone: every match is line 0's */
};

static size_t nd_fz_line_of(const struct nd_fz_ends *c, size_t b)
{
    size_t lo = 0, hi = c->nlines;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->starts[mid] <= b)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static int nd_fz_on_match(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags, void *ctx)
{
    (void)id;
    (void)from;
    (void)flags;
    struct nd_fz_ends *c = ctx;
    if (to == 0)
        return 0;
    size_t b = (size_t)to - 1;
    if (c->one_line) {
        if (b == 0) /* the line end before the line: not its match */
            return 0;
        if (c->first[0] == 0 || c->base + b + 1 < c->first[0])
            c->first[0] = c->base + b + 1;
        return 0;
    }
    size_t l = nd_fz_line_of(c, b);
    if (c->first[l] == 0 || b + 1 < c->first[l])
        c->first[l] = b + 1;
    return 0;
}

static bool nd_fz_blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\f' && p[i] != '\v')
            return false;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in = (const char *)data;
    const char *nl = memchr(in, '\n', size);
    size_t plen = nl ? (size_t)(nl - in) : size;
    char *pat = malloc(plen + 1);
    if (!pat)
        return 0;
    memcpy(pat, in, plen);
    pat[plen] = '\0';
    bool local = nd_kb_pattern_line_local(pat);
    const char *text = nl ? nl + 1 : in + size;
    size_t tlen = (size_t)(in + size - text);
    hs_database_t *db = NULL;
    hs_compile_error_t *cerr = NULL;
    if (!local || tlen == 0 || tlen > 8192 || strlen(pat) != plen ||
        hs_compile(pat, HS_FLAG_MULTILINE, HS_MODE_BLOCK, NULL, &db, &cerr) != HS_SUCCESS) {
        hs_free_compile_error(cerr);
        free(pat);
        return 0;
    }
    hs_scratch_t *scratch = NULL;
    size_t *starts = malloc((tlen + 1) * sizeof *starts);
    size_t *first = calloc(tlen + 1, sizeof *first);
    char *alone = malloc(tlen + 2);
    if (!starts || !first || !alone || hs_alloc_scratch(db, &scratch) != HS_SUCCESS)
        goto out;
    size_t n = 0;
    starts[n++] = 0;
    for (size_t i = 0; i < tlen; i++)
        if (text[i] == '\n' && i + 1 < tlen)
            starts[n++] = i + 1;
    struct nd_fz_ends whole = {.starts = starts, .nlines = n, .first = first};
    hs_scan(db, text, (unsigned)tlen, 0, scratch, nd_fz_on_match, &whole);
    for (size_t l = 1; l + 1 < n; l++) {
        size_t s = starts[l], e = starts[l + 1] - 1; /* e: its '\n' */
        size_t ne = l + 2 < n ? starts[l + 2] - 1 : tlen;
        if (text[ne - 1] == '\n' && ne == tlen)
            ne--;
        if (nd_fz_blank(text + s, e - s) || nd_fz_blank(text + e + 1, ne - (e + 1)))
            continue;
        alone[0] = '\n';
        memcpy(alone + 1, text + s, e - s);
        alone[e - s + 1] = '\n';
        size_t got = 0;
        struct nd_fz_ends one = {.first = &got, .one_line = true, .base = s - 1};
        hs_scan(db, alone, (unsigned)(e - s + 2), 0, scratch, nd_fz_on_match, &one);
        if (got != first[l])
            __builtin_trap();
    }
out:
    hs_free_scratch(scratch);
    hs_free_database(db);
    free(starts);
    free(first);
    free(alone);
    free(pat);
    return 0;
}
