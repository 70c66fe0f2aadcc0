/* npu-doctor diff: what differs between snapshots that matters, most
 * relevant first; two files side by side, three and more against the
 * majority. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/diff_compat.h"
#include "diff/diff.h"
#include "core/exitcode.h"
#include "core/json_util.h"
#include "core/redact.h"
#include "core/report.h"
#include "snapshot/snapshot.h"
#include "core/strbuf.h"

static const char nd_diff_about[] = "Compares snapshots written by 'npu-doctor snapshot'. Two files: every\n"
                                    "difference that matters, most relevant first (vendor stack and its\n"
                                    "environment variables, devices, Python stack, host limits, the rest);\n"
                                    "PATH-like variables entry by entry (\"missing: /usr/local/...\").\n"
                                    "Three or more files: for each fact the majority value and the nodes that\n"
                                    "differ (\"node-17: CANN 8.0.0 (others: 8.1.RC1)\").\n"
                                    "Every snapshot's versions are also judged against the compatibility\n"
                                    "tables: a node whose CANN, driver, torch, torch_npu, CUDA or Python do not\n"
                                    "fit together is named as a finding.\n";

static const char nd_diff_footer[] = "Exit status: 0 no differences, 1 differences found, 64 usage (fewer than two\n"
                                     "files), 66 a file missing, unreadable, a directory, not a snapshot,\n"
                                     "truncated, or of a newer schema.\n";

static int nd_diff_add_redact(const char *cmd, const char *arg, void *ctx)
{
    (void)ctx;
    return nd_cmd_add_redact(cmd, arg);
}

int cmd_diff(int argc, char **argv)
{
    bool json = false, all = false;
    const struct nd_option opts[] = {
        {.name = "all",
         .kind = ND_ARG_NONE,
         .out = &all,
         .help = "also show noise: times, pids, hostnames, ranks, SHLVL, OLDPWD, SSH_*..."},
        {.name = "json",
         .kind = ND_ARG_NONE,
         .out = &json,
         .help = "one JSON object: {\"differences\": [{\"key\", \"values\", \"majority\", \"outliers\"}]}"},
        {.name = "redact",
         .kind = ND_ARG_STRING,
         .flags = ND_OPTF_REPEAT,
         .cb = nd_diff_add_redact,
         .arg_name = "REGEX",
         .help = "also redact variables whose name matches REGEX, as NPU_DOCTOR_REDACT=REGEX in the environment "
                 "does"},
        {0},
    };
    const struct nd_cmd_spec spec = {"diff",
                                     "npu-doctor diff [--all] [--json] [--redact REGEX]... A.json B.json\n"
                                     "                [C.json...]",
                                     nd_diff_about,
                                     opts,
                                     nd_diff_footer,
                                     0};
    int first_op, rc = nd_opts_parse(&spec, argc, argv, NULL, &first_op);
    struct nd_error err;
    if (rc) {
        nd_redact_reset();
        return rc == ND_OPTS_HELP ? ND_EXIT_OK : rc;
    }
    if (nd_redact_check_env(&err) < 0) {
        nd_redact_reset();
        return nd_cmd_fail("diff", ND_EXIT_USAGE, "%s", err.msg);
    }
    size_t nfiles = (size_t)(argc - first_op);
    if (nfiles < 2) {
        nd_redact_reset();
        if (nfiles == 1)
            return nd_cmd_fail("diff", ND_EXIT_USAGE,
                               "needs two or more snapshots to compare, got only %s (see --help)", argv[first_op]);
        return nd_cmd_fail("diff", ND_EXIT_USAGE, "needs two or more snapshot files (see --help)");
    }
    for (size_t i = 0; i < nfiles; i++)
        for (size_t j = i + 1; j < nfiles; j++)
            if (strcmp(argv[first_op + i], argv[first_op + j]) == 0) {
                nd_redact_reset();
                return nd_cmd_fail("diff", ND_EXIT_USAGE, "%s is given twice", argv[first_op + i]);
            }

    /* One document in memory at a time: 1000 snapshots stay small. */
    struct nd_diff *d = nd_diff_new(nfiles);
    struct nd_findings *per_file = nd_xcalloc(nfiles, sizeof *per_file);
    for (size_t i = 0; i < nfiles; i++) {
        const char *path = argv[first_op + (int)i];
        json_t *doc;
        nd_error_clear(&err);
        if (nd_snapshot_load(path, &doc, &err) < 0) {
            for (size_t k = 0; k < i; k++)
                nd_findings_release(&per_file[k]);
            free(per_file);
            nd_diff_free(d);
            nd_redact_reset();
            return nd_cmd_fail("diff", ND_EXIT_NOINPUT, "%s", err.msg);
        }
        nd_diff_add(d, i, path, doc);
        nd_diff_compat_judge(doc, &per_file[i]);
        json_decref(doc);
    }
    struct nd_diff_result r;
    nd_diff_compute(d, all, &r);
    /* Versions that differ are one thing; a node whose versions do not fit together is named as such. */
    struct nd_findings compat = ND_FINDINGS_INIT;
    nd_diff_compat_merge(d, per_file, &compat);
    for (size_t i = 0; i < nfiles; i++)
        nd_findings_release(&per_file[i]);
    free(per_file);
    if (json) {
        json_t *o = nd_diff_to_json(d, &r);
        json_object_set_new(o, "findings", nd_findings_to_json(&compat));
        nd_redact_json(o);
        if (nd_json_dumpf_safe(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
            rc = ND_EXIT_INTERNAL;
        fputc('\n', stdout);
        json_decref(o);
    } else {
        bool color = nd_term_wants_color(stdout);
        nd_diff_print_text(d, &r, stdout, color);
        if (compat.n)
            fprintf(stdout, "\nincompatible versions (per the compatibility tables):\n");
        for (size_t i = 0; i < compat.n; i++)
            nd_finding_print_text(compat.v[i], stdout, color, "  ");
    }
    nd_findings_release(&compat);
    if (rc == ND_EXIT_OK)
        rc = r.n ? 1 : ND_EXIT_OK;
    nd_diff_result_release(&r);
    nd_diff_free(d);
    nd_redact_reset();
    return rc;
}
