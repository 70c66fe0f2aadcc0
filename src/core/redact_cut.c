/* Evidence text from outside, cut to a length: redacted first, then cut, so
 * a cap never splits a secret into a head the scrubbers cannot recognise
 * (a token's prefix, "Bearer ab"). The cut falls on a UTF-8 boundary and
 * never inside a redaction marker; control bytes become printable. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/redact.h"
#include "core/strbuf.h"
#include "core/termsafe.h"

/* How much of a longer text is redacted: well past what is kept, so what is
 * shown was judged with what followed it (a secret's end, a URL's '@'). */
static size_t nd_cut_scan(size_t max)
{
    return max < 1024 ? 4096 : 4 * max;
}

static bool nd_marker_at(const char *p)
{
    return strncmp(p, "<redacted:", 10) == 0 && nd_redact_is_marker(p);
}

char *nd_redact_cut(const char *text, size_t len, size_t max)
{
    size_t scan = nd_cut_scan(max);
    bool longer = len > scan;
    size_t n = longer ? scan : len;
    /* NUL bytes of binary output would end the string early. */
    struct nd_strbuf in = ND_STRBUF_INIT;
    nd_strbuf_grow(&in, n + 4);
    for (size_t i = 0; i < n; i++)
        nd_strbuf_addc(&in, text[i] ? text[i] : '?');
    if (longer)
        nd_strbuf_adds(&in, "..."); /* the scrubbers' sign of a cut word */
    char *src = nd_strbuf_detach(&in, NULL);
    char *red = nd_redact_text(src);
    free(src);

    struct nd_strbuf out = ND_STRBUF_INIT;
    nd_strbuf_grow(&out, max + 4);
    const unsigned char *p = (const unsigned char *)red;
    size_t rlen = strlen(red), used = 0, i = 0;
    bool cut = false;
    while (i < rlen) {
        size_t step = 1;
        char one = (char)p[i];
        if (p[i] == '<' && nd_marker_at(red + i)) {
            step = ND_REDACT_MARKER_LEN;
        } else if (p[i] < 0x20 || p[i] == 0x7f) {
            one = p[i] == '\t' || p[i] == '\n' || p[i] == '\r' ? ' ' : '?';
        } else if (p[i] >= 0x80) {
            step = nd_utf8_valid_seq(p + i, rlen - i);
            if (step == 0) {
                step = 1;
                one = '?'; /* not UTF-8: JSON and terminals take a '?' */
            }
        }
        if (used + step > max) {
            cut = true;
            break;
        }
        if (step == 1 && (p[i] < 0x20 || p[i] == 0x7f || p[i] >= 0x80))
            nd_strbuf_addc(&out, one);
        else
            nd_strbuf_add(&out, red + i, step);
        used += step;
        i += step;
    }
    /* The redacted text may end in the "..." of a longer input already. */
    if ((cut || longer) && !(used >= 3 && strcmp(out.buf + used - 3, "...") == 0))
        nd_strbuf_adds(&out, "...");
    free(red);
    return nd_strbuf_detach(&out, NULL);
}
