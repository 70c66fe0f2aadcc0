/* Redaction of a whole JSON document: the safety net every JSON output
 * (snapshot, check --json, run reports, diff) passes through, so a secret that
 * a probe copied into a fact or a finding's evidence never leaves the program. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/json_util.h"
#include "core/redact.h"
#include "core/redact_priv.h"

/* Deep documents are redacted as deep as jansson parses them; the bound only
 * protects our own stack. */
#define ND_REDACT_MAX_DEPTH 4096

static void nd_redact_node(json_t *node, const char *name, int depth);

/* Member names are judged as secret names only when they look like
 * environment variables (no lower-case letter): our own schema words ("key"
 * in a diff, "tokenizers" in a package list) are not secrets. */
static bool nd_env_style_name(const char *name)
{
    if (!name || !*name)
        return false;
    for (const char *p = name; *p; p++)
        if (islower((unsigned char)*p))
            return false;
    return true;
}

/* Replaces the string j (a member or element) in its container when the
 * redacted form differs. Returns the new value, or NULL when unchanged. */
static json_t *nd_redacted_string(const json_t *j, const char *name)
{
    const char *s = json_string_value(j);
    char *r = nd_env_style_name(name) && nd_redact_name_is_secret(name) ? nd_redact_value(name, s) : nd_redact_text(s);
    json_t *out = NULL;
    if (strcmp(r, s) != 0)
        out = nd_json_str(r);
    free(r);
    return out;
}

/* "--password", "-api-key": an option whose next argv word is a secret. */
static bool nd_secret_option(const char *w)
{
    if (!w || w[0] != '-' || strchr(w, '=') || strchr(w, ' '))
        return false;
    w += w[1] == '-' ? 2 : 1;
    return *w && isalpha((unsigned char)*w) && strlen(w) < 128 && nd_redact_name_is_secret(w);
}

/* Element i after an option word ("-u", "--user"): the two read as one
 * command-line text ("-u alice:password"), and the element takes what the
 * text scrubber made of its half. True when it changed. */
static bool nd_option_pair_redacted(json_t *arr, size_t i)
{
    const char *opt = json_string_value(json_array_get(arr, i - 1));
    const char *v = json_string_value(json_array_get(arr, i));
    if (!opt || !v || opt[0] != '-' || strchr(opt, ' ') || strlen(opt) > 128)
        return false;
    size_t olen = strlen(opt);
    char *pair = malloc(olen + strlen(v) + 2);
    if (!pair)
        return false;
    memcpy(pair, opt, olen);
    pair[olen] = ' ';
    strcpy(pair + olen + 1, v);
    char *r = nd_redact_text(pair);
    bool changed = strncmp(r, pair, olen + 1) == 0 && strcmp(r + olen + 1, v) != 0;
    if (changed)
        json_array_set_new(arr, i, nd_json_str(r + olen + 1));
    free(r);
    free(pair);
    return changed;
}

/* Element i of an argv array that names a tool (mysql -pX, redis-cli -a
 * X): the word, after the option word before it when there is one, read
 * with the tool's name in front, and the element takes what the text
 * scrubber made of it. True when it changed. */
static bool nd_tool_word_redacted(json_t *arr, size_t i, const char *tool)
{
    const char *prev = json_string_value(json_array_get(arr, i - 1));
    const char *v = json_string_value(json_array_get(arr, i));
    if (!v || strlen(tool) > 256)
        return false;
    if (!prev || prev[0] != '-' || strchr(prev, ' ') || strlen(prev) > 128)
        prev = "";
    size_t plen = strlen(tool) + 1 + strlen(prev) + (*prev ? 1 : 0);
    char *text = malloc(plen + strlen(v) + 1);
    if (!text)
        return false;
    snprintf(text, plen + 1, "%s %s%s", tool, prev, *prev ? " " : "");
    strcpy(text + plen, v);
    char *r = nd_redact_text(text);
    bool changed = strncmp(r, text, plen) == 0 && strcmp(r + plen, v) != 0;
    if (changed)
        json_array_set_new(arr, i, nd_json_str(r + plen));
    free(r);
    free(text);
    return changed;
}

/* The base name of an argv word that takes "login" and then a secret
 * (docker login -p X, wandb login KEY), or NULL. */
static const char *nd_login_tool(const json_t *el)
{
    static const char *const tools[] = {"docker", "podman", "nerdctl", "buildah", "skopeo", "registry", "wandb"};
    const char *w = json_string_value(el);
    if (!w)
        return NULL;
    const char *base = strrchr(w, '/') ? strrchr(w, '/') + 1 : w;
    for (size_t i = 0; i < sizeof tools / sizeof *tools; i++)
        if (strcmp(base, tools[i]) == 0)
            return tools[i];
    return NULL;
}

static void nd_redact_object(json_t *obj, int depth)
{
    /* {"name": "HF_TOKEN", "value": "..."}: the value belongs to that name. */
    const char *pair_name = nd_json_get_str(obj, "name");
    const char *key;
    json_t *val;
    void *it = json_object_iter(obj);
    while (it) {
        key = json_object_iter_key(it);
        val = json_object_iter_value(it);
        const char *as = (pair_name && strcmp(key, "value") == 0) ? pair_name : key;
        if (json_is_string(val)) {
            json_t *r = nd_redacted_string(val, as);
            if (r)
                json_object_iter_set_new(obj, it, r);
        } else {
            nd_redact_node(val, as, depth + 1);
        }
        it = json_object_iter_next(obj, it);
    }
}

static void nd_redact_node(json_t *node, const char *name, int depth)
{
    if (depth > ND_REDACT_MAX_DEPTH)
        return;
    if (json_is_object(node)) {
        nd_redact_object(node, depth);
    } else if (json_is_array(node)) {
        /* Elements of a secret-named array ("HF_TOKENS": [...]) are secrets
         * too; in an argv array, so is the word after "--password". */
        /* The last word that named a tool (a copy: its element may be
         * replaced on the way) is read in front of the words after it. */
        char tool[257] = "";
        for (size_t i = 0; i < json_array_size(node); i++) {
            json_t *el = json_array_get(node, i);
            const char *w = json_string_value(el);
            if (w && *tool && nd_tool_word_redacted(node, i, tool))
                continue;
            if (w && strlen(w) < sizeof tool && !strchr(w, ' ') && nd_redact_names_tool(w))
                snprintf(tool, sizeof tool, "%s", w);
            /* "docker" "login": the two words name the tool together. */
            const char *login = w && i > 0 && strcmp(w, "login") == 0 ? nd_login_tool(json_array_get(node, i - 1)) : NULL;
            if (login)
                snprintf(tool, sizeof tool, "%s login", login);
            if (json_is_string(el) && i > 0 && nd_secret_option(json_string_value(json_array_get(node, i - 1))) &&
                !nd_redact_is_marker(json_string_value(el))) {
                char *m = nd_redact_marker(json_string_value(el));
                json_array_set_new(node, i, nd_json_str(m));
                free(m);
                continue;
            }
            if (json_is_string(el) && i > 0 && nd_option_pair_redacted(node, i)) {
                continue;
            }
            if (json_is_string(el)) {
                json_t *r = nd_redacted_string(el, name);
                if (r)
                    json_array_set_new(node, i, r);
            } else {
                nd_redact_node(el, name, depth + 1);
            }
        }
    }
}

void nd_redact_json(struct json_t *doc)
{
    if (doc)
        nd_redact_node(doc, NULL, 0);
}
