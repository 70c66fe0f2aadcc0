/* Fuzz target for the traceback frame reader (kb_frames.c): the input's
 * first line is a frame line, the rest the line under it. Any bytes: no read
 * past either length, every kept frame within its size bound, the ring
 * never holding more than its capacity. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kb/kb_frames.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t n = nl ? (size_t)(nl - data) : size;
    size_t nn = nl ? size - n - 1 : 0;
    /* Exact-size heap copies, so ASan sees any read past an end. */
    char *line = malloc(n ? n : 1), *next = malloc(nn ? nn : 1);
    if (!line || !next) {
        free(line);
        free(next);
        return 0;
    }
    memcpy(line, data, n);
    if (nn)
        memcpy(next, nl + 1, nn);
    struct nd_kb_frames r = {0};
    for (int i = 0; i < ND_KB_FRAMES + 2; i++)
        nd_kb_frames_push(&r, line, n, nl ? next : NULL, nn);
    if (r.n > ND_KB_FRAMES)
        __builtin_trap();
    for (size_t i = 0; i < r.n; i++)
        if (strlen(r.v[i]) > ND_KB_FRAME_MAX)
            __builtin_trap();
    char *all = nd_kb_frames_join(&r);
    if ((all == NULL) != (r.n == 0))
        __builtin_trap();
    free(all);
    nd_kb_frames_clear(&r);
    free(line);
    free(next);
    return 0;
}
