/* Characters that hide a secret from the scrubbers without showing on a
 * screen: zero-width and format characters (U+200B..U+200F, U+2060..U+2064,
 * the BOM U+FEFF, the soft hyphen U+00AD, bidi embeddings and isolates,
 * variation selectors, tag characters) inside a name or a value
 * ("PASS<BOM>WORD=x", "hf_<ZWSP>..."), and no-break or typographic spaces
 * (U+00A0, U+2000..U+200A, U+202F, U+205F, U+3000) where a blank belongs
 * ("--token<NBSP>x"). nd_redact_fold gives the text with the first kind
 * dropped, or the second made a space, which the scrubbers then read. */
#include <stdlib.h>
#include <string.h>

#include "core/redact_priv.h"
#include "core/strbuf.h"

/* At p (len bytes left): 0 for an ordinary byte; else the length of a
 * character to drop (*space false) or to read as a space (*space true). */
static size_t nd_fold_at(const unsigned char *p, size_t len, bool *space)
{
    *space = false;
    if (p[0] < 0xc2 || len < 2)
        return 0;
    unsigned b1 = p[1];
    if (p[0] == 0xc2) {
        if (b1 == 0xa0)
            return *space = true, 2; /* NBSP */
        return b1 == 0xad ? 2 : 0;   /* soft hyphen */
    }
    if (p[0] == 0xcd && b1 == 0x8f)
        return 2; /* combining grapheme joiner */
    if (p[0] == 0xd8 && b1 == 0x9c)
        return 2; /* Arabic letter mark */
    if (len < 3)
        return 0;
    unsigned b2 = p[2];
    if (p[0] == 0xe1 && b1 == 0xa0 && b2 >= 0x8b && b2 <= 0x8f)
        return 3; /* Mongolian selectors and vowel separator */
    if (p[0] == 0xe1 && b1 == 0x9a && b2 == 0x80)
        return *space = true, 3; /* ogham space */
    if (p[0] == 0xe2 && b1 == 0x80) {
        if (b2 <= 0x8a || b2 == 0xaf || b2 == 0xa8 || b2 == 0xa9)
            return *space = true, 3; /* en/em/thin... spaces, narrow NBSP, line/paragraph separators */
        if ((b2 >= 0x8b && b2 <= 0x8f) || (b2 >= 0xaa && b2 <= 0xae))
            return 3; /* zero-width, marks, bidi embeddings and overrides */
        return 0;
    }
    if (p[0] == 0xe2 && b1 == 0x81) {
        if (b2 == 0x9f)
            return *space = true, 3; /* medium mathematical space */
        if ((b2 >= 0xa0 && b2 <= 0xa4) || (b2 >= 0xa6 && b2 <= 0xaf))
            return 3; /* word joiner, invisible operators, bidi isolates */
        return 0;
    }
    if (p[0] == 0xe3 && b1 == 0x80 && b2 == 0x80)
        return *space = true, 3; /* ideographic space */
    if (p[0] == 0xef && b1 == 0xbb && b2 == 0xbf)
        return 3; /* BOM, zero-width no-break space */
    if (p[0] == 0xef && b1 == 0xb8 && b2 >= 0x80 && b2 <= 0x8f)
        return 3; /* variation selectors */
    if (p[0] == 0xf3 && len >= 4 && b1 == 0xa0 && (b2 == 0x80 || b2 == 0x81) && p[3] >= 0x80 && p[3] <= 0xbf)
        return 4; /* tag characters */
    return 0;
}

char *nd_redact_fold(const char *text, bool spaces)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t len = strlen(text), i = 0;
    bool sp;
    for (size_t n; i < len; i++)
        if ((n = nd_fold_at(p + i, len - i, &sp)) != 0 && sp == spaces)
            break;
    if (i == len)
        return NULL;
    struct nd_strbuf out = ND_STRBUF_INIT;
    nd_strbuf_grow(&out, len);
    nd_strbuf_add(&out, text, i);
    while (i < len) {
        size_t n = nd_fold_at(p + i, len - i, &sp);
        if (n == 0 || sp != spaces) {
            /* Not this pass's kind: kept whole (its bytes are no ASCII). */
            size_t keep = n ? n : 1;
            nd_strbuf_add(&out, text + i, keep);
            i += keep;
            continue;
        }
        if (sp)
            nd_strbuf_addc(&out, ' ');
        i += n;
    }
    return nd_strbuf_detach(&out, NULL);
}
