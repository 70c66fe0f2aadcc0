/* Fuzz target for the command-line layer (cmd/options.c, core/numparse.c):
 * the input, cut at NUL bytes, is an argv parsed against a table with every
 * kind of option. Never a crash or leak; the result is 0, --help or 64; the
 * operands start within argv, and argv keeps the same words (only their
 * order changes); every word parses or fails as a pid, seconds and count
 * without touching the result on failure. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/options.h"
#include "core/exitcode.h"
#include "core/numparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_WORDS 64

static int fuzz_cb(const char *cmd, const char *arg, void *ctx)
{
    (void)cmd;
    (void)ctx;
    return arg && strcmp(arg, "refuse") == 0 ? ND_EXIT_NOINPUT : 0;
}

static int fuzz_cmp(const void *a, const void *b)
{
    const char *const *x = a, *const *y = b;
    return (*x > *y) - (*x < *y);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[FUZZ_MAX_WORDS + 2], *orig[FUZZ_MAX_WORDS + 2];
    int argc = 0;
    argv[argc++] = "fuzz";
    for (size_t at = 0; at <= size && argc <= FUZZ_MAX_WORDS; at += strlen(text + at) + 1)
        argv[argc++] = text + at;
    argv[argc] = NULL;
    memcpy(orig, argv, sizeof argv);

    for (int i = 1; i < argc; i++) {
        pid_t p = 7;
        double d = 7;
        unsigned long u = 7;
        if (nd_parse_pid(argv[i], &p) < 0 ? p != 7 : p < 1 || p > nd_pid_max())
            __builtin_trap();
        if (nd_parse_seconds(argv[i], &d) < 0 ? d != 7 : !(d >= 0))
            __builtin_trap();
        if (nd_parse_count(argv[i], &u) < 0 && u != 7)
            __builtin_trap();
    }

    bool flag = false;
    const char *str = NULL, *opt = NULL;
    long pid = 0, count = 0;
    double secs = 0, num = 0;
    int level = 0;
    static const struct nd_opt_choice levels[] = {{"1", 1, false}, {"2", 2, false}, {"two", 2, true}, {NULL, 0, false}};
    const struct nd_option opts[] = {
        {.name = "json", .kind = ND_ARG_NONE, .out = &flag, .help = "flag"},
        {.name = "quiet", .short_name = 'q', .kind = ND_ARG_NONE, .out = &flag, .help = "flag"},
        {.name = "root", .short_name = 'r', .kind = ND_ARG_STRING, .out = &str, .arg_name = "DIR", .help = "s"},
        {.name = "env-from", .kind = ND_ARG_PID, .out = &pid, .help = "pid"},
        {.name = "env-file", .kind = ND_ARG_STRING, .out = &str, .help = "file"},
        {.name = "interval", .short_name = 'i', .kind = ND_ARG_SECONDS, .out = &secs, .min = 0.1, .max = 60, .help = "s"},
        {.name = "busy", .kind = ND_ARG_NUMBER, .flags = ND_OPTF_ABOVE_MIN, .out = &num, .min = 0, .max = 4096, .help = "n"},
        {.name = "count", .kind = ND_ARG_COUNT, .out = &count, .min = 1, .max = 9, .help = "c"},
        {.name = "level", .short_name = 'l', .kind = ND_ARG_ENUM, .out = &level, .choices = levels, .help = "e"},
        {.name = "json-summary", .kind = ND_ARG_STRING, .flags = ND_OPTF_OPTIONAL, .out = &opt, .help = "o"},
        {.name = "rules", .kind = ND_ARG_STRING, .flags = ND_OPTF_REPEAT, .cb = fuzz_cb, .help = "r"},
        {.name = "hidden", .kind = ND_ARG_NONE, .flags = ND_OPTF_HIDDEN, .out = &flag},
        {0},
    };
    for (unsigned flags = 0; flags < 3; flags++) {
        memcpy(argv, orig, sizeof argv);
        const struct nd_cmd_spec spec = {"fuzz", "npu-doctor fuzz", NULL, opts, NULL, flags};
        int first = -1;
        int rc = nd_opts_parse(&spec, argc, argv, NULL, &first);
        if (rc != 0 && rc != ND_OPTS_HELP && rc != ND_EXIT_USAGE && rc != ND_EXIT_NOINPUT)
            __builtin_trap();
        if (rc == 0 && (first < 1 || first > argc))
            __builtin_trap();
        if (pid && (pid < 1 || pid > nd_pid_max()))
            __builtin_trap();
        if (secs && (secs < 0.1 || secs > 60))
            __builtin_trap();
        if (level && level != 1 && level != 2)
            __builtin_trap();
        /* The same words, maybe in another order. */
        char *a[FUZZ_MAX_WORDS + 2], *b[FUZZ_MAX_WORDS + 2];
        memcpy(a, argv, sizeof a);
        memcpy(b, orig, sizeof b);
        qsort(a, (size_t)argc, sizeof *a, fuzz_cmp);
        qsort(b, (size_t)argc, sizeof *b, fuzz_cmp);
        if (memcmp(a, b, (size_t)argc * sizeof *a) != 0)
            __builtin_trap();
    }
    free(text);
    return 0;
}
