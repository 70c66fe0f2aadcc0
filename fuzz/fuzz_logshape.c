/* Fuzz target for the log-shape analysis (kb_logshape.c): arbitrary bytes as
 * a log's tail, never a crash, every finding is a low-confidence warning
 * whose evidence points at a line that exists; and the whole explain path
 * (scan, fallback, shape merge) on the same bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "kb/kb_internal.h"

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
    long lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    struct nd_findings out = ND_FINDINGS_INIT;
    nd_kb_shape_analyze(&kb->rules.shape, "fuzz.log", (const char *)data, size, 1, &out);
    for (size_t i = 0; i < out.n; i++) {
        const struct nd_finding *f = out.v[i];
        if (f->severity != ND_SEV_WARNING || f->confidence != ND_CONF_LOW || f->nevidence == 0)
            __builtin_trap();
        for (size_t k = 0; k < f->nevidence; k++)
            if (f->evidence[k].line < 1 || f->evidence[k].line > lines)
                __builtin_trap();
    }
    nd_findings_release(&out);
    struct nd_kb_scan *s = nd_kb_scan_new(kb);
    nd_kb_scan_buffer(s, "fuzz.log", (const char *)data, size);
    nd_kb_scan_finish(s, &out, true);
    nd_kb_scan_free(s);
    for (size_t i = 0; i < out.n; i++)
        if (out.v[i]->first_line > lines)
            __builtin_trap();
    nd_findings_release(&out);
    return 0;
}
