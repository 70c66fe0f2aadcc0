/* struct nd_error helpers. */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>

int nd_error_set(struct nd_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

void nd_error_clear(struct nd_error *err)
{
    if (err) {
        err->code = 0;
        err->msg[0] = '\0';
    }
}
