/* Fuzz target for nd_proc_parse_status (/proc/PID/status): any bytes, any length,
 * never a crash; a successful parse keeps its invariants. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "proc/proc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct nd_proc_status out;
    if (nd_proc_parse_status((const char *)data, size, &out) == 0) {
        if (out.nnspid < 0 || out.nnspid > ND_PROC_MAX_NSPID)
            __builtin_trap();
        for (int i = 0; i < out.nnspid; i++)
            if (out.nspid[i] <= 0)
                __builtin_trap();
        (void)nd_proc_status_host_pid(&out, 1);
    }
    return 0;
}
