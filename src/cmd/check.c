/* npu-doctor check: the pre-flight check. Level 1 reads files only (well
 * under a second); level 2 adds the Python import probe, the device layer
 * and the runtime smoke test; level 3 adds bandwidth. Exit 0/1/2 by the
 * worst finding; 64 usage, 66 missing input, 70 internal error. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/exitcode.h"
#include "core/report.h"
#include "core/rootfs.h"
#include "probe/checkup.h"
#include "core/environ.h"
#include "probe/jobcmd.h"
#include "core/strbuf.h"
#include "core/term.h"

static void check_usage(FILE *fp)
{
    fprintf(fp,
            "usage: npu-doctor check [options]\n"
            "\n"
            "Checks that a job started here will really run on the NPU or GPU: driver,\n"
            "firmware, CANN/CUDA install, the job's environment, the Python stack,\n"
            "versions, distributed settings.\n"
            "\n"
            "  -l, --level N        1: files only, no imports (default); 2: also import\n"
            "                       torch/torch_npu, query the devices and run a runtime\n"
            "                       smoke test; 3: also host<->device bandwidth\n"
            "      --json           one JSON object (schema npu-doctor/2): findings, facts\n"
            "  -q, --quiet          print problems only; warnings exit 0 (entrypoints:\n"
            "                       npu-doctor check --quiet || exit 1)\n"
            "      --strict         with --quiet: warnings exit 1 as without it\n"
            "      --fail-on WHAT   error: exit 2 on errors only; warning: also exit 1 on\n"
            "                       warnings; never: exit 0 whatever was found\n"
            "      --report-issue   print a redacted Markdown block to paste into an issue\n"
            "      --root DIR       inspect the install under DIR (a container's root)\n"
            "      --env-from PID   judge the environment of a running process\n"
            "      --env-file FILE  judge KEY=VALUE lines (env, docker inspect output)\n"
            "      --python PATH    the job's interpreter (default: python3 on its PATH)\n"
            "      --timeout SEC    deadline of the level-2 Python probe (default 30)\n"
            "      --redact REGEX   also redact variables whose name matches REGEX\n"
            "  -v, --verbose        also show notes (info findings)\n"
            "      --wide           do not wrap lines to the terminal width (80 in a pipe)\n"
            "  -h, --help           this help\n"
            "\n"
            "Exit status: 0 fine, 1 warnings, 2 errors (--quiet: 0 on warnings unless\n"
            "--strict or --fail-on warning), 64 usage, 66 missing input, 70 internal.\n");
}

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

static int check_parse_num(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int cmd_check(int argc, char **argv)
{
    static const struct option opts[] = {
        {"level", required_argument, NULL, 'l'},  {"json", no_argument, NULL, 'j'},
        {"quiet", no_argument, NULL, 'q'},        {"root", required_argument, NULL, 'r'},
        {"env-from", required_argument, NULL, 'p'}, {"env-file", required_argument, NULL, 'f'},
        {"python", required_argument, NULL, 'y'}, {"timeout", required_argument, NULL, 't'},
        {"verbose", no_argument, NULL, 'v'},      {"help", no_argument, NULL, 'h'},
        {"redact", required_argument, NULL, 'x'}, {"strict", no_argument, NULL, 'S'},
        {"fail-on", required_argument, NULL, 'F'}, {"report-issue", no_argument, NULL, 'I'},
        {"wide", no_argument, NULL, 'W'},         {NULL, 0, NULL, 0},
    };
    int level = 1;
    bool json = false, quiet = false, verbose = false, strict = false, issue = false;
    enum check_fail_on fail_on = CHECK_FAIL_DEFAULT;
    const char *root = NULL, *env_file = NULL, *python = NULL;
    long env_pid = -1;
    double timeout = 30;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "l:qvh", opts, NULL)) != -1) {
        double v;
        switch (c) {
        case 'l':
            if (check_parse_num(optarg, 1, 3, &v) < 0 || v != (int)v)
                return nd_cmd_fail("check", ND_EXIT_USAGE, "--level must be 1, 2 or 3, not '%s'", optarg);
            level = (int)v;
            break;
        case 'j': json = true; break;
        case 'q': quiet = true; break;
        case 'S': strict = true; break;
        case 'I': issue = true; break;
        case 'W': nd_term_set_wide(true); break;
        case 'F':
            if (strcmp(optarg, "error") == 0 || strcmp(optarg, "errors") == 0)
                fail_on = CHECK_FAIL_ERROR;
            else if (strcmp(optarg, "warning") == 0 || strcmp(optarg, "warnings") == 0)
                fail_on = CHECK_FAIL_WARNING;
            else if (strcmp(optarg, "never") == 0)
                fail_on = CHECK_FAIL_NEVER;
            else
                return nd_cmd_fail("check", ND_EXIT_USAGE, "--fail-on must be error, warning or never, not '%s'",
                                   optarg);
            break;
        case 'v': verbose = true; break;
        case 'r': root = optarg; break;
        case 'f': env_file = optarg; break;
        case 'y': python = optarg; break;
        case 'p':
            if (check_parse_num(optarg, 1, 4194304, &v) < 0 || v != (long)v)
                return nd_cmd_fail("check", ND_EXIT_USAGE, "--env-from needs a process id, not '%s'", optarg);
            env_pid = (long)v;
            break;
        case 't':
            if (check_parse_num(optarg, 0.1, 3600, &timeout) < 0)
                return nd_cmd_fail("check", ND_EXIT_USAGE, "--timeout needs seconds (0.1-3600), not '%s'", optarg);
            break;
        case 'x':
            if (nd_cmd_add_redact("check", optarg) != 0)
                return ND_EXIT_USAGE;
            break;
        case 'h':
            check_usage(stdout);
            return ND_EXIT_OK;
        default:
            if (optopt && optopt < 128 && strncmp(argv[optind - 1], "--", 2) != 0)
                return nd_cmd_fail("check", ND_EXIT_USAGE, "option -%c needs a value or is unknown (see --help)",
                                   optopt);
            return nd_cmd_bad_option("check", opts, argv[optind - 1]);
        }
    }
    if (optind < argc)
        return nd_cmd_fail("check", ND_EXIT_USAGE, "unexpected argument '%s' (see --help)", argv[optind]);
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
        nd_environ_free(&env);
        return nd_cmd_fail("check", ND_EXIT_NOINPUT, "%s", err.msg);
    }
    /* A relative --python names a file under the working directory (in-root paths are absolute). */
    char python_abs[4096];
    if (python && strchr(python, '/') && python[0] != '/' && nd_rootfs_is_default()) {
        char cwd[4000];
        if (getcwd(cwd, sizeof cwd) && (size_t)snprintf(python_abs, sizeof python_abs, "%s/%s", cwd, python) <
                                           sizeof python_abs)
            python = python_abs;
    }
    if (python && strchr(python, '/') && !nd_rootfs_exists(python)) {
        nd_environ_free(&env);
        return nd_cmd_fail("check", ND_EXIT_NOINPUT, "--python %s: no such file", python);
    }

    /* --env-from PID: judge the interpreter the job really runs, not the
     * first python3 on its PATH, and name its command in fix lines. */
    char job_note[512] = "";
    if (env_pid > 0 && nd_job_python_choose((pid_t)env_pid, &python, python_abs, sizeof python_abs, &env, job_note,
                                            sizeof job_note) < 0) {
        nd_environ_free(&env);
        return nd_cmd_fail("check", ND_EXIT_INTERNAL, "out of memory");
    }
    if (python && !env.job_python)
        env.job_python = nd_xstrdup(python);

    struct nd_check_options opt = {
        .level = level, .python = python, .env = &env, .probe_timeout_s = timeout, .device_timeout_s = 5.0,
        .job_note = job_note[0] ? job_note : NULL, .run_tools = issue,
    };
    struct nd_report rep;
    nd_report_init(&rep, "check");
    rc = nd_checkup_run(&opt, &rep, &err);
    if (rc < 0) {
        nd_report_free(&rep);
        nd_environ_free(&env);
        return nd_cmd_fail("check", ND_EXIT_INTERNAL, "%s", err.msg);
    }
    int code = check_exit_code(nd_findings_exit_code(&rep.findings), fail_on, quiet, strict);
    if (json) {
        if (nd_report_print_json(&rep, stdout) < 0)
            code = ND_EXIT_INTERNAL;
    } else if (issue) {
        nd_report_print_issue(&rep, stdout, ND_VERSION);
    } else {
        struct nd_text_options to = {.color = nd_term_wants_color(stdout), .quiet = quiet, .verbose = verbose};
        nd_report_print_text(&rep, stdout, &to);
    }
    nd_report_free(&rep);
    nd_environ_free(&env);
    return code;
}
