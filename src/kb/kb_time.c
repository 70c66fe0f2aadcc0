/* Timestamps and ranks in log lines and paths: what lets explain order
 * events across many rank logs and name the rank where the cause began. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kb/kb.h"

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
 * days_from_civil), so no timegm() or TZ lookups are needed. */
static long nd_days_from_civil(long y, long m, long d)
{
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static bool nd_digits(const char *p, const char *end, int n, long *out)
{
    if (end - p < n)
        return false;
    long v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)p[i]))
            return false;
        v = v * 10 + (p[i] - '0');
    }
    *out = v;
    return true;
}

/* Tries "YYYY-MM-DD?HH:MM:SS[frac][zone]" at p; ? is 'T', ' ' or '-' (plog). */
static bool nd_ts_at(const char *p, const char *end, double *out)
{
    long y, mo, d, h, mi, s;
    if (!nd_digits(p, end, 4, &y) || end - p < 19 || p[4] != '-' || !nd_digits(p + 5, end, 2, &mo) || p[7] != '-' ||
        !nd_digits(p + 8, end, 2, &d) || (p[10] != 'T' && p[10] != ' ' && p[10] != '-') ||
        !nd_digits(p + 11, end, 2, &h) || p[13] != ':' || !nd_digits(p + 14, end, 2, &mi) || p[16] != ':' ||
        !nd_digits(p + 17, end, 2, &s))
        return false;
    if (y < 1970 || y > 2200 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
        return false;
    double t = (double)nd_days_from_civil(y, mo, d) * 86400.0 + (double)(h * 3600 + mi * 60 + s);
    const char *q = p + 19;
    /* Fractions: ".123456" (ISO), ",123" (Python logging), ".123.456" (plog ms.us). */
    if (q < end && (*q == '.' || *q == ',')) {
        q++;
        double scale = 0.1;
        int digits = 0;
        while (q < end && (isdigit((unsigned char)*q) || (*q == '.' && digits == 3))) {
            if (*q != '.') {
                t += (*q - '0') * scale;
                scale /= 10;
                digits++;
            }
            q++;
            if (digits > 9)
                break;
        }
    }
    if (q < end && *q == 'Z') {
        /* already UTC */
    } else if (q < end && (*q == '+' || *q == '-') && p[10] == 'T') {
        long zh, zm = 0;
        if (nd_digits(q + 1, end, 2, &zh)) {
            const char *z = q + 3;
            if (z < end && *z == ':')
                z++;
            if (!nd_digits(z, end, 2, &zm))
                zm = 0;
            double off = (double)(zh * 3600 + zm * 60);
            t += *q == '+' ? -off : off;
        }
    }
    *out = t;
    return true;
}

/* Tries "MM/DD/YYYY HH:MM:SS" at p (the date format of the Hugging Face
 * example scripts' logging). */
static bool nd_ts_us_at(const char *p, const char *end, double *out)
{
    long mo, d, y, h, mi, s;
    if (end - p < 19 || !nd_digits(p, end, 2, &mo) || p[2] != '/' || !nd_digits(p + 3, end, 2, &d) || p[5] != '/' ||
        !nd_digits(p + 6, end, 4, &y) || p[10] != ' ' || !nd_digits(p + 11, end, 2, &h) || p[13] != ':' ||
        !nd_digits(p + 14, end, 2, &mi) || p[16] != ':' || !nd_digits(p + 17, end, 2, &s))
        return false;
    if (y < 1970 || y > 2200 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
        return false;
    *out = (double)nd_days_from_civil(y, mo, d) * 86400.0 + (double)(h * 3600 + mi * 60 + s);
    return true;
}

/* Adds a fraction ".123456" or ",123" at *q (if any) to *t; returns the end. */
static const char *nd_ts_fraction(const char *q, const char *end, double *t)
{
    if (q >= end || (*q != '.' && *q != ','))
        return q;
    q++;
    double scale = 0.1;
    for (int digits = 0; q < end && isdigit((unsigned char)*q) && digits < 9; digits++, q++) {
        *t += (*q - '0') * scale;
        scale /= 10;
    }
    return q;
}

/* The year of a month and day written without one: this year's, unless
 * that lies ahead of now (a December log read in January). */
static long nd_guess_year(long mo, long d, long h)
{
    time_t now = time(NULL);
    struct tm tm;
    if (!gmtime_r(&now, &tm))
        return 1970;
    long y = tm.tm_year + 1900L;
    double t = (double)nd_days_from_civil(y, mo, d) * 86400.0 + (double)h * 3600;
    return t > (double)now + 2 * 86400.0 ? y - 1 : y;
}

/* Tries the formats without a year at p: glog's "W0501 10:00:00.123456"
 * (prev is the severity letter) and vLLM's "INFO 05-01 10:00:00". */
static bool nd_ts_noyear_at(const char *p, const char *end, char prev, char prev2, double *out)
{
    long mo, d, h, mi, s;
    const char *q;
    bool glog = (prev == 'I' || prev == 'W' || prev == 'E' || prev == 'F') && !isalnum((unsigned char)prev2);
    if (glog && end - p >= 13 && nd_digits(p, end, 2, &mo) && nd_digits(p + 2, end, 2, &d) && p[4] == ' ')
        q = p + 5;
    else if (!isalnum((unsigned char)prev) && prev != '-' && prev != '/' && prev != '.' && end - p >= 14 &&
             nd_digits(p, end, 2, &mo) && p[2] == '-' && nd_digits(p + 3, end, 2, &d) && p[5] == ' ')
        q = p + 6;
    else
        return false;
    if (!nd_digits(q, end, 2, &h) || q[2] != ':' || !nd_digits(q + 3, end, 2, &mi) || q[5] != ':' ||
        !nd_digits(q + 6, end, 2, &s))
        return false;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
        return false;
    double t = (double)nd_days_from_civil(nd_guess_year(mo, d, h), mo, d) * 86400.0 + (double)(h * 3600 + mi * 60 + s);
    nd_ts_fraction(q + 8, end, &t);
    *out = t;
    return true;
}

bool nd_kb_parse_timestamp(const char *line, size_t len, double *out)
{
    /* Timestamps sit near the start of a line, after a level or a prefix
     * such as "[rank3]: [ERROR] RUNTIME(123,python):". */
    size_t lim = len < 256 ? len : 256;
    const char *end = line + len;
    /* Every matched line comes here (and up to 12 lines before it): skip
     * to the next run of digits without a call per byte. isdigit is the
     * ten ASCII digits in every locale. */
    for (size_t i = 0; i < lim; i++) {
        while (i < lim && (unsigned char)(line[i] - '0') > 9)
            i++;
        if (i >= lim)
            break;
        if (i > 0 && isdigit((unsigned char)line[i - 1]))
            continue;
        if (nd_ts_at(line + i, end, out) || nd_ts_us_at(line + i, end, out) ||
            nd_ts_noyear_at(line + i, end, i > 0 ? line[i - 1] : ' ', i > 1 ? line[i - 2] : ' ', out))
            return true;
    }
    return false;
}

static int nd_rank_after(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '_' || *p == '-' || *p == ':' || *p == '='))
        p++;
    if (p >= end || !isdigit((unsigned char)*p))
        return -1;
    long v = 0;
    int n = 0;
    while (p < end && isdigit((unsigned char)*p) && n < 7) {
        v = v * 10 + (*p - '0');
        p++;
        n++;
    }
    if (n == 7)
        return -1;
    return (int)v;
}

int nd_kb_line_rank(const char *line, size_t len)
{
    const char *end = line + len;
    /* torchrun: "[rank3]:" or "[default3]:" at the start of the line. */
    if (len > 6 && line[0] == '[') {
        const char *p = line + 1;
        if (end - p > 4 && strncmp(p, "rank", 4) == 0)
            p += 4;
        else if (end - p > 7 && strncmp(p, "default", 7) == 0)
            p += 7;
        else
            p = NULL;
        if (p) {
            int r = nd_rank_after(p, end);
            if (r >= 0)
                return r;
        }
    }
    /* "rank0: " (torchrun's redirect prefix), "(VllmWorker rank=3 pid=9) ". */
    if (len > 5 && strncmp(line, "rank", 4) == 0 && line[4] >= '0' && line[4] <= '9') {
        const char *p = line + 4;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
        if (p + 1 < end && p[0] == ':' && p[1] == ' ')
            return nd_rank_after(line + 4, end);
    }
    if (len > 8 && line[0] == '(') {
        const char *c = memchr(line, ')', len < 100 ? len : 100);
        const char *hit = c ? memmem(line, (size_t)(c - line), " rank=", 6) : NULL;
        if (hit) {
            int r = nd_rank_after(hit + 6, end);
            if (r >= 0)
                return r;
        }
    }
    /* torch_npu: "(PID:123, Device:0, RankID:5)"; -1 there means unknown. */
    size_t lim = len < 300 ? len : 300;
    const char *hit = memmem(line, lim, "RankID:", 7);
    if (hit) {
        const char *p = hit + 7;
        if (p < end && *p != '-')
            return nd_rank_after(p, end);
    }
    return -1;
}

int nd_kb_path_rank(const char *path)
{
    /* The last "rank" (any case) in the path followed by digits:
     * "logs/rank_5.log", "rank5/plog/...", "worker-rank-05.txt"; else
     * torchrun's --log-dir layout ".../attempt_0/<rank>/stderr.log". */
    int found = -1;
    const char *att = strstr(path, "/attempt_");
    if (att) {
        const char *slash = strchr(att + 1, '/');
        if (slash && isdigit((unsigned char)slash[1])) {
            const char *e = slash + 1;
            while (isdigit((unsigned char)*e))
                e++;
            if (*e == '/' && e - slash - 1 < 7)
                found = atoi(slash + 1);
        }
    }
    for (const char *p = path; *p; p++) {
        if (strncasecmp(p, "rank", 4) != 0)
            continue;
        if (p > path && isalpha((unsigned char)p[-1]))
            continue;
        int r = nd_rank_after(p + 4, p + strlen(p));
        if (r >= 0)
            found = r;
    }
    return found;
}
