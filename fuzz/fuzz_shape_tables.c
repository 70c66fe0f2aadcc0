/* Fuzz target for the tool-table reader of the log-shape analysis
 * (kb_shape_tables.c): arbitrary bytes as lines of a pasted smi, top or ps
 * table, never a crash and every row it reads is in range. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kb/kb_shape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    struct nd_shape_table t;
    nd_shape_table_init(&t);
    for (char *line = buf, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        struct nd_shape_row r;
        enum nd_shape_row_kind k = nd_shape_table_line(&t, line, &r);
        if (k == ND_ROW_DEVICE && r.util < 0)
            __builtin_trap();
        if (k != ND_ROW_HOST && (r.cpu != 0 || r.python))
            __builtin_trap();
    }
    free(buf);
    return 0;
}
