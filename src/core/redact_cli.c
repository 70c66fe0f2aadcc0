/* Secret forms that no NAME=value rule sees: the option spellings of
 * database and shell tools (mysql -pX, sshpass -pX, redis-cli -a X,
 * curl -uUSER:X, smbclient -U USER%X, openssl -passin pass:X), Ruby and
 * Perl hash pairs (password => "x"), and rows of env dumps and secret
 * listings printed as tables (PASSWORD<TAB>x). Part of nd_redact_text. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/redact.h"
#include "core/redact_priv.h"

/* True when a word starts at p: the text's start, a blank or a quote. */
static bool nd_at_word(const char *s, const char *p)
{
    return p == s || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\'' || p[-1] == '"' || p[-1] == '\n';
}

/* The value at v, inside its quotes when quoted (in double quotes a
 * backslash escapes the next character: "ab\"cd" is one value), else up to
 * a blank or a quote; *start gets where it begins. */
static size_t nd_word_value(const char *v, const char **start)
{
    if (*v == '\'') {
        *start = v + 1;
        return strcspn(v + 1, "'\n");
    }
    if (*v == '"') {
        const char *w = v + 1;
        size_t n = 0;
        while (w[n] && w[n] != '"' && w[n] != '\n')
            n += w[n] == '\\' && w[n + 1] && w[n + 1] != '\n' ? 2 : 1;
        *start = w;
        return n;
    }
    *start = v;
    return strcspn(v, " \t\n'\"");
}

static bool nd_all_digits(const char *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)v[i]))
            return false;
    return n > 0;
}

/* A line's tools, by the words that name them anywhere in it (a path
 * such as /usr/bin/mysql included). */
struct nd_tools {
    bool attached_p; /* mysql, mariadb, sshpass, mongo(sh): -pSECRET, -p SECRET */
    bool redis;      /* redis-cli, valkey-cli: -a SECRET, --pass SECRET */
    bool login_p;    /* docker, podman, nerdctl, helm registry login: -p SECRET */
};

static struct nd_tools nd_line_tools(const char *line, size_t n)
{
    struct nd_tools t = {false, false, false};
    char *l = malloc(n + 1);
    if (!l)
        return t;
    memcpy(l, line, n);
    l[n] = '\0';
    t.attached_p = strstr(l, "mysql") || strstr(l, "mariadb") || strstr(l, "sshpass") || strstr(l, "mongo");
    t.redis = strstr(l, "redis-cli") || strstr(l, "valkey-cli");
    t.login_p = strstr(l, "docker login") || strstr(l, "podman login") || strstr(l, "nerdctl login") ||
                strstr(l, "registry login") || strstr(l, "buildah login") || strstr(l, "skopeo login");
    free(l);
    return t;
}

bool nd_redact_names_tool(const char *word)
{
    struct nd_tools t = nd_line_tools(word, strlen(word));
    return t.attached_p || t.redis;
}

/* Length of the secret that the option word at p gives away, with *vs set
 * to where it starts; 0 when the word gives none. prev is the word before
 * (for openssl's "-passin pass:X"), t the line's tools. */
static size_t nd_option_secret(const char *p, const char *prev, size_t prevlen, struct nd_tools t, const char **vs)
{
    /* mysql -pX, docker login -pX and -p=X (the '=' is no part of it). */
    if ((t.attached_p || t.login_p) && p[0] == '-' && p[1] == 'p' && p[2] && !strchr(" \t\n-", p[2]))
        return p[2] == '=' ? (p[3] && !strchr(" \t\n", p[3]) ? nd_word_value(p + 3, vs) : 0) : nd_word_value(p + 2, vs);
    /* "mysql -p X" (mysql would take X for the database and prompt, but
     * the word people type there is the password) and "docker login -p X". */
    if ((t.redis && (strncmp(p, "-a ", 3) == 0 || strncmp(p, "--pass ", 7) == 0)) ||
        ((t.login_p || t.attached_p) && strncmp(p, "-p ", 3) == 0)) {
        const char *v = p + (p[1] == 'a' || p[1] == 'p' ? 3 : 7);
        while (*v == ' ' || *v == '\t')
            v++;
        return *v == '-' ? 0 : nd_word_value(v, vs);
    }
    /* curl -uUSER:PASS (the spaced form is nd_scrub_option_words'). */
    if (p[0] == '-' && p[1] == 'u' && p[2] && !strchr(" \t\n-", p[2])) {
        const char *w;
        size_t n = nd_word_value(p + 2, &w);
        const char *colon = memchr(w, ':', n);
        if (colon && colon > w && !nd_all_digits(colon + 1, (size_t)(w + n - colon - 1)) &&
            !nd_redact_is_marker(colon + 1)) {
            *vs = colon + 1;
            return (size_t)(w + n - colon - 1);
        }
        return 0;
    }
    /* smbclient -U USER%PASS, -UUSER%PASS, --user=USER%PASS */
    if (strncmp(p, "-U", 2) == 0 || strncmp(p, "--user=", 7) == 0) {
        const char *v = p + (p[1] == 'U' ? 2 : 7);
        while (*v == ' ' || *v == '\t')
            v++;
        const char *w;
        size_t n = nd_word_value(v, &w);
        const char *pct = memchr(w, '%', n);
        if (pct && pct > w && (size_t)(pct + 1 - w) < n) {
            *vs = pct + 1;
            return (size_t)(w + n - pct - 1);
        }
        return 0;
    }
    /* openssl -passin pass:X, -passout pass:X (env: and file: name where
     * the secret is, not the secret). */
    if (strncmp(p, "pass:", 5) == 0 && prev &&
        ((prevlen == 7 && strncmp(prev, "-passin", 7) == 0) || (prevlen == 8 && strncmp(prev, "-passout", 8) == 0)))
        return nd_word_value(p + 5, vs);
    return 0;
}

/* "setenv NAME value" (csh) and "ENV NAME value" (a Dockerfile's old
 * form, also quoted in a log line): the word after a secret NAME that
 * follows the keyword at q. */
static size_t nd_keyword_pair(const char *q, const char **vs)
{
    size_t kw = strncmp(q, "setenv ", 7) == 0 ? 7 : strncmp(q, "ENV ", 4) == 0 ? 4 : 0;
    if (!kw)
        return 0;
    const char *n = q + kw;
    while (*n == ' ' || *n == '\t')
        n++;
    size_t nlen = 0;
    while (isalnum((unsigned char)n[nlen]) || n[nlen] == '_')
        nlen++;
    if (nlen == 0 || nlen >= 128 || (n[nlen] != ' ' && n[nlen] != '\t'))
        return 0;
    char nbuf[128];
    memcpy(nbuf, n, nlen);
    nbuf[nlen] = '\0';
    if (!nd_redact_name_is_secret(nbuf))
        return 0;
    const char *v = n + nlen;
    while (*v == ' ' || *v == '\t')
        v++;
    return *v && *v != '\n' ? nd_word_value(v, vs) : 0;
}

/* "wandb login [--relogin] [--host URL] KEY": the API key is the first
 * word after the command's options. */
static size_t nd_wandb_login(const char *q, const char **vs)
{
    if (strncmp(q, "wandb login ", 12) != 0)
        return 0;
    const char *v = q + 12;
    for (;;) {
        while (*v == ' ' || *v == '\t')
            v++;
        if (*v != '-')
            break;
        bool host = strncmp(v, "--host ", 7) == 0;
        v += strcspn(v, " \t\n");
        if (host) {
            while (*v == ' ' || *v == '\t')
                v++;
            v += strcspn(v, " \t\n");
        }
    }
    return *v && *v != '\n' && *v != ';' && *v != '|' && *v != '&' ? nd_word_value(v, vs) : 0;
}

char *nd_redact_scrub_tool_options(char *s)
{
    if (!strchr(s, '-') && !strstr(s, "setenv ") && !strstr(s, "ENV ") && !strstr(s, "wandb login "))
        return s;
    struct nd_strbuf out = ND_STRBUF_INIT;
    nd_strbuf_grow(&out, strlen(s));
    const char *p = s, *line = s, *prev = NULL;
    size_t prevlen = 0;
    struct nd_tools t = nd_line_tools(s, strcspn(s, "\n"));
    while (*p) {
        if (*p == '\n') {
            nd_strbuf_addc(&out, *p++);
            line = p;
            prev = NULL;
            t = nd_line_tools(line, strcspn(line, "\n"));
            continue;
        }
        if (!nd_at_word(line, p) || *p == ' ' || *p == '\t') {
            nd_strbuf_addc(&out, *p++);
            continue;
        }
        const char *vs = NULL;
        size_t vlen = nd_keyword_pair(p, &vs);
        if (!vlen)
            vlen = nd_wandb_login(p, &vs);
        if (!vlen)
            vlen = nd_option_secret(p, prev, prevlen, t, &vs);
        size_t wlen = strcspn(p, " \t\n");
        if (vlen == 0) {
            prev = p;
            prevlen = wlen;
            nd_strbuf_add(&out, p, wlen);
            p += wlen;
            continue;
        }
        nd_strbuf_add(&out, p, (size_t)(vs - p));
        nd_redact_add_marker(&out, vs, vlen);
        p = vs + vlen;
        prev = NULL;
    }
    free(s);
    return nd_strbuf_detach(&out, NULL);
}

/* Ruby and Perl: up to four blanks on either side of the arrow. */
char *nd_redact_scrub_hash_arrows(char *s)
{
    static const struct nd_pair_form arrow = {
        .sep = "=>",
        .name_blanks = 4,
        .value_blanks = 4,
        .stops = " \t\n,;})]",
        .symbols = true,
    };
    return nd_redact_scrub_pairs(s, &arrow);
}

/* A Kubernetes env list printed as YAML: "- name: API_KEY" and, on the
 * next line, "value: x"; the value of a secret name is replaced. */
char *nd_redact_scrub_env_lists(char *s)
{
    if (!strstr(s, "name:") || !strstr(s, "value:"))
        return s;
    struct nd_strbuf out = ND_STRBUF_INIT;
    nd_strbuf_grow(&out, strlen(s));
    const char *p = s;
    bool secret_next = false;
    while (*p) {
        size_t llen = strcspn(p, "\n");
        const char *q = p + strspn(p, " \t");
        if (*q == '-' && q[1] == ' ')
            q += 2 + strspn(q + 2, " \t");
        bool was_secret = secret_next;
        secret_next = false;
        if (strncmp(q, "name:", 5) == 0) {
            const char *n = q + 5 + strspn(q + 5, " \t\"'");
            size_t nlen = strcspn(n, " \t\"'\n\r");
            char nbuf[128];
            if (nlen > 0 && nlen < sizeof nbuf) {
                memcpy(nbuf, n, nlen);
                nbuf[nlen] = '\0';
                secret_next = nd_redact_name_is_secret(nbuf);
            }
        } else if (was_secret && strncmp(q, "value:", 6) == 0) {
            const char *v = q + 6 + strspn(q + 6, " \t");
            const char *vs;
            size_t vlen = *v && *v != '\n' ? nd_word_value(v, &vs) : 0;
            if (vlen) {
                nd_strbuf_add(&out, p, (size_t)(vs - p));
                nd_redact_add_marker(&out, vs, vlen);
                nd_strbuf_add(&out, vs + vlen, (size_t)(p + llen - vs - vlen));
                p += llen;
                if (*p == '\n')
                    nd_strbuf_addc(&out, *p++);
                continue;
            }
        }
        nd_strbuf_add(&out, p, llen);
        p += llen;
        if (*p == '\n')
            nd_strbuf_addc(&out, *p++);
    }
    free(s);
    return nd_strbuf_detach(&out, NULL);
}

static bool nd_table_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

/* The value cell after a secret name at q in a table row, or 0; *vs gets
 * where it starts. at_line_start: q is the row's first cell; after_gap: q
 * follows a column's gap (a quoted line shows the row's tabs as single
 * spaces, so one space there is the cells' separator). */
static size_t nd_table_cell(const char *q, bool at_line_start, bool after_gap, const char **vs)
{
    const char *e = q;
    while (nd_table_name_char(*e))
        e++;
    size_t nlen = (size_t)(e - q);
    if (nlen == 0 || nlen >= 128 || !isalpha((unsigned char)*q))
        return 0;
    const char *v = e;
    bool tab = false;
    while (*v == ' ' || *v == '\t')
        tab |= *v++ == '\t';
    if (!(tab || v - e >= 2 || (after_gap && v - e == 1)) || *v == '\0' || *v == '\n' || *v == '\r')
        return 0;
    char nbuf[128];
    memcpy(nbuf, q, nlen);
    nbuf[nlen] = '\0';
    bool lower = false;
    for (const char *c = nbuf; *c; c++)
        lower |= islower((unsigned char)*c) != 0;
    size_t vlen = nd_word_value(v, vs);
    if (vlen == 0)
        return 0;
    /* A lower-case name is a table's only at the row's start, and a
     * number after it is a count ("token    12"), not a secret. */
    if (lower && (!at_line_start || (v - e < 2 && !tab) || nd_all_digits(*vs, vlen) || !nd_redact_prose_name(nbuf)))
        return 0;
    if (!lower && !nd_redact_name_is_secret(nbuf))
        return 0;
    return vlen;
}

char *nd_redact_scrub_table_rows(char *s)
{
    if (!strchr(s, '\t') && !strstr(s, "  "))
        return s;
    struct nd_strbuf out = ND_STRBUF_INIT;
    nd_strbuf_grow(&out, strlen(s));
    const char *p = s;
    bool row_start = true;
    while (*p) {
        /* Cells start a row (after its indent or a log prefix such as
         * "[rank0]: ") or follow a tab or a column's gap of spaces (a
         * quoted line shows tabs as spaces). */
        bool first = row_start;
        if (row_start) {
            while (*p == ' ' || *p == '\t')
                nd_strbuf_addc(&out, *p++);
            row_start = false;
        }
        bool gap = p > s && (p[-1] == '\t' || (p - s >= 2 && p[-1] == ' ' && p[-2] == ' '));
        bool cell = first || gap || (p - s >= 2 && p[-1] == ' ' && strchr(":]|>", p[-2]));
        const char *vs;
        size_t vlen = cell ? nd_table_cell(p, first, gap && !first, &vs) : 0;
        if (vlen) {
            nd_strbuf_add(&out, p, (size_t)(vs - p));
            nd_redact_add_marker(&out, vs, vlen);
            p = vs + vlen;
            continue;
        }
        if (*p == '\n')
            row_start = true;
        if (*p)
            nd_strbuf_addc(&out, *p++);
    }
    free(s);
    return nd_strbuf_detach(&out, NULL);
}

char *nd_redact_scrub_spaced_pairs(char *s)
{
    if (!strchr(s, ' '))
        return s;
    struct nd_strbuf out = ND_STRBUF_INIT;
    nd_strbuf_grow(&out, strlen(s));
    const char *p = s;
    while (*p) {
        const char *e = nd_redact_name_at(s, p, " \t\n\"'[(,;");
        if (!e) {
            nd_strbuf_addc(&out, *p++);
            continue;
        }
        size_t nlen = (size_t)(e - p);
        if (nlen >= 128 || *e != ' ' || e[1] == ' ' || e[1] == '<') {
            nd_strbuf_add(&out, p, nlen);
            p = e;
            continue;
        }
        char nbuf[128];
        memcpy(nbuf, p, nlen);
        nbuf[nlen] = '\0';
        const char *v = e + 1;
        /* "HF_TOKEN := x", "HF_TOKEN -> x": a joiner between two blanks. */
        bool joined = (strncmp(v, ":= ", 3) == 0 || strncmp(v, "-> ", 3) == 0) && v[3] != ' ';
        if (joined)
            v += 3;
        size_t vlen = strcspn(v, " \t\n,;'\")]");
        bool value = nd_redact_secret_looking(v, vlen) ||
                     (nd_redact_code_name(nbuf) && nd_redact_code_value(nbuf, v, vlen));
        if (!nd_redact_prose_name(nbuf) || !value || nd_redact_is_marker(v)) {
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
