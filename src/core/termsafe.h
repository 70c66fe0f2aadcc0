/* Making outside strings safe for a terminal and for XML: argv of other
 * users' processes, log text, file names and environment values may hold
 * escape sequences (ESC, OSC, CSI), newlines, bidi overrides or bytes that
 * are not UTF-8. Root's terminal must show them, not obey them. */
#ifndef ND_CORE_TERMSAFE_H
#define ND_CORE_TERMSAFE_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when s[0..len) does
 * not start one (overlong forms, surrogates and values past U+10FFFF are
 * invalid). */
size_t nd_utf8_valid_seq(const unsigned char *s, size_t len);
/* A malloc'd copy of s fit for a terminal: control bytes (but tab), DEL,
 * C1 controls, bidi controls and invalid UTF-8 bytes become visible escapes
 * ("\x1b", "\u202e"); everything else, valid UTF-8 included, is kept. */
char *nd_term_printable(const char *s);
/* True when nd_term_printable(s) would return s unchanged. */
int nd_term_is_printable(const char *s);
/* fprintf(stderr, fmt, ...) for messages that quote outside strings (paths,
 * rule files, errors from below): the formatted text goes through
 * nd_term_printable, but for one final newline, so it stays one line. */
void nd_term_eprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
