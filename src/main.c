/* npu-doctor: is the training job really on the accelerator, and if not, why?
 * This file only dispatches `npu-doctor <command>` to cmd_<command>(). */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "core/build_info.h"
#include "kb/kb.h"
#include "core/exitcode.h"
#include "core/redact.h"
#include "core/suggest.h"
#include "core/termsafe.h"

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

static const char nd_top_footer[] = "'npu-doctor <command> --help' shows a command's options.\n"
                                    "exit codes: 0 ok, 1 warnings, 2 errors, 64 usage, 66 input missing, 70 internal\n"
                                    "error, 73 an output file cannot be written; run/watch return the job's own\n"
                                    "status (3 when --fail-fast stopped it); watch returns 0/1/2 by the worst\n"
                                    "finding when --for ends first or the job's status cannot be read.\n";

/* The top level's own table; its help lists the commands. */
static void nd_top_spec(struct nd_cmd_spec *spec, struct nd_option *opts, bool *version)
{
    static char about[2048];
    size_t used = (size_t)snprintf(about, sizeof about,
                                   "Is your training job really running on the NPU/GPU? If not, why, and what to do."
                                   "\n\ncommands:\n");
    for (size_t i = 0; i < sizeof nd_commands / sizeof *nd_commands && used < sizeof about; i++)
        used += (size_t)snprintf(about + used, sizeof about - used, "  %-9s %s\n", nd_commands[i].name,
                                 nd_commands[i].summary);
    opts[0] = (struct nd_option){.name = "version",
                                 .short_name = 'V',
                                 .kind = ND_ARG_NONE,
                                 .out = version,
                                 .help = "the version and how it was built"};
    opts[1] = (struct nd_option){0};
    *spec = (struct nd_cmd_spec){.name = "",
                                 .usage = "npu-doctor <command> [options]\nnpu-doctor --version | --help",
                                 .about = about,
                                 .opts = opts,
                                 .footer = nd_top_footer,
                                 .flags = ND_SPEC_STOP_AT_OPERAND};
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
            _exit(ND_EXIT_INTERNAL); /* nowhere to say it, and nothing safe to open */
        if (nfd != fd) {             /* a lower one was open: place it explicitly */
            dup2(nfd, fd);
            close(nfd);
        }
    }
}

/* --version: the build, the libraries, and whether the rules come compiled. */
static void nd_print_version(void)
{
    nd_build_info_print(stdout);
    size_t db = nd_kb_prebuilt_size();
    if (db)
        printf("rules database: built in (%.1f MiB, compiled at build time)\n", (double)db / 1048576.0);
    else
        printf("rules database: compiled on first use, then cached\n");
}

static int nd_main(int argc, char **argv, const char **label)
{
    struct nd_cmd_spec top;
    struct nd_option top_opts[2];
    bool version = false;
    nd_top_spec(&top, top_opts, &version);
    if (argc < 2) {
        nd_opts_help(&top, stderr);
        return ND_EXIT_USAGE;
    }
    int first = 1;
    if (argv[1][0] == '-') {
        int rc = nd_opts_parse(&top, argc, argv, NULL, &first);
        if (rc)
            return rc == ND_OPTS_HELP ? ND_EXIT_OK : rc;
        if (version) {
            nd_print_version();
            return ND_EXIT_OK;
        }
        if (first >= argc) {
            nd_opts_help(&top, stderr);
            return ND_EXIT_USAGE;
        }
    }
    const char *cmd = argv[first];
    if (strcmp(cmd, "version") == 0) {
        nd_print_version();
        return ND_EXIT_OK;
    }
    if (strcmp(cmd, "help") == 0) {
        if (first + 1 >= argc) {
            nd_opts_help(&top, stdout);
            return ND_EXIT_OK;
        }
        cmd = argv[first + 1];
        for (size_t i = 0; i < sizeof nd_commands / sizeof *nd_commands; i++)
            if (strcmp(cmd, nd_commands[i].name) == 0) {
                char *av[] = {argv[first + 1], "--help", NULL};
                *label = nd_commands[i].name;
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
        if (strcmp(cmd, nd_commands[i].name) == 0) {
            *label = nd_commands[i].name;
            return nd_commands[i].fn(argc - first, argv + first);
        }
    const char *names[sizeof nd_commands / sizeof *nd_commands];
    for (size_t i = 0; i < sizeof nd_commands / sizeof *nd_commands; i++)
        names[i] = nd_commands[i].name;
    char *shown = nd_term_printable(cmd);
    nd_opts_usage_hint(NULL, nd_suggest(cmd, names, sizeof names / sizeof *names), "unknown command '%s'",
                       shown ? shown : "?");
    free(shown);
    return ND_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    nd_sanitize_std_fds();
    const char *label = NULL;
    int code = nd_main(argc, argv, &label);
    /* Every command's output ends here: a full disk or a closed pipe
     * is said once, for all of them. */
    return nd_opts_close_stdout(label, code);
}
