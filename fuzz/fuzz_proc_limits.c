/* Fuzz target for nd_proc_parse_limit_as (/proc/PID/limits): any bytes, any
 * length, never a crash; a failed parse leaves 0. */
#include <stddef.h>
#include <stdint.h>

#include "proc/proc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t v = 1;
    if (nd_proc_parse_limit_as((const char *)data, size, &v) < 0 && v != 0)
        __builtin_trap();
    return 0;
}
