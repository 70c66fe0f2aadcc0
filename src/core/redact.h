/* Secret redaction (design.md §6): every output that may be pasted into a
 * public issue passes env values and free text through here. A redacted
 * value becomes "<redacted:XXXXXXXX>" (a SHA-256 prefix), so two snapshots
 * can still be compared for equality. */
#ifndef ND_CORE_REDACT_H
#define ND_CORE_REDACT_H

#include <stdbool.h>

#include "core/error.h"

/* Adds an operator pattern (POSIX extended regex, case-insensitive) matched
 * against variable names (--redact REGEX). Returns 0 or -EINVAL. */
int nd_redact_add_pattern(const char *regex, struct nd_error *err);
/* Drops operator patterns (tests). */
void nd_redact_reset(void);

/* True when a variable of this name holds a secret: TOKEN, SECRET, PASSWORD,
 * PASSWD, KEY, CREDENTIAL, AUTH (not path-like names such as *_PATH or
 * *_FILE), or an operator pattern. */
bool nd_redact_name_is_secret(const char *name);
/* A malloc'd printable value: the marker for secret names, otherwise the
 * value with any URL password ("scheme://user:pass@") replaced. */
char *nd_redact_value(const char *name, const char *value);
/* A malloc'd copy of free text (log lines, argv) with URL passwords and
 * "NAME=value" pairs of secret names replaced. */
char *nd_redact_text(const char *text);
/* The marker for a value: "<redacted:" + 8 hex digits + ">". */
char *nd_redact_marker(const char *value);
/* True when s looks like a marker produced above. */
bool nd_redact_is_marker(const char *s);

#endif
