/* Secret detection by variable name (built-in words and the operator's
 * patterns: --redact, NPU_DOCTOR_REDACT), and scrubbing of values and free
 * text: URL passwords, NAME=value, "name: value" and dict/JSON pairs,
 * "--password X" option words, bearer/basic credentials, PEM private key
 * bodies, JWTs and well-known token shapes. Every replacement is an
 * idempotent marker (redact_key.c makes them). */
#include "core/redact.h"

#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/redact_priv.h"
#include "core/strbuf.h"

#define ND_REDACT_MAX_PATTERNS 64

static regex_t nd_extra[ND_REDACT_MAX_PATTERNS];
static size_t nd_nextra;

/* A name is cut into words at '_', '-', '.' and lower-to-upper changes
 * (apiKey, DB_PASS, api-key), and judged word by word, so TOKENIZERS,
 * MAX_TOKENS and KEYBOARD are not secrets while HF_TOKEN and apiKey are. */
#define ND_NAME_MAX_WORDS 16

/* Words that hold a secret wherever they stand in the name. */
static const char *const nd_secret_words[] = {
    "TOKEN",   "SECRET", "SECRETS",    "PASSWORD",    "PASSWORDS",  "PASSWD",    "KEY",
    "KEYS",    "APIKEY", "CREDENTIAL", "CREDENTIALS", "CREDS",      "AUTH",      "AUTHORIZATION",
    "PRIVATE", "COOKIE", "COOKIES",    "JWT",         "PASSPHRASE", "SIGNATURE", /* X-Amz-Signature=, X-Goog-Signature= in presigned URLs */
    "SSHPASS",                                                                   /* sshpass -e reads it */
};
/* Compound words ending so: HFTOKEN, DBPASSWORD, ACCESSKEY, CLIENTSECRET,
 * TS_AUTHKEY (a tailnet join key). */
static const char *const nd_secret_tails[] = {"TOKEN",     "SECRET",    "PASSWORD",   "PASSWD",  "APIKEY",
                                              "ACCESSKEY", "SECRETKEY", "PRIVATEKEY", "AUTHKEY", "PASSPHRASE"};
/* Short words that are secrets only as the last word of a longer name:
 * DB_PASS, MYSQL_PWD; not PWD or OLDPWD (the shell's folders). AK and SK
 * are a Huawei Cloud / OBS access key pair (OBS_SK, HUAWEICLOUD_SDK_SK). */
static const char *const nd_secret_last_words[] = {"PASS", "PWD", "PW", "AK", "SK"};
/* The same pair as a whole name: ak=..&sk=.. in an obs:// URL, a
 * ModelArts SDK call's ak='..', sk='..'. */
static const char *const nd_secret_short_names[] = {"AK", "SK"};
/* A last word that says the variable describes a secret instead of holding
 * one (AUTH_MODE, TOKEN_COUNT, KEY_TYPE), or a training metric of it that
 * logs print (token_acc, token_loss), or a keyboard setting (KEY_BINDINGS). */
static const char *const nd_descriptive_last[] = {
    "MODE", "TYPE", "TYPES", "METHOD", "METHODS", "ENABLED", "ENABLE", "DISABLED", "DISABLE", "REQUIRED", "LEVEL",
    "COUNT", "COUNTS", "NUM", "SIZE", "LEN", "LENGTH", "LIMIT", "MAX", "MIN", "TIMEOUT", "TTL", "PARALLELISM",
    "PROVIDER", "VERSION", "ERROR", "BACKEND", "SCHEME", "STRATEGY", "INTERVAL", "RETRIES", "ACC", "ACCURACY", "LOSS",
    "RATIO", "RATE", "PCT", "PERCENT", "THROUGHPUT", "LAYOUT", "BINDING",
    "BINDINGS", /* keyboard settings: KEY_LAYOUT, KEY_BINDINGS */
    /* model vocabulary: token_ids, token_type_ids, key_dim, token_budget; KEY_ENV names a variable */
    "IDS", "DIM", "DIMS", "BUDGET", "ENV", "STDIN", /* docker login --password-stdin takes no word */
};
/* Tokenizer special tokens (bos_token: <s>) are vocabulary, not secrets. */
static const char *const nd_vocab_words[] = {"BOS", "EOS",  "PAD",     "UNK",   "SEP",
                                             "CLS", "MASK", "SPECIAL", "START", "END"};

/* Names whose values are locations, not secrets (SSH_AUTH_SOCK, KEY_PATH...). */
static const char *const nd_pathlike_suffixes[] = {
    "PATH", "_DIR", "_FILE", "_HOME", "_SOCK", "_PATHS", "_ROOT",
};

static bool nd_in_list(const char *w, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(w, list[i]) == 0)
            return true;
    return false;
}

#define ND_IN(w, list) nd_in_list((w), (list), ND_ARRAY_SIZE(list))

static bool nd_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Splits name into upper-cased words; returns how many (0 when none). */
static size_t nd_name_words(const char *name, char words[ND_NAME_MAX_WORDS][64])
{
    size_t nw = 0, len = 0;
    for (const char *p = name;; p++) {
        char c = *p;
        bool sep = c == '\0' || c == '_' || c == '-' || c == '.' || c == ' ';
        bool camel = !sep && len > 0 && isupper((unsigned char)c) && islower((unsigned char)p[-1]);
        if ((sep || camel) && len > 0) {
            words[nw][len] = '\0';
            if (++nw == ND_NAME_MAX_WORDS)
                return nw;
            len = 0;
        }
        if (c == '\0')
            return nw;
        if (sep)
            continue;
        if (len + 1 < 64)
            words[nw][len++] = (char)toupper((unsigned char)c);
    }
}

/* The built-in judgement of a name, without operator patterns. */
static bool nd_builtin_secret_name(const char *name)
{
    char up[256];
    size_t n = 0;
    for (; name[n] && n + 1 < sizeof up; n++)
        up[n] = name[n] == '-' ? '_' : (char)toupper((unsigned char)name[n]); /* --key-file as KEY_FILE */
    up[n] = '\0';
    for (size_t i = 0; i < ND_ARRAY_SIZE(nd_pathlike_suffixes); i++)
        if (nd_ends_with(up, nd_pathlike_suffixes[i]))
            return false;
    char words[ND_NAME_MAX_WORDS][64];
    size_t nw = nd_name_words(name, words);
    if (nw == 0)
        return false;
    const char *last = words[nw - 1];
    if (nw > 1 && ND_IN(last, nd_descriptive_last))
        return false;
    if (nw > 1 && ND_IN(last, nd_secret_last_words))
        return true;
    if (nw == 1 && ND_IN(last, nd_secret_short_names))
        return true;
    for (size_t i = 0; i < nw; i++) {
        bool hit = ND_IN(words[i], nd_secret_words);
        for (size_t t = 0; !hit && t < ND_ARRAY_SIZE(nd_secret_tails); t++)
            hit = nd_ends_with(words[i], nd_secret_tails[t]);
        if (!hit)
            continue;
        if (strcmp(words[i], "TOKEN") == 0 && i > 0 && ND_IN(words[i - 1], nd_vocab_words))
            continue; /* BOS_TOKEN, pad_token_id */
        return true;
    }
    return false;
}

/* In prose ("password: x", "token = y"), a lower-case one-word name is only
 * taken for a secret when the word can mean nothing else: "key: layer.0" and
 * "auth: ok" are left alone. */
bool nd_redact_prose_name(const char *name)
{
    bool lower = false;
    for (const char *p = name; *p; p++)
        lower |= islower((unsigned char)*p) != 0;
    char words[ND_NAME_MAX_WORDS][64];
    if (lower && nd_name_words(name, words) == 1) {
        static const char *const strong[] = {"PASSWORD", "PASSWD", "SECRET", "APIKEY",        "PASSPHRASE",
                                             "JWT",      "TOKEN",  "COOKIE", "AUTHORIZATION", "SSHPASS"};
        if (!ND_IN(words[0], strong))
            return false;
    }
    return nd_redact_name_is_secret(name);
}

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

static bool nd_name_is_secret_folded(const char *name)
{
    nd_redact_load_env();
    if (nd_env_valid && regexec(&nd_env_re, name, 0, NULL, 0) == 0)
        return true;
    for (size_t i = 0; i < nd_nextra; i++)
        if (regexec(&nd_extra[i], name, 0, NULL, 0) == 0)
            return true;
    return nd_builtin_secret_name(name);
}

bool nd_redact_name_is_secret(const char *name)
{
    char *folded = nd_redact_fold(name, false); /* PASS<BOM>WORD is PASSWORD */
    bool secret = nd_name_is_secret_folded(folded ? folded : name);
    free(folded);
    return secret;
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

/* A URL's user part that is a token, not a name (git over HTTPS takes a
 * token there): 20 or more letters, digits, '_' or '-', with letters and
 * digits both. "git@", "x-access-token@" and e-mail addresses are names. */
static bool nd_url_user_is_token(const char *u, size_t n)
{
    if (n < 20 || n > 512)
        return false;
    bool alpha = false, digit = false;
    for (size_t i = 0; i < n; i++) {
        if (!isalnum((unsigned char)u[i]) && u[i] != '_' && u[i] != '-')
            return false;
        alpha |= isalpha((unsigned char)u[i]) != 0;
        digit |= isdigit((unsigned char)u[i]) != 0;
    }
    return alpha && digit;
}

/* A user part with no password in an http(s) URL: on the web a lone user
 * part is how a token travels (git clone https://<token>@host, a proxy's
 * http://<key>@proxy), however short; only the fixed names that services
 * put before a password or use for anonymous access stay. */
static bool nd_url_user_is_web_token(const char *scheme, const char *sep, const char *u, size_t n)
{
    static const char *const names[] = {"git",          "x-access-token", "oauth2",    "__token__",
                                        "x-token-auth", "token",          "anonymous", "ftp"};
    bool web = false;
    for (const char *c = scheme; c + 4 <= sep && !web; c++)
        web = strncasecmp(c, "http", 4) == 0;
    if (!web || n == 0 || n > 512)
        return false;
    for (size_t i = 0; i < ND_ARRAY_SIZE(names); i++)
        if (n == strlen(names[i]) && strncasecmp(u, names[i], n) == 0)
            return false;
    for (size_t i = 0; i < n; i++)
        if (u[i] == '<' || u[i] == '>')
            return false;
    return true;
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
        /* Only a plain "scheme://user@host": an authority cut short by a
         * marker ('<') or holding several '@' is one an earlier pass (or
         * this one) already scrubbed, and stays as it is. */
        bool plain = auth[span] != '<' && memchr(auth, '@', (size_t)(at ? at - auth : 0)) == NULL;
        if (scheme != sep && at && !colon && plain &&
            (nd_url_user_is_token(auth, (size_t)(at - auth)) ||
             nd_url_user_is_web_token(scheme, sep, auth, (size_t)(at - auth)))) {
            /* https://<token>@github.com: the token is the whole user part. */
            nd_strbuf_add(sb, p, (size_t)(auth - p));
            nd_redact_add_marker(sb, auth, (size_t)(at - auth));
            p = at;
            continue;
        }
        if (scheme == sep || !at || !colon) {
            nd_strbuf_add(sb, p, (size_t)(auth - p));
            p = auth;
            continue;
        }
        char *pw = nd_xstrndup(colon + 1, (size_t)(at - colon - 1));
        /* https://<token>:x-oauth-basic@github.com: GitHub's token-as-user
         * form, whose password is a filler word; a token-shaped user part
         * with a password goes too. */
        if (strcmp(pw, "x-oauth-basic") == 0 || nd_url_user_is_token(auth, (size_t)(colon - auth))) {
            nd_strbuf_add(sb, p, (size_t)(auth - p));
            nd_redact_add_marker(sb, auth, (size_t)(colon - auth));
            nd_strbuf_addc(sb, ':');
        } else {
            nd_strbuf_add(sb, p, (size_t)(colon + 1 - p));
        }
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
enum nd_token_alphabet { ND_TOK_ALNUM, ND_TOK_UPPER, ND_TOK_WORD, ND_TOK_B64, ND_TOK_DOTTED };

struct nd_token_shape {
    const char *prefix;
    size_t min;
    enum nd_token_alphabet alphabet;
    size_t max; /* 0: no upper bound; AWS key ids are exactly 20 characters */
};

static const struct nd_token_shape nd_token_shapes[] = {
    {"hf_", 30, ND_TOK_ALNUM, 0},
    {"ghp_", 30, ND_TOK_ALNUM, 0},
    {"gho_", 30, ND_TOK_ALNUM, 0},
    {"ghu_", 30, ND_TOK_ALNUM, 0},
    {"ghs_", 30, ND_TOK_ALNUM, 0},
    {"ghr_", 30, ND_TOK_ALNUM, 0},
    {"github_pat_", 30, ND_TOK_WORD, 0},
    {"glpat-", 20, ND_TOK_WORD, 0},
    {"xoxb-", 10, ND_TOK_WORD, 0},
    {"xoxp-", 10, ND_TOK_WORD, 0},
    {"xoxa-", 10, ND_TOK_WORD, 0},
    {"xoxr-", 10, ND_TOK_WORD, 0},
    {"xoxs-", 10, ND_TOK_WORD, 0},
    {"xoxo-", 10, ND_TOK_WORD, 0},
    {"xoxe-", 10, ND_TOK_WORD, 0},
    {"xapp-", 10, ND_TOK_WORD, 0},
    {"AKIA", 16, ND_TOK_UPPER, 16},
    {"ASIA", 16, ND_TOK_UPPER, 16},
    {"sk-", 20, ND_TOK_WORD, 0},
    {"AIza", 35, ND_TOK_WORD, 35},
    {"npm_", 30, ND_TOK_ALNUM, 0},
    /* Google OAuth access tokens and client secrets, Stripe secret and
     * restricted keys (live and test; pk_ keys are public), Docker Hub and
     * PyPI upload tokens, GitLab runner, trigger and deploy tokens, and
     * SendGrid keys (two dotted parts). */
    {"ya29.", 20, ND_TOK_WORD, 0},
    {"GOCSPX-", 20, ND_TOK_WORD, 0},
    {"sk_live_", 20, ND_TOK_ALNUM, 0},
    {"sk_test_", 20, ND_TOK_ALNUM, 0},
    {"rk_live_", 20, ND_TOK_ALNUM, 0},
    {"rk_test_", 20, ND_TOK_ALNUM, 0},
    {"dckr_pat_", 20, ND_TOK_WORD, 0},
    {"pypi-AgEIcHlwaS5vcmc", 30, ND_TOK_WORD, 0},
    {"glrt-", 20, ND_TOK_WORD, 0},
    {"glptt-", 20, ND_TOK_WORD, 0},
    {"gldt-", 20, ND_TOK_WORD, 0},
    {"SG.", 60, ND_TOK_DOTTED, 0},
    /* Base64 of "-----BEGIN" (a PEM key in a Kubernetes secret's data or
     * a CI variable) and of '{"auths":' (a registry login's config). */
    {"LS0tLS1CRUdJTi", 20, ND_TOK_B64, 0},
    {"eyJhdXRocyI6", 20, ND_TOK_B64, 0},
};

static bool nd_b64url_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* A JSON Web Token: "eyJ" header, '.', "eyJ" payload, '.', signature (all
 * base64url), wherever it stands (jwt=, cookie:, a bare argument). */
static size_t nd_jwt_at(const char *p)
{
    size_t n = 0;
    for (int part = 0; part < 3; part++) {
        if (part < 2 && strncmp(p + n, "eyJ", 3) != 0)
            return 0;
        size_t k = 0;
        while (nd_b64url_char(p[n + k]))
            k++;
        /* A token cut short by a length cap (a quoted line's window, a
         * report line's size) still gives its header and claims away. */
        if (part == 1 && k >= 10 && p[n + k] == '\0')
            return n + k;
        if (part < 2 && (k < 10 || p[n + k] != '.'))
            return 0;
        n += k + (part < 2 ? 1 : 0);
    }
    return nd_b64url_char(p[n]) ? 0 : n;
}

static bool nd_token_char(char c, enum nd_token_alphabet a)
{
    switch (a) {
    case ND_TOK_UPPER: return isupper((unsigned char)c) || isdigit((unsigned char)c);
    case ND_TOK_ALNUM: return isalnum((unsigned char)c);
    case ND_TOK_B64: return isalnum((unsigned char)c) || c == '+' || c == '/' || c == '=';
    case ND_TOK_DOTTED: return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
    default: return isalnum((unsigned char)c) || c == '_' || c == '-';
    }
}

/* Length of a token starting at p (0 when none starts there). */
static size_t nd_token_at(const char *start, const char *p)
{
    if (p > start && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '-'))
        return 0;
    size_t jwt = nd_jwt_at(p);
    if (jwt)
        return jwt;
    for (size_t i = 0; i < ND_ARRAY_SIZE(nd_token_shapes); i++) {
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
    bool maybe = strstr(s, "eyJ") != NULL;
    for (size_t i = 0; i < ND_ARRAY_SIZE(nd_token_shapes) && !maybe; i++)
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
        return nd_xstrdup(value); /* idempotent: redacting twice changes nothing */
    if (name && nd_redact_name_is_secret(name))
        return nd_redact_marker(value);
    /* Values of other names are free text: OTEL_EXPORTER_OTLP_HEADERS holds
     * "Authorization=Bearer ...", a launcher's variable a whole command line. */
    return nd_redact_text(value);
}

/* The value that starts at v: inside its quotes when quoted (up to the
 * closing quote or the line's end; in double quotes a backslash escapes
 * the next character, so JSON's "pa\\"ss" is one value), else up to one of
 * stops. *start gets where it begins; returns its length. */
static size_t nd_value_span(const char *v, const char *stops, const char **start)
{
    char quote = (*v == '"' || *v == '\'') ? *v : 0;
    *start = quote ? v + 1 : v;
    if (quote != '"')
        return quote ? strcspn(*start, "'\n") : strcspn(*start, stops);
    size_t n = 0;
    while ((*start)[n] && (*start)[n] != '"' && (*start)[n] != '\n')
        n += (*start)[n] == '\\' && (*start)[n + 1] && (*start)[n + 1] != '\n' ? 2 : 1;
    return n;
}

/* Appends the marker for value[0..len) (kept when it already is one). */
void nd_redact_add_marker(struct nd_strbuf *sb, const char *value, size_t len)
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
    return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* "Authorization: Basic <credentials>": the scheme word stays, the
 * credentials after it are the value. */
static const char *nd_skip_auth_scheme(const char *v)
{
    static const char *const schemes[] = {"Basic ", "Bearer ", "Token ", "Digest ", "Negotiate "};
    for (size_t i = 0; i < ND_ARRAY_SIZE(schemes); i++)
        if (strncasecmp(v, schemes[i], strlen(schemes[i])) == 0) {
            v += strlen(schemes[i]);
            while (*v == ' ')
                v++;
            break;
        }
    return v;
}

/* A flag's value (use_auth_token=True, "token": null) says whether a
 * secret is used, and is none itself. */
static bool nd_plain_flag(const char *v, size_t n)
{
    static const char *const flags[] = {"true", "false", "none", "null", "yes", "no"};
    for (size_t i = 0; i < ND_ARRAY_SIZE(flags); i++)
        if (n == strlen(flags[i]) && strncasecmp(v, flags[i], n) == 0)
            return true;
    return false;
}

/* A value shaped like a generated secret: 16 or more characters of a
 * token's alphabet with upper and lower case and digits. What a weak name
 * ("key: ...") holds counts only so: "key: layer.0.weight" stays. */
bool nd_redact_secret_looking(const char *v, size_t n)
{
    if (n < 16 || n > 1024)
        return false;
    bool up = false, low = false, dig = false;
    for (size_t i = 0; i < n; i++) {
        char c = v[i];
        if (!isalnum((unsigned char)c) && !strchr("+/=_-", c))
            return false;
        up |= isupper((unsigned char)c) != 0;
        low |= islower((unsigned char)c) != 0;
        dig |= isdigit((unsigned char)c) != 0;
    }
    return up && low && dig;
}

char *nd_redact_scrub_pairs(char *s, const struct nd_pair_form *f)
{
    size_t seplen = strlen(f->sep);
    if (!strstr(s, f->sep))
        return s;
    struct nd_strbuf out = ND_STRBUF_INIT;
    nd_strbuf_grow(&out, strlen(s));
    const char *p = s;
    for (;;) {
        const char *sep = strstr(p, f->sep);
        if (!sep) {
            nd_strbuf_adds(&out, p);
            break;
        }
        nd_strbuf_add(&out, p, (size_t)(sep + seplen - p));
        p = sep + seplen;
        const char *end = sep;
        /* A quoted name may stand a blank or two off its separator
         * (pretty-printed JSON: "secret_access_key" : "x"). */
        while (end > s && (end[-1] == ' ' || end[-1] == '\t') && (size_t)(sep - end) < f->name_blanks + 2)
            end--;
        char quote = end > s && (end[-1] == '\'' || end[-1] == '"') ? end[-1] : 0;
        if (!quote && (size_t)(sep - end) > f->name_blanks)
            continue;
        if (quote)
            end--;
        const char *name = end;
        while (name > s && nd_name_char(name[-1]))
            name--;
        size_t nlen = (size_t)(end - name);
        /* ':token' is a Ruby symbol's name quoted. */
        const char *open = f->symbols && quote && name > s && name[-1] == ':' ? name - 1 : name;
        /* A closing quote needs its opening one, but at the text's start
         * (a quoted value that an env file's reader unquoted: token": "x)
         * the opening one is what was taken away. */
        if (nlen == 0 || nlen >= 128 || (quote && open != s && open[-1] != quote))
            continue;
        /* "https://x-access-token:<password>@host": a URL's user name, whose
         * password nd_scrub_urls already replaced; the host stays. */
        if (f->url_users && name - s >= 2 && name[-1] == '/' && name[-2] == '/')
            continue;
        char nbuf[128];
        memcpy(nbuf, name, nlen);
        nbuf[nlen] = '\0';
        /* A weak prose name ("key", "auth") counts when its value looks
         * generated. */
        bool weak = !nd_redact_prose_name(nbuf);
        if (weak && !nd_redact_name_is_secret(nbuf))
            continue;
        const char *v = p;
        while ((*v == ' ' || *v == '\t') && (size_t)(v - p) < f->value_blanks)
            v++;
        if (f->auth_schemes)
            v = nd_skip_auth_scheme(v);
        const char *vstart;
        size_t vlen = nd_value_span(v, f->stops, &vstart);
        if (vlen == 0 || nd_plain_flag(vstart, vlen) || (weak && !nd_redact_secret_looking(vstart, vlen)))
            continue;
        nd_strbuf_add(&out, p, (size_t)(vstart - p));
        nd_redact_add_marker(&out, vstart, vlen);
        p = vstart + vlen;
    }
    free(s);
    return nd_strbuf_detach(&out, NULL);
}

/* "HF_TOKEN: value", "'password': 'value'" (a printed Python dict, e.g.
 * os.environ), "\"api_key\": \"value\"" (JSON), "Authorization: Basic x":
 * the value of a secret name. Names are judged as prose names are, so a log's
 * "KeyError: 'x'" and "key: layer.0" are left alone. */
static char *nd_scrub_colon_pairs(char *s)
{
    static const struct nd_pair_form colon = {
        .sep = ":",
        .name_blanks = 0,
        .value_blanks = SIZE_MAX,
        .stops = " \t\n,;}",
        .auth_schemes = true,
        .url_users = true,
    };
    return nd_redact_scrub_pairs(s, &colon);
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
            nd_redact_add_marker(&out, t, n);
        else
            nd_strbuf_add(&out, t, n);
        p = t + n;
    }
    free(s);
    return nd_strbuf_detach(&out, NULL);
}

/* "NAME=value", "name = value" and "NAME='value'": the value of a secret
 * name. "==" and "!=" are comparisons, not assignments. Takes and returns a
 * malloc'd string. */
static char *nd_scrub_assignments(char *s)
{
    if (!strchr(s, '='))
        return s;
    struct nd_strbuf out = ND_STRBUF_INIT;
    nd_strbuf_grow(&out, strlen(s));
    const char *p = s;
    while (*p) {
        const char *eq = strchr(p, '=');
        if (!eq) {
            nd_strbuf_adds(&out, p);
            break;
        }
        nd_strbuf_add(&out, p, (size_t)(eq + 1 - p));
        p = eq + 1;
        /* "name => value" is a hash pair (nd_redact_scrub_hash_arrows). */
        if (*p == '=' || *p == '>' || (eq > s && strchr("=!<>", eq[-1]))) {
            while (*p == '=')
                nd_strbuf_addc(&out, *p++);
            continue;
        }
        const char *nend = eq;
        while (nend > s && (nend[-1] == ' ' || nend[-1] == '\t') && eq - nend < 4)
            nend--;
        /* os.environ["HF_TOKEN"] = "x": the name is the quoted subscript. */
        const char *nlast = nend;
        if (nend - s >= 4 && nend[-1] == ']' && (nend[-2] == '"' || nend[-2] == '\''))
            nlast = nend - 2;
        const char *name = nlast;
        while (name > s && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
            name--;
        if (nlast != nend && (name - s < 2 || name[-1] != nlast[0] || name[-2] != '['))
            continue;
        size_t nlen = (size_t)(nlast - name);
        char nbuf[256];
        if (nlen == 0 || nlen >= sizeof nbuf)
            continue;
        memcpy(nbuf, name, nlen);
        nbuf[nlen] = '\0';
        /* An Azure shared access signature: "...&sig=<secret>" in a URL. */
        bool url_sig = strcasecmp(nbuf, "sig") == 0 && name > s && (name[-1] == '&' || name[-1] == '?');
        /* Spaced ("password = x") is prose: judged as prose names are. */
        if (!url_sig && (nend != eq ? !nd_redact_prose_name(nbuf) : !nd_redact_name_is_secret(nbuf)))
            continue;
        const char *v = p;
        while ((*v == ' ' || *v == '\t') && v - p < 4)
            v++;
        v = nd_skip_auth_scheme(v); /* OTEL headers: "Authorization=Bearer x" */
        const char *vstart;
        size_t vlen = nd_value_span(v, " \t\n,;&", &vstart);
        if (vlen == 0 || nd_plain_flag(vstart, vlen))
            continue;
        nd_strbuf_add(&out, p, (size_t)(vstart - p));
        nd_redact_add_marker(&out, vstart, vlen);
        p = vstart + vlen;
    }
    free(s);
    return nd_strbuf_detach(&out, NULL);
}

/* Length of the "user:password" value after -u, --user or --proxy-user
 * (the option's name is n..e, its dashes from p), or 0. A numeric part after
 * the colon is a group id (docker -u 1000:1000), not a password. */
static size_t nd_user_password_at(const char *p, const char *n, const char *e)
{
    size_t nlen = (size_t)(e - n);
    bool one_dash = n - p == 1;
    bool named = (one_dash && nlen == 1 && *n == 'u') ||
                 (!one_dash &&
                  ((nlen == 4 && strncmp(n, "user", 4) == 0) || (nlen == 10 && strncmp(n, "proxy-user", 10) == 0)));
    if (!named || (*e != ' ' && *e != '\t' && (*e != '=' || one_dash)))
        return 0;
    const char *v = e + 1;
    while (*v == ' ' || *v == '\t')
        v++;
    /* -u "user:pass word": inside the quotes (the length counts the
     * opening quote, so the closing one stays). */
    char quote = *v == '"' || *v == '\'' ? *v : 0;
    const char *w = quote ? v + 1 : v;
    size_t wlen = quote ? strcspn(w, quote == '"' ? "\"\n" : "'\n") : strcspn(w, " \t\n'\"");
    const char *colon = memchr(w, ':', wlen);
    if (!colon || colon == w || (size_t)(colon + 1 - w) == wlen)
        return 0;
    bool digits = true;
    for (const char *d = colon + 1; d < w + wlen; d++)
        digits &= isdigit((unsigned char)*d) != 0;
    if (digits || nd_redact_is_marker(colon + 1))
        return 0;
    return (size_t)(w + wlen - v);
}

/* "--password X", "--api-key X", "-token X": a secret given as the word after
 * its option, in argv and in the command lines of ps and the reports. */
static char *nd_scrub_option_words(char *s)
{
    if (!strchr(s, '-'))
        return s;
    struct nd_strbuf out = ND_STRBUF_INIT;
    nd_strbuf_grow(&out, strlen(s));
    const char *p = s;
    while (*p) {
        bool word_start = p == s || isspace((unsigned char)p[-1]) || p[-1] == '\'' || p[-1] == '"' || p[-1] == '[' ||
                          p[-1] == ',';
        if (*p != '-' || !word_start) {
            nd_strbuf_addc(&out, *p++);
            continue;
        }
        const char *n = p;
        while (*n == '-' && n - p < 2)
            n++;
        const char *e = n;
        while (isalnum((unsigned char)*e) || *e == '_' || *e == '-')
            e++;
        size_t nlen = (size_t)(e - n);
        size_t ulen = nd_user_password_at(p, n, e);
        if (ulen) {
            /* curl -u user:password, --proxy-user=user:password */
            const char *v = e + 1;
            while (*v == ' ' || *v == '\t')
                v++;
            const char *colon = memchr(v, ':', ulen);
            nd_strbuf_add(&out, p, (size_t)(colon + 1 - p));
            nd_redact_add_marker(&out, colon + 1, (size_t)(v + ulen - colon - 1));
            p = v + ulen;
            continue;
        }
        if (nlen == 0 || nlen >= 128 || (*e != ' ' && *e != '\t')) {
            nd_strbuf_add(&out, p, (size_t)(e - p));
            p = e == p ? p + 1 : e;
            continue;
        }
        char nbuf[128];
        memcpy(nbuf, n, nlen);
        nbuf[nlen] = '\0';
        const char *v = e;
        while (*v == ' ' || *v == '\t')
            v++;
        if (!nd_redact_name_is_secret(nbuf) || *v == '-' || *v == '\0' || *v == '\n') {
            nd_strbuf_add(&out, p, (size_t)(e - p));
            p = e;
            continue;
        }
        const char *vstart;
        size_t vlen = nd_value_span(v, " \t\n", &vstart);
        nd_strbuf_add(&out, p, (size_t)(vstart - p));
        if (vlen)
            nd_redact_add_marker(&out, vstart, vlen);
        p = vstart + vlen;
    }
    free(s);
    return nd_strbuf_detach(&out, NULL);
}

/* True when the "PRIVATE KEY-----" at h ends a "-----BEGIN ..." header,
 * not an "-----END ..." footer: between the dashes and h only the label's
 * capitals and spaces ("BEGIN RSA "), so a marker another pass put there
 * cannot make a header of what was not one (redaction stays idempotent). */
static bool nd_pem_is_header(const char *s, const char *h)
{
    const char *q = h;
    while (q > s && h - q < 48 && (isupper((unsigned char)q[-1]) || q[-1] == ' '))
        q--;
    return q - s >= 5 && strncmp(q - 5, "-----", 5) == 0 && strncmp(q, "BEGIN ", 6) == 0;
}

/* The body of a PEM private key, when it shares a line or a string with its
 * "-----BEGIN ... PRIVATE KEY-----" header; the header and footer stay. */
static char *nd_scrub_private_keys(char *s)
{
    static const char head_end[] = "PRIVATE KEY-----";
    if (!strstr(s, head_end))
        return s;
    struct nd_strbuf out = ND_STRBUF_INIT;
    const char *p = s;
    for (;;) {
        const char *h = strstr(p, head_end);
        if (!h) {
            nd_strbuf_adds(&out, p);
            break;
        }
        const char *b = h + sizeof head_end - 1;
        nd_strbuf_add(&out, p, (size_t)(b - p));
        /* "-----END ... PRIVATE KEY-----" ends with the same words: the text
         * after a footer is not a key body. */
        if (!nd_pem_is_header(s, h)) {
            p = b;
            continue;
        }
        while (*b == ' ' || *b == '\t' || *b == '\r' || *b == '\n')
            nd_strbuf_addc(&out, *b++);
        const char *end = strstr(b, "-----END");
        if (!end)
            end = b + strlen(b);
        const char *t = end;
        while (t > b && (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\r' || t[-1] == '\n'))
            t--;
        if (t > b)
            nd_redact_add_marker(&out, b, (size_t)(t - b));
        nd_strbuf_add(&out, t, (size_t)(end - t));
        p = end;
        if (!*end)
            break;
    }
    free(s);
    return nd_strbuf_detach(&out, NULL);
}

/* True when the word at p (of length n) stands alone: space, a line's
 * start or end around it. */
static bool nd_lone_word(const char *s, const char *p, size_t n)
{
    bool before = p == s || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n';
    return before && (p[n] == ' ' || p[n] == '\t');
}

/* .netrc lines ("machine h login u password p", or "password p" alone on
 * its line) and "sshpass -p p": a secret after a bare keyword, which only
 * these forms make a secret (prose says "password is wrong"). */
static char *nd_scrub_netrc(char *s)
{
    if (!strcasestr(s, "pass"))
        return s;
    struct nd_strbuf out = ND_STRBUF_INIT;
    nd_strbuf_grow(&out, strlen(s));
    const char *p = s;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t llen = eol ? (size_t)(eol - p) : strlen(p);
        char *line = nd_xstrndup(p, llen);
        bool netrc = strstr(line, "machine ") || strstr(line, "default ");
        bool sshpass = strstr(line, "sshpass ") != NULL;
        const char *q = line;
        while (*q) {
            bool pw = false;
            size_t kw = 0;
            if (strncmp(q, "passwd", 6) == 0 && nd_lone_word(line, q, 6))
                kw = 6, pw = true;
            else if (strncmp(q, "password", 8) == 0 && nd_lone_word(line, q, 8))
                kw = 8, pw = true;
            else if (sshpass && strncmp(q, "-p", 2) == 0 && nd_lone_word(line, q, 2))
                kw = 2;
            if (!kw) {
                nd_strbuf_addc(&out, *q++);
                continue;
            }
            const char *v = q + kw;
            while (*v == ' ' || *v == '\t')
                v++;
            size_t vlen = strcspn(v, " \t");
            /* Alone on its line ("  password p" in a .netrc), the keyword
             * and its value are all the line holds. */
            bool alone = strspn(line, " \t") == (size_t)(q - line) && v[vlen] == '\0';
            if (vlen == 0 || (pw && !netrc && !alone)) {
                nd_strbuf_add(&out, q, kw);
                q += kw;
                continue;
            }
            nd_strbuf_add(&out, q, (size_t)(v - q));
            nd_redact_add_marker(&out, v, vlen);
            q = v + vlen;
        }
        free(line);
        p += llen;
        if (*p == '\n')
            nd_strbuf_addc(&out, *p++);
    }
    free(s);
    return nd_strbuf_detach(&out, NULL);
}

/* A key body line: 60 to 100 base64 characters (PEM lines are 64, OpenSSH
 * ones 70; shorter words are too often names) with upper and lower case
 * and digits, '=' only as padding, few '/' (a path has many). */
static bool nd_b64_body_word(const char *w, size_t n)
{
    if (n < 60 || n > 100 || *w == '/')
        return false;
    size_t pad = 0, slashes = 0;
    bool up = false, low = false, dig = false;
    for (size_t i = 0; i < n; i++) {
        char c = w[i];
        if (c == '=') {
            pad++;
            continue;
        }
        if (pad || !(isalnum((unsigned char)c) || c == '+' || c == '/'))
            return false;
        slashes += c == '/';
        up |= isupper((unsigned char)c) != 0;
        low |= islower((unsigned char)c) != 0;
        dig |= isdigit((unsigned char)c) != 0;
    }
    return pad <= 2 && up && low && dig && slashes * 8 < n;
}

/* The lines of a PEM or OpenSSH private key printed over several lines (a
 * job that dumps its credentials file) reach us one at a time, without
 * their header: a line that is one base64 word, alone or after a log
 * prefix ("[rank0]: ", "| "), is taken for a key body line. */
static char *nd_scrub_b64_lines(char *s)
{
    struct nd_strbuf out = ND_STRBUF_INIT;
    bool changed = false;
    const char *p = s;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t llen = eol ? (size_t)(eol - p) : strlen(p);
        size_t end = llen;
        while (end > 0 && (p[end - 1] == ' ' || p[end - 1] == '\t' || p[end - 1] == '\r'))
            end--;
        size_t start = end;
        while (start > 0 && p[start - 1] != ' ' && p[start - 1] != '\t')
            start--;
        size_t pre = start;
        while (pre > 0 && (p[pre - 1] == ' ' || p[pre - 1] == '\t'))
            pre--;
        bool prefix_ok = pre == 0 || strchr("]:|>", p[pre - 1]) != NULL;
        if (prefix_ok && nd_b64_body_word(p + start, end - start)) {
            if (!changed) {
                nd_strbuf_add(&out, s, (size_t)(p - s));
                changed = true;
            }
            nd_strbuf_add(&out, p, start);
            nd_redact_add_marker(&out, p + start, end - start);
            nd_strbuf_add(&out, p + end, llen - end);
        } else if (changed) {
            nd_strbuf_add(&out, p, llen);
        }
        p += llen;
        if (*p == '\n') {
            if (changed)
                nd_strbuf_addc(&out, '\n');
            p++;
        }
    }
    if (!changed) {
        nd_strbuf_release(&out);
        return s;
    }
    free(s);
    return nd_strbuf_detach(&out, NULL);
}

/* The last word of a text that a length cap cut short and marked so
 * ("..."; explain keeps the first 1000 bytes of a line): the scrubbers
 * above need what came after it (a URL password's '@', a token's full
 * length, a word's end), so a secret cut there would come out half. A
 * cut URL password, a cut known token or JWT, and a cut word of mixed
 * case and digits 16 long or more are replaced. */
static char *nd_scrub_cut_tail(char *s)
{
    size_t n = strlen(s);
    if (n < 4 || strcmp(s + n - 3, "...") != 0)
        return s;
    size_t end = n - 3, w = end;
    while (w > 0 && !strchr(" \t\n\"'<>=,;()[]{}", s[w - 1]))
        w--;
    const char *word = s + w;
    size_t wlen = end - w, from = 0;
    if (wlen == 0)
        return s;
    const char *sep = strstr(word, "://");
    if (sep && sep < s + end) {
        const char *auth = sep + 3;
        const char *colon = memchr(auth, ':', (size_t)(s + end - auth));
        if (!colon || memchr(auth, '@', (size_t)(s + end - auth)) || memchr(auth, '/', (size_t)(s + end - auth)))
            return s;
        from = (size_t)(colon + 1 - word);
    } else {
        bool known = strncmp(word, "eyJ", 3) == 0;
        for (size_t i = 0; i < ND_ARRAY_SIZE(nd_token_shapes) && !known; i++)
            known = strncmp(word, nd_token_shapes[i].prefix, strlen(nd_token_shapes[i].prefix)) == 0;
        bool up = false, low = false, dig = false;
        size_t slashes = 0;
        for (size_t i = 0; i < wlen; i++) {
            slashes += word[i] == '/';
            up |= isupper((unsigned char)word[i]) != 0;
            low |= islower((unsigned char)word[i]) != 0;
            dig |= isdigit((unsigned char)word[i]) != 0;
        }
        /* A path's folders are not a secret's pieces. */
        if (!known && !(wlen >= 16 && up && low && dig && slashes < 2))
            return s;
    }
    if (from >= wlen)
        return s;
    struct nd_strbuf out = ND_STRBUF_INIT;
    nd_strbuf_add(&out, s, w + from);
    nd_redact_add_marker(&out, word + from, wlen - from);
    nd_strbuf_adds(&out, "...");
    free(s);
    return nd_strbuf_detach(&out, NULL);
}

/* Incoming-webhook URLs carry their secret in the path
 * (hooks.slack.com/services/T.../B.../SECRET): the path after the prefix
 * becomes a marker, the host stays. */
static char *nd_scrub_webhooks(char *s)
{
    static const char *const prefixes[] = {"hooks.slack.com/services/", "discord.com/api/webhooks/",
                                           "discordapp.com/api/webhooks/"};
    struct nd_strbuf out = ND_STRBUF_INIT;
    bool changed = false;
    const char *p = s;
    for (;;) {
        const char *best = NULL;
        size_t plen = 0;
        for (size_t i = 0; i < ND_ARRAY_SIZE(prefixes); i++) {
            const char *h = strstr(p, prefixes[i]);
            if (h && (!best || h < best)) {
                best = h;
                plen = strlen(prefixes[i]);
            }
        }
        if (!best)
            break;
        const char *v = best + plen;
        size_t vlen = strcspn(v, " \t\n\"'<>?#{}|\\^`,;)]");
        nd_strbuf_add(&out, p, (size_t)(v - p));
        if (vlen)
            nd_redact_add_marker(&out, v, vlen);
        changed |= vlen > 0;
        p = v + vlen;
    }
    if (!changed) {
        nd_strbuf_release(&out);
        return s;
    }
    nd_strbuf_adds(&out, p);
    free(s);
    return nd_strbuf_detach(&out, NULL);
}

/* "password%3Dx", "token%3Ax": a pair percent-encoded once more (a URL
 * carried in another URL's query, a form body in a log): the value of a
 * secret name, up to the next encoded or plain separator. */
static char *nd_scrub_percent_pairs(char *s)
{
    if (!strcasestr(s, "%3D") && !strcasestr(s, "%3A"))
        return s;
    struct nd_strbuf out = ND_STRBUF_INIT;
    nd_strbuf_grow(&out, strlen(s));
    const char *p = s;
    for (;;) {
        const char *d = strcasestr(p, "%3D"), *c = strcasestr(p, "%3A");
        const char *sep = !d ? c : !c ? d : d < c ? d : c;
        if (!sep) {
            nd_strbuf_adds(&out, p);
            break;
        }
        nd_strbuf_add(&out, p, (size_t)(sep + 3 - p));
        p = sep + 3;
        const char *name = sep;
        while (name > s && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
            name--;
        if (name > s && name[-1] == '%' && sep - name > 2) /* "%3Fpassword": the name after "%3F" */
            name += 2;
        size_t nlen = (size_t)(sep - name);
        char nbuf[128];
        if (nlen == 0 || nlen >= sizeof nbuf)
            continue;
        memcpy(nbuf, name, nlen);
        nbuf[nlen] = '\0';
        if (!nd_redact_prose_name(nbuf))
            continue;
        size_t vlen = 0;
        while (p[vlen] && !strchr(" \t\n&\"'%,;", p[vlen]))
            vlen++;
        if (vlen == 0 || nd_plain_flag(p, vlen))
            continue;
        nd_redact_add_marker(&out, p, vlen);
        p += vlen;
    }
    free(s);
    return nd_strbuf_detach(&out, NULL);
}

static char *nd_redact_text_folded(const char *text)
{
    struct nd_strbuf urls = ND_STRBUF_INIT;
    nd_strbuf_grow(&urls, strlen(text));
    nd_scrub_urls(&urls, text);
    char *s = nd_scrub_private_keys(nd_scrub_webhooks(nd_strbuf_detach(&urls, NULL)));
    s = nd_redact_scrub_hash_arrows(s);
    s = nd_scrub_assignments(s);
    s = nd_scrub_colon_pairs(s);
    s = nd_scrub_percent_pairs(s);
    s = nd_scrub_option_words(s);
    s = nd_scrub_netrc(s);
    s = nd_redact_scrub_tool_options(s);
    s = nd_redact_scrub_table_rows(s);
    s = nd_redact_scrub_spaced_pairs(s);
    s = nd_redact_scrub_prose_pairs(s);
    s = nd_redact_scrub_env_lists(s);
    s = nd_scrub_b64_lines(s);
    return nd_scrub_cut_tail(nd_scrub_tokens(nd_scrub_bearer(s)));
}

char *nd_redact_text(const char *text)
{
    /* Invisible characters inside a secret or its name are read as the
     * secret without them (redact_fold.c). A no-break space is read as a
     * blank only in a second look, so one inside a secret ("pass<NBSP>word"
     * as a password) stays in the value the first look marked whole, while
     * one where a blank belongs ("--token<NBSP>x") still parts name and
     * value. Text with nothing to redact stays byte for byte as it was;
     * text with a secret comes out folded. */
    char *dropped = nd_redact_fold(text, false);
    const char *d = dropped ? dropped : text;
    char *r = nd_redact_text_folded(d);
    char *spaced = nd_redact_fold(r, true);
    if (spaced) {
        char *r2 = nd_redact_text_folded(spaced);
        if (strcmp(r2, spaced) != 0) {
            free(r);
            r = r2;
        } else {
            free(r2);
        }
        free(spaced);
    }
    if (dropped && strcmp(r, dropped) == 0) {
        free(r);
        r = nd_xstrdup(text);
    }
    free(dropped);
    return r;
}
