/* Loading and querying a job's environment from several sources. */
#include "core/environ.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/fileio.h"
#include "core/strbuf.h"
#include "core/strtab.h"

extern char **environ;

void nd_environ_init(struct nd_environ *env, const char *source)
{
    memset(env, 0, sizeof *env);
    env->source = nd_xstrdup(source ? source : "");
}

void nd_environ_release(struct nd_environ *env)
{
    for (size_t i = 0; i < env->n; i++) {
        free(env->names[i]);
        free(env->values[i]);
    }
    free(env->names);
    free(env->values);
    free(env->source);
    free(env->job_python);
    free(env->job_script);
    nd_strtab_free(env->idx);
    free(env->pos);
    memset(env, 0, sizeof *env);
}

static long nd_environ_index(const struct nd_environ *env, const char *name)
{
    size_t id;
    if (!env->idx || !nd_strtab_find(env->idx, name, strlen(name), &id) || id >= env->npos)
        return -1;
    return env->pos[id];
}

void nd_environ_set(struct nd_environ *env, const char *name, const char *value)
{
    long i = nd_environ_index(env, name);
    if (i >= 0) {
        free(env->values[i]);
        env->values[i] = nd_xstrdup(value);
        return;
    }
    if (env->n == env->cap) {
        env->cap = env->cap ? env->cap * 2 : 64;
        env->names = nd_xrealloc(env->names, env->cap * sizeof *env->names);
        env->values = nd_xrealloc(env->values, env->cap * sizeof *env->values);
    }
    if (!env->idx)
        env->idx = nd_strtab_new();
    size_t id;
    nd_strtab_intern(env->idx, name, strlen(name), &id);
    if (id >= env->npos) {
        size_t np = env->npos ? env->npos * 2 : 64;
        while (np <= id)
            np *= 2;
        env->pos = nd_xrealloc(env->pos, np * sizeof *env->pos);
        for (size_t k = env->npos; k < np; k++)
            env->pos[k] = -1;
        env->npos = np;
    }
    env->pos[id] = (long)env->n;
    env->names[env->n] = nd_xstrdup(name);
    env->values[env->n] = nd_xstrdup(value);
    env->n++;
}

void nd_environ_unset(struct nd_environ *env, const char *name)
{
    long i = nd_environ_index(env, name);
    if (i < 0)
        return;
    /* Rare: the positions after it move down by one. */
    for (size_t k = 0; k < env->npos; k++)
        if (env->pos[k] > i)
            env->pos[k]--;
    size_t id;
    nd_strtab_find(env->idx, name, strlen(name), &id);
    env->pos[id] = -1;
    free(env->names[i]);
    free(env->values[i]);
    memmove(&env->names[i], &env->names[i + 1], (env->n - (size_t)i - 1) * sizeof *env->names);
    memmove(&env->values[i], &env->values[i + 1], (env->n - (size_t)i - 1) * sizeof *env->values);
    env->n--;
}

const char *nd_environ_get(const struct nd_environ *env, const char *name)
{
    long i = nd_environ_index(env, name);
    return i >= 0 ? env->values[i] : NULL;
}

bool nd_environ_has(const struct nd_environ *env, const char *name)
{
    return nd_environ_index(env, name) >= 0;
}

static bool nd_valid_name(const char *s, size_t n)
{
    if (n == 0 || n > 255 || isdigit((unsigned char)s[0]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.' && s[i] != '-')
            return false;
    return true;
}

/* Adds one "NAME=VALUE" entry of length n; skips invalid ones. */
static void nd_environ_add_entry(struct nd_environ *env, const char *s, size_t n)
{
    const char *eq = memchr(s, '=', n);
    if (!eq || !nd_valid_name(s, (size_t)(eq - s)))
        return;
    char *name = nd_xstrndup(s, (size_t)(eq - s));
    size_t vlen = n - (size_t)(eq - s) - 1;
    char *value = nd_xstrndup(eq + 1, strnlen(eq + 1, vlen));
    nd_environ_set(env, name, value);
    free(name);
    free(value);
}

int nd_environ_from_self(struct nd_environ *env)
{
    nd_environ_init(env, "current process");
    for (char **e = environ; e && *e; e++)
        nd_environ_add_entry(env, *e, strlen(*e));
    return 0;
}

int nd_environ_parse_nul(const char *buf, size_t len, struct nd_environ *env)
{
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || buf[i] == '\0') {
            if (i > start)
                nd_environ_add_entry(env, buf + start, i - start);
            start = i + 1;
        }
    }
    return 0;
}

/* Removes one level of matching quotes; handles \" inside double quotes. */
static char *nd_unquote(const char *v, size_t n)
{
    if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
        struct nd_strbuf sb = ND_STRBUF_INIT;
        nd_strbuf_grow(&sb, n);
        for (size_t i = 1; i + 1 < n; i++) {
            if (v[0] == '"' && v[i] == '\\' && i + 2 < n)
                i++;
            nd_strbuf_addc(&sb, v[i]);
        }
        return nd_strbuf_detach(&sb, NULL);
    }
    return nd_xstrndup(v, n);
}

int nd_environ_parse_lines(const char *buf, size_t len, struct nd_environ *env)
{
    size_t pos = 0;
    while (pos < len) {
        const char *line = buf + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - line) : len - pos;
        pos += n + (nl ? 1 : 0);
        /* A NUL ends the usable part of the line. */
        n = strnlen(line, n);
        while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
            n--;
        while (n && (*line == ' ' || *line == '\t')) {
            line++;
            n--;
        }
        if (n == 0 || line[0] == '#')
            continue;
        if (n > 7 && strncmp(line, "export ", 7) == 0) {
            line += 7;
            n -= 7;
        }
        /* `docker inspect` fragments: "KEY=VALUE", with a trailing comma. */
        if (n >= 2 && line[n - 1] == ',')
            n--;
        if (n >= 2 && line[0] == '"' && line[n - 1] == '"') {
            line++;
            n -= 2;
        }
        const char *eq = memchr(line, '=', n);
        if (!eq || !nd_valid_name(line, (size_t)(eq - line)))
            continue;
        char *name = nd_xstrndup(line, (size_t)(eq - line));
        char *value = nd_unquote(eq + 1, n - (size_t)(eq - line) - 1);
        nd_environ_set(env, name, value);
        free(name);
        free(value);
    }
    return 0;
}

static void nd_environ_from_json_array(json_t *arr, struct nd_environ *env)
{
    size_t i;
    json_t *v;
    json_array_foreach (arr, i, v) {
        if (json_is_string(v))
            nd_environ_add_entry(env, json_string_value(v), json_string_length(v));
    }
}

int nd_environ_parse_docker_json(const char *buf, size_t len, struct nd_environ *env, struct nd_error *err)
{
    json_error_t jerr;
    json_t *doc = json_loadb(buf, len, 0, &jerr);
    if (!doc) {
        /* jansson quotes the bytes near the error ("near 'hunter2'"): in an
         * environment that may be a short secret no pattern would catch. */
        char *near = strstr(jerr.text, " near ");
        if (near)
            *near = '\0';
        return nd_error_set(err, -EINVAL, "not valid JSON: %s (line %d, column %d)", jerr.text, jerr.line, jerr.column);
    }
    json_t *obj = json_is_array(doc) ? json_array_get(doc, 0) : doc;
    json_t *cfg = json_object_get(obj, "Config");
    json_t *arr = json_object_get(cfg ? cfg : obj, "Env");
    if (!arr && json_is_array(obj))
        arr = obj;
    if (!json_is_array(arr)) {
        json_decref(doc);
        return nd_error_set(err, -EINVAL, "JSON has no Config.Env array");
    }
    nd_environ_from_json_array(arr, env);
    json_decref(doc);
    return 0;
}

int nd_environ_from_file(const char *path, struct nd_environ *env, struct nd_error *err)
{
    char *buf;
    size_t len;
    char src[512];
    snprintf(src, sizeof src, "file %s", path);
    nd_environ_init(env, src);
    int rc = nd_read_file(path, ND_ENV_MAX_FILE, &buf, &len, err);
    if (rc < 0)
        return rc;
    size_t skip = 0;
    while (skip < len && isspace((unsigned char)buf[skip]))
        skip++;
    if (skip < len && (buf[skip] == '[' || buf[skip] == '{')) {
        rc = nd_environ_parse_docker_json(buf, len, env, err);
        if (rc < 0) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
            nd_error_set(err, rc, "%s: %s", path, msg);
        }
    } else {
        rc = nd_environ_parse_lines(buf, len, env);
    }
    free(buf);
    return rc;
}

int nd_environ_from_pid(pid_t pid, struct nd_environ *env, struct nd_error *err)
{
    char path[64], src[64];
    snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
    snprintf(src, sizeof src, "pid %ld", (long)pid);
    nd_environ_init(env, src);
    char *buf;
    size_t len;
    struct nd_error e2;
    int rc = nd_read_file_prefix(path, ND_ENV_MAX_FILE, &buf, &len, &e2);
    if (rc == -ENOENT)
        return nd_error_set(err, -ESRCH, "no process with pid %ld", (long)pid);
    if (rc < 0)
        return nd_error_set(err, rc, "cannot read the environment of pid %ld: %s", (long)pid, strerror(-rc));
    nd_environ_parse_nul(buf, len, env);
    free(buf);
    return 0;
}

char **nd_environ_envp(const struct nd_environ *env)
{
    char **envp = nd_xcalloc(env->n + 1, sizeof *envp);
    for (size_t i = 0; i < env->n; i++)
        envp[i] = nd_xasprintf("%s=%s", env->names[i], env->values[i]);
    return envp;
}

void nd_environ_envp_free(char **envp)
{
    if (!envp)
        return;
    for (char **e = envp; *e; e++)
        free(*e);
    free(envp);
}

size_t nd_path_split(const char *value, char ***out)
{
    size_t n = 1;
    for (const char *p = value; *p; p++)
        n += *p == ':';
    char **v = nd_xcalloc(n, sizeof *v);
    size_t i = 0;
    const char *start = value;
    for (const char *p = value;; p++) {
        if (*p == ':' || *p == '\0') {
            v[i++] = nd_xstrndup(start, (size_t)(p - start));
            start = p + 1;
            if (*p == '\0')
                break;
        }
    }
    *out = v;
    return i;
}

void nd_path_split_free(char **entries, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(entries[i]);
    free(entries);
}
