/* The job's own interpreter and script, read from a running process, so the
 * check judges (and the fix lines name) what the job really runs. */
#include "probe/jobcmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/environ.h"
#include "core/fileio.h"
#include "core/rootfs.h"
#include "core/strbuf.h"
#include "probe/pathfmt.h"

bool nd_job_is_python_name(const char *base)
{
    const char *rest;
    if (strncmp(base, "python", 6) == 0)
        rest = base + 6;
    else if (strncmp(base, "pypy", 4) == 0)
        rest = base + 4;
    else
        return false;
    /* "python", "python3", "python3.11", "python3.13t", "python3.11d"; not "python-config". */
    for (; *rest; rest++)
        if (!((*rest >= '0' && *rest <= '9') || *rest == '.' || *rest == 'd' || *rest == 'm' || *rest == 't'))
            return false;
    return true;
}

/* Interpreter options whose value is the next argument when not attached. */
static bool nd_opt_takes_value(char c)
{
    return c == 'W' || c == 'X' || c == 'Q';
}

int nd_job_cmdline_script(const char *buf, size_t len, char *script, size_t size)
{
    if (size)
        script[0] = '\0';
    /* Split argv; a last argument without its NUL still counts. */
    size_t pos = 0;
    int argi = 0;
    bool want_value = false;
    while (pos < len) {
        const char *a = buf + pos;
        size_t n = strnlen(a, len - pos);
        pos += n + 1;
        if (argi++ == 0)
            continue; /* the interpreter itself */
        if (want_value) {
            want_value = false;
            continue;
        }
        if (n == 0)
            return -EINVAL;
        if (a[0] != '-')
            return nd_pfmt(script, size, "%.*s", (int)n, a) < 0 ? -EINVAL : 0;
        if (n == 1)
            return -EINVAL; /* "-": the script comes on stdin */
        if (n >= 2 && a[1] == '-') {
            if (n == 2) { /* "--": the script follows */
                if (pos >= len)
                    return -EINVAL;
                const char *s = buf + pos;
                size_t sn = strnlen(s, len - pos);
                return sn && nd_pfmt(script, size, "%.*s", (int)sn, s) >= 0 ? 0 : -EINVAL;
            }
            continue; /* --version, --help, --check-hash-based-pycs (rare) */
        }
        /* A cluster of one-letter flags: -uB, -Wignore, -m module, -mmodule. */
        for (size_t k = 1; k < n; k++) {
            char c = a[k];
            if (c == 'c')
                return -EINVAL; /* code on the command line: no script to name */
            if (c == 'm') {
                const char *mod = a + k + 1;
                size_t mn = n - k - 1;
                if (mn == 0) {
                    if (pos >= len)
                        return -EINVAL;
                    mod = buf + pos;
                    mn = strnlen(mod, len - pos);
                }
                return mn && nd_pfmt(script, size, "-m %.*s", (int)mn, mod) >= 0 ? 0 : -EINVAL;
            }
            if (nd_opt_takes_value(c)) {
                if (k + 1 == n)
                    want_value = true;
                break;
            }
        }
    }
    return -EINVAL;
}

int nd_job_cmd_from_pid(pid_t pid, struct nd_job_cmd *out)
{
    memset(out, 0, sizeof *out);
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/exe", (long)pid);
    ssize_t n = readlink(path, out->exe, sizeof out->exe - 1);
    if (n < 0) {
        out->exe[0] = '\0';
        int e = errno;
        if (e == ENOENT)
            return -ESRCH;
        return e == EACCES || e == EPERM ? -EACCES : -e;
    }
    out->exe[n] = '\0';
    /* A replaced interpreter reads "/usr/bin/python3.11 (deleted)": that file is gone. */
    const char *del = " (deleted)";
    size_t dl = strlen(del);
    if ((size_t)n > dl && strcmp(out->exe + n - dl, del) == 0)
        out->exe[n - dl] = '\0';
    const char *base = strrchr(out->exe, '/');
    out->is_python = nd_job_is_python_name(base ? base + 1 : out->exe);
    if (!out->is_python)
        return 0;
    snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)pid);
    char *buf;
    size_t len;
    struct nd_error err;
    if (nd_read_file_prefix(path, 64 * 1024, &buf, &len, &err) == 0) {
        nd_job_cmdline_script(buf, len, out->script, sizeof out->script);
        free(buf);
    }
    return 0;
}

int nd_job_python_choose(pid_t pid, const char **python, char *buf, size_t bufsz, struct nd_environ *env, char *note,
                         size_t notesz)
{
    note[0] = '\0';
    struct nd_job_cmd *jc = calloc(1, sizeof *jc);
    if (!jc)
        return -ENOMEM;
    int jrc = nd_job_cmd_from_pid(pid, jc);
    if (jrc < 0)
        snprintf(note, notesz, "cannot read /proc/%ld/exe (%s): judging python3 on the job's PATH", (long)pid,
                 strerror(-jrc));
    else if (!jc->is_python)
        snprintf(note, notesz, "pid %ld runs %.300s, not a Python: judging python3 on its PATH", (long)pid, jc->exe);
    else if (!*python && !nd_rootfs_exists(jc->exe))
        snprintf(note, notesz, "pid %ld runs %.300s, which is not under the root: judging python3 on its PATH",
                 (long)pid, jc->exe);
    else {
        if (!*python) {
            snprintf(buf, bufsz, "%s", jc->exe);
            *python = buf;
        }
        free(env->job_python);
        env->job_python = nd_xstrdup(jc->exe);
        if (jc->script[0]) {
            free(env->job_script);
            env->job_script = nd_xstrdup(jc->script);
        }
    }
    free(jc);
    return 0;
}
