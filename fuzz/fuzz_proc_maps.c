/* Fuzz target for nd_maps_parse_frameworks (/proc/PID/maps): any bytes, any
 * length, never a crash; only known framework bits come back. */
#include <stddef.h>
#include <stdint.h>

#include "proc/footprint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned fw = 0;
    if (nd_maps_parse_frameworks((const char *)data, size, &fw) != 0)
        __builtin_trap();
    if (fw & ~((ND_FW_PYTHON << 1) - 1))
        __builtin_trap();
    char buf[256];
    nd_frameworks_describe(fw, buf, sizeof buf);
    return 0;
}
