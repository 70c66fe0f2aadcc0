/* npu-doctor snapshot: this node's whole picture (check's facts and
 * findings, devices, Python packages, limits, the redacted environment and
 * who the rank is) as one JSON document for `npu-doctor diff`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "core/exitcode.h"
#include "core/fileio.h"
#include "core/json_util.h"
#include "core/redact.h"
#include "core/report.h"
#include "core/rootfs.h"
#include "snapshot/snapshot.h"
#include "device/device.h"
#include "probe/checkup.h"
#include "core/environ.h"
#include "probe/jobcmd.h"
#include "probe/python_packages.h"
#include "snapshot/snapshot_devices.h"
#include "snapshot/snapshot_host.h"

static const char nd_snapshot_footer[] = "example:\n"
                                         "  srun --ntasks-per-node=1 npu-doctor snapshot -o snap-%n.json\n"
                                         "\n"
                                         "Exit status: 0 written (problems found are findings inside the document),\n"
                                         "64 usage, 66 unreadable input, 70 internal error, 73 unwritable output.\n";

struct nd_snapshot_opts {
    bool json, text, quiet;
    const char *output;
    int level;
    const char *root;
    const char *env_file;
    long env_pid;
    const char *python;
    double timeout_s; /* level 2's Python probe and the package probe */
};

static int nd_snapshot_add_redact(const char *cmd, const char *arg, void *ctx)
{
    (void)ctx;
    return nd_cmd_add_redact(cmd, arg);
}

/* 0, 1 after --help, or -(exit code) after the error was said. */
static int nd_snapshot_parse_args(int argc, char **argv, struct nd_snapshot_opts *o)
{
    memset(o, 0, sizeof *o);
    o->level = 1;
    o->env_pid = -1;
    o->timeout_s = 30;
    static const struct nd_opt_choice levels[] = {{"1", 1, false}, {"2", 2, false}, {NULL, 0, false}};
    const struct nd_option opts[] = {
        {.name = "output",
         .short_name = 'o',
         .kind = ND_ARG_STRING,
         .out = &o->output,
         .arg_name = "FILE",
         .help = "write the JSON to FILE (atomically; '-' is stdout; a symlink, device or other non-regular file "
                 "there is refused). In FILE, %n is the node name, %h the hostname, %r the rank, %j the Slurm "
                 "job id, %p the pid, %% a '%'"},
        {.name = "json",
         .kind = ND_ARG_NONE,
         .out = &o->json,
         .help = "print the JSON on stdout (default when not a terminal)"},
        {.name = "text", .kind = ND_ARG_NONE, .out = &o->text, .help = "print the short summary (the default on a terminal)"},
        {.name = "level",
         .kind = ND_ARG_ENUM,
         .out = &o->level,
         .choices = levels,
         .arg_name = "N",
         .help = "1: files only (default); 2: also import torch/torch_npu (as check --level 2)"},
        {.name = "root",
         .kind = ND_ARG_STRING,
         .out = &o->root,
         .arg_name = "DIR",
         .help = "read installation and device files under DIR"},
        {.name = "env-file",
         .kind = ND_ARG_STRING,
         .out = &o->env_file,
         .arg_name = "FILE",
         .help = "the job's environment from KEY=VALUE lines or docker inspect JSON"},
        {.name = "env-from",
         .kind = ND_ARG_PID,
         .out = &o->env_pid,
         .arg_name = "PID",
         .help = "the job's environment from /proc/PID/environ"},
        {.name = "python",
         .kind = ND_ARG_STRING,
         .out = &o->python,
         .arg_name = "PATH",
         .help = "the job's interpreter (default: the --env-from job's)"},
        {.name = "redact",
         .kind = ND_ARG_STRING,
         .flags = ND_OPTF_REPEAT,
         .cb = nd_snapshot_add_redact,
         .arg_name = "REGEX",
         .help = "also redact variables whose name matches REGEX"},
        {.name = "timeout",
         .kind = ND_ARG_SECONDS,
         .out = &o->timeout_s,
         .min = 0.1,
         .max = 3600,
         .arg_name = "SEC",
         .help = "deadline of each Python probe (default 30; a loaded host may need more)"},
        {.name = "quiet", .short_name = 'q', .kind = ND_ARG_NONE, .out = &o->quiet, .help = "with -o: print nothing on success"},
        {0},
    };
    char about[512];
    snprintf(about, sizeof about,
             "Records this node as one JSON document (schema npu-doctor/2, snapshot\n"
             "version %d): check's facts and findings, the devices, Python package\n"
             "versions, host limits, the environment with secrets redacted, and the rank\n"
             "identity (torchrun, Slurm, Open MPI/PMI, Kubernetes).\n"
             "Compare snapshots with 'npu-doctor diff'.\n",
             ND_SNAPSHOT_VERSION);
    const struct nd_cmd_spec spec = {"snapshot",
                                     "npu-doctor snapshot [--json | --text] [-o FILE] [--level 1|2]\n"
                                     "                    [--root DIR] [--env-file FILE | --env-from PID]\n"
                                     "                    [--python PATH] [--timeout SEC] [--redact REGEX]...",
                                     about,
                                     opts,
                                     nd_snapshot_footer,
                                     ND_SPEC_NO_OPERANDS};
    int first, rc = nd_opts_parse(&spec, argc, argv, NULL, &first);
    if (rc)
        return rc == ND_OPTS_HELP ? 1 : -rc;
    if (o->json && o->text)
        return nd_cmd_fail("snapshot", -ND_EXIT_USAGE, "--json and --text exclude each other");
    if (o->env_file && o->env_pid > 0)
        return nd_cmd_fail("snapshot", -ND_EXIT_USAGE, "--env-file and --env-from exclude each other");
    struct nd_error err;
    if (nd_redact_check_env(&err) < 0)
        return nd_cmd_fail("snapshot", -ND_EXIT_USAGE, "%s", err.msg);
    return 0;
}

static int nd_snapshot_env(const struct nd_snapshot_opts *o, struct nd_environ *env)
{
    struct nd_error err;
    nd_error_clear(&err);
    int rc;
    if (o->env_file)
        rc = nd_environ_from_file(o->env_file, env, &err);
    else if (o->env_pid > 0)
        rc = nd_environ_from_pid((pid_t)o->env_pid, env, &err);
    else
        rc = nd_environ_from_self(env);
    if (rc < 0) {
        nd_environ_release(env);
        return nd_cmd_fail("snapshot", ND_EXIT_NOINPUT, "%s", err.msg[0] ? err.msg : strerror(-rc));
    }
    return 0;
}

/* Builds the whole document (redacted). NULL on an internal error. */
static json_t *nd_snapshot_build(const struct nd_snapshot_opts *o, const struct nd_environ *env, const char *host,
                                 const char *job_note)
{
    struct nd_report rep;
    nd_report_init(&rep, "snapshot");
    struct nd_check_options copt = {
        .level = o->level,
        .python = o->python,
        .env = env,
        .probe_timeout_s = o->timeout_s,
        .device_timeout_s = 5,
        .job_note = job_note[0] ? job_note : NULL,
    };
    struct nd_error err;
    nd_error_clear(&err);
    if (nd_checkup_run(&copt, &rep, &err) < 0) {
        nd_cmd_fail("snapshot", ND_EXIT_INTERNAL, "check failed: %s", err.msg);
        nd_report_release(&rep);
        return NULL;
    }
    nd_report_set_extra(&rep, "snapshot_version", json_integer(ND_SNAPSHOT_VERSION));
    nd_report_set_extra(&rep, "level", json_integer(o->level));
    nd_report_set_extra(&rep, "identity", nd_snapshot_identity(env, host, time(NULL)));
    json_t *layer;
    nd_report_set_extra(&rep, "devices", nd_snapshot_devices_json(ND_DEVICE_DEFAULT_TIMEOUT, &layer));
    nd_report_set_extra(&rep, "device_layer", layer);
    nd_report_set_extra(&rep, "device_files", nd_snapshot_device_files_json());
    nd_report_set_extra(&rep, "python", nd_python_packages_json(o->python, env, o->timeout_s));
    nd_report_set_extra(&rep, "limits", nd_snapshot_limits_json());
    nd_report_set_extra(&rep, "env", nd_snapshot_env_json(env, NULL));
    /* Which key made the markers: diff compares markers only under one key. */
    nd_report_set_extra(
        &rep, "redaction",
        json_pack("{s:s,s:s}", "key_source", nd_redact_key_source(), "key_fingerprint", nd_redact_key_fingerprint()));
    json_t *doc = nd_report_to_json(&rep);
    nd_report_release(&rep);
    /* Facts and findings come from other probes: the last word is ours. */
    nd_redact_json(doc);
    return doc;
}

static char *nd_snapshot_dump(const json_t *doc)
{
    char *s = nd_json_dumps_safe(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (!s)
        return NULL;
    size_t n = strlen(s);
    char *out = realloc(s, n + 2);
    if (!out) {
        free(s);
        return NULL;
    }
    out[n] = '\n';
    out[n + 1] = '\0';
    return out;
}

int cmd_snapshot(int argc, char **argv)
{
    struct nd_snapshot_opts o;
    int rc = nd_snapshot_parse_args(argc, argv, &o);
    if (rc != 0) {
        nd_redact_reset();
        return rc > 0 ? ND_EXIT_OK : -rc;
    }
    struct nd_error err;
    nd_error_clear(&err);
    if (o.root && nd_rootfs_set(o.root, &err) < 0) {
        nd_redact_reset();
        return nd_cmd_fail("snapshot", ND_EXIT_NOINPUT, "%s", err.msg);
    }
    struct nd_environ env;
    if ((rc = nd_snapshot_env(&o, &env)) != 0) {
        nd_redact_reset();
        return rc;
    }
    /* --env-from PID: the job's own interpreter, as check judges it. */
    char python_buf[PATH_MAX], job_note[512] = "";
    if (o.env_pid > 0 && nd_job_python_choose((pid_t)o.env_pid, &o.python, python_buf, sizeof python_buf, &env,
                                              job_note, sizeof job_note) < 0) {
        nd_environ_release(&env);
        nd_redact_reset();
        return nd_cmd_fail("snapshot", ND_EXIT_INTERNAL, "out of memory");
    }
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "unknown");
    char *path = NULL;
    if (o.output && nd_snapshot_expand_output(o.output, &env, host, &path, &err) < 0) {
        nd_environ_release(&env);
        nd_redact_reset();
        return nd_cmd_fail("snapshot", ND_EXIT_USAGE, "%s", err.msg);
    }
    json_t *doc = nd_snapshot_build(&o, &env, host, job_note);
    nd_environ_release(&env);
    char *text = doc ? nd_snapshot_dump(doc) : NULL;
    rc = ND_EXIT_OK;
    if (!doc) {
        rc = ND_EXIT_INTERNAL;
    } else if (!text) {
        rc = nd_cmd_fail("snapshot", ND_EXIT_INTERNAL, "cannot serialise the snapshot");
    } else if (path) {
        if (nd_write_file_atomic(path, text, strlen(text), &err) < 0)
            rc = nd_cmd_fail("snapshot", ND_EXIT_CANTCREAT, "%s", err.msg);
        else if (strcmp(path, ND_OUTPUT_STDOUT) == 0)
            ; /* -o -: the document itself went to stdout */
        else if (o.json)
            fputs(text, stdout);
        else if (!o.quiet)
            nd_report_note(stdout, "wrote %s (%zu devices, %zu environment variables, %zu findings)", path,
                           json_array_size(json_object_get(doc, "devices")),
                           json_object_size(json_object_get(doc, "env")),
                           json_array_size(json_object_get(doc, "findings")));
    } else if (o.json || (!o.text && !isatty(STDOUT_FILENO))) {
        fputs(text, stdout);
    } else {
        nd_snapshot_print_text(doc, stdout, nd_term_wants_color(stdout));
    }
    free(text);
    free(path);
    json_decref(doc);
    nd_redact_reset();
    return rc;
}
