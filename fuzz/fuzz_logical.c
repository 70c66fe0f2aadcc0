/* Fuzz target for the logical-line builder (kb_logical.c): arbitrary bytes
 * as a chunk of log, never a crash, and the map back to physical lines is
 * consistent: every physical line lies inside the input, its content inside
 * the logical text, in order, and each logical line starts at or before
 * its continuations. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kb/kb_logical.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    struct nd_kb_logical lg = {0};
    bool needed = nd_kb_logical_needed(buf, size);
    size_t n = nd_kb_logical_build(buf, size, &lg);
    if (n > size + 1 || n != lg.len)
        __builtin_trap();
    size_t prev_off = 0;
    for (size_t i = 0; i < lg.nlines; i++) {
        const struct nd_kb_pline *p = &lg.lines[i];
        if (p->o_line > p->o_content || p->o_content > p->o_end || p->o_end > size || p->logical > i || p->n_off > n ||
            p->n_off < prev_off)
            __builtin_trap();
        /* The content copied is the input's bytes. */
        size_t len = p->o_end - p->o_content;
        if (p->n_off + len <= n && memcmp(lg.buf + p->n_off, buf + p->o_content, len) != 0)
            __builtin_trap();
        prev_off = p->n_off;
        (void)nd_kb_line_prefix(buf + p->o_line, p->o_end - p->o_line);
    }
    /* Nothing to change means the logical text is the input itself. */
    if (!needed && (n != size || (size && memcmp(lg.buf, buf, size) != 0)))
        __builtin_trap();
    nd_kb_logical_release(&lg);
    return 0;
}
