/* Secrets that log prose hands over after a secret's name: "set HF_TOKEN to
 * x", "HF_TOKEN is x", "WANDB_API_KEY was set to x", "token : x", and a
 * plain all-lower-case value with no digit after a name as the environment
 * writes it ("WANDB_API_KEY abcdefghij"). What follows such a name in prose is far
 * more often an ordinary word ("HF_TOKEN is not set", "set HF_TOKEN to
 * access gated models"), so a plain word counts as a value only when it is
 * none of the words such sentences use and has no English word ending;
 * a quoted value, or one that looks like a credential, always counts. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/redact.h"
#include "core/redact_priv.h"
#include "core/strbuf.h"

bool nd_redact_code_name(const char *name)
{
    bool lower = false;
    for (const char *p = name; *p; p++)
        lower |= islower((unsigned char)*p) != 0;
    return !lower || strchr(name, '_') != NULL;
}

bool nd_redact_credential_word(const char *v, size_t n)
{
    if (n < 4 || n > 1024)
        return false;
    bool up = false, low = false, dig = false, under = false;
    for (size_t i = 0; i < n; i++) {
        char c = v[i];
        if (!isalnum((unsigned char)c) && !strchr("+/=_-.~", c))
            return false;
        up |= isupper((unsigned char)c) != 0;
        low |= islower((unsigned char)c) != 0;
        dig |= isdigit((unsigned char)c) != 0;
        under |= c == '_';
    }
    if (!low && under)
        return false;
    return (up || low) && (dig || (up && low));
}

const char *nd_redact_name_at(const char *s, const char *p, const char *starts)
{
    if ((p != s && !strchr(starts, p[-1])) || !isalpha((unsigned char)*p))
        return NULL;
    const char *e = p;
    while (isalnum((unsigned char)*e) || *e == '_' || *e == '-')
        e++;
    return e;
}

/* Words that follow a secret's name in sentences about it. */
static const char *const nd_prose_words[] = {
    "about",       "absent",   "accepted",    "access",  "account",   "again",   "all",     "allow",     "already",
    "also",        "always",   "and",         "another", "any",       "anymore", "anyway",  "are",       "argument",
    "available",   "because",  "been",        "before",  "being",     "below",   "blank",   "both",      "but",
    "cannot",      "change",   "check",       "config",  "could",     "correct", "default", "does",      "doesn",
    "done",        "download", "during",      "either",  "empty",     "enable",  "enabled", "env",       "environ",
    "environment", "error",    "every",       "exist",   "exists",    "export",  "false",   "fetch",     "file",
    "first",       "found",    "from",        "gated",   "given",     "global",  "have",    "having",    "here",
    "hidden",      "hub",      "huggingface", "ignore",  "inside",    "instead", "into",    "invalid",   "isn",
    "just",        "later",    "like",        "local",   "login",     "longer",  "make",    "might",     "missing",
    "model",       "models",   "more",        "must",    "need",      "needs",   "never",   "none",      "nothing",
    "now",         "null",     "okay",        "once",    "only",      "option",  "other",   "otherwise", "over",
    "pass",        "please",   "present",     "private", "provide",   "public",  "pull",    "push",      "read",
    "repo",        "repos",    "repository",  "request", "right",     "same",    "secret",  "secrets",   "see",
    "should",      "shown",    "since",       "some",    "something", "still",   "stored",  "string",    "such",
    "than",        "that",     "the",         "their",   "them",      "then",    "there",   "these",     "they",
    "this",        "those",    "through",     "token",   "tokens",    "too",     "true",    "unset",     "until",
    "upload",      "use",      "user",        "valid",   "value",     "values",  "var",     "variable",  "variables",
    "very",        "wandb",    "was",         "were",    "what",      "when",    "where",   "which",     "while",
    "will",        "with",     "within",      "without", "won",       "would",   "write",   "wrong",     "yet",
    "you",         "your",     "yours",
};

/* English word endings: "required", "missing", "properly", "available"... */
static const char *const nd_prose_endings[] = {"ed",   "ing",  "ly",   "able", "ible", "tion", "sion", "ment",
                                               "ness", "ous",  "ive",  "ful",  "less", "ize",  "ise",  "ate",
                                               "ity",  "ance", "ence", "ism",  "ist",  "ary",  "ory"};

/* A plain value of lower-case letters (and '_' or '-' inside: "hf_xxx")
 * that is not a word of prose about the name. */
static bool nd_plain_secret_word(const char *v, size_t n)
{
    if (n < 5 || n > 128)
        return false;
    size_t letters = 0;
    for (size_t i = 0; i < n; i++) {
        char c = v[i];
        if (islower((unsigned char)c))
            letters++;
        else if (!((c == '_' || c == '-') && i > 0 && i + 1 < n))
            return false;
    }
    if (letters < 5)
        return false;
    char w[129];
    memcpy(w, v, n);
    w[n] = '\0';
    for (size_t i = 0; i < sizeof nd_prose_words / sizeof *nd_prose_words; i++)
        if (strcmp(w, nd_prose_words[i]) == 0)
            return false;
    for (size_t i = 0; i < sizeof nd_prose_endings / sizeof *nd_prose_endings; i++) {
        size_t el = strlen(nd_prose_endings[i]);
        if (n > el + 2 && strcmp(w + n - el, nd_prose_endings[i]) == 0)
            return false;
    }
    return true;
}

/* A name as the environment writes it: no lower-case letter (WANDB_API_KEY,
 * not a program's key_padding_mask, which prose follows with a plain word). */
static bool nd_env_name(const char *name)
{
    for (const char *p = name; *p; p++)
        if (islower((unsigned char)*p))
            return false;
    return true;
}

bool nd_redact_code_value(const char *name, const char *v, size_t n)
{
    return nd_redact_credential_word(v, n) || (nd_env_name(name) && nd_plain_secret_word(v, n));
}

/* A credential word that is not a capitalised word ("None", "False",
 * "Required"): after "is" or "to" those are prose or a language's values. */
static bool nd_prose_credential(const char *v, size_t n)
{
    if (!nd_redact_credential_word(v, n))
        return false;
    if (!isupper((unsigned char)v[0]))
        return true;
    for (size_t i = 1; i < n; i++)
        if (!islower((unsigned char)v[i]))
            return true;
    return false;
}

/* The joiners of "NAME is x", "set NAME to x", "NAME was set to x", "NAME :
 * x", longest first; each starts and ends with a blank. */
static const char *const nd_joiners[] = {" is set to ", " was set to ", " is now ", " set to ", " equals ",
                                         " is ",        " was ",        " to ",     " : "};

char *nd_redact_scrub_prose_pairs(char *s)
{
    if (!strchr(s, ' '))
        return s;
    struct nd_strbuf out = ND_STRBUF_INIT;
    nd_strbuf_grow(&out, strlen(s));
    const char *p = s;
    while (*p) {
        const char *e = nd_redact_name_at(s, p, " \t\n\"'[(,;`");
        if (!e) {
            nd_strbuf_addc(&out, *p++);
            continue;
        }
        size_t nlen = (size_t)(e - p);
        /* The name may stand in quotes of its own: "set `HF_TOKEN` to x". */
        const char *after = e;
        if (after > p && (*after == '`' || *after == '\'' || *after == '"') && p > s && p[-1] == *after)
            after++;
        const char *j = NULL;
        size_t jlen = 0;
        for (size_t i = 0; nlen < 128 && i < sizeof nd_joiners / sizeof *nd_joiners && !j; i++)
            if (strncmp(after, nd_joiners[i], strlen(nd_joiners[i])) == 0) {
                j = nd_joiners[i];
                jlen = strlen(j);
            }
        if (!j) {
            nd_strbuf_add(&out, p, nlen);
            p = e;
            continue;
        }
        char nbuf[128];
        memcpy(nbuf, p, nlen);
        nbuf[nlen] = '\0';
        bool code = nd_redact_code_name(nbuf);
        bool colon = strcmp(j, " : ") == 0;
        const char *v = after + jlen;
        char quote = (*v == '\'' || *v == '"' || *v == '`') ? *v : 0;
        if (quote)
            v++;
        size_t vlen = quote ? strcspn(v, quote == '\''  ? "'\n"
                                         : quote == '"' ? "\"\n"
                                                        : "`\n")
                            : strcspn(v, " \t\n,;'\"`)]");
        /* A sentence's full stop is not the value's. */
        while (!quote && vlen && (v[vlen - 1] == '.' || v[vlen - 1] == ':' || v[vlen - 1] == '!'))
            vlen--;
        bool closed = !quote || v[vlen] == quote;
        /* "token : x" takes what "token: x" takes; the other joiners a
         * quoted value, one shaped like a credential, or after a code name a
         * plain word that is not prose. */
        bool value = vlen > 0 && closed && !nd_redact_is_marker(v) &&
                     (colon || (quote && vlen >= 4) || nd_prose_credential(v, vlen) ||
                      (nd_env_name(nbuf) && nd_plain_secret_word(v, vlen)));
        if (!value || !nd_redact_prose_name(nbuf) || (!code && !colon && !quote && !nd_prose_credential(v, vlen))) {
            nd_strbuf_add(&out, p, nlen);
            p = e;
            continue;
        }
        nd_strbuf_add(&out, p, (size_t)(v - p));
        nd_redact_add_marker(&out, v, vlen);
        p = v + vlen;
    }
    free(s);
    return nd_strbuf_detach(&out, NULL);
}
