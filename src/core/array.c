/* Array growth for ND_ALLOC_GROW: the capacity step and an overflow-checked
 * realloc, both aborting like the other allocation helpers. */
#include "core/array.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/strbuf.h"

static void nd_array_overflow(void)
{
    fputs("npu-doctor: out of memory (array size overflows)\n", stderr);
    abort();
}

size_t nd_alloc_nr(size_t alloc, size_t need)
{
    size_t cap = alloc < 8 ? 16 : alloc;
    while (cap < need || cap == alloc) {
        if (cap > SIZE_MAX / 2)
            nd_array_overflow();
        cap *= 2;
    }
    return cap;
}

void *nd_xreallocarray(void *p, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        nd_array_overflow();
    return nd_xrealloc(p, n * size);
}
