/* Fuzz target for the explain scanner (kb_scan.c, kb_order.c) and the live
 * line matcher: arbitrary bytes as a log, never a crash, every finding
 * points at a line that exists. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "kb/kb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct nd_kb *kb;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!kb) {
        struct nd_error err = {0};
        /* Loaded once per process and kept, as libFuzzer calls many times. */
        if (nd_kb_load(&kb, NULL, 0, &err) != 0)
            __builtin_trap();
    }
    size_t lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    struct nd_findings out = ND_FINDINGS_INIT;
    nd_kb_explain_buffer(kb, "fuzz.log", (const char *)data, size, &out, NULL);
    for (size_t i = 0; i < out.n; i++)
        if (out.v[i]->first_line < 1 || (size_t)out.v[i]->first_line > lines || out.v[i]->count < 1)
            __builtin_trap();
    nd_findings_release(&out);
    nd_kb_match_line(kb, (const char *)data, size, "fuzz", 1, &out);
    nd_findings_release(&out);
    return 0;
}
