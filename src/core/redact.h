/* Secret redaction: every output that may be pasted into a
 * public issue passes env values and free text through here. A redacted
 * value becomes "<redacted:XXXXXXXX>", a keyed hash (HMAC-SHA-256, see
 * redact_key.c), so two snapshots made under one key can still be compared
 * for equality while a marker cannot be checked against a dictionary. */
#ifndef ND_CORE_REDACT_H
#define ND_CORE_REDACT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

/* Adds an operator pattern (POSIX extended regex, case-insensitive) matched
 * against variable names (--redact REGEX). Returns 0 or -EINVAL. */
int nd_redact_add_pattern(const char *regex, struct nd_error *err);
/* Drops operator patterns (and re-reads ND_REDACT_ENV on next use). */
void nd_redact_reset(void);

/* One more operator pattern for every command, from the environment
 * (POSIX extended regex, case-insensitive, matched against names; use '|'
 * for several): NPU_DOCTOR_REDACT='^CORP_|INTERNAL_ENDPOINT'. */
#define ND_REDACT_ENV "NPU_DOCTOR_REDACT"
/* Returns -EINVAL with err filled when ND_REDACT_ENV is set but not a valid
 * regex (commands report it as a usage error); 0 otherwise. */
int nd_redact_check_env(struct nd_error *err);

/* True when a variable of this name holds a secret. The name is cut into
 * words (_ - . and camelCase): one of TOKEN, SECRET, PASSWORD, PASSWD, KEY(S),
 * APIKEY, CREDENTIAL(S), AUTH, AUTHORIZATION, PRIVATE, COOKIE, JWT,
 * PASSPHRASE (or a word ending in TOKEN, SECRET, PASSWORD...), or PASS/PWD
 * as the last word of a longer name (DB_PASS, MYSQL_PWD); not path-like
 * names (*_PATH, *_FILE, SSH_AUTH_SOCK), not names whose last word
 * describes (AUTH_MODE, TOKEN_COUNT), not tokenizer vocabulary (BOS_TOKEN);
 * or an operator pattern (--redact, ND_REDACT_ENV). */
bool nd_redact_name_is_secret(const char *name);
/* A malloc'd printable value: the marker for secret names, otherwise the
 * value scrubbed as free text is (nd_redact_text). */
char *nd_redact_value(const char *name, const char *value);
/* A malloc'd copy of free text (log lines, argv) with URL passwords,
 * "NAME=value", "name = value", "name: value", dict and JSON pairs of secret
 * names, the word after "--password"-like options, bearer/basic credentials,
 * PEM private key bodies (and lines that look like one), .netrc and
 * "curl -u user:password" credentials, JWTs and well-known token shapes
 * (hf_..., ghp_..., xox?-..., AKIA..., sk-...) replaced. */
char *nd_redact_text(const char *text);
/* Outside text (len bytes, NUL bytes allowed) for evidence of at most max
 * bytes, malloc'd: redacted first (nd_redact_text on the first 4*max bytes,
 * at least 4 KiB), then cut on a UTF-8 boundary, never inside a marker, with
 * "..." after a cut; control bytes become printable (tab, CR and LF a space,
 * others '?', as do bytes that are not UTF-8). redact_cut.c. */
char *nd_redact_cut(const char *text, size_t len, size_t max);
/* The key: NPU_DOCTOR_REDACT_KEY when set (the same value on every node of
 * a cluster run), else a random key per host and user kept in the cache
 * folder, else one for this run only. */
#define ND_REDACT_KEY_ENV "NPU_DOCTOR_REDACT_KEY"
/* "env", "host" or "run": where the key came from. */
const char *nd_redact_key_source(void);
/* 16 hex digits that name the key without revealing it: markers of two
 * documents compare only when their fingerprints are equal. */
const char *nd_redact_key_fingerprint(void);
/* Forgets the key, so the next marker reads the environment again (tests;
 * not while other threads make markers). */
void nd_redact_key_reset(void);

/* The marker for a value: "<redacted:" + 8 hex digits + ">". Redaction is
 * idempotent: a marker passed through any function here stays as it is. */
#define ND_REDACT_MARKER_LEN 19
char *nd_redact_marker(const char *value);
/* True when s looks like a marker produced above. */
bool nd_redact_is_marker(const char *s);

/* Redacts a whole JSON document in place (redact_json.c), as the last step
 * before any JSON leaves the program: every string member whose name looks
 * like an environment variable (no lower-case letter) and is a secret name
 * becomes a marker, and every other string goes through nd_redact_text.
 * Objects shaped {"name": N, "value": V} count V as N's. Idempotent. */
struct json_t;
void nd_redact_json(struct json_t *doc);

#endif
