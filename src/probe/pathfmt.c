/* Bounded path formatting for the probes (see pathfmt.h). */
#include "probe/pathfmt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

int nd_pfmt(char *out, size_t size, const char *fmt, ...)
{
    if (!size)
        return -ENAMETOOLONG;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, size, fmt, ap);
    va_end(ap);
    if (n < 0) {
        out[0] = '\0';
        return -EINVAL;
    }
    return (size_t)n >= size ? -ENAMETOOLONG : n;
}
