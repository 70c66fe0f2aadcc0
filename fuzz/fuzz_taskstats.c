/* Fuzz target: the parser of the kernel's taskstats exit notices (netlink
 * datagrams, proc/taskstats.c), asked for a few pids. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proc/taskstats.h"

static void nd_fuzz_count(const struct nd_exit_notice *n, void *arg)
{
    /* The name must be a terminated string whatever the bytes were. */
    if (strlen(n->comm) < sizeof n->comm)
        ++*(size_t *)arg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A copy: netlink buffers are aligned, fuzz input need not be. */
    void *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    int ws;
    const pid_t pids[] = {1, 4242, 0, -1};
    for (size_t i = 0; i < sizeof pids / sizeof *pids; i++)
        (void)nd_taskstats_parse(buf, size, pids[i], &ws);
    size_t n = 0;
    (void)nd_taskstats_each(buf, size, nd_fuzz_count, &n);
    free(buf);
    return 0;
}
