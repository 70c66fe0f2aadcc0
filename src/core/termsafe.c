/* Terminal-safe copies of outside strings (see termsafe.h). */
#include "core/termsafe.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

size_t nd_utf8_valid_seq(const unsigned char *s, size_t len)
{
    if (len == 0)
        return 0;
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t n;
    uint32_t cp, min;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        cp = c & 0x1f;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        cp = c & 0x0f;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        cp = c & 0x07;
        min = 0x10000;
    } else {
        return 0;
    }
    if (len < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

static uint32_t nd_utf8_decode(const unsigned char *s, size_t n)
{
    if (n == 1)
        return s[0];
    uint32_t cp = s[0] & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
    for (size_t i = 1; i < n; i++)
        cp = cp << 6 | (s[i] & 0x3f);
    return cp;
}

/* Code points a terminal acts on or that reorder text on screen. */
static int nd_cp_unsafe(uint32_t cp)
{
    return (cp < 0x20 && cp != '\t') || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c ||
           (cp >= 0x200e && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

int nd_term_is_printable(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t len = strlen(s);
    for (size_t i = 0; i < len;) {
        size_t n = nd_utf8_valid_seq(u + i, len - i);
        if (n == 0 || nd_cp_unsafe(nd_utf8_decode(u + i, n)))
            return 0;
        i += n;
    }
    return 1;
}

char *nd_term_printable(const char *s)
{
    if (!s)
        return nd_xstrdup("");
    if (nd_term_is_printable(s))
        return nd_xstrdup(s);
    const unsigned char *u = (const unsigned char *)s;
    size_t len = strlen(s);
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_grow(&sb, len + 16);
    for (size_t i = 0; i < len;) {
        size_t n = nd_utf8_valid_seq(u + i, len - i);
        if (n == 0) {
            nd_strbuf_addf(&sb, "\\x%02x", u[i]);
            i++;
            continue;
        }
        uint32_t cp = nd_utf8_decode(u + i, n);
        if (!nd_cp_unsafe(cp))
            nd_strbuf_add(&sb, u + i, n);
        else if (cp == '\n')
            nd_strbuf_adds(&sb, "\\n");
        else if (cp == '\r')
            nd_strbuf_adds(&sb, "\\r");
        else if (cp < 0x80)
            nd_strbuf_addf(&sb, "\\x%02x", (unsigned)cp);
        else
            nd_strbuf_addf(&sb, "\\u%04x", (unsigned)cp);
        i += n;
    }
    return nd_strbuf_detach(&sb, NULL);
}

void nd_term_eprintf(const char *fmt, ...)
{
    struct nd_strbuf sb = ND_STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    nd_strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    bool nl = sb.len > 0 && sb.buf[sb.len - 1] == '\n';
    if (nl)
        sb.buf[--sb.len] = '\0';
    char *shown = nd_term_printable(sb.buf);
    fprintf(stderr, "%s%s", shown, nl ? "\n" : "");
    free(shown);
    nd_strbuf_release(&sb);
}
