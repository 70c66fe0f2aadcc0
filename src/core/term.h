/* What the terminal can show: its width (for wrapping human text), UTF-8
 * or not (glyphs or ASCII marks), colour or not. Reporters ask here; no
 * other code looks at TERM, COLUMNS or the locale. */
#ifndef ND_CORE_TERM_H
#define ND_CORE_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* True unless the locale says otherwise: the first of LC_ALL, LC_CTYPE,
 * LANG that is set and non-empty must name UTF-8 ("en_US.UTF-8",
 * "C.utf8"). With none set the terminal is taken to be UTF-8 (containers
 * often set no locale at all and are read from UTF-8 terminals). */
bool nd_term_utf8(void);
/* The same decision from given values (NULL = unset), for tests. */
bool nd_term_utf8_from(const char *lc_all, const char *lc_ctype, const char *lang);

/* --wide: never wrap. */
void nd_term_set_wide(bool wide);
/* The width to wrap text for fp at: 0 with --wide; the terminal's columns
 * when fp is a terminal that says (at least 40); else 80. */
int nd_term_width(FILE *fp);

/* Display columns of UTF-8 text (one per code point; no wide-char tables). */
size_t nd_term_columns(const char *s);

/* Prints text (already made safe) starting at column col, breaking between
 * words so no line passes width; continuation lines start with lead (the
 * caller's line prefix, "npu-doctor: "; NULL for none) and indent spaces.
 * A word longer than a line stays whole. width 0: no wrapping. Returns the
 * column after the last character. */
size_t nd_term_wrap(FILE *fp, const char *text, size_t col, const char *lead, size_t indent, int width);

#endif
