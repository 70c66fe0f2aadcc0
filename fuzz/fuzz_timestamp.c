/* Fuzz target for the log timestamp and rank parsers (kb_time.c): any bytes,
 * never a read past the given length, results within sane bounds. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kb/kb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exact-size heap copy, so ASan sees any read past the end. */
    char *line = malloc(size ? size : 1);
    if (!line)
        return 0;
    memcpy(line, data, size);
    double t = 0;
    if (nd_kb_parse_timestamp(line, size, &t) && (t < -1e6 || t > 8e9))
        __builtin_trap();
    if (nd_kb_line_rank(line, size) < -1)
        __builtin_trap();
    char *path = malloc(size + 1);
    if (path) {
        memcpy(path, data, size);
        path[size] = '\0';
        if (nd_kb_path_rank(path) < -1)
            __builtin_trap();
        free(path);
    }
    free(line);
    return 0;
}
