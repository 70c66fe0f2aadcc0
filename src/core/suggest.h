/* "Did you mean": the closest known word to a mistyped one, by
 * Damerau-Levenshtein distance (optimal string alignment: insert, delete,
 * substitute, swap two neighbours), as git does for its commands. */
#ifndef ND_CORE_SUGGEST_H
#define ND_CORE_SUGGEST_H

#include <stddef.h>

/* Edits between a and b; counts bytes, capped at 255 characters each (longer
 * strings are never close). */
size_t nd_edit_distance(const char *a, const char *b);

/* The candidate closest to word, or NULL when none is close enough: at most
 * 2 edits (1 for words of up to 3 characters) and fewer edits than word has
 * characters (so "x" suggests nothing). A candidate that word is a prefix of ("chec" -> "check") counts
 * as close. Ties go to the first candidate. NULL entries are skipped. */
const char *nd_suggest(const char *word, const char *const *candidates, size_t n);

#endif
