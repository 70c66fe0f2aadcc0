/* Small helpers shared by the subcommands. */
#include <stdarg.h>
#include <stdio.h>

#include "cmd/cmd.h"

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
