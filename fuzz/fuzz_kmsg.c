/* Fuzz target for nd_kmsg_oom_pid (one /dev/kmsg record): any bytes, never
 * a crash, and a pid found is positive. */
#include <stddef.h>
#include <stdint.h>

#include "monitor/kmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pid_t p = nd_kmsg_oom_pid((const char *)data, size);
    if (p == 0 || p < -1)
        __builtin_trap();
    return 0;
}
