/* Fuzz target for nd_proc_parse_io (/proc/PID/io): any bytes, any length,
 * never a crash; a successful parse found at least one counter. */
#include <stddef.h>
#include <stdint.h>

#include "proc/proc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct nd_proc_io out;
    if (nd_proc_parse_io((const char *)data, size, &out) == 0 && !out.rchar_valid && !out.read_bytes_valid)
        __builtin_trap();
    return 0;
}
