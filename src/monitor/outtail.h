/* The last bytes of a job's output, both streams in the order they were
 * matched: what explain's steps that read a whole log (the fallback for an
 * exception no rule knows, the log's shape, the versions it prints) read at
 * the job's end, so that run's summary names what explain would on the same
 * output. Pure: fed blocks of whole lines, never reads or writes. */
#ifndef ND_MONITOR_OUTTAIL_H
#define ND_MONITOR_OUTTAIL_H

#include <stdbool.h>
#include <stddef.h>

/* explain's log-shape analysis keeps as much of each source (kb_logshape.c). */
#define ND_OUTTAIL_MAX (128u << 10)

struct nd_outtail {
    char *buf; /* up to 2 * ND_OUTTAIL_MAX while fed; NULL: nothing yet */
    size_t len;
    bool cut; /* earlier output was dropped */
};

/* Appends a block (a missing last newline is added). */
void nd_outtail_feed(struct nd_outtail *t, const char *data, size_t len);
/* The kept text from its first whole line, at most ND_OUTTAIL_MAX bytes
 * (*len 0: none), valid until the next feed; *cut: earlier output is not
 * in it. */
const char *nd_outtail_text(const struct nd_outtail *t, size_t *len, bool *cut);
void nd_outtail_free(struct nd_outtail *t);

#endif
