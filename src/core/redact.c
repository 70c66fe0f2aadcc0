/* Secret detection by variable name (built-in words and the operator's
 * patterns: --redact, NPU_DOCTOR_REDACT), and scrubbing of values and free
 * text: URL passwords, NAME=value and "NAME": value pairs, bearer tokens and
 * well-known token shapes. Every replacement is an idempotent marker. */
#include "core/redact.h"

#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "core/sha256.h"
#include "core/strbuf.h"

#define ND_REDACT_MAX_PATTERNS 64

static regex_t nd_extra[ND_REDACT_MAX_PATTERNS];
static size_t nd_nextra;

static const char *const nd_secret_words[] = {
    "TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL", "AUTH", "PRIVATE", "COOKIE",
};

/* Names whose values are locations, not secrets (SSH_AUTH_SOCK, KEY_PATH...). */
static const char *const nd_pathlike_suffixes[] = {
    "PATH", "_DIR", "_FILE", "_HOME", "_SOCK", "_PATHS", "_ROOT",
};

int nd_redact_add_pattern(const char *regex, struct nd_error *err)
{
    if (nd_nextra == ND_REDACT_MAX_PATTERNS)
        return nd_error_set(err, -E2BIG, "--redact: at most %d patterns", ND_REDACT_MAX_PATTERNS);
    int rc = regcomp(&nd_extra[nd_nextra], regex, REG_EXTENDED | REG_ICASE | REG_NOSUB);
    if (rc != 0) {
        char msg[256];
        regerror(rc, &nd_extra[nd_nextra], msg, sizeof msg);
        return nd_error_set(err, -EINVAL, "--redact '%s': %s", regex, msg);
    }
    nd_nextra++;
    return 0;
}

/* NPU_DOCTOR_REDACT: one more operator pattern, from the environment, for
 * every command at once (an operator sets it for a whole cluster). Read on
 * first use; an invalid one is reported by nd_redact_check_env and else
 * ignored. */
static bool nd_env_loaded;
static bool nd_env_valid;
static regex_t nd_env_re;

static void nd_redact_load_env(void)
{
    if (nd_env_loaded)
        return;
    nd_env_loaded = true;
    const char *v = getenv(ND_REDACT_ENV);
    nd_env_valid = v && *v && regcomp(&nd_env_re, v, REG_EXTENDED | REG_ICASE | REG_NOSUB) == 0;
}

int nd_redact_check_env(struct nd_error *err)
{
    const char *v = getenv(ND_REDACT_ENV);
    if (!v || !*v)
        return 0;
    regex_t re;
    int rc = regcomp(&re, v, REG_EXTENDED | REG_ICASE | REG_NOSUB);
    if (rc != 0) {
        char msg[256];
        regerror(rc, &re, msg, sizeof msg);
        return nd_error_set(err, -EINVAL, "%s='%s': %s", ND_REDACT_ENV, v, msg);
    }
    regfree(&re);
    return 0;
}

void nd_redact_reset(void)
{
    for (size_t i = 0; i < nd_nextra; i++)
        regfree(&nd_extra[i]);
    nd_nextra = 0;
    if (nd_env_valid)
        regfree(&nd_env_re);
    nd_env_valid = false;
    nd_env_loaded = false;
}

static bool nd_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

bool nd_redact_name_is_secret(const char *name)
{
    nd_redact_load_env();
    if (nd_env_valid && regexec(&nd_env_re, name, 0, NULL, 0) == 0)
        return true;
    for (size_t i = 0; i < nd_nextra; i++)
        if (regexec(&nd_extra[i], name, 0, NULL, 0) == 0)
            return true;
    char up[256];
    size_t n = 0;
    for (; name[n] && n + 1 < sizeof up; n++)
        up[n] = (char)toupper((unsigned char)name[n]);
    up[n] = '\0';
    for (size_t i = 0; i < sizeof nd_pathlike_suffixes / sizeof *nd_pathlike_suffixes; i++)
        if (nd_ends_with(up, nd_pathlike_suffixes[i]))
            return false;
    for (size_t i = 0; i < sizeof nd_secret_words / sizeof *nd_secret_words; i++)
        if (strstr(up, nd_secret_words[i]))
            return true;
    return false;
}

char *nd_redact_marker(const char *value)
{
    char hex[9];
    nd_sha256_hex_prefix(value, strlen(value), hex, 8);
    return nd_xasprintf("<redacted:%s>", hex);
}

bool nd_redact_is_marker(const char *s)
{
    if (strncmp(s, "<redacted:", 10) != 0)
        return false;
    for (int i = 0; i < 8; i++)
        if (!isxdigit((unsigned char)s[10 + i]))
            return false;
    return s[18] == '>';
}

static bool nd_scheme_char(char c)
{
    return isalnum((unsigned char)c) || c == '+' || c == '-' || c == '.';
}

/* Appends text to sb with every "scheme://user:password@" password replaced. */
static void nd_scrub_urls(struct nd_strbuf *sb, const char *text)
{
    const char *p = text;
    for (;;) {
        const char *sep = strstr(p, "://");
        if (!sep) {
            nd_strbuf_adds(sb, p);
            return;
        }
        const char *scheme = sep;
        while (scheme > p && nd_scheme_char(scheme[-1]))
            scheme--;
        const char *auth = sep + 3;
        /* The authority ends at characters a URL cannot hold there; '<'
         * keeps a marker from being read as part of a password. */
        size_t span = strcspn(auth, "/?# \t\n\"'<>{}|\\^`");
        const char *at = NULL;
        for (size_t i = 0; i < span; i++)
            if (auth[i] == '@')
                at = auth + i;
        const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
        if (scheme == sep || !at || !colon) {
            nd_strbuf_add(sb, p, (size_t)(auth - p));
            p = auth;
            continue;
        }
        nd_strbuf_add(sb, p, (size_t)(colon + 1 - p));
        char *pw = nd_xstrndup(colon + 1, (size_t)(at - colon - 1));
        /* Already redacted (a snapshot read back): hashing the marker again
         * would make equal secrets look different. */
        char *mark = nd_redact_is_marker(pw) && strlen(pw) == ND_REDACT_MARKER_LEN ? nd_xstrdup(pw)
                                                                                  : nd_redact_marker(pw);
        nd_strbuf_adds(sb, mark);
        free(mark);
        free(pw);
        p = at;
    }
}

/* Well-known token shapes that are secrets whatever variable or log line
 * holds them: a prefix, then at least min characters of the token's alphabet
 * (alphanumeric for Hugging Face and GitHub tokens, so a Python name such as
 * hf_hub_download_with_retries is not one). */
enum nd_token_alphabet { ND_TOK_ALNUM, ND_TOK_UPPER, ND_TOK_WORD };

struct nd_token_shape {
    const char *prefix;
    size_t min;
    enum nd_token_alphabet alphabet;
    size_t max;             /* 0: no upper bound; AWS key ids are exactly 20 characters */
};

static const struct nd_token_shape nd_token_shapes[] = {
    {"hf_", 30, ND_TOK_ALNUM, 0},   {"ghp_", 30, ND_TOK_ALNUM, 0},  {"gho_", 30, ND_TOK_ALNUM, 0},
    {"ghu_", 30, ND_TOK_ALNUM, 0},  {"ghs_", 30, ND_TOK_ALNUM, 0},  {"ghr_", 30, ND_TOK_ALNUM, 0},
    {"github_pat_", 50, ND_TOK_WORD, 0}, {"glpat-", 20, ND_TOK_WORD, 0}, {"xoxb-", 10, ND_TOK_WORD, 0},
    {"xoxp-", 10, ND_TOK_WORD, 0},  {"xoxa-", 10, ND_TOK_WORD, 0},  {"AKIA", 16, ND_TOK_UPPER, 16},
    {"ASIA", 16, ND_TOK_UPPER, 16},
};

static bool nd_token_char(char c, enum nd_token_alphabet a)
{
    switch (a) {
    case ND_TOK_UPPER:
        return isupper((unsigned char)c) || isdigit((unsigned char)c);
    case ND_TOK_ALNUM:
        return isalnum((unsigned char)c);
    default:
        return isalnum((unsigned char)c) || c == '_' || c == '-';
    }
}

/* Length of a token starting at p (0 when none starts there). */
static size_t nd_token_at(const char *start, const char *p)
{
    if (p > start && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '-'))
        return 0;
    for (size_t i = 0; i < sizeof nd_token_shapes / sizeof *nd_token_shapes; i++) {
        const struct nd_token_shape *t = &nd_token_shapes[i];
        size_t plen = strlen(t->prefix);
        if (strncmp(p, t->prefix, plen) != 0)
            continue;
        size_t n = 0;
        while (nd_token_char(p[plen + n], t->alphabet))
            n++;
        /* A token ends where words end: "AKIA...Pgho_..." is one word, not
         * a key id followed by something (and redacting it in two steps
         * would not be idempotent). */
        char next = p[plen + n];
        if (n >= t->min && (!t->max || n <= t->max) && !isalnum((unsigned char)next) && next != '_' && next != '-')
            return plen + n;
    }
    return 0;
}

/* Replaces token-shaped words in s (malloc'd) with markers; returns the new
 * string, freeing s. Cheap when there is nothing to do. */
static char *nd_scrub_tokens(char *s)
{
    bool maybe = false;
    for (size_t i = 0; i < sizeof nd_token_shapes / sizeof *nd_token_shapes && !maybe; i++)
        maybe = strstr(s, nd_token_shapes[i].prefix) != NULL;
    if (!maybe)
        return s;
    struct nd_strbuf sb = ND_STRBUF_INIT;
    for (const char *p = s; *p;) {
        size_t n = nd_token_at(s, p);
        if (n == 0) {
            nd_strbuf_addc(&sb, *p++);
            continue;
        }
        char *tok = nd_xstrndup(p, n);
        char *mark = nd_redact_marker(tok);
        nd_strbuf_adds(&sb, mark);
        free(mark);
        free(tok);
        p += n;
    }
    free(s);
    return nd_strbuf_detach(&sb, NULL);
}

char *nd_redact_value(const char *name, const char *value)
{
    if (!value)
        return NULL;
    if (nd_redact_is_marker(value) && strlen(value) == ND_REDACT_MARKER_LEN)
        return nd_xstrdup(value);   /* idempotent: redacting twice changes nothing */
    if (name && nd_redact_name_is_secret(name))
        return nd_redact_marker(value);
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_grow(&sb, strlen(value));
    nd_scrub_urls(&sb, value);
    return nd_scrub_tokens(nd_strbuf_detach(&sb, NULL));
}

/* Appends the marker for value[0..len) (kept when it already is one). */
static void nd_add_marker(struct nd_strbuf *sb, const char *value, size_t len)
{
    if (len == ND_REDACT_MARKER_LEN && nd_redact_is_marker(value)) {
        nd_strbuf_add(sb, value, len);
        return;
    }
    char *v = nd_xstrndup(value, len);
    char *mark = nd_redact_marker(v);
    nd_strbuf_adds(sb, mark);
    free(mark);
    free(v);
}

static bool nd_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* "HF_TOKEN: value", "'HF_TOKEN': 'value'" (a printed Python dict, e.g.
 * os.environ), "\"HF_TOKEN\": \"value\"" (JSON): the value of a secret name.
 * Only names written like variables (no lower-case letter) count, so a log's
 * "KeyError: 'x'" is left alone. Takes and returns a malloc'd string. */
static char *nd_scrub_colon_pairs(char *s)
{
    if (!strchr(s, ':'))
        return s;
    struct nd_strbuf out = ND_STRBUF_INIT;
    nd_strbuf_grow(&out, strlen(s));
    const char *p = s;
    for (;;) {
        const char *colon = strchr(p, ':');
        if (!colon) {
            nd_strbuf_adds(&out, p);
            break;
        }
        nd_strbuf_add(&out, p, (size_t)(colon + 1 - p));
        p = colon + 1;
        const char *end = colon;
        char quote = 0;
        if (end > s && (end[-1] == '\'' || end[-1] == '"')) {
            quote = end[-1];
            end--;
        }
        const char *name = end;
        while (name > s && nd_name_char(name[-1]))
            name--;
        size_t nlen = (size_t)(end - name);
        if (nlen == 0 || nlen >= 128 || (quote && (name == s || name[-1] != quote)))
            continue;
        char nbuf[128];
        memcpy(nbuf, name, nlen);
        nbuf[nlen] = '\0';
        bool env_style = true;
        for (size_t i = 0; i < nlen && env_style; i++)
            env_style = !islower((unsigned char)nbuf[i]);
        if (!env_style || !nd_redact_name_is_secret(nbuf))
            continue;
        const char *v = p;
        while (*v == ' ' || *v == '\t')
            v++;
        char vq = (*v == '"' || *v == '\'') ? *v : 0;
        const char *vstart = vq ? v + 1 : v;
        size_t vlen = vq ? strcspn(vstart, vq == '"' ? "\"" : "'") : strcspn(vstart, " \t\n,;}");
        if (vlen == 0)
            continue;
        nd_strbuf_add(&out, p, (size_t)(vstart - p));
        nd_add_marker(&out, vstart, vlen);
        p = vstart + vlen;
    }
    free(s);
    return nd_strbuf_detach(&out, NULL);
}

/* "Authorization: Bearer <token>" in logs and argv. */
static char *nd_scrub_bearer(char *s)
{
    if (!strcasestr(s, "bearer "))
        return s;
    struct nd_strbuf out = ND_STRBUF_INIT;
    const char *p = s;
    for (;;) {
        const char *b = strcasestr(p, "bearer ");
        if (!b) {
            nd_strbuf_adds(&out, p);
            break;
        }
        const char *t = b + 7;
        while (*t == ' ')
            t++;
        size_t n = strspn(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/=<>:");
        nd_strbuf_add(&out, p, (size_t)(t - p));
        if (n >= 8)
            nd_add_marker(&out, t, n);
        else
            nd_strbuf_add(&out, t, n);
        p = t + n;
    }
    free(s);
    return nd_strbuf_detach(&out, NULL);
}

char *nd_redact_text(const char *text)
{
    struct nd_strbuf urls = ND_STRBUF_INIT;
    nd_strbuf_grow(&urls, strlen(text));
    nd_scrub_urls(&urls, text);
    /* Then NAME=value words whose NAME is secret. */
    struct nd_strbuf out = ND_STRBUF_INIT;
    nd_strbuf_grow(&out, urls.len);
    const char *p = urls.buf;
    while (*p) {
        const char *eq = strchr(p, '=');
        if (!eq) {
            nd_strbuf_adds(&out, p);
            break;
        }
        const char *name = eq;
        while (name > p && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
            name--;
        size_t nlen = (size_t)(eq - name);
        char nbuf[256];
        if (nlen == 0 || nlen >= sizeof nbuf) {
            nd_strbuf_add(&out, p, (size_t)(eq + 1 - p));
            p = eq + 1;
            continue;
        }
        memcpy(nbuf, name, nlen);
        nbuf[nlen] = '\0';
        nd_strbuf_add(&out, p, (size_t)(eq + 1 - p));
        p = eq + 1;
        if (!nd_redact_name_is_secret(nbuf))
            continue;
        char quote = (*p == '"' || *p == '\'') ? *p : 0;
        const char *vstart = quote ? p + 1 : p;
        size_t vlen = quote ? strcspn(vstart, quote == '"' ? "\"" : "'") : strcspn(vstart, " \t\n,;&");
        if (nd_redact_is_marker(vstart)) {
            continue;
        }
        char *val = nd_xstrndup(vstart, vlen);
        char *mark = nd_redact_marker(val);
        if (quote)
            nd_strbuf_addc(&out, quote);
        nd_strbuf_adds(&out, mark);
        free(mark);
        free(val);
        p = vstart + vlen;
    }
    nd_strbuf_free(&urls);
    return nd_scrub_tokens(nd_scrub_bearer(nd_scrub_colon_pairs(nd_strbuf_detach(&out, NULL))));
}
