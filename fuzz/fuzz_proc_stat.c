/* Fuzz target for nd_proc_parse_stat (/proc/PID/stat): any bytes, any length,
 * never a crash; a successful parse keeps its invariants. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "proc/proc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct nd_proc_stat out;
    if (nd_proc_parse_stat((const char *)data, size, &out) == 0) {
        /* comm is always a C string within its field. */
        if (strnlen(out.comm, sizeof out.comm) >= sizeof out.comm || out.pid <= 0)
            __builtin_trap();
    }
    return 0;
}
