/* Fuzz target for evidence cutting (nd_redact_cut, behind every knowledge-
 * base evidence line): any bytes, NUL and invalid UTF-8 included, and any
 * cap (the first byte); never a crash, never more than the cap and "...",
 * never a control byte or a broken UTF-8 sequence (markers: the unit test). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/redact.h"
#include "core/termsafe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t max = (size_t)data[0] * 4;
    char *out = nd_redact_cut((const char *)data + 1, size - 1, max);
    size_t n = strlen(out);
    if (n > max + 3)
        __builtin_trap();
    for (size_t i = 0; i < n;) {
        const unsigned char c = (unsigned char)out[i];
        if (c < 0x20 || c == 0x7f)
            __builtin_trap();
        size_t q = c < 0x80 ? 1 : nd_utf8_valid_seq((const unsigned char *)out + i, n - i);
        if (q == 0)
            __builtin_trap();
        i += q;
    }
    free(out);
    return 0;
}
