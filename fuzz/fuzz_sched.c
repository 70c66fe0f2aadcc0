/* Fuzz target for the host-contention parsers (proc/sched.c): the same
 * bytes as /proc/PID/task/TID/schedstat, /proc/loadavg and
 * /proc/pressure/cpu, any length, never a crash; what a parse returns is
 * in range, and the judgement over parsed numbers stays finite. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "proc/sched.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    struct nd_schedstat st;
    if (nd_sched_parse_schedstat(buf, size, &st) != 0 && (st.run_ns || st.wait_ns))
        __builtin_trap();
    struct nd_loadavg la;
    if (nd_sched_parse_loadavg(buf, size, &la) == 0 && !(la.avg1 >= 0 && isfinite(la.avg1)))
        __builtin_trap();
    double psi;
    if (nd_sched_parse_psi_some_avg10(buf, size, &psi) == 0 && !(psi >= 0 && psi <= 100))
        __builtin_trap();
    struct nd_contention_in in = {.span_s = 1,
                                  .run_s = (double)st.run_ns / 1e9,
                                  .wait_s = (double)st.wait_ns / 1e9,
                                  .host_cpus = la.running > 0 ? la.running : 0,
                                  .loadavg1 = la.avg1,
                                  .procs_running = la.total,
                                  .psi_avg10 = psi};
    struct nd_contention c;
    nd_contention_judge(&in, &c);
    if (c.known && !(isfinite(c.wait_share) && c.wait_share >= 0 && c.wait_share <= 1))
        __builtin_trap();
    return 0;
}
