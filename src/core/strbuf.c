/* Growable string buffer and abort-on-OOM allocation helpers. */
#include "core/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char nd_strbuf_empty[1];

static void nd_oom(void)
{
    fputs("npu-doctor: out of memory\n", stderr);
    abort();
}

void *nd_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        nd_oom();
    return p;
}

void *nd_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        nd_oom();
    return p;
}

void *nd_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        nd_oom();
    return q;
}

char *nd_xstrdup(const char *s)
{
    return nd_xstrndup(s, strlen(s));
}

char *nd_xstrndup(const char *s, size_t n)
{
    char *p = nd_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *nd_xasprintf(const char *fmt, ...)
{
    struct nd_strbuf sb = ND_STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return nd_xstrdup("");
    nd_strbuf_grow(&sb, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(sb.buf, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb.len = (size_t)n;
    return nd_strbuf_detach(&sb, NULL);
}

void nd_strbuf_init(struct nd_strbuf *sb)
{
    sb->buf = nd_strbuf_empty;
    sb->len = 0;
    sb->cap = 0;
}

void nd_strbuf_grow(struct nd_strbuf *sb, size_t extra)
{
    /* cap 0: buf is nd_strbuf_empty (or NULL in a zeroed struct). */
    if (sb->cap == 0) {
        size_t cap = extra + 1 < 64 ? 64 : extra + 1;
        sb->buf = nd_xmalloc(cap);
        sb->buf[0] = '\0';
        sb->len = 0;
        sb->cap = cap;
        return;
    }
    if (sb->len + extra + 1 <= sb->cap)
        return;
    size_t cap = sb->cap * 2;
    while (cap < sb->len + extra + 1)
        cap *= 2;
    sb->buf = nd_xrealloc(sb->buf, cap);
    sb->cap = cap;
}

void nd_strbuf_add(struct nd_strbuf *sb, const void *data, size_t len)
{
    nd_strbuf_grow(sb, len);
    memcpy(sb->buf + sb->len, data, len);
    sb->len += len;
    sb->buf[sb->len] = '\0';
}

void nd_strbuf_adds(struct nd_strbuf *sb, const char *s)
{
    nd_strbuf_add(sb, s, strlen(s));
}

void nd_strbuf_addc(struct nd_strbuf *sb, char c)
{
    nd_strbuf_add(sb, &c, 1);
}

void nd_strbuf_vaddf(struct nd_strbuf *sb, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    if (n > 0) {
        nd_strbuf_grow(sb, (size_t)n);
        vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, again);
        sb->len += (size_t)n;
    }
    va_end(again);
}

void nd_strbuf_addf(struct nd_strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nd_strbuf_vaddf(sb, fmt, ap);
    va_end(ap);
}

void nd_strbuf_reset(struct nd_strbuf *sb)
{
    sb->len = 0;
    if (sb->cap)
        sb->buf[0] = '\0';
    else
        sb->buf = nd_strbuf_empty;
}

char *nd_strbuf_detach(struct nd_strbuf *sb, size_t *len)
{
    char *p;
    if (sb->cap == 0)
        p = nd_xstrdup("");
    else
        p = sb->buf;
    if (len)
        *len = sb->len;
    nd_strbuf_init(sb);
    return p;
}

void nd_strbuf_release(struct nd_strbuf *sb)
{
    if (sb->cap)
        free(sb->buf);
    nd_strbuf_init(sb);
}
