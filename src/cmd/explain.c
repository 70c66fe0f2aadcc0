/* npu-doctor explain: reads logs (files, directories, stdin, .gz) and names
 * the root cause of a failed job first, with its evidence, cause and fix. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/explain_compat.h"
#include "cmd/explain_stall.h"
#include "core/exitcode.h"
#include "core/termsafe.h"
#include "core/json_util.h"
#include "core/report.h"
#include "core/rootfs.h"
#include "core/term.h"
#include "kb/kb.h"

static const char explain_about[] = "Names the root cause of a failed job from its logs: plog/slog, rank logs,\n"
                                    "job output; directories are read recursively, .gz through zlib, - is stdin.\n";

static const char explain_footer[] = "Exit: 0 nothing above info, 1 warnings, 2 errors, 64 usage or broken rules,\n"
                                     "66 nothing could be read (or a rules file too large).\n"
                                     "Devices are not read, a FIFO must deliver within 5 s, and NUL runs (a log\n"
                                     "cut short while written) are skipped.\n";

/* --rules DIR, in the order given. */
struct explain_dirs {
    const char **v;
    size_t n;
};

static int explain_add_rules(const char *cmd, const char *arg, void *ctx)
{
    (void)cmd;
    struct explain_dirs *d = ctx;
    d->v[d->n++] = arg;
    return 0;
}

static int explain_set_root(const char *cmd, const char *arg, void *ctx)
{
    (void)ctx;
    struct nd_error err = {0};
    if (nd_rootfs_set(arg, &err) != 0)
        return nd_cmd_fail(cmd, ND_EXIT_NOINPUT, "%s", err.msg);
    return 0;
}

static int explain_add_redact(const char *cmd, const char *arg, void *ctx)
{
    (void)ctx;
    return nd_cmd_add_redact(cmd, arg);
}

static int explain_set_wide(const char *cmd, const char *arg, void *ctx)
{
    (void)cmd, (void)arg, (void)ctx;
    nd_term_set_wide(true);
    return 0;
}

static void explain_print_text(const struct nd_findings *fs, struct nd_kb_scan *scan, bool all, FILE *fp)
{
    char scope[96];
    snprintf(scope, sizeof scope, "%zu input%s (%llu lines)", nd_kb_scan_inputs(scan),
             nd_kb_scan_inputs(scan) == 1 ? "" : "s", nd_kb_scan_lines(scan));
    nd_findings_print_ranked(fs, all, scope, fp);
}

int cmd_explain(int argc, char **argv)
{
    bool json = false, all = false, follow = false;
    struct explain_dirs rd = {calloc((size_t)argc + 1, sizeof *rd.v), 0};
    if (!rd.v)
        return nd_cmd_fail("explain", ND_EXIT_INTERNAL, "out of memory");
    const struct nd_option opts[] = {
        {.name = "json", .kind = ND_ARG_NONE, .out = &json, .help = "one JSON object (schema npu-doctor/2), root cause first"},
        {.name = "all",
         .kind = ND_ARG_NONE,
         .out = &all,
         .help = "show every finding in full, wrappers and info findings too"},
        {.name = "follow",
         .kind = ND_ARG_NONE,
         .out = &follow,
         .help = "in directories, also read symbolic links that lead out of the tree (by default they are noted "
                 "and skipped)"},
        {.name = "rules",
         .kind = ND_ARG_STRING,
         .flags = ND_OPTF_REPEAT,
         .cb = explain_add_rules,
         .arg_name = "DIR",
         .help = "load more *.rules files from DIR"},
        {.name = "root",
         .kind = ND_ARG_STRING,
         .cb = explain_set_root,
         .arg_name = "DIR",
         .help = "read /etc/npu-doctor/rules.d under DIR"},
        {.name = "redact",
         .kind = ND_ARG_STRING,
         .flags = ND_OPTF_REPEAT,
         .cb = explain_add_redact,
         .arg_name = "REGEX",
         .help = "also redact variables whose name matches REGEX"},
        {.name = "wide",
         .kind = ND_ARG_NONE,
         .cb = explain_set_wide,
         .help = "do not wrap lines to the terminal width (80 in a pipe)"},
        {0},
    };
    const struct nd_cmd_spec spec = {
        "explain", "npu-doctor explain [options] LOG|DIR|- ...", explain_about, opts, explain_footer, 0};
    int first_op, rc = nd_opts_parse(&spec, argc, argv, &rd, &first_op);
    const char **dirs = rd.v;
    size_t ndirs = rd.n;
    if (rc) {
        free(dirs);
        return rc == ND_OPTS_HELP ? ND_EXIT_OK : rc;
    }
    if (first_op >= argc) {
        free(dirs);
        return nd_opts_usage_error("explain", "name at least one log file, directory or - (stdin)");
    }
    struct nd_error err = {0};
    struct nd_kb *kb = NULL;
    rc = nd_kb_load(&kb, dirs, ndirs, &err);
    free(dirs);
    if (rc != 0)
        /* A rules file too large to read (-EFBIG) is unreadable input: 66,
         * in explain, run and rules alike. */
        return nd_cmd_fail("explain",
                           rc == -EINVAL                   ? ND_EXIT_USAGE
                           : rc == -ENOENT || rc == -EFBIG ? ND_EXIT_NOINPUT
                                                           : ND_EXIT_INTERNAL,
                           "%s", err.msg);
    struct nd_kb_scan *scan = nd_kb_scan_new(kb);
    nd_kb_scan_set_follow(scan, follow);
    for (int i = first_op; i < argc; i++)
        nd_kb_scan_path(scan, argv[i]);
    for (size_t i = 0; i < nd_kb_scan_nnotes(scan); i++) {
        /* Notes name files: other users' names reach the terminal escaped. */
        char *note = nd_term_printable(nd_kb_scan_note(scan, i));
        fprintf(stderr, "npu-doctor explain: note: %s\n", note);
        free(note);
    }
    if (nd_kb_scan_inputs(scan) == 0) {
        nd_kb_scan_free(scan);
        nd_kb_free(kb);
        return nd_cmd_fail("explain", ND_EXIT_NOINPUT, "nothing could be read from the inputs given");
    }
    struct nd_report rep;
    nd_report_init(&rep, "explain");
    nd_kb_scan_finish(scan, &rep.findings, all);
    nd_explain_stall_check(&rep.findings, argv + first_op, (size_t)(argc - first_op), follow);
    /* The versions the logs print, judged against the tables: the version lines are info
     * findings, so they are read from the full list whatever --all says. */
    struct nd_findings seen = ND_FINDINGS_INIT;
    nd_kb_scan_finish(scan, &seen, true);
    nd_explain_compat(&seen, &rep.findings);
    nd_findings_release(&seen);
    /* The code findings (compat.*, stalls) rank among the rules' by the
     * [code.*] entries of the rule files. */
    nd_kb_rank_code_findings(kb, &rep.findings);
    json_t *inputs = json_object();
    json_object_set_new(inputs, "read", json_integer((json_int_t)nd_kb_scan_inputs(scan)));
    json_object_set_new(inputs, "bytes", json_integer((json_int_t)nd_kb_scan_bytes(scan)));
    json_object_set_new(inputs, "lines", json_integer((json_int_t)nd_kb_scan_lines(scan)));
    nd_report_set_extra(&rep, "inputs", inputs);
    json_t *notes = json_array();
    for (size_t i = 0; i < nd_kb_scan_nnotes(scan); i++)
        json_array_append_new(notes, nd_json_str(nd_kb_scan_note(scan, i)));
    nd_report_set_extra(&rep, "notes", notes);
    if (rep.findings.n > 0) {
        const struct nd_finding *r = rep.findings.v[0];
        json_t *root = json_object();
        json_object_set_new(root, "id", nd_json_str(r->id));
        json_object_set_new(root, "category", nd_json_str(r->category));
        if (r->first_file) {
            json_object_set_new(root, "file", nd_json_str(r->first_file));
            json_object_set_new(root, "line", json_integer(r->first_line));
        }
        if (r->rank >= 0)
            json_object_set_new(root, "rank", json_integer(r->rank));
        nd_report_set_extra(&rep, "root_cause", root);
    }
    if (json) {
        if (nd_report_print_json(&rep, stdout) != 0)
            rc = ND_EXIT_INTERNAL;
    } else {
        explain_print_text(&rep.findings, scan, all, stdout);
    }
    int code = rc ? rc : nd_findings_exit_code(&rep.findings);
    nd_report_release(&rep);
    nd_kb_scan_free(scan);
    nd_kb_free(kb);
    return code;
}
