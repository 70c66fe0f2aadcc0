/* jansson helpers: UTF-8-safe strings and capped file loading. */
#include "core/json_util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/fileio.h"
#include "core/strbuf.h"

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid. */
static size_t nd_utf8_seq(const unsigned char *s, size_t n)
{
    if (s[0] < 0x80)
        return 1;
    size_t len;
    unsigned min;
    unsigned cp;
    if ((s[0] & 0xE0) == 0xC0) {
        len = 2;
        cp = s[0] & 0x1F;
        min = 0x80;
    } else if ((s[0] & 0xF0) == 0xE0) {
        len = 3;
        cp = s[0] & 0x0F;
        min = 0x800;
    } else if ((s[0] & 0xF8) == 0xF0) {
        len = 4;
        cp = s[0] & 0x07;
        min = 0x10000;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

json_t *nd_json_strn(const char *s, size_t len)
{
    if (!s)
        return json_null();
    json_t *j = json_stringn(s, len);
    if (j && !memchr(s, '\0', len))
        return j;
    json_decref(j);
    struct nd_strbuf sb = ND_STRBUF_INIT;
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        if (u[i] == 0) {
            i++;
            continue;
        }
        size_t k = nd_utf8_seq(u + i, len - i);
        if (k == 0) {
            nd_strbuf_adds(&sb, "\xEF\xBF\xBD");
            i++;
        } else {
            nd_strbuf_add(&sb, u + i, k);
            i += k;
        }
    }
    j = json_stringn(sb.buf, sb.len);
    nd_strbuf_release(&sb);
    return j ? j : json_string("");
}

json_t *nd_json_str(const char *s)
{
    return s ? nd_json_strn(s, strlen(s)) : json_null();
}

/* The code point of the unsafe character at u (see nd_json_dumps_safe) and
 * its length in *n, or 0 when u starts a safe one. */
static unsigned nd_json_unsafe_at(const unsigned char *u, size_t *n)
{
    if (u[0] == 0x7f) {
        *n = 1;
        return 0x7f;
    }
    if (u[0] == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f) {
        *n = 2;
        return u[1];
    }
    if (u[0] == 0xd8 && u[1] == 0x9c) {
        *n = 2;
        return 0x061c;
    }
    if (u[0] == 0xe2 && u[1] == 0x80 && ((u[2] >= 0x8e && u[2] <= 0x8f) || (u[2] >= 0xaa && u[2] <= 0xae))) {
        *n = 3;
        return 0x2000u + (u[2] - 0x80u);
    }
    if (u[0] == 0xe2 && u[1] == 0x81 && u[2] >= 0xa6 && u[2] <= 0xa9) {
        *n = 3;
        return 0x2040u + (u[2] - 0x80u);
    }
    return 0;
}

char *nd_json_dumps_safe(const json_t *doc, size_t flags)
{
    char *text = json_dumps(doc, flags);
    if (!text)
        return NULL;
    /* These bytes occur only inside strings (JSON's own syntax is ASCII),
     * so they are escaped in place. */
    struct nd_strbuf sb = ND_STRBUF_INIT;
    bool changed = false;
    const unsigned char *u = (const unsigned char *)text;
    for (size_t i = 0; u[i];) {
        size_t n = 1;
        unsigned cp = nd_json_unsafe_at(u + i, &n);
        if (cp) {
            if (!changed) {
                nd_strbuf_add(&sb, text, i);
                changed = true;
            }
            nd_strbuf_addf(&sb, "\\u%04x", cp);
        } else if (changed) {
            nd_strbuf_addc(&sb, (char)u[i]);
        }
        i += n;
    }
    if (!changed)
        return text;
    free(text);
    return nd_strbuf_detach(&sb, NULL);
}

int nd_json_dumpf_safe(const json_t *doc, FILE *fp, size_t flags)
{
    char *text = nd_json_dumps_safe(doc, flags);
    if (!text)
        return -1;
    int rc = fputs(text, fp) == EOF ? -1 : 0;
    free(text);
    return rc;
}

json_t *nd_json_load_file(const char *path, size_t max_bytes, struct nd_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = nd_read_file(path, max_bytes, &buf, &len, err);
    if (rc < 0)
        return NULL;
    json_error_t jerr;
    json_t *doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
    free(buf);
    if (!doc) {
        char *near = strstr(jerr.text, " near "); /* the quoted bytes may be a secret */
        if (near)
            *near = '\0';
        nd_error_set(err, -EINVAL, "%s: not valid JSON: %s (line %d, column %d)", path, jerr.text, jerr.line,
                     jerr.column);
        return NULL;
    }
    return doc;
}

const char *nd_json_get_str(const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}
