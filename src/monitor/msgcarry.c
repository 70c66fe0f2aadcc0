/* The last message of a block, carried to the next one (msgcarry.h). */
#include "monitor/msgcarry.h"

#include <string.h>

#include "kb/kb.h"

#define ND_MSGCARRY_LINES 64 /* continuation lines looked back over */

/* The start of the line that ends at e (e: its '\n' or the end). */
static const char *nd_line_start(const char *data, const char *e)
{
    const char *s = e;
    while (s > data && s[-1] != '\n')
        s--;
    return s;
}

size_t nd_msgcarry_tail_start(const char *data, size_t len)
{
    if (len == 0)
        return 0;
    const char *end = data + len;
    const char *le = end[-1] == '\n' ? end - 1 : end; /* the last line's end */
    const char *start = nd_line_start(data, le);
    for (int k = 0; k < ND_MSGCARRY_LINES && start > data; k++) {
        const char *pe = start - 1; /* the previous line's '\n' */
        const char *prev = nd_line_start(data, pe);
        if (!nd_kb_line_continues(prev, (size_t)(pe - prev), start, (size_t)(le - start)))
            break;
        le = pe;
        start = prev;
    }
    return (size_t)(end - start) <= ND_MSGCARRY_MAX ? (size_t)(start - data) : len;
}

size_t nd_msgcarry_lead(const struct nd_msgcarry *c, const char *data, size_t len)
{
    if (!c->len)
        return 0;
    /* The carried group's last line. */
    const char *cend = c->buf + c->len;
    const char *pe = cend[-1] == '\n' ? cend - 1 : cend;
    const char *prev = nd_line_start(c->buf, pe);
    size_t pn = (size_t)(pe - prev);
    const char *p = data, *end = data + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        if (!nd_kb_line_continues(prev, pn, p, (size_t)(le - p)))
            break;
        prev = p;
        pn = (size_t)(le - p);
        p = nl ? nl + 1 : end;
    }
    return (size_t)(p - data);
}

void nd_msgcarry_set(struct nd_msgcarry *c, const char *data, size_t len, long first_lineno, double at_s, bool late,
                     bool noted, double now)
{
    c->len = len <= ND_MSGCARRY_MAX ? len : 0;
    if (c->len)
        memcpy(c->buf, data, c->len);
    c->first_lineno = first_lineno;
    c->at_s = at_s;
    c->late = late;
    c->noted = noted;
    c->since = now;
}

bool nd_msgcarry_append(struct nd_msgcarry *c, const char *data, size_t len, double now)
{
    if (c->len + len > ND_MSGCARRY_MAX)
        return false;
    memcpy(c->buf + c->len, data, len);
    c->len += len;
    c->since = now;
    return true;
}
