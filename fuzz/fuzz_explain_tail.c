/* Fuzz target for the tail reader of explain's stall check
 * (cmd/explain_stall.c): the last timestamped line of any bytes; never a
 * crash, and a timestamp found is one the line parser would give. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/explain_stall.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A copy of exactly size bytes: a read past it shows under ASan. */
    char *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    double t;
    if (nd_explain_last_timestamp(buf, size, &t) && t != t)
        __builtin_trap(); /* NaN: never a time */
    free(buf);
    return 0;
}
