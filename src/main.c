/* npu-doctor: is the training job really on the accelerator, and if not, why?
 * This file only dispatches `npu-doctor <command>` to cmd_<command>(). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/build_info.h"
#include "kb/kb.h"
#include "core/exitcode.h"
#include "core/redact.h"
#include "core/suggest.h"

struct nd_command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
};

static const struct nd_command nd_commands[] = {
    {"check", cmd_check, "pre-flight check: driver, devices, CANN/CUDA, environment, Python"},
    {"run", cmd_run, "run a job and watch it: silent CPU fallback, idle device, hang, OOM"},
    {"watch", cmd_watch, "attach to a running job (--pid N) and watch it the same way"},
    {"ps", cmd_ps, "which processes hold a device, and which busy ML processes hold none"},
    {"explain", cmd_explain, "name the root cause of a failed job from its logs"},
    {"snapshot", cmd_snapshot, "record this environment as JSON, with secrets redacted"},
    {"diff", cmd_diff, "compare snapshots: good run vs bad run, or one node vs the rest"},
    {"rules", cmd_rules, "list, lint and test the knowledge-base rules"},
};

static void nd_usage(FILE *fp)
{
    fprintf(fp,
            "usage: npu-doctor <command> [options]\n"
            "       npu-doctor --version | --help\n\n"
            "Is your training job really running on the NPU/GPU? If not, why, and what to do.\n\n"
            "commands:\n");
    for (size_t i = 0; i < sizeof nd_commands / sizeof *nd_commands; i++)
        fprintf(fp, "  %-9s %s\n", nd_commands[i].name, nd_commands[i].summary);
    fprintf(fp,
            "\n'npu-doctor <command> --help' shows a command's options.\n"
            "exit codes: 0 ok, 1 warnings, 2 errors, 64 usage, 66 input missing, 70 internal\n"
            "error, 73 an output file cannot be written; run/watch return the job's own\n"
            "status (3 when --fail-fast stopped it); watch returns 0/1/2 by the worst\n"
            "finding when --for ends first or the job's status cannot be read.\n");
}

/* Started with fd 0, 1 or 2 closed (a daemon's exec, `2>&-`), the next file
 * we open would become stdout or stderr: a --json-summary file would get the
 * job's output, a report would get our warnings. Each closed one is opened
 * to /dev/null before anything else. */
static void nd_sanitize_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0)
            continue;
        int nfd = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (nfd < 0)
            _exit(ND_EXIT_INTERNAL);   /* nowhere to say it, and nothing safe to open */
        if (nfd != fd) {               /* a lower one was open: place it explicitly */
            dup2(nfd, fd);
            close(nfd);
        }
    }
}

int main(int argc, char **argv)
{
    nd_sanitize_std_fds();
    if (argc < 2) {
        nd_usage(stderr);
        return ND_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        nd_usage(stdout);
        return ND_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0 || strcmp(cmd, "version") == 0) {
        nd_build_info_print(stdout);
        size_t db = nd_kb_prebuilt_size();
        if (db)
            printf("rules database: built in (%.1f MiB, compiled at build time)\n", (double)db / 1048576.0);
        else
            printf("rules database: compiled on first use, then cached\n");
        return ND_EXIT_OK;
    }
    if (strcmp(cmd, "help") == 0) {
        if (argc < 3) {
            nd_usage(stdout);
            return ND_EXIT_OK;
        }
        cmd = argv[2];
        for (size_t i = 0; i < sizeof nd_commands / sizeof *nd_commands; i++)
            if (strcmp(cmd, nd_commands[i].name) == 0) {
                char *av[] = {argv[2], "--help", NULL};
                return nd_commands[i].fn(2, av);
            }
    }
    /* An operator's NPU_DOCTOR_REDACT pattern that does not compile would
     * silently redact nothing: refuse to run instead. */
    struct nd_error err;
    if (nd_redact_check_env(&err) < 0) {
        fprintf(stderr, "npu-doctor: %s\n", err.msg);
        return ND_EXIT_USAGE;
    }
    for (size_t i = 0; i < sizeof nd_commands / sizeof *nd_commands; i++)
        if (strcmp(cmd, nd_commands[i].name) == 0)
            return nd_commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "npu-doctor: unknown command '%s' (see 'npu-doctor --help')\n", cmd);
    const char *names[sizeof nd_commands / sizeof *nd_commands];
    for (size_t i = 0; i < sizeof nd_commands / sizeof *nd_commands; i++)
        names[i] = nd_commands[i].name;
    const char *best = nd_suggest(cmd, names, sizeof names / sizeof *names);
    if (best)
        fprintf(stderr, "did you mean '%s'?\n", best);
    return ND_EXIT_USAGE;
}
