/* The id index of a rule set: an open-addressing hash from rule id to its
 * slot, so that loading n rules costs O(n) lookups instead of the O(n^2)
 * of comparing each new id with every earlier one (100k site rules).
 * The index is a cache: it is brought up to date lazily on each lookup
 * (rules appended since are added; a set whose slots moved is re-indexed),
 * so code that appends rules by any path needs no call of its own. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "kb/kb_internal.h"

struct nd_kb_ruleidx {
    size_t *slot;   /* rule index + 1; 0 = empty */
    size_t cap;     /* power of two */
    size_t covered; /* rules v[0..covered) are in the table */
};

static uint64_t nd_kb_id_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

static void nd_kb_idx_put(struct nd_kb_ruleidx *x, const struct nd_kb_ruleset *set, size_t i)
{
    size_t m = x->cap - 1;
    for (size_t p = (size_t)nd_kb_id_hash(set->v[i].id) & m;; p = (p + 1) & m) {
        if (x->slot[p] == 0) {
            x->slot[p] = i + 1;
            return;
        }
        /* Same id twice in the set (a scratch duplicate kept for lint):
         * the first one stays the answer. */
        if (strcmp(set->v[x->slot[p] - 1].id, set->v[i].id) == 0)
            return;
    }
}

static void nd_kb_idx_sync(struct nd_kb_ruleset *set)
{
    struct nd_kb_ruleidx *x = set->idx;
    if (!x)
        x = set->idx = nd_xcalloc(1, sizeof *x);
    if (x->covered > set->n)
        x->covered = x->cap = 0, free(x->slot), x->slot = NULL;
    if (x->cap < 2 * set->n + 16) {
        size_t cap = 64;
        while (cap < 2 * set->n + 16)
            cap *= 2;
        free(x->slot);
        x->slot = nd_xcalloc(cap, sizeof *x->slot);
        x->cap = cap;
        x->covered = 0;
    }
    for (; x->covered < set->n; x->covered++)
        if (set->v[x->covered].id)
            nd_kb_idx_put(x, set, x->covered);
}

void nd_kb_ruleset_reindex(struct nd_kb_ruleset *set)
{
    if (set->idx) {
        free(set->idx->slot);
        set->idx->slot = NULL;
        set->idx->cap = set->idx->covered = 0;
    }
}

struct nd_kb_rule *nd_kb_ruleset_find(struct nd_kb_ruleset *set, const char *id, size_t *idx)
{
    if (!id || set->n == 0)
        return NULL;
    nd_kb_idx_sync(set);
    struct nd_kb_ruleidx *x = set->idx;
    size_t m = x->cap - 1;
    for (size_t p = (size_t)nd_kb_id_hash(id) & m; x->slot[p]; p = (p + 1) & m) {
        size_t i = x->slot[p] - 1;
        if (i < set->n && set->v[i].id && strcmp(set->v[i].id, id) == 0) {
            if (idx)
                *idx = i;
            return &set->v[i];
        }
    }
    return NULL;
}

void nd_kb_ruleidx_free(struct nd_kb_ruleset *set)
{
    if (set->idx)
        free(set->idx->slot);
    free(set->idx);
    set->idx = NULL;
}
