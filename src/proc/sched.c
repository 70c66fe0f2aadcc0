/* Host CPU contention: the schedstat, loadavg and PSI parsers, and the
 * judgement over a window (see sched.h). */
#include "proc/sched.h"

#include <errno.h>
#include <string.h>

static const char *nd_sp(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* An unsigned decimal; false when none or on overflow. */
static bool nd_u64(const char **pp, const char *end, uint64_t *out)
{
    const char *p = *pp;
    uint64_t v = 0;
    if (p >= end || *p < '0' || *p > '9')
        return false;
    while (p < end && *p >= '0' && *p <= '9') {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
        p++;
    }
    *pp = p;
    *out = v;
    return true;
}

/* "12.34" (no sign, no exponent: what the kernel writes); false when none. */
static bool nd_fixed(const char **pp, const char *end, double *out)
{
    uint64_t whole;
    const char *p = *pp;
    if (!nd_u64(&p, end, &whole) || whole > 1000000000ull)
        return false;
    double v = (double)whole, scale = 0.1;
    if (p < end && *p == '.') {
        p++;
        for (int i = 0; p < end && *p >= '0' && *p <= '9'; p++, i++)
            if (i < 9) {
                v += (double)(*p - '0') * scale;
                scale /= 10;
            }
    }
    *pp = p;
    *out = v;
    return true;
}

int nd_sched_parse_schedstat(const char *buf, size_t len, struct nd_schedstat *out)
{
    memset(out, 0, sizeof *out);
    if (!buf)
        return -EINVAL;
    const char *p = buf, *end = buf + len;
    p = nd_sp(p, end);
    if (!nd_u64(&p, end, &out->run_ns) || p >= end || (*p != ' ' && *p != '\t'))
        goto bad;
    p = nd_sp(p, end);
    if (!nd_u64(&p, end, &out->wait_ns))
        goto bad;
    if (p < end && (*p == ' ' || *p == '\t')) {
        p = nd_sp(p, end);
        if (!nd_u64(&p, end, &out->slices))
            out->slices = 0;
    }
    return 0;
bad:
    memset(out, 0, sizeof *out);
    return -EINVAL;
}

int nd_sched_parse_loadavg(const char *buf, size_t len, struct nd_loadavg *out)
{
    memset(out, 0, sizeof *out);
    out->running = out->total = -1;
    out->last_pid = -1;
    out->avg1 = out->avg5 = out->avg15 = -1;
    if (!buf)
        return -EINVAL;
    const char *p = nd_sp(buf, buf + len), *end = buf + len;
    double *avg[] = {&out->avg1, &out->avg5, &out->avg15};
    for (size_t i = 0; i < 3; i++) {
        double v;
        if (!nd_fixed(&p, end, &v))
            return i == 0 ? -EINVAL : 0;
        *avg[i] = v;
        p = nd_sp(p, end);
    }
    uint64_t r, t, last;
    if (nd_u64(&p, end, &r) && p < end && *p == '/') {
        p++;
        if (nd_u64(&p, end, &t) && r <= 100000000ull && t <= 100000000ull) {
            out->running = (long)r;
            out->total = (long)t;
        }
    }
    p = nd_sp(p, end);
    if (nd_u64(&p, end, &last) && last <= (uint64_t)INT32_MAX * 2)
        out->last_pid = (long long)last;
    return 0;
}

int nd_sched_parse_psi_some_avg10(const char *buf, size_t len, double *avg10)
{
    *avg10 = -1;
    if (!buf)
        return -EINVAL;
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        if ((size_t)(eol - p) >= 5 && memcmp(p, "some ", 5) == 0) {
            for (const char *q = p + 5; q + 6 <= eol; q++) {
                if (memcmp(q, "avg10=", 6) != 0 || (q != p + 5 && q[-1] != ' '))
                    continue;
                const char *v = q + 6;
                double x;
                if (nd_fixed(&v, eol, &x) && x <= 100.0) {
                    *avg10 = x;
                    return 0;
                }
                return -EINVAL;
            }
        }
        p = eol + 1;
    }
    return -EINVAL;
}

void nd_contention_judge(const struct nd_contention_in *in, struct nd_contention *out)
{
    memset(out, 0, sizeof *out);
    if (!in || !(in->span_s > 0) || !(in->run_s >= 0) || !(in->wait_s >= 0))
        return;
    out->known = true;
    out->run_cores = in->run_s / in->span_s;
    out->wait_cores = in->wait_s / in->span_s;
    double want = in->run_s + in->wait_s;
    out->wait_share = want > 0 ? in->wait_s / want : 0;
    double cpus = (double)in->host_cpus;
    out->host_crowded = (in->host_cpus > 0 && in->procs_running > in->host_cpus) ||
                        (in->host_cpus > 0 && in->loadavg1 > cpus) || in->psi_avg10 >= ND_CONTENTION_PSI;
    /* The job itself filling the host (more threads than cores of its own)
     * is its own doing: others must hold most of the cores. */
    bool others = in->host_cpus <= 0 || out->run_cores < 0.5 * cpus;
    out->starved = out->host_crowded && others && out->wait_cores >= ND_CONTENTION_WAIT_CORES &&
                   out->wait_share >= ND_CONTENTION_WAIT_SHARE;
}
