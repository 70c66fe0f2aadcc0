/* What a running job executes: its interpreter (/proc/PID/exe) and, for a
 * Python, the script or module it runs (/proc/PID/cmdline). check
 * --env-from PID judges that interpreter instead of the first python3 on
 * PATH, and its fix lines name the job's own command. */
#ifndef ND_PROBE_JOBCMD_H
#define ND_PROBE_JOBCMD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct nd_job_cmd {
    char exe[PATH_MAX];    /* /proc/PID/exe, "" when unreadable */
    bool is_python;        /* exe is a CPython or PyPy interpreter */
    char script[PATH_MAX]; /* "train.py", "-m torch.distributed.run"; "" when unknown */
};

/* True when a file name (no folders) names a Python interpreter:
 * python, python3, python3.11, python3.11d, pypy3. */
bool nd_job_is_python_name(const char *base);

/* The script a Python command line runs, from a NUL-separated argv as in
 * /proc/PID/cmdline: the first argument after the interpreter's own options,
 * or "-m MODULE"; "" for -c, stdin or no argument. Returns 0, or -EINVAL
 * when there is no script to name. */
int nd_job_cmdline_script(const char *buf, size_t len, char *script, size_t size);

/* Reads /proc/PID/exe and /proc/PID/cmdline (always the live /proc).
 * Returns 0, -ESRCH for a missing process, -EACCES when exe is not ours to
 * read; fields stay "" for what could not be read. */
int nd_job_cmd_from_pid(pid_t pid, struct nd_job_cmd *out);

struct nd_environ;

/* The interpreter to judge for a job read with --env-from PID: the job's own
 * (/proc/PID/exe) when it is a Python under the root, else python3 on the
 * job's PATH. *python (NULL unless --python was given) is set to the job's
 * interpreter, copied into buf, when the caller gave none; env->job_python
 * and env->job_script name the job's command for fix lines. When the job's
 * own interpreter cannot be used, note says why (else it is ""). Returns 0,
 * -ENOMEM. */
int nd_job_python_choose(pid_t pid, const char **python, char *buf, size_t bufsz, struct nd_environ *env, char *note,
                         size_t notesz);

#endif
