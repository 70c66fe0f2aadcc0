/* The end of a job's output kept for explain's whole-log steps (outtail.h):
 * a buffer twice the size kept, so that a flood of small blocks moves the
 * kept bytes once per ND_OUTTAIL_MAX bytes fed, not once per block. */
#include "monitor/outtail.h"

#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

static void nd_outtail_put(struct nd_outtail *t, const char *data, size_t len)
{
    if (len >= ND_OUTTAIL_MAX) {
        memcpy(t->buf, data + len - ND_OUTTAIL_MAX, ND_OUTTAIL_MAX);
        t->len = ND_OUTTAIL_MAX;
        t->cut = true;
        return;
    }
    if (t->len + len > 2 * ND_OUTTAIL_MAX) {
        size_t drop = t->len + len - ND_OUTTAIL_MAX;
        memmove(t->buf, t->buf + drop, t->len - drop);
        t->len -= drop;
        t->cut = true;
    }
    memcpy(t->buf + t->len, data, len);
    t->len += len;
}

void nd_outtail_feed(struct nd_outtail *t, const char *data, size_t len)
{
    if (!len)
        return;
    if (!t->buf)
        t->buf = nd_xmalloc(2 * ND_OUTTAIL_MAX);
    nd_outtail_put(t, data, len);
    if (data[len - 1] != '\n')
        nd_outtail_put(t, "\n", 1);
}

const char *nd_outtail_text(const struct nd_outtail *t, size_t *len, bool *cut)
{
    *len = 0;
    *cut = t->cut || t->len > ND_OUTTAIL_MAX;
    if (!t->buf || !t->len)
        return NULL;
    const char *s = t->buf;
    size_t n = t->len;
    if (n > ND_OUTTAIL_MAX) {
        s += n - ND_OUTTAIL_MAX;
        n = ND_OUTTAIL_MAX;
    }
    /* After a cut, the first line kept is a part: it starts after it. */
    if (*cut) {
        const char *nl = memchr(s, '\n', n);
        if (!nl)
            return NULL;
        n -= (size_t)(nl + 1 - s);
        s = nl + 1;
    }
    *len = n;
    return n ? s : NULL;
}

void nd_outtail_free(struct nd_outtail *t)
{
    free(t->buf);
    t->buf = NULL;
    t->len = 0;
    t->cut = false;
}
