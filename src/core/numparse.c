/* Strict number parsers for option values (see numparse.h). The shape is
 * checked by hand before strtoul/strtod see the text, because both accept
 * blanks, signs, exponents and hex, and strtoul turns "-1" into ULONG_MAX. */
#include "core/numparse.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ND_PID_MAX_CEILING 4194304L

long nd_pid_max(void)
{
    static long cached;
    if (cached)
        return cached;
    long v = ND_PID_MAX_CEILING;
    FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
    if (f) {
        char buf[32];
        unsigned long n;
        if (fgets(buf, sizeof buf, f)) {
            /* The file ends in a newline: cut it before the strict parse. */
            for (char *p = buf; *p; p++)
                if (*p == '\n')
                    *p = '\0';
            if (nd_parse_count(buf, &n) == 0 && n > 0 && n <= (unsigned long)ND_PID_MAX_CEILING)
                v = (long)n;
        }
        fclose(f);
    }
    cached = v;
    return v;
}

static int nd_is_digit(char c)
{
    return c >= '0' && c <= '9';
}

int nd_parse_count(const char *s, unsigned long *out)
{
    if (!s || !*s)
        return -EINVAL;
    for (const char *p = s; *p; p++)
        if (!nd_is_digit(*p))
            return -EINVAL;
    errno = 0;
    unsigned long v = strtoul(s, NULL, 10);
    if (errno == ERANGE)
        return -ERANGE;
    *out = v;
    return 0;
}

int nd_parse_pid(const char *s, pid_t *out)
{
    unsigned long v;
    int rc = nd_parse_count(s, &v);
    if (rc < 0)
        return rc;
    if (v == 0 || v > (unsigned long)nd_pid_max())
        return -ERANGE;
    *out = (pid_t)v;
    return 0;
}

int nd_parse_seconds(const char *s, double *out)
{
    if (!s || !*s)
        return -EINVAL;
    size_t digits = 0, dots = 0;
    for (const char *p = s; *p; p++) {
        if (nd_is_digit(*p))
            digits++;
        else if (*p == '.' && dots == 0)
            dots++;
        else
            return -EINVAL;
    }
    if (digits == 0)
        return -EINVAL;
    errno = 0;
    double v = strtod(s, NULL);
    if (errno == ERANGE || !isfinite(v))
        return -ERANGE;
    *out = v;
    return 0;
}

int nd_parse_duration(const char *s, double *out)
{
    if (!s || !*s)
        return -EINVAL;
    size_t n = strlen(s);
    double unit = 1;
    switch (s[n - 1]) {
    case 's': unit = 1; break;
    case 'm': unit = 60; break;
    case 'h': unit = 3600; break;
    default: return nd_parse_seconds(s, out);
    }
    if (n == 1 || n > 64)
        return n == 1 ? -EINVAL : -ERANGE;
    char num[65];
    memcpy(num, s, n - 1);
    num[n - 1] = '\0';
    double v;
    int rc = nd_parse_seconds(num, &v);
    if (rc < 0)
        return rc;
    *out = v * unit;
    return 0;
}
