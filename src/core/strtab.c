/* String interning with an open-addressing hash table (FNV-1a, linear
 * probing, grown at 50% load). */
#include "core/strtab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

struct nd_strtab_slot {
    uint64_t hash;
    size_t id_plus1; /* 0: empty */
};

struct nd_strtab {
    struct nd_strtab_slot *slots;
    size_t nslots; /* power of two */
    char **strs;   /* by id */
    size_t *lens;
    size_t n, cap;
};

static uint64_t nd_fnv1a(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

struct nd_strtab *nd_strtab_new(void)
{
    struct nd_strtab *t = nd_xcalloc(1, sizeof *t);
    t->nslots = 64;
    t->slots = nd_xcalloc(t->nslots, sizeof *t->slots);
    return t;
}

void nd_strtab_free(struct nd_strtab *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        free(t->strs[i]);
    free(t->strs);
    free(t->lens);
    free(t->slots);
    free(t);
}

/* The slot holding s, or the empty slot where it would go. */
static struct nd_strtab_slot *nd_strtab_probe(const struct nd_strtab *t, const char *s, size_t len, uint64_t h)
{
    size_t mask = t->nslots - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        struct nd_strtab_slot *sl = &t->slots[i];
        if (sl->id_plus1 == 0)
            return sl;
        size_t id = sl->id_plus1 - 1;
        if (sl->hash == h && t->lens[id] == len && memcmp(t->strs[id], s, len) == 0)
            return sl;
    }
}

static void nd_strtab_grow(struct nd_strtab *t)
{
    struct nd_strtab_slot *old = t->slots;
    size_t nold = t->nslots;
    t->nslots *= 2;
    t->slots = nd_xcalloc(t->nslots, sizeof *t->slots);
    size_t mask = t->nslots - 1;
    for (size_t i = 0; i < nold; i++) {
        if (old[i].id_plus1 == 0)
            continue;
        size_t j = (size_t)old[i].hash & mask;
        while (t->slots[j].id_plus1)
            j = (j + 1) & mask;
        t->slots[j] = old[i];
    }
    free(old);
}

const char *nd_strtab_find(const struct nd_strtab *t, const char *s, size_t len, size_t *id)
{
    struct nd_strtab_slot *sl = nd_strtab_probe(t, s, len, nd_fnv1a(s, len));
    if (sl->id_plus1 == 0)
        return NULL;
    if (id)
        *id = sl->id_plus1 - 1;
    return t->strs[sl->id_plus1 - 1];
}

const char *nd_strtab_intern(struct nd_strtab *t, const char *s, size_t len, size_t *id)
{
    uint64_t h = nd_fnv1a(s, len);
    struct nd_strtab_slot *sl = nd_strtab_probe(t, s, len, h);
    if (sl->id_plus1 == 0) {
        if (t->n == t->cap) {
            t->cap = t->cap ? t->cap * 2 : 64;
            t->strs = nd_xrealloc(t->strs, t->cap * sizeof *t->strs);
            t->lens = nd_xrealloc(t->lens, t->cap * sizeof *t->lens);
        }
        char *copy = nd_xmalloc(len + 1);
        memcpy(copy, s, len);
        copy[len] = '\0';
        t->strs[t->n] = copy;
        t->lens[t->n] = len;
        sl->hash = h;
        sl->id_plus1 = ++t->n;
        if (t->n * 2 > t->nslots) {
            nd_strtab_grow(t);
            sl = nd_strtab_probe(t, s, len, h);
        }
    }
    if (id)
        *id = sl->id_plus1 - 1;
    return t->strs[sl->id_plus1 - 1];
}

size_t nd_strtab_count(const struct nd_strtab *t)
{
    return t->n;
}

const char *nd_strtab_get(const struct nd_strtab *t, size_t id)
{
    return id < t->n ? t->strs[id] : NULL;
}
