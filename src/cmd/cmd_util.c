/* Small helpers shared by the subcommands. */
#include <getopt.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/exitcode.h"
#include "core/redact.h"
#include "core/suggest.h"

int nd_cmd_fail(const char *cmd, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "npu-doctor %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

int nd_cmd_add_redact(const char *cmd, const char *regex)
{
    struct nd_error err;
    if (nd_redact_add_pattern(regex, &err) < 0)
        return nd_cmd_fail(cmd, ND_EXIT_USAGE, "%s", err.msg);
    return 0;
}

int nd_cmd_bad_option(const char *cmd, const struct option *opts, const char *arg)
{
    if (!arg)
        arg = "?";
    /* "--levle=2": the name is the part before '='. */
    char name[128] = "";
    bool is_long = strncmp(arg, "--", 2) == 0 && strcspn(arg + 2, "=") < sizeof name;
    size_t count = 0;
    for (const struct option *o = opts; o && o->name; o++)
        count++;
    if (is_long) {
        size_t nl = strcspn(arg + 2, "=");
        memcpy(name, arg + 2, nl);
        name[nl] = '\0';
        for (size_t i = 0; i < count; i++)
            if (strcmp(opts[i].name, name) == 0)
                return nd_cmd_fail(cmd, ND_EXIT_USAGE, "option '--%s' %s (see npu-doctor %s --help)", name,
                                   opts[i].has_arg == no_argument ? "takes no value" : "needs a value", cmd);
    }
    /* getopt_long takes unique prefixes: "--env" matching two options is ambiguous, not unknown. */
    size_t nprefix = 0;
    for (size_t i = 0; is_long && name[0] && i < count; i++)
        nprefix += strncmp(opts[i].name, name, strlen(name)) == 0;
    if (nprefix > 1) {
        fprintf(stderr, "npu-doctor %s: ambiguous option '--%s':", cmd, name);
        for (size_t i = 0; i < count; i++)
            if (strncmp(opts[i].name, name, strlen(name)) == 0)
                fprintf(stderr, " --%s", opts[i].name);
        fputc('\n', stderr);
        return ND_EXIT_USAGE;
    }
    nd_cmd_fail(cmd, ND_EXIT_USAGE, "unknown option '%s' (see npu-doctor %s --help)", arg, cmd);
    if (is_long && count) {
        const char **names = calloc(count, sizeof *names);
        if (names) {
            for (size_t i = 0; i < count; i++)
                names[i] = opts[i].name;
            const char *best = nd_suggest(name, names, count);
            if (best)
                fprintf(stderr, "did you mean '--%s'?\n", best);
            free(names);
        }
    }
    return ND_EXIT_USAGE;
}
