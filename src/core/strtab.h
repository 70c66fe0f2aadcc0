/* Interned strings: each distinct string is stored once and gets a dense id
 * in insertion order, so the diff engine compares values across thousands of
 * snapshots by pointer and indexes per-key tables by id. */
#ifndef ND_CORE_STRTAB_H
#define ND_CORE_STRTAB_H

#include <stddef.h>

struct nd_strtab;

struct nd_strtab *nd_strtab_new(void);
void nd_strtab_free(struct nd_strtab *t);
/* The interned copy of s[0..len) (NUL-terminated, valid until
 * nd_strtab_free), added if absent; *id (when non-NULL) gets its id. */
const char *nd_strtab_intern(struct nd_strtab *t, const char *s, size_t len, size_t *id);
/* Lookup only: the interned copy, or NULL when absent. */
const char *nd_strtab_find(const struct nd_strtab *t, const char *s, size_t len, size_t *id);
size_t nd_strtab_count(const struct nd_strtab *t);
/* The string with this id. */
const char *nd_strtab_get(const struct nd_strtab *t, size_t id);

#endif
