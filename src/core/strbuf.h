/* A growable, always NUL-terminated byte buffer. Allocation failure aborts:
 * a diagnostic tool that cannot allocate a few KiB has nothing useful left to say. */
#ifndef ND_CORE_STRBUF_H
#define ND_CORE_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct nd_strbuf {
    char *buf; /* never NULL after init: "" at least */
    size_t len;
    size_t cap; /* 0: buf is the shared empty string, nothing to free */
};

/* The one empty string every unallocated buffer points at, so that buf can
 * be printed or compared before anything was added. Never written to but
 * for its NUL. */
extern char nd_strbuf_empty[1];

#define ND_STRBUF_INIT                                                                                                 \
    {                                                                                                                  \
        nd_strbuf_empty, 0, 0                                                                                          \
    }

void nd_strbuf_init(struct nd_strbuf *sb);
void nd_strbuf_grow(struct nd_strbuf *sb, size_t extra);
void nd_strbuf_add(struct nd_strbuf *sb, const void *data, size_t len);
void nd_strbuf_adds(struct nd_strbuf *sb, const char *s);
void nd_strbuf_addc(struct nd_strbuf *sb, char c);
void nd_strbuf_addf(struct nd_strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void nd_strbuf_vaddf(struct nd_strbuf *sb, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void nd_strbuf_reset(struct nd_strbuf *sb);
/* Hands the buffer to the caller (free() it) and leaves sb empty. */
char *nd_strbuf_detach(struct nd_strbuf *sb, size_t *len);
void nd_strbuf_release(struct nd_strbuf *sb);

/* Small allocation helpers with the same abort-on-failure policy. */
void *nd_xmalloc(size_t n);
void *nd_xcalloc(size_t n, size_t size);
void *nd_xrealloc(void *p, size_t n);
char *nd_xstrdup(const char *s);
char *nd_xstrndup(const char *s, size_t n);
char *nd_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
