/* Small helpers shared by the subcommands. */
#include <stdarg.h>
#include <stdio.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "core/exitcode.h"
#include "core/redact.h"

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
        return nd_opts_usage_error(cmd, "%s", err.msg); /* a bad option value, said like the others */
    return 0;
}
