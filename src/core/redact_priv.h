/* Internal contract between the redaction files (redact.c and the
 * scrubbers of command-line and table forms in redact_cli.c); nothing
 * outside src/core/redact*.c includes it. */
#ifndef ND_CORE_REDACT_PRIV_H
#define ND_CORE_REDACT_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "core/strbuf.h"

/* text with zero-width and format characters dropped (spaces false) or
 * with no-break and typographic spaces made blanks (spaces true),
 * malloc'd; NULL when it holds none of that kind (redact_fold.c). */
char *nd_redact_fold(const char *text, bool spaces);

/* Appends the marker for value[0..len) to sb (a marker stays as it is). */
void nd_redact_add_marker(struct nd_strbuf *sb, const char *value, size_t len);
/* nd_redact_name_is_secret for a name found in prose: a lower-case
 * one-word name counts only when it can mean nothing but a secret. */
bool nd_redact_prose_name(const char *name);

/* True when word names a tool whose options nd_redact_scrub_tool_options
 * reads (mysql, mariadb, sshpass, redis-cli): an argv array holding it is
 * read with it in front of each word. */
bool nd_redact_names_tool(const char *word);

/* A form of "NAME<sep>value" pairs, for nd_redact_scrub_pairs. */
struct nd_pair_form {
    const char *sep;     /* ":" or "=>" */
    size_t name_blanks;  /* blanks allowed between the name (or its closing quote) and sep */
    size_t value_blanks; /* blanks skipped after sep (SIZE_MAX: any) */
    const char *stops;   /* what ends an unquoted value */
    bool symbols;        /* a quoted ':name' (a Ruby symbol) counts as the name */
    bool auth_schemes;   /* "Bearer x": the scheme word stays, x is the value */
    bool url_users;      /* a name right after "//" is a URL's user (its password is done) */
};

/* Each takes a malloc'd string and returns one (possibly the same). */
/* The value of every pair whose name (bare or quoted, judged as a prose
 * name) is a secret's: quoted, up to its quote; else up to a stop. */
char *nd_redact_scrub_pairs(char *s, const struct nd_pair_form *form);
/* Secrets that database and shell tools take in their own option forms:
 * mysql -pX, sshpass -pX, redis-cli -a X / --pass X, curl -uUSER:X,
 * smbclient -U USER%X, openssl -passin pass:X; and "setenv NAME X",
 * "ENV NAME X" for a secret NAME. */
char *nd_redact_scrub_tool_options(char *s);
/* Ruby and Perl hash pairs: password => "x", :token => 'x', 'key'=>"x". */
char *nd_redact_scrub_hash_arrows(char *s);
/* A value shaped like a generated secret: 16 to 1024 characters of a
 * token's alphabet with upper and lower case and digits. */
bool nd_redact_secret_looking(const char *v, size_t n);
/* "WANDB_API_KEY Qx7...", "apikey Qx7...": a secret name, one blank, and a
 * value that looks generated (nd_redact_secret_looking); after a name as
 * code writes it (HF_TOKEN, PGPASSWORD, hf_token) also a short value with a
 * letter and a digit or both cases ("HF_TOKEN ab12"), and "NAME := x",
 * "NAME -> x". */
char *nd_redact_scrub_spaced_pairs(char *s);
/* A variable's name as code writes it (HF_TOKEN, PGPASSWORD, hf_token): no
 * lower-case letter, or words joined by '_'. In prose a lone word ("token",
 * "password") is too often followed by an ordinary word (redact_prose.c). */
bool nd_redact_code_name(const char *name);
/* 4 to 1024 characters of a credential's alphabet with a letter and a digit
 * or both cases; not another variable's name (upper case with a '_'). */
bool nd_redact_credential_word(const char *v, size_t n);
/* What counts as the value after the code name name and a blank: a
 * credential word, or after an upper-case name a plain lower-case word
 * that is not prose ("abcdefghij", not "missing" or "not"). */
bool nd_redact_code_value(const char *name, const char *v, size_t n);
/* At p (within s): the end of the name (letters, digits, '_', '-') that
 * starts there, after the start of s or one of the characters of starts;
 * NULL when no name starts at p. */
const char *nd_redact_name_at(const char *s, const char *p, const char *starts);
/* "set HF_TOKEN to x", "HF_TOKEN is x", "HF_TOKEN was set to x", "token : x". */
char *nd_redact_scrub_prose_pairs(char *s);
/* A Kubernetes env list: "- name: API_KEY", then "value: x" on the next line. */
char *nd_redact_scrub_env_lists(char *s);
/* Table rows of env dumps and secret listings: "PASSWORD<TAB>x",
 * "DB_PASSWORD    x" (a secret name, then a tab or two spaces or more). */
char *nd_redact_scrub_table_rows(char *s);

#endif
