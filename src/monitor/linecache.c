/* The repeat cache of `run`'s live matching (see linecache.h): direct
 * mapped, keyed by a 64-bit hash and checked against the stored text. */
#include "monitor/linecache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

struct nd_linecache_slot {
    uint64_t hash;
    char *text; /* NULL: empty slot */
    size_t len;
    struct nd_linecache_entry e;
    char *idbuf; /* the ids, one allocation */
};

struct nd_linecache {
    struct nd_linecache_slot *slot;
    size_t mask;
    unsigned long long hits;
};

/* 8 bytes at a time, multiply-xorshift mixing: cheaper than a byte loop on
 * the repeat path, which is what this cache is for. */
static uint64_t nd_linecache_hash(const char *p, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (n * 0xff51afd7ed558ccdULL);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 31;
    }
    uint64_t t = 0;
    memcpy(&t, p + i, n - i);
    h = (h ^ t) * 0x94d049bb133111ebULL;
    return h ^ (h >> 29);
}

struct nd_linecache *nd_linecache_new(size_t slots)
{
    size_t n = 16;
    while (n < slots)
        n *= 2;
    struct nd_linecache *c = nd_xcalloc(1, sizeof *c);
    c->slot = nd_xcalloc(n, sizeof *c->slot);
    c->mask = n - 1;
    return c;
}

static void nd_linecache_slot_release(struct nd_linecache_slot *s)
{
    free(s->text);
    free(s->idbuf);
    memset(s, 0, sizeof *s);
}

void nd_linecache_free(struct nd_linecache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i <= c->mask; i++)
        nd_linecache_slot_release(&c->slot[i]);
    free(c->slot);
    free(c);
}

const struct nd_linecache_entry *nd_linecache_get(struct nd_linecache *c, const char *line, size_t len)
{
    if (len > ND_LINECACHE_TEXT_MAX)
        return NULL;
    uint64_t h = nd_linecache_hash(line, len);
    struct nd_linecache_slot *s = &c->slot[h & c->mask];
    if (!s->text || s->hash != h || s->len != len || memcmp(s->text, line, len) != 0)
        return NULL;
    c->hits++;
    return &s->e;
}

void nd_linecache_put(struct nd_linecache *c, const char *line, size_t len, const char *const *ids, size_t nids,
                      const unsigned *keys, size_t nkeys, unsigned flags)
{
    if (len > ND_LINECACHE_TEXT_MAX || nids > ND_LINECACHE_IDS || nkeys > ND_LINECACHE_KEYS)
        return;
    uint64_t h = nd_linecache_hash(line, len);
    struct nd_linecache_slot *s = &c->slot[h & c->mask];
    nd_linecache_slot_release(s);
    s->hash = h;
    s->text = nd_xmalloc(len ? len : 1);
    memcpy(s->text, line, len);
    s->len = len;
    size_t total = 0;
    for (size_t i = 0; i < nids; i++)
        total += strlen(ids[i]) + 1;
    s->idbuf = nd_xmalloc(total ? total : 1);
    char *p = s->idbuf;
    for (size_t i = 0; i < nids; i++) {
        size_t l = strlen(ids[i]) + 1;
        memcpy(p, ids[i], l);
        s->e.ids[i] = p;
        p += l;
    }
    s->e.nids = nids;
    if (nkeys)
        memcpy(s->e.keys, keys, nkeys * sizeof *keys);
    s->e.nkeys = nkeys;
    s->e.flags = flags;
}

unsigned long long nd_linecache_hits(const struct nd_linecache *c)
{
    return c->hits;
}
