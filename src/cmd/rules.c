/* npu-doctor rules: list the knowledge base, lint rule files, and run every
 * rule's own examples (the ctest rules_examples). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/exitcode.h"
#include "core/json_util.h"
#include "core/report.h"
#include "core/report_table.h"
#include "kb/kb.h"

static void rules_usage(FILE *fp)
{
    fprintf(fp,
            "usage: npu-doctor rules list [--json] [--rules DIR]...\n"
            "       npu-doctor rules lint FILE|DIR...\n"
            "       npu-doctor rules test [--rules DIR]...\n"
            "\n"
            "  list   every loaded rule: id, category, severity, vendor, title\n"
            "  lint   check rule files: unknown keys, patterns that do not compile,\n"
            "         duplicate ids, missing category or fix (file:line; exit 64)\n"
            "  test   every rule's examples must match it, its counter examples not\n"
            "\n"
            "Rules load from the compiled-in set, /etc/npu-doctor/rules.d, then --rules.\n");
}

static int rules_load(const char **dirs, size_t ndirs, struct nd_kb **kb)
{
    struct nd_error err = {0};
    int rc = nd_kb_load(kb, dirs, ndirs, &err);
    if (rc != 0)
        return nd_cmd_fail("rules", rc == -EINVAL ? ND_EXIT_USAGE : rc == -ENOENT || rc == -EFBIG ? ND_EXIT_NOINPUT
                                                                                                : ND_EXIT_INTERNAL,
                           "%s", err.msg);
    return 0;
}

static int rules_list(struct nd_kb *kb, bool json)
{
    size_t n = nd_kb_rule_count(kb);
    if (json) {
        struct nd_report rep;
        nd_report_init(&rep, "rules");
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++) {
            struct nd_kb_rule_info ri;
            nd_kb_rule_get(kb, i, &ri);
            json_t *o = json_object();
            json_object_set_new(o, "id", nd_json_str(ri.id));
            json_object_set_new(o, "category", nd_json_str(ri.category));
            json_object_set_new(o, "severity", json_string(nd_severity_name(ri.severity)));
            json_object_set_new(o, "vendor", nd_json_str(ri.vendor));
            json_object_set_new(o, "title", nd_json_str(ri.title));
            json_object_set_new(o, "file", nd_json_str(ri.file));
            json_object_set_new(o, "line", json_integer(ri.line));
            json_object_set_new(o, "patterns", json_integer((json_int_t)ri.npatterns));
            json_array_append_new(a, o);
        }
        nd_report_set_extra(&rep, "rules", a);
        int rc = nd_report_print_json(&rep, stdout) == 0 ? ND_EXIT_OK : ND_EXIT_INTERNAL;
        nd_report_free(&rep);
        return rc;
    }
    static const struct nd_table_col cols[] = {
        {"ID", false, 0, 0}, {"CATEGORY", false, 0, 0}, {"SEVERITY", false, 0, 0},
        {"VENDOR", false, 0, 0}, {"TITLE", false, 0, 0}};
    struct nd_table *t = nd_table_new(cols, sizeof cols / sizeof cols[0]);
    for (size_t i = 0; i < n; i++) {
        struct nd_kb_rule_info ri;
        nd_kb_rule_get(kb, i, &ri);
        const char *row[] = {ri.id, ri.category, nd_severity_name(ri.severity), ri.vendor, ri.title};
        nd_table_add(t, row);
    }
    nd_table_print(t, stdout);
    nd_table_free(t);
    nd_report_note(stdout, "%zu rules", n);
    return ND_EXIT_OK;
}

int cmd_rules(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"rules", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    bool json = false;
    const char **dirs = calloc((size_t)argc + 1, sizeof *dirs);
    size_t ndirs = 0;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'r': dirs[ndirs++] = optarg; break;
        case 'h': rules_usage(stdout); free(dirs); return ND_EXIT_OK;
        default: rules_usage(stderr); free(dirs); return ND_EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        free(dirs);
        return nd_cmd_fail("rules", ND_EXIT_USAGE, "name a subcommand: list, lint or test");
    }
    const char *sub = argv[optind++];
    int rc;
    struct nd_kb *kb = NULL;
    if (strcmp(sub, "lint") == 0) {
        if (optind >= argc) {
            free(dirs);
            return nd_cmd_fail("rules", ND_EXIT_USAGE, "lint: name a rule file or directory");
        }
        int total = 0;
        rc = ND_EXIT_OK;
        for (int i = optind; i < argc; i++) {
            struct nd_error err = {0};
            int n = nd_kb_lint_path(argv[i], stdout, &err);
            if (n < 0) {
                nd_cmd_fail("rules", ND_EXIT_NOINPUT, "%s", err.msg);
                rc = ND_EXIT_NOINPUT;
            } else {
                total += n;
            }
        }
        if (total > 0) {
            fprintf(stderr, "npu-doctor rules: %d problem%s found\n", total, total == 1 ? "" : "s");
            rc = ND_EXIT_USAGE;
        } else if (rc == ND_EXIT_OK) {
            nd_report_note(stdout, "no problems found");
        }
    } else if (strcmp(sub, "list") == 0 || strcmp(sub, "test") == 0 || strcmp(sub, "patterns") == 0) {
        rc = rules_load(dirs, ndirs, &kb);
        if (rc == 0 && strcmp(sub, "list") == 0) {
            rc = rules_list(kb, json);
        } else if (rc == 0 && strcmp(sub, "patterns") == 0) {
            /* Hidden: the pattern set for bench/explain.sh (grep -E -f, rg -f). */
            nd_kb_write_patterns(kb, stdout);
        } else if (rc == 0) {
            size_t checked = 0;
            size_t fails = nd_kb_test_examples(kb, stdout, &checked);
            nd_report_note(stdout, "%zu rules, %zu example lines checked, %zu failure%s", nd_kb_rule_count(kb),
                           checked, fails, fails == 1 ? "" : "s");
            rc = fails ? ND_EXIT_WARNINGS : ND_EXIT_OK;
        }
    } else {
        rc = nd_cmd_fail("rules", ND_EXIT_USAGE, "unknown subcommand '%s' (list, lint, test)", sub);
    }
    nd_kb_free(kb);
    free(dirs);
    return rc;
}
