/* Helpers around jansson: strings that are always valid UTF-8, and reading
 * a JSON file with a size cap and a one-line error. */
#ifndef ND_CORE_JSON_UTIL_H
#define ND_CORE_JSON_UTIL_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "core/error.h"

/* json_string() that never returns NULL: invalid UTF-8 bytes become U+FFFD,
 * NUL bytes are dropped. NULL input gives JSON null. */
json_t *nd_json_str(const char *s);
json_t *nd_json_strn(const char *s, size_t len);

/* json_dumps()/json_dumpf() whose text is also safe on a terminal (a
 * document is often read with cat or less): besides what JSON requires,
 * DEL, the C1 controls (U+0080-U+009F, which a terminal may take for CSI)
 * and the bidi controls (U+202E...) are written as \uXXXX escapes, so
 * the text decodes to the same strings. NULL / -1 on failure. */
char *nd_json_dumps_safe(const json_t *doc, size_t flags);
int nd_json_dumpf_safe(const json_t *doc, FILE *fp, size_t flags);

/* Loads a JSON document from path (at most max_bytes). On failure returns
 * NULL and fills err with "<path>: <reason> (line L, column C)". err->code is
 * -ENOENT/-EACCES/-EISDIR for unreadable input and -EINVAL for bad JSON. */
json_t *nd_json_load_file(const char *path, size_t max_bytes, struct nd_error *err);

/* Borrowed string value of obj[key], or NULL when absent or not a string. */
const char *nd_json_get_str(const json_t *obj, const char *key);

#endif
