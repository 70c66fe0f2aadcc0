/* Logical lines of a log chunk (kb_logical.c): per-line prefixes stripped,
 * continuation lines joined, with the map back to physical lines. Private
 * to src/kb/ (and its unit tests). */
#ifndef ND_KB_KB_LOGICAL_H
#define ND_KB_KB_LOGICAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

/* One physical line: where its content landed in the logical text. */
struct nd_kb_pline {
    size_t n_off;     /* offset of its (stripped) content in the logical text */
    size_t o_line;    /* offset of the line in the original */
    size_t o_content; /* offset of the content copied (after prefix, indentation) */
    size_t o_end;     /* offset of its '\n' (or the end) in the original */
    size_t logical;   /* index of the first physical line of its logical line */
};

struct nd_kb_logical {
    char *buf; /* the logical text: one '\n' per logical line */
    size_t len, cap;
    struct nd_kb_pline *lines;
    size_t nlines, tcap;
};

/* Bytes of known per-line prefix at the start of line l (no newline). */
size_t nd_kb_line_prefix(const char *l, size_t n);
/* False when the chunk has no prefix and no continuation: it is scanned
 * as it is (the common case costs one pass over line starts). */
bool nd_kb_logical_needed(const char *buf, size_t len);
/* Builds the logical text of buf into lg; returns its length. */
size_t nd_kb_logical_build(const char *buf, size_t len, struct nd_kb_logical *lg);
void nd_kb_logical_release(struct nd_kb_logical *lg);

#endif
