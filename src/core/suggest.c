/* Closest-word suggestions for mistyped commands and options. */
#include "core/suggest.h"

#include <string.h>

#define ND_SUGGEST_MAX 255

size_t nd_edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > ND_SUGGEST_MAX || m > ND_SUGGEST_MAX)
        return (size_t)-1;
    /* Three rows suffice: the swap looks two rows back. */
    size_t rows[3][ND_SUGGEST_MAX + 1];
    size_t *pp = rows[0], *p = rows[1], *c = rows[2];
    for (size_t j = 0; j <= m; j++)
        p[j] = j;
    for (size_t i = 1; i <= n; i++) {
        c[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = p[j] + 1; /* delete */
            if (c[j - 1] + 1 < best)
                best = c[j - 1] + 1; /* insert */
            if (p[j - 1] + cost < best)
                best = p[j - 1] + cost; /* substitute */
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < best)
                best = pp[j - 2] + 1; /* swap */
            c[j] = best;
        }
        size_t *t = pp;
        pp = p;
        p = c;
        c = t;
    }
    return p[m];
}

const char *nd_suggest(const char *word, const char *const *candidates, size_t n)
{
    size_t wl = strlen(word);
    if (wl == 0)
        return NULL;
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        const char *c = candidates[i];
        if (!c)
            continue;
        size_t d = nd_edit_distance(word, c);
        if (d == 0)
            continue; /* the word itself is known: nothing to suggest */
        if (wl >= 3 && strncmp(c, word, wl) == 0 && d > 0)
            d = 1; /* a prefix: "chec" is one step from "check" */
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    /* Short words need a closer match: "x" is two edits from "ps" but means nothing. */
    if (!best || best_d > 2 || best_d >= wl || (wl <= 3 && best_d > 1))
        return NULL;
    return best;
}
