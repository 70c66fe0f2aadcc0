/* npu-doctor rules: list the knowledge base, lint rule files, and run every
 * rule's own examples (the ctest rules_examples). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "core/exitcode.h"
#include "core/json_util.h"
#include "core/report.h"
#include "core/report_table.h"
#include "core/suggest.h"
#include "core/termsafe.h"
#include "kb/kb.h"

static const char rules_about[] = "  list   every loaded rule: id, category, severity, vendor, title;\n"
                                  "         --summary: how many rules per vendor and family\n"
                                  "  lint   check rule files: unknown keys, patterns that do not compile,\n"
                                  "         duplicate ids, missing category or fix (file:line; exit 64);\n"
                                  "         *.tsv catalogues too: columns, defaults, numeric codes\n"
                                  "  test   every rule's examples must match it, its counter examples not\n";

static const char rules_footer[] = "Rules load from the compiled-in set, /etc/npu-doctor/rules.d, then --rules.\n";

/* --rules DIR, in the order given. */
struct rules_dirs {
    const char **v;
    size_t n;
};

/* Lint and test messages quote rule files, which may come from anywhere
 * (--rules DIR): they are gathered, then shown line by line, never obeyed. */
static FILE *rules_capture_open(char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    FILE *fp = open_memstream(buf, len);
    return fp ? fp : stdout;
}

static void rules_capture_print(FILE *fp, char **bufp)
{
    if (fp == stdout)
        return;
    fclose(fp); /* sets *bufp */
    char *buf = *bufp;
    for (char *line = buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        char *shown = nd_term_printable(line);
        printf("%s\n", shown);
        free(shown);
    }
    free(buf);
}

static int rules_add_dir(const char *cmd, const char *arg, void *ctx)
{
    (void)cmd;
    struct rules_dirs *d = ctx;
    d->v[d->n++] = arg;
    return 0;
}

static int rules_load(const char **dirs, size_t ndirs, struct nd_kb **kb)
{
    struct nd_error err = {0};
    int rc = nd_kb_load(kb, dirs, ndirs, &err);
    if (rc != 0)
        return nd_cmd_fail("rules",
                           rc == -EINVAL                   ? ND_EXIT_USAGE
                           : rc == -ENOENT || rc == -EFBIG ? ND_EXIT_NOINPUT
                                                           : ND_EXIT_INTERNAL,
                           "%s", err.msg);
    return 0;
}

/* One line of the summary: a vendor and a family (a catalogue's "#! family";
 * INI rules count as one family per vendor, their files are cut by topic,
 * not by vendor code list). */
struct rules_group {
    const char *vendor, *family, *source;
    size_t count;
};

static const char *rules_basename(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

static int rules_group_cmp(const void *a, const void *b)
{
    const struct rules_group *x = a, *y = b;
    int c = strcmp(x->vendor, y->vendor);
    if (c == 0) /* "catalogue" before "rules" */
        c = strcmp(x->source, y->source);
    return c ? c : strcmp(x->family, y->family);
}

static int rules_summary(struct nd_kb *kb, bool json)
{
    size_t n = nd_kb_rule_count(kb), ng = 0;
    struct rules_group *g = calloc(n ? n : 1, sizeof *g);
    if (!g)
        return nd_cmd_fail("rules", ND_EXIT_INTERNAL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        struct nd_kb_rule_info ri;
        nd_kb_rule_get(kb, i, &ri);
        const char *base = ri.file ? rules_basename(ri.file) : "?";
        size_t bl = strlen(base);
        bool cat = bl > 4 && strcmp(base + bl - 4, ".tsv") == 0;
        struct rules_group k = {ri.vendor,
                                ri.family ? ri.family
                                : cat     ? base
                                          : "INI rules",
                                cat ? "catalogue" : "rules", 1};
        g[ng++] = k;
    }
    qsort(g, ng, sizeof *g, rules_group_cmp);
    size_t m = 0, ncat = 0;
    for (size_t i = 0; i < ng; i++) {
        ncat += strcmp(g[i].source, "catalogue") == 0;
        if (m && rules_group_cmp(&g[m - 1], &g[i]) == 0)
            g[m - 1].count++;
        else
            g[m++] = g[i];
    }
    int rc = ND_EXIT_OK;
    if (json) {
        struct nd_report rep;
        nd_report_init(&rep, "rules");
        json_t *a = json_array();
        for (size_t i = 0; i < m; i++) {
            json_t *o = json_object();
            json_object_set_new(o, "vendor", nd_json_str(g[i].vendor));
            json_object_set_new(o, "family", nd_json_str(g[i].family));
            json_object_set_new(o, "source", nd_json_str(g[i].source));
            json_object_set_new(o, "rules", json_integer((json_int_t)g[i].count));
            json_array_append_new(a, o);
        }
        nd_report_set_extra(&rep, "summary", a);
        nd_report_set_extra(&rep, "total", json_integer((json_int_t)n));
        nd_report_set_extra(&rep, "catalogue_rows", json_integer((json_int_t)ncat));
        rc = nd_report_print_json(&rep, stdout) == 0 ? ND_EXIT_OK : ND_EXIT_INTERNAL;
        nd_report_release(&rep);
    } else {
        static const struct nd_table_col cols[] = {
            {"VENDOR", false, 0, 0}, {"SOURCE", false, 0, 0}, {"FAMILY", false, 0, 0}, {"RULES", true, 0, 0}};
        struct nd_table *t = nd_table_new(cols, sizeof cols / sizeof cols[0]);
        for (size_t i = 0; i < m; i++) {
            char num[32];
            snprintf(num, sizeof num, "%zu", g[i].count);
            const char *row[] = {g[i].vendor, g[i].source, g[i].family, num};
            nd_table_add(t, row);
        }
        nd_table_print(t, stdout);
        nd_table_free(t);
        nd_report_note(stdout, "%zu rules (%zu catalogue rows, %zu INI rules) in %zu families", n, ncat, n - ncat, m);
    }
    free(g);
    return rc;
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
        nd_report_release(&rep);
        return rc;
    }
    static const struct nd_table_col cols[] = {{"ID", false, 0, 0},
                                               {"CATEGORY", false, 0, 0},
                                               {"SEVERITY", false, 0, 0},
                                               {"VENDOR", false, 0, 0},
                                               {"TITLE", false, 0, 0}};
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
    bool json = false, summary = false;
    struct rules_dirs rd = {calloc((size_t)argc + 1, sizeof *rd.v), 0};
    if (!rd.v)
        return nd_cmd_fail("rules", ND_EXIT_INTERNAL, "out of memory");
    const struct nd_option opts[] = {
        {.name = "json", .kind = ND_ARG_NONE, .out = &json, .help = "list: one JSON object"},
        {.name = "summary", .kind = ND_ARG_NONE, .out = &summary, .help = "list: rules per vendor and family"},
        {.name = "rules",
         .kind = ND_ARG_STRING,
         .flags = ND_OPTF_REPEAT,
         .cb = rules_add_dir,
         .arg_name = "DIR",
         .help = "list, test: also load the rules in DIR"},
        {0},
    };
    const struct nd_cmd_spec spec = {"rules",
                                     "npu-doctor rules list [--summary] [--json] [--rules DIR]...\n"
                                     "npu-doctor rules lint FILE|DIR...\n"
                                     "npu-doctor rules test [--rules DIR]...",
                                     rules_about,
                                     opts,
                                     rules_footer,
                                     0};
    int first_op, prc = nd_opts_parse(&spec, argc, argv, &rd, &first_op);
    const char **dirs = rd.v;
    size_t ndirs = rd.n;
    if (prc) {
        free(dirs);
        return prc == ND_OPTS_HELP ? ND_EXIT_OK : prc;
    }
    if (first_op >= argc) {
        free(dirs);
        return nd_opts_usage_error("rules", "name a subcommand: list, lint or test");
    }
    const char *sub = argv[first_op++];
    int rc;
    struct nd_kb *kb = NULL;
    if (strcmp(sub, "lint") == 0) {
        if (first_op >= argc) {
            free(dirs);
            return nd_cmd_fail("rules", ND_EXIT_USAGE, "lint: name a rule file or directory");
        }
        int total = 0;
        rc = ND_EXIT_OK;
        for (int i = first_op; i < argc; i++) {
            struct nd_error err = {0};
            char *buf;
            size_t len;
            FILE *cap = rules_capture_open(&buf, &len);
            int n = nd_kb_lint_path(argv[i], cap, &err);
            rules_capture_print(cap, &buf);
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
            rc = summary ? rules_summary(kb, json) : rules_list(kb, json);
        } else if (rc == 0 && strcmp(sub, "patterns") == 0) {
            /* Hidden: the pattern set for bench/explain.sh (grep -E -f, rg -f). */
            nd_kb_write_patterns(kb, stdout);
        } else if (rc == 0) {
            size_t checked = 0;
            char *buf;
            size_t len;
            FILE *cap = rules_capture_open(&buf, &len);
            size_t fails = nd_kb_test_examples(kb, cap, &checked);
            rules_capture_print(cap, &buf);
            nd_report_note(stdout, "%zu rules, %zu example lines checked, %zu failure%s", nd_kb_rule_count(kb), checked,
                           fails, fails == 1 ? "" : "s");
            rc = fails ? ND_EXIT_WARNINGS : ND_EXIT_OK;
        }
    } else {
        static const char *const subs[] = {"list", "lint", "test"};
        char *shown = nd_term_printable(sub);
        rc = nd_opts_usage_hint("rules", nd_suggest(sub, subs, 3), "unknown subcommand '%s' (list, lint, test)",
                                shown ? shown : "?");
        free(shown);
    }
    nd_kb_free(kb);
    free(dirs);
    return rc;
}
