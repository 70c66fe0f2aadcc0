/* Bench driver (built by bench/ps.sh against the build's libnd.a): the CPU
 * cost of one footprint sample of a 64-process tree, as run/watch take it.
 * The tree is this driver's child, which forks 62 idle processes and
 * optionally execs one real PyTorch process (its maps run to ~1700 lines),
 * so 64 processes in all. Prints ms of CPU (user+sys, getrusage) per sample:
 * cold (every maps file read) and warm (the cache within refresh_s), each
 * with and without the /proc walk that finds the tree. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "proc/footprint.h"
#include "proc/proc.h"

static double cpu_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec / 1e6;
}

/* One sample: stat (CPU ticks, as the sampler reads them) and footprint of each pid. */
static size_t sample(const pid_t *pids, size_t n, struct nd_footprint_cache *cache, unsigned *fw_union)
{
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        struct nd_proc_stat st;
        struct nd_footprint fp;
        if (nd_proc_read_stat(pids[i], &st) == 0 && nd_footprint_of(pids[i], NULL, 0, cache, &fp) == 0) {
            *fw_union |= fp.frameworks;
            ok++;
        }
    }
    return ok;
}

int main(int argc, char **argv)
{
    /* argv[1]: a python with torch (e.g. /usr/bin/python3), or "-" for none */
    const char *torch_py = argc > 1 && strcmp(argv[1], "-") != 0 ? argv[1] : NULL;
    int samples = argc > 2 ? atoi(argv[2]) : 200;
    if (samples <= 0)
        samples = 200;
    int ready[2];
    if (pipe(ready) != 0)
        return 1;
    pid_t root = fork();
    if (root < 0)
        return 1;
    if (root == 0) {
        close(ready[0]);
        int kids = torch_py ? 62 : 63;
        for (int i = 0; i < kids; i++) {
            pid_t p = fork();
            if (p == 0) {
                close(ready[1]);
                alarm(600);
                pause();
                _exit(0);
            }
        }
        if (torch_py) {
            pid_t p = fork();
            if (p == 0) {
                /* The python child announces itself once torch is imported. */
                char code[256];
                snprintf(code, sizeof code,
                         "import os, signal, torch\nsignal.alarm(600)\nos.write(%d, b'k')\nsignal.pause()\n", ready[1]);
                execl(torch_py, torch_py, "-c", code, (char *)NULL);
                _exit(127);
            }
        } else if (write(ready[1], "k", 1) != 1) {
            _exit(1);
        }
        alarm(600);
        pause();
        _exit(0);
    }
    close(ready[1]);
    char k;
    if (read(ready[0], &k, 1) != 1) {
        fprintf(stderr, "footprint_cost: the tree did not start\n");
        kill(root, SIGKILL);
        return 1;
    }
    pid_t *pids = NULL;
    size_t n = 0;
    /* Wait until all 64 exist (forks race with us). */
    for (int tries = 0; tries < 1000; tries++) {
        free(pids);
        if (nd_proc_tree(root, &pids, &n) == 0 && n >= 64)
            break;
        usleep(10000);
    }
    unsigned fw = 0;

    /* Cold: no cache, every maps file read each time. */
    int cold_runs = samples / 10 > 5 ? samples / 10 : 5;
    double c0 = cpu_now();
    size_t got = 0;
    for (int s = 0; s < cold_runs; s++)
        got = sample(pids, n, NULL, &fw);
    double cold = (cpu_now() - c0) / cold_runs * 1e3;

    /* Warm: one cache as run/watch keep it (refresh 10 s, longer than this loop). */
    struct nd_footprint_cache *cache = nd_footprint_cache_new(10.0);
    sample(pids, n, cache, &fw);
    c0 = cpu_now();
    for (int s = 0; s < samples; s++)
        sample(pids, n, cache, &fw);
    double warm = (cpu_now() - c0) / samples * 1e3;

    /* Warm, plus finding the tree again in /proc each sample (new children). */
    c0 = cpu_now();
    for (int s = 0; s < samples; s++) {
        pid_t *t = NULL;
        size_t tn = 0;
        if (nd_proc_tree(root, &t, &tn) == 0)
            sample(t, tn, cache, &fw);
        free(t);
    }
    double warm_tree = (cpu_now() - c0) / samples * 1e3;
    pid_t *all = NULL;
    size_t nall = 0;
    nd_proc_list(&all, &nall);
    free(all);

    char names[128];
    nd_frameworks_describe(fw, names, sizeof names);
    printf("footprint tree: %zu processes (%zu answered), frameworks seen: %s; %zu processes on the host\n", n, got,
           names[0] ? names : "none", nall);
    printf("footprint cold (maps read every time):      %.3f ms CPU/sample\n", cold);
    printf("footprint warm (cache, refresh 10 s):        %.3f ms CPU/sample   (target < 2 ms)\n", warm);
    printf("footprint warm + tree walk over all of /proc: %.3f ms CPU/sample\n", warm_tree);
    nd_footprint_cache_free(cache);
    free(pids);
    pid_t *t = NULL;
    size_t tn = 0;
    if (nd_proc_tree(root, &t, &tn) == 0)
        for (size_t i = tn; i-- > 0;)
            kill(t[i], SIGKILL);
    free(t);
    waitpid(root, NULL, 0);
    return 0;
}
