/* npu-doctor check: the pre-flight check. Level 1 reads files only (well
 * under a second); level 2 adds the Python import probe, the device layer
 * and the runtime smoke test; level 3 adds bandwidth. Exit 0/1/2 by the
 * worst finding; 64 usage, 66 missing input, 70 internal error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "core/exitcode.h"
#include "core/report.h"
#include "core/rootfs.h"
#include "probe/checkup.h"
#include "core/environ.h"
#include "probe/jobcmd.h"
#include "core/strbuf.h"
#include "core/term.h"

static const char check_about[] = "Checks that a job started here will really run on the NPU or GPU: driver,\n"
                                  "firmware, CANN/CUDA install, the job's environment, the Python stack,\n"
                                  "versions, distributed settings.\n";

static const char check_footer[] = "Exit status: 0 fine, 1 warnings, 2 errors (--quiet: 0 on warnings unless\n"
                                   "--strict or --fail-on warning), 64 usage, 66 missing input, 70 internal.\n";

/* What counts as failure for the exit status (--fail-on, --quiet, --strict). */
enum check_fail_on { CHECK_FAIL_DEFAULT, CHECK_FAIL_ERROR, CHECK_FAIL_WARNING, CHECK_FAIL_NEVER };

/* The exit status for the worst finding under the chosen policy: --quiet is
 * for entrypoints and prologs, where a warning (two python3 on PATH) must not
 * stop a container, so it fails on errors only unless --strict. */
static int check_exit_code(int worst, enum check_fail_on fail_on, bool quiet, bool strict)
{
    if (worst != ND_EXIT_WARNINGS && worst != ND_EXIT_ERRORS)
        return worst;
    if (fail_on == CHECK_FAIL_DEFAULT)
        fail_on = quiet && !strict ? CHECK_FAIL_ERROR : CHECK_FAIL_WARNING;
    if (fail_on == CHECK_FAIL_NEVER)
        return ND_EXIT_OK;
    if (fail_on == CHECK_FAIL_ERROR && worst == ND_EXIT_WARNINGS)
        return ND_EXIT_OK;
    return worst;
}

static int check_set_wide(const char *cmd, const char *arg, void *ctx)
{
    (void)cmd, (void)arg, (void)ctx;
    nd_term_set_wide(true);
    return 0;
}

static int check_add_redact(const char *cmd, const char *arg, void *ctx)
{
    (void)ctx;
    return nd_cmd_add_redact(cmd, arg);
}

int cmd_check(int argc, char **argv)
{
    int level = 1;
    bool json = false, quiet = false, verbose = false, strict = false, issue = false;
    int fail_on = CHECK_FAIL_DEFAULT;
    const char *root = NULL, *env_file = NULL, *python = NULL;
    long env_pid = -1;
    double timeout = 30;
    static const struct nd_opt_choice levels[] = {{"1", 1, false}, {"2", 2, false}, {"3", 3, false}, {NULL, 0, false}};
    static const struct nd_opt_choice fail_ons[] = {
        {"error", CHECK_FAIL_ERROR, false},     {"errors", CHECK_FAIL_ERROR, true},
        {"warning", CHECK_FAIL_WARNING, false}, {"warnings", CHECK_FAIL_WARNING, true},
        {"never", CHECK_FAIL_NEVER, false},     {NULL, 0, false},
    };
    const struct nd_option opts[] = {
        {.name = "level",
         .short_name = 'l',
         .kind = ND_ARG_ENUM,
         .out = &level,
         .choices = levels,
         .arg_name = "N",
         .help = "1: files only, no imports (default); 2: also import torch/torch_npu, query the devices and run a "
                 "runtime smoke test; 3: also host<->device bandwidth"},
        {.name = "json", .kind = ND_ARG_NONE, .out = &json, .help = "one JSON object (schema npu-doctor/2): findings, facts"},
        {.name = "quiet",
         .short_name = 'q',
         .kind = ND_ARG_NONE,
         .out = &quiet,
         .help = "print problems only; warnings exit 0 (entrypoints: npu-doctor check --quiet || exit 1)"},
        {.name = "strict", .kind = ND_ARG_NONE, .out = &strict, .help = "with --quiet: warnings exit 1 as without it"},
        {.name = "fail-on",
         .kind = ND_ARG_ENUM,
         .out = &fail_on,
         .choices = fail_ons,
         .arg_name = "WHAT",
         .help = "error: exit 2 on errors only; warning: also exit 1 on warnings; never: exit 0 whatever was found"},
        {.name = "report-issue",
         .kind = ND_ARG_NONE,
         .out = &issue,
         .help = "print a redacted Markdown block to paste into an issue"},
        {.name = "root",
         .kind = ND_ARG_STRING,
         .out = &root,
         .arg_name = "DIR",
         .help = "inspect the install under DIR (a container's root)"},
        {.name = "env-from",
         .kind = ND_ARG_PID,
         .out = &env_pid,
         .arg_name = "PID",
         .help = "judge the environment of a running process"},
        {.name = "env-file",
         .kind = ND_ARG_STRING,
         .out = &env_file,
         .arg_name = "FILE",
         .help = "judge KEY=VALUE lines (env, docker inspect output)"},
        {.name = "python",
         .kind = ND_ARG_STRING,
         .out = &python,
         .arg_name = "PATH",
         .help = "the job's interpreter (default: python3 on its PATH)"},
        {.name = "timeout",
         .kind = ND_ARG_SECONDS,
         .out = &timeout,
         .min = 0.1,
         .max = 3600,
         .arg_name = "SEC",
         .help = "deadline of the level-2 Python probe (default 30)"},
        {.name = "redact",
         .kind = ND_ARG_STRING,
         .flags = ND_OPTF_REPEAT,
         .cb = check_add_redact,
         .arg_name = "REGEX",
         .help = "also redact variables whose name matches REGEX"},
        {.name = "verbose", .short_name = 'v', .kind = ND_ARG_NONE, .out = &verbose, .help = "also show notes (info findings)"},
        {.name = "wide",
         .kind = ND_ARG_NONE,
         .cb = check_set_wide,
         .help = "do not wrap lines to the terminal width (80 in a pipe)"},
        {0},
    };
    const struct nd_cmd_spec spec = {"check",      "npu-doctor check [options]", check_about, opts,
                                     check_footer, ND_SPEC_NO_OPERANDS};
    int first;
    int prc = nd_opts_parse(&spec, argc, argv, NULL, &first);
    if (prc)
        return prc == ND_OPTS_HELP ? ND_EXIT_OK : prc;
    if (issue && json)
        return nd_cmd_fail("check", ND_EXIT_USAGE, "--report-issue and --json exclude each other");
    if (env_file && env_pid > 0)
        return nd_cmd_fail("check", ND_EXIT_USAGE, "--env-from and --env-file exclude each other");

    struct nd_error err = {0, ""};
    if (root && nd_rootfs_set(root, &err) < 0)
        return nd_cmd_fail("check", ND_EXIT_NOINPUT, "%s", err.msg);

    struct nd_environ env;
    int rc;
    if (env_file)
        rc = nd_environ_from_file(env_file, &env, &err);
    else if (env_pid > 0)
        rc = nd_environ_from_pid((pid_t)env_pid, &env, &err);
    else
        rc = nd_environ_from_self(&env);
    if (rc < 0) {
        nd_environ_release(&env);
        return nd_cmd_fail("check", ND_EXIT_NOINPUT, "%s", err.msg);
    }
    /* A relative --python names a file under the working directory (in-root paths are absolute). */
    char python_abs[4096];
    if (python && strchr(python, '/') && python[0] != '/' && nd_rootfs_is_default()) {
        char cwd[4000];
        if (getcwd(cwd, sizeof cwd) &&
            (size_t)snprintf(python_abs, sizeof python_abs, "%s/%s", cwd, python) < sizeof python_abs)
            python = python_abs;
    }
    if (python && strchr(python, '/') && !nd_rootfs_exists(python)) {
        nd_environ_release(&env);
        return nd_cmd_fail("check", ND_EXIT_NOINPUT, "--python %s: no such file", python);
    }

    /* --env-from PID: judge the interpreter the job really runs, not the
     * first python3 on its PATH, and name its command in fix lines. */
    char job_note[512] = "";
    if (env_pid > 0 && nd_job_python_choose((pid_t)env_pid, &python, python_abs, sizeof python_abs, &env, job_note,
                                            sizeof job_note) < 0) {
        nd_environ_release(&env);
        return nd_cmd_fail("check", ND_EXIT_INTERNAL, "out of memory");
    }
    if (python && !env.job_python)
        env.job_python = nd_xstrdup(python);

    struct nd_check_options opt = {
        .level = level,
        .python = python,
        .env = &env,
        .probe_timeout_s = timeout,
        .device_timeout_s = 5.0,
        .job_note = job_note[0] ? job_note : NULL,
        .run_tools = issue,
    };
    struct nd_report rep;
    nd_report_init(&rep, "check");
    rc = nd_checkup_run(&opt, &rep, &err);
    if (rc < 0) {
        nd_report_release(&rep);
        nd_environ_release(&env);
        return nd_cmd_fail("check", ND_EXIT_INTERNAL, "%s", err.msg);
    }
    int code = check_exit_code(nd_findings_exit_code(&rep.findings), (enum check_fail_on)fail_on, quiet, strict);
    if (json) {
        if (nd_report_print_json(&rep, stdout) < 0)
            code = ND_EXIT_INTERNAL;
    } else if (issue) {
        nd_report_print_issue(&rep, stdout, ND_VERSION);
    } else {
        struct nd_text_options to = {.color = nd_term_wants_color(stdout), .quiet = quiet, .verbose = verbose};
        nd_report_print_text(&rep, stdout, &to);
    }
    nd_report_release(&rep);
    nd_environ_release(&env);
    return code;
}
