/* The output lines other detectors use as evidence: operator fallbacks (the
 * unsupported-op side of input-bound and cpu-fallback judgements) and
 * DataLoader bus errors (host-oom at exit). Only lines the knowledge base
 * matched are looked at (its rules cover both), so this costs nothing on the
 * lines between; what a line means is the knowledge base's business. */
#include <stdio.h>
#include <string.h>

#include "monitor/detect.h"

static bool nd_line_has(const char *line, size_t len, const char *needle)
{
    return memmem(line, len, needle, strlen(needle)) != NULL;
}

unsigned nd_loglines_classify(const char *line, size_t len)
{
    unsigned notes = 0;
    if (nd_line_has(line, len, "will fall back to run on the CPU") ||
        nd_line_has(line, len, "will fall back to run on CPU"))
        notes |= ND_NOTE_OP_FALLBACK;
    if ((nd_line_has(line, len, "DataLoader worker") && nd_line_has(line, len, "Bus error")) ||
        nd_line_has(line, len, "insufficient shared memory (shm)"))
        notes |= ND_NOTE_BUS_ERROR;
    return notes;
}

/* The line around p, inside [data, data+len). */
static void nd_line_around(const char *data, size_t len, const char *p, const char **ls, size_t *ll)
{
    const char *s = p, *e = p, *end = data + len;
    while (s > data && s[-1] != '\n')
        s--;
    while (e < end && *e != '\n')
        e++;
    *ls = s;
    *ll = (size_t)(e - s);
}

void nd_loglines_note_block(const char *data, size_t len, struct nd_detect_context *ctx)
{
    static const char *const anchors[] = {"will fall back to run on", "Bus error", "insufficient shared memory (shm)"};
    const char *end = data + len;
    /* One pass per anchor; every line holding one is classified once. */
    for (size_t a = 0; a < sizeof anchors / sizeof *anchors; a++) {
        size_t alen = strlen(anchors[a]);
        for (const char *p = data; (p = memmem(p, (size_t)(end - p), anchors[a], alen)) != NULL;) {
            const char *ls;
            size_t ll;
            nd_line_around(data, len, p, &ls, &ll);
            unsigned notes = nd_loglines_classify(ls, ll);
            /* A line with two anchors is noted by the first anchor it holds. */
            bool first = true;
            for (size_t b = 0; b < a && first; b++)
                first = !nd_line_has(ls, ll, anchors[b]);
            if (first)
                nd_loglines_note(notes, ls, ll, ctx);
            p = ls + ll;
        }
    }
}

void nd_loglines_note(unsigned notes, const char *line, size_t len, struct nd_detect_context *ctx)
{
    int n = (int)(len > 200 ? 200 : len);
    if ((notes & ND_NOTE_OP_FALLBACK) && ctx->op_fallback_lines++ == 0)
        snprintf(ctx->op_fallback_example, sizeof ctx->op_fallback_example, "%.*s", n, line);
    if ((notes & ND_NOTE_BUS_ERROR) && !ctx->dataloader_bus_error) {
        ctx->dataloader_bus_error = true;
        snprintf(ctx->dataloader_line, sizeof ctx->dataloader_line, "%.*s", n, line);
    }
}
