/* Small helpers shared by the subcommands. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "core/exitcode.h"
#include "core/redact.h"
#include "core/strbuf.h"
#include "core/termsafe.h"

int nd_cmd_fail(const char *cmd, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    char *msg = nd_strbuf_detach(&sb, NULL);
    /* Messages quote paths, user names and file contents that other users
     * chose: one line, shown and never obeyed by root's terminal. */
    char *shown = nd_term_printable(msg);
    fprintf(stderr, "npu-doctor %s: %s\n", cmd, shown);
    free(shown);
    free(msg);
    return code;
}

int nd_cmd_add_redact(const char *cmd, const char *regex)
{
    struct nd_error err;
    if (nd_redact_add_pattern(regex, &err) < 0)
        return nd_opts_usage_error(cmd, "%s", err.msg); /* a bad option value, said like the others */
    return 0;
}
