/* Fuzz target: the /etc/ld.so.cache reader used to find vendor libraries. */
#include <stddef.h>
#include <stdint.h>

#include "device/device_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char out[4096];
    char small[8];
    nd_ldcache_lookup(data, size, "libdcmi.so", out, sizeof out);
    nd_ldcache_lookup(data, size, "libc.so.6", out, sizeof out);
    nd_ldcache_lookup(data, size, "libc.so.6", small, sizeof small);
    return 0;
}
