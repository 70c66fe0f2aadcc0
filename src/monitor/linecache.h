/* What the knowledge base said about a line `run` has seen before: a job
 * that prints one warning two million times pays one full match and then a
 * hash lookup per repeat, and the finding's count stays exact. Exact-text
 * keys (the text is compared, not only its hash); a fixed number of slots,
 * a newer line replacing an older one in its slot. */
#ifndef ND_MONITOR_LINECACHE_H
#define ND_MONITOR_LINECACHE_H

#include <stdbool.h>
#include <stddef.h>

#define ND_LINECACHE_IDS 8         /* finding ids remembered per line */
#define ND_LINECACHE_TEXT_MAX 1024 /* longer lines are not cached */
#define ND_LINECACHE_KEYS 16       /* context keys remembered per line */

struct nd_linecache;

struct nd_linecache_entry {
    unsigned flags; /* the caller's, kept with the ids */
    size_t nids;
    const char *ids[ND_LINECACHE_IDS];
    size_t nkeys; /* the knowledge base's context keys the line sets */
    unsigned keys[ND_LINECACHE_KEYS];
};

struct nd_linecache *nd_linecache_new(size_t slots);
void nd_linecache_free(struct nd_linecache *c);

/* The entry for exactly this text, or NULL. */
const struct nd_linecache_entry *nd_linecache_get(struct nd_linecache *c, const char *line, size_t len);
/* Remembers the finding ids this text produced (possibly none) and the
 * context keys it set. Lines over ND_LINECACHE_TEXT_MAX, or with more ids or
 * keys than fit, are not remembered. */
void nd_linecache_put(struct nd_linecache *c, const char *line, size_t len, const char *const *ids, size_t nids,
                      const unsigned *keys, size_t nkeys, unsigned flags);

/* Lookups answered from the cache. */
unsigned long long nd_linecache_hits(const struct nd_linecache *c);

#endif
