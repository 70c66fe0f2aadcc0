/* npu-doctor explain: reads logs (files, directories, stdin, .gz) and names
 * the root cause of a failed job first, with its evidence, cause and fix. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/explain_compat.h"
#include "core/exitcode.h"
#include "core/termsafe.h"
#include "core/json_util.h"
#include "core/report.h"
#include "core/rootfs.h"
#include "core/term.h"
#include "kb/kb.h"

static void explain_usage(FILE *fp)
{
    fprintf(fp,
            "usage: npu-doctor explain [options] LOG|DIR|- ...\n"
            "\n"
            "Names the root cause of a failed job from its logs: plog/slog, rank logs,\n"
            "job output; directories are read recursively, .gz through zlib, - is stdin.\n"
            "\n"
            "  --json          one JSON object (schema npu-doctor/2), root cause first\n"
            "  --all           show every finding in full, wrappers and info findings too\n"
            "  --follow        in directories, also read symbolic links that lead out of the\n"
            "                  tree (by default they are noted and skipped)\n"
            "  --rules DIR     load more *.rules files from DIR (repeatable)\n"
            "  --root DIR      read /etc/npu-doctor/rules.d under DIR\n"
            "  --redact REGEX  also redact variables whose name matches REGEX (repeatable)\n"
            "  --wide          do not wrap lines to the terminal width (80 in a pipe)\n"
            "  -h, --help      this text\n"
            "\n"
            "Exit: 0 nothing above info, 1 warnings, 2 errors, 64 usage or broken rules,\n"
            "66 nothing could be read (or a rules file too large).\n"
            "Devices are not read, a FIFO must deliver within 5 s, and NUL runs (a log\n"
            "cut short while written) are skipped.\n");
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
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},  {"all", no_argument, NULL, 'a'},
        {"rules", required_argument, NULL, 'r'}, {"root", required_argument, NULL, 'R'},
        {"redact", required_argument, NULL, 'x'}, {"help", no_argument, NULL, 'h'},
        {"wide", no_argument, NULL, 'W'},
        {"follow", no_argument, NULL, 'F'},
        {NULL, 0, NULL, 0},
    };
    bool json = false, all = false, follow = false;
    const char **dirs = calloc((size_t)argc + 1, sizeof *dirs);
    size_t ndirs = 0;
    int c, rc;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'a': all = true; break;
        case 'W': nd_term_set_wide(true); break;
        case 'F': follow = true; break;
        case 'r': dirs[ndirs++] = optarg; break;
        case 'R': {
            struct nd_error err = {0};
            if (nd_rootfs_set(optarg, &err) != 0) {
                free(dirs);
                return nd_cmd_fail("explain", ND_EXIT_NOINPUT, "%s", err.msg);
            }
            break;
        }
        case 'x':
            if (nd_cmd_add_redact("explain", optarg) != 0) {
                free(dirs);
                return ND_EXIT_USAGE;
            }
            break;
        case 'h': explain_usage(stdout); free(dirs); return ND_EXIT_OK;
        default: free(dirs); return nd_cmd_bad_option("explain", opts, argv[optind - 1]);
        }
    }
    if (optind >= argc) {
        free(dirs);
        return nd_cmd_fail("explain", ND_EXIT_USAGE, "name at least one log file, directory or - (stdin)");
    }
    struct nd_error err = {0};
    struct nd_kb *kb = NULL;
    rc = nd_kb_load(&kb, dirs, ndirs, &err);
    free(dirs);
    if (rc != 0)
        /* A rules file too large to read (-EFBIG) is unreadable input: 66,
         * in explain, run and rules alike. */
        return nd_cmd_fail("explain", rc == -EINVAL ? ND_EXIT_USAGE : rc == -ENOENT || rc == -EFBIG ? ND_EXIT_NOINPUT
                                                                                                  : ND_EXIT_INTERNAL,
                           "%s", err.msg);
    struct nd_kb_scan *scan = nd_kb_scan_new(kb);
    nd_kb_scan_set_follow(scan, follow);
    for (int i = optind; i < argc; i++)
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
    /* The versions the logs print, judged against the tables: the version lines are info
     * findings, so they are read from the full list whatever --all says. */
    struct nd_findings seen = ND_FINDINGS_INIT;
    nd_kb_scan_finish(scan, &seen, true);
    nd_explain_compat(&seen, &rep.findings);
    nd_findings_free(&seen);
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
    nd_report_free(&rep);
    nd_kb_scan_free(scan);
    nd_kb_free(kb);
    return code;
}
