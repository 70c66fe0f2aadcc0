/* The ranks a rule was seen on, for titles like "(ranks 0-127,130)": a
 * bitset that grows to the highest rank seen, so jobs of any size read
 * right (rank numbers have six digits at most: kb_time.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "kb/kb_internal.h"

/* Ranges shown before the rest is summed up. */
#define ND_KB_RANK_RANGES_SHOWN 8

void nd_rank_set_add(struct nd_rank_set *s, int rank)
{
    if (rank < 0 || rank >= ND_KB_RANK_MAX)
        return;
    size_t w = (size_t)rank / 64;
    if (w >= s->nwords) {
        size_t n = s->nwords ? s->nwords : 1;
        while (n <= w)
            n *= 2;
        s->words = nd_xrealloc(s->words, n * sizeof *s->words);
        memset(s->words + s->nwords, 0, (n - s->nwords) * sizeof *s->words);
        s->nwords = n;
    }
    s->words[w] |= 1ull << ((unsigned)rank % 64);
}

static bool nd_rank_in(const struct nd_rank_set *s, size_t r)
{
    return r / 64 < s->nwords && (s->words[r / 64] >> (r % 64) & 1);
}

size_t nd_rank_set_count(const struct nd_rank_set *s)
{
    size_t n = 0;
    for (size_t w = 0; w < s->nwords; w++)
        n += (size_t)__builtin_popcountll(s->words[w]);
    return n;
}

void nd_rank_set_text(const struct nd_rank_set *s, struct nd_strbuf *sb)
{
    size_t end = s->nwords * 64, ranges = 0;
    for (size_t r = 0; r < end; r++) {
        if (!nd_rank_in(s, r))
            continue;
        size_t e = r;
        while (e + 1 < end && nd_rank_in(s, e + 1))
            e++;
        if (ranges == ND_KB_RANK_RANGES_SHOWN) {
            nd_strbuf_addf(sb, ",... (%zu ranks)", nd_rank_set_count(s));
            return;
        }
        if (ranges++)
            nd_strbuf_addc(sb, ',');
        if (e > r)
            nd_strbuf_addf(sb, "%zu-%zu", r, e);
        else
            nd_strbuf_addf(sb, "%zu", r);
        r = e;
    }
}

void nd_rank_set_release(struct nd_rank_set *s)
{
    free(s->words);
    memset(s, 0, sizeof *s);
}
