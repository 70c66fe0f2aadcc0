/* The environment a job will get: this process's, a running process's
 * (/proc/PID/environ), or a file of KEY=VALUE lines as `env` prints them or a
 * `docker inspect` JSON document. Parsers take buffers so they can be fuzzed. */
#ifndef ND_CORE_ENVIRON_H
#define ND_CORE_ENVIRON_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/error.h"

struct nd_environ {
    char **names; /* parallel arrays; names unique (last one wins) */
    char **values;
    size_t n;
    char *source;     /* "current process", "pid 1234", "file env.txt" */
    char *job_python; /* the job's interpreter when known (--env-from, --python), else NULL */
    char *job_script; /* the script it runs ("train.py", "-m mod") when known, else NULL */
    /* Name lookup in constant time: 80,000 variables must not make a
     * snapshot quadratic. Private to environ.c. */
    size_t cap;
    struct nd_strtab *idx; /* names ever set -> dense ids */
    long *pos;             /* id -> index in names[], -1 when unset */
    size_t npos;
};

#define ND_ENV_MAX_FILE (16u * 1024 * 1024)

void nd_environ_init(struct nd_environ *env, const char *source);
void nd_environ_release(struct nd_environ *env);
/* Sets (or replaces) a variable. */
void nd_environ_set(struct nd_environ *env, const char *name, const char *value);
void nd_environ_unset(struct nd_environ *env, const char *name);
/* The value, or NULL when unset. */
const char *nd_environ_get(const struct nd_environ *env, const char *name);
/* True when set (possibly to the empty string). */
bool nd_environ_has(const struct nd_environ *env, const char *name);

int nd_environ_from_self(struct nd_environ *env);
/* Reads /proc/PID/environ. -ESRCH for a missing process, -EACCES when not ours. */
int nd_environ_from_pid(pid_t pid, struct nd_environ *env, struct nd_error *err);
/* KEY=VALUE lines (export prefixes, quotes and comments accepted), or a
 * docker inspect JSON ([{"Config": {"Env": [...]}}]). */
int nd_environ_from_file(const char *path, struct nd_environ *env, struct nd_error *err);

/* Parsers over buffers. Entries without '=' or with an invalid name are
 * skipped; NUL bytes in a line-format buffer end that line's value. */
int nd_environ_parse_nul(const char *buf, size_t len, struct nd_environ *env);
int nd_environ_parse_lines(const char *buf, size_t len, struct nd_environ *env);
int nd_environ_parse_docker_json(const char *buf, size_t len, struct nd_environ *env, struct nd_error *err);

/* A NULL-terminated "NAME=VALUE" array for execve (free with nd_environ_envp_free). */
char **nd_environ_envp(const struct nd_environ *env);
void nd_environ_envp_free(char **envp);

/* Splits a PATH-like value on ':' into a malloc'd array of malloc'd
 * entries (empty entries kept as ""). Returns the count. */
size_t nd_path_split(const char *value, char ***out);
void nd_path_split_free(char **entries, size_t n);

#endif
