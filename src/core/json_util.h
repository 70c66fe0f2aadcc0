/* Helpers around jansson: strings that are always valid UTF-8, and reading
 * a JSON file with a size cap and a one-line error. */
#ifndef ND_CORE_JSON_UTIL_H
#define ND_CORE_JSON_UTIL_H

#include <stddef.h>

#include <jansson.h>

#include "core/error.h"

/* json_string() that never returns NULL: invalid UTF-8 bytes become U+FFFD,
 * NUL bytes are dropped. NULL input gives JSON null. */
json_t *nd_json_str(const char *s);
json_t *nd_json_strn(const char *s, size_t len);

/* Loads a JSON document from path (at most max_bytes). On failure returns
 * NULL and fills err with "<path>: <reason> (line L, column C)". err->code is
 * -ENOENT/-EACCES/-EISDIR for unreadable input and -EINVAL for bad JSON. */
json_t *nd_json_load_file(const char *path, size_t max_bytes, struct nd_error *err);

/* Borrowed string value of obj[key], or NULL when absent or not a string. */
const char *nd_json_get_str(const json_t *obj, const char *key);

#endif
