/* The command-line layer: the strict number parsers (numparse.h) and the
 * option-table parser and help generator (cmd/options.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmd/options.h"
#include "core/exitcode.h"
#include "core/numparse.h"

static void test_parse_pid(void **state)
{
    (void)state;
    pid_t p = 0;
    assert_int_equal(nd_parse_pid("1", &p), 0);
    assert_int_equal(p, 1);
    char max[32];
    snprintf(max, sizeof max, "%ld", nd_pid_max());
    assert_int_equal(nd_parse_pid(max, &p), 0);
    assert_int_equal((long)p, nd_pid_max());
    snprintf(max, sizeof max, "%ld", nd_pid_max() + 1);
    assert_int_not_equal(nd_parse_pid(max, &p), 0);
    static const char *const bad[] = {
        "0", "-1", "+5", "1e0", "0x10", " 5", "5 ", "99999999999", "", "5.0", "abc", "18446744073709551617", "1\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        p = 42;
        assert_int_not_equal(nd_parse_pid(bad[i], &p), 0);
        assert_int_equal(p, 42); /* untouched on error */
    }
    assert_true(nd_pid_max() >= 300 && nd_pid_max() <= 4194304);
    assert_int_not_equal(nd_parse_pid(NULL, &p), 0);
}

/* run --timeout: seconds with an optional unit; the number part is as strict as seconds. */
static void test_parse_duration(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        double want;
    } good[] = {{"90", 90}, {"90s", 90}, {"30m", 1800}, {"2h", 7200}, {"1.5h", 5400}, {".5m", 30}, {"0s", 0}};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        double d = -1;
        assert_int_equal(nd_parse_duration(good[i].s, &d), 0);
        assert_true(d == good[i].want);
    }
    static const char *const bad[] = {"",    "s",   "m",   "h",      "10x",   "-5s", "+5s", "1e3", "5 s",
                                      " 5m", "5ms", "5sm", "1.5.2h", "0x10s", "5d",  "5S",  "5H",  "abc"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        double d = 42;
        assert_int_not_equal(nd_parse_duration(bad[i], &d), 0);
        assert_true(d == 42); /* untouched on error */
    }
    char huge[100];
    memset(huge, '9', sizeof huge - 2);
    huge[sizeof huge - 2] = 'm';
    huge[sizeof huge - 1] = '\0';
    double d;
    assert_int_equal(nd_parse_duration(huge, &d), -ERANGE);
    assert_int_not_equal(nd_parse_duration(NULL, &d), 0);
}

static void test_parse_seconds(void **state)
{
    (void)state;
    double d = -1;
    assert_int_equal(nd_parse_seconds("0", &d), 0);
    assert_true(d == 0);
    assert_int_equal(nd_parse_seconds("2", &d), 0);
    assert_true(d == 2);
    assert_int_equal(nd_parse_seconds("0.5", &d), 0);
    assert_true(d == 0.5);
    assert_int_equal(nd_parse_seconds(".25", &d), 0);
    assert_true(d == 0.25);
    assert_int_equal(nd_parse_seconds("3.", &d), 0);
    assert_true(d == 3);
    static const char *const bad[] = {"-1", "1e0",   "1e9", "0x10", " 5", "5 ", "",
                                      ".",  "1.2.3", "inf", "nan",  "5s", "+1", "1,5"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        d = 42;
        assert_int_not_equal(nd_parse_seconds(bad[i], &d), 0);
        assert_true(d == 42);
    }
    /* 400 digits: past any double, not infinity. */
    char huge[401];
    memset(huge, '9', 400);
    huge[400] = '\0';
    assert_int_equal(nd_parse_seconds(huge, &d), -ERANGE);
}

static void test_parse_count(void **state)
{
    (void)state;
    unsigned long u = 7;
    assert_int_equal(nd_parse_count("0", &u), 0);
    assert_int_equal(u, 0);
    assert_int_equal(nd_parse_count("99999999999", &u), 0);
    assert_true(u == 99999999999ul);
    assert_int_equal(nd_parse_count("99999999999999999999999", &u), -ERANGE);
    static const char *const bad[] = {"-1", "1e0", "0x10", " 5", "5 ", "", "1.0", "+3"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(nd_parse_count(bad[i], &u), -EINVAL);
}

/* A table like a command's, with every kind. */
struct t_opts {
    bool json, quiet, verbose;
    const char *root;
    long pid, count;
    double interval, busy;
    int level;
    const char *summary;
    bool summary_given;
    int nrules;
    const char *rules[4];
};

static int t_add_rules(const char *cmd, const char *arg, void *ctx)
{
    (void)cmd;
    struct t_opts *o = ctx;
    if (strcmp(arg, "refuse") == 0)
        return ND_EXIT_NOINPUT;
    o->rules[o->nrules++] = arg;
    return 0;
}

static const struct nd_opt_choice t_levels[] = {{"1", 1, false}, {"2", 2, false}, {"two", 2, true}, {NULL, 0, false}};

static int t_parse(struct t_opts *o, unsigned flags, int argc, char **argv, int *first)
{
    memset(o, 0, sizeof *o);
    o->pid = -1;
    const struct nd_option opts[] = {
        {.name = "json", .kind = ND_ARG_NONE, .out = &o->json, .help = "json"},
        {.name = "quiet", .short_name = 'q', .kind = ND_ARG_NONE, .out = &o->quiet, .help = "quiet"},
        {.name = "verbose", .short_name = 'v', .kind = ND_ARG_NONE, .out = &o->verbose, .help = "verbose"},
        {.name = "root", .short_name = 'r', .kind = ND_ARG_STRING, .out = &o->root, .arg_name = "DIR", .help = "r"},
        {.name = "env-from", .kind = ND_ARG_PID, .out = &o->pid, .arg_name = "PID", .help = "pid"},
        {.name = "env-file", .kind = ND_ARG_STRING, .help = "file"},
        {.name = "interval", .kind = ND_ARG_SECONDS, .out = &o->interval, .min = 0.1, .max = 60, .help = "i"},
        {.name = "busy", .kind = ND_ARG_NUMBER, .flags = ND_OPTF_ABOVE_MIN, .out = &o->busy, .min = 0, .max = 10, .help = "b"},
        {.name = "count", .kind = ND_ARG_COUNT, .out = &o->count, .min = 1, .max = 5, .help = "c"},
        {.name = "level", .short_name = 'l', .kind = ND_ARG_ENUM, .out = &o->level, .choices = t_levels, .help = "l"},
        {.name = "summary", .kind = ND_ARG_STRING, .flags = ND_OPTF_OPTIONAL, .out = &o->summary, .help = "s"},
        {.name = "rules", .kind = ND_ARG_STRING, .flags = ND_OPTF_REPEAT, .cb = t_add_rules, .help = "rules"},
        {.name = "secret", .kind = ND_ARG_NONE, .flags = ND_OPTF_HIDDEN, .help = "hidden"},
        {0},
    };
    const struct nd_cmd_spec spec = {"t", "npu-doctor t [options]", NULL, opts, NULL, flags};
    return nd_opts_parse(&spec, argc, argv, o, first);
}

#define ARGV(...)                                                                                                      \
    (char *[])                                                                                                         \
    {                                                                                                                  \
        "t", __VA_ARGS__, NULL                                                                                         \
    }
#define ARGC(v) ((int)(sizeof(v) / sizeof *(v)) - 1)

static void test_opts_forms(void **state)
{
    (void)state;
    struct t_opts o;
    int first;
    char **v = ARGV("--root=/a", "-qv", "-l2", "--env-from", "12", "--inter", "0.5", "--level=two", "--summary",
                    "--rules", "x", "--rules=y", "-r", "/b");
    assert_int_equal(t_parse(&o, 0, 15, v, &first), 0);
    assert_string_equal(o.root, "/b"); /* the last one wins */
    assert_true(o.quiet && o.verbose && !o.json);
    assert_int_equal(o.level, 2);
    assert_int_equal(o.pid, 12);
    assert_true(o.interval == 0.5);
    assert_null(o.summary);
    assert_int_equal(o.nrules, 2);
    assert_string_equal(o.rules[1], "y");
    assert_int_equal(first, 15);
    char **w = ARGV("--summary=out.json", "--busy", "0.001", "--count", "5", "-rDIR");
    assert_int_equal(t_parse(&o, 0, 7, w, &first), 0);
    assert_string_equal(o.summary, "out.json");
    assert_true(o.busy == 0.001);
    assert_int_equal(o.count, 5);
    assert_string_equal(o.root, "DIR");
}

static void test_opts_operands(void **state)
{
    (void)state;
    struct t_opts o;
    int first;
    /* Permuted: operands move behind the options, in their order. */
    char **v = ARGV("a.log", "--json", "-", "b.log", "--", "--quiet");
    assert_int_equal(t_parse(&o, 0, 7, v, &first), 0);
    assert_true(o.json && !o.quiet);
    assert_int_equal(first, 3);
    assert_string_equal(v[3], "a.log");
    assert_string_equal(v[4], "-");
    assert_string_equal(v[5], "b.log");
    assert_string_equal(v[6], "--quiet");
    /* Stopping at the first operand: the job's own options stay its own. */
    char **w = ARGV("--quiet", "python3", "-u", "--json");
    assert_int_equal(t_parse(&o, ND_SPEC_STOP_AT_OPERAND, 5, w, &first), 0);
    assert_true(o.quiet && !o.json);
    assert_int_equal(first, 2);
    assert_string_equal(w[2], "python3");
    assert_string_equal(w[4], "--json");
    char **x = ARGV("--json", "--", "true");
    assert_int_equal(t_parse(&o, ND_SPEC_STOP_AT_OPERAND, 4, x, &first), 0);
    assert_int_equal(first, 3);
    assert_string_equal(x[3], "true");
    char **y = ARGV("--json", "stray");
    assert_int_equal(t_parse(&o, ND_SPEC_NO_OPERANDS, 3, y, &first), ND_EXIT_USAGE);
}

static void test_opts_errors(void **state)
{
    (void)state;
    struct t_opts o;
    int first;
    static const char *const bad[][2] = {
        {"--bogus", NULL},     {"--env", "1"},       {"--json=yes", NULL},  {"--root", NULL},
        {"-r", NULL},          {"-z", NULL},         {"--env-from", "1e0"}, {"--env-from", "0"},
        {"--interval", "0"},   {"--interval", "61"}, {"--busy", "0"},       {"--count", "6"},
        {"--level", "3"},      {"--level", "2.0"},   {"--count", "-1"},     {"--env-from", "99999999999"},
        {"--interval", "1e0"}, {"--env-from", " 5"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *v[] = {"t", (char *)bad[i][0], (char *)bad[i][1], NULL};
        int argc = bad[i][1] ? 3 : 2;
        assert_int_equal(t_parse(&o, 0, argc, v, &first), ND_EXIT_USAGE);
    }
    /* A callback's own exit code comes back as is. */
    char **w = ARGV("--rules", "refuse");
    assert_int_equal(t_parse(&o, 0, 3, w, &first), ND_EXIT_NOINPUT);
    /* The hidden option parses; --help reports ND_OPTS_HELP. */
    char **x = ARGV("--secret");
    assert_int_equal(t_parse(&o, 0, 2, x, &first), 0);
}

static void test_opts_help(void **state)
{
    (void)state;
    bool flag = false;
    const char *s = NULL;
    const struct nd_option opts[] = {
        {.name = "alpha",
         .short_name = 'a',
         .kind = ND_ARG_NONE,
         .out = &flag,
         .help = "a help text long enough that it has to be wrapped onto a second line and a third line too, "
                 "because it goes on"},
        {.name = "a-very-long-option-name",
         .kind = ND_ARG_STRING,
         .out = &s,
         .arg_name = "VALUE",
         .flags = ND_OPTF_REPEAT,
         .help = "its help starts on the next line"},
        {.name = "hidden", .kind = ND_ARG_NONE, .flags = ND_OPTF_HIDDEN, .help = "not shown"},
        {0},
    };
    const struct nd_cmd_spec spec = {"t", "npu-doctor t [options]\nnpu-doctor t --other", "About.\n", opts, "Footer.\n",
                                     0};
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    nd_opts_help(&spec, fp);
    fclose(fp);
    assert_non_null(strstr(buf, "usage: npu-doctor t [options]\n       npu-doctor t --other\n"));
    assert_non_null(strstr(buf, "  -a, --alpha "));
    assert_non_null(strstr(buf, "      --a-very-long-option-name VALUE\n"));
    assert_non_null(strstr(buf, "(repeatable)"));
    assert_non_null(strstr(buf, "  -h, --help "));
    assert_null(strstr(buf, "hidden"));
    assert_non_null(strstr(buf, "\nFooter.\n"));
    for (char *line = buf; *line;) {
        size_t n = strcspn(line, "\n");
        assert_true(n <= 80);
        line += n + (line[n] == '\n');
    }
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_pid),   cmocka_unit_test(test_parse_seconds), cmocka_unit_test(test_parse_duration),
        cmocka_unit_test(test_parse_count), cmocka_unit_test(test_opts_forms),    cmocka_unit_test(test_opts_operands),
        cmocka_unit_test(test_opts_errors), cmocka_unit_test(test_opts_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
