/* The traceback frames the fallback classifier reads besides the exception
 * line (kb_frames.h). Only words that say what the code was doing are kept:
 * the last components of the file path without the directories every
 * frame shares (/usr/lib/python3.10/site-packages), the function name, and
 * the source line. Bounded: a few frames of a few hundred bytes each. */
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "kb/kb_frames.h"

#define ND_KB_FRAME_PATH_PARTS 3 /* torch_npu/npu/memory.py */

static size_t nd_kb_frame_skip_ws(const char *s, size_t i, size_t n)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    return i;
}

/* Appends s[0..n) to sb, never past ND_KB_FRAME_MAX bytes in all. */
static void nd_kb_frame_add(struct nd_strbuf *sb, const char *s, size_t n)
{
    if (sb->len >= ND_KB_FRAME_MAX)
        return;
    if (n > ND_KB_FRAME_MAX - sb->len)
        n = ND_KB_FRAME_MAX - sb->len;
    if (sb->len && n)
        nd_strbuf_addc(sb, ' ');
    nd_strbuf_add(sb, s, n);
}

int nd_kb_frames_push(struct nd_kb_frames *r, const char *line, size_t n, const char *next, size_t nn)
{
    size_t i = nd_kb_frame_skip_ws(line, 0, n);
    if (n - i < 6 || memcmp(line + i, "File \"", 6) != 0)
        return -1;
    size_t ps = i + 6;
    const char *q = memchr(line + ps, '"', n - ps);
    if (!q)
        return -1;
    size_t pe = (size_t)(q - line);
    static const char sep[] = "\", line ";
    if (n - pe < sizeof sep - 1 || memcmp(line + pe, sep, sizeof sep - 1) != 0)
        return -1;
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    /* The path's last parts; a leading '<' is no file (<frozen ...>). */
    if (pe > ps && line[ps] != '<') {
        size_t cut = ps, parts = 0;
        for (size_t k = pe; k > ps; k--)
            if (line[k - 1] == '/' || line[k - 1] == '\\') {
                if (++parts == ND_KB_FRAME_PATH_PARTS) {
                    cut = k;
                    break;
                }
            }
        size_t end = pe;
        if (end - cut > 3 && memcmp(line + end - 3, ".py", 3) == 0)
            end -= 3;
        nd_kb_frame_add(&sb, line + cut, end - cut);
    }
    /* ", in FUNC" after the line number. */
    size_t k = pe + sizeof sep - 1;
    while (k < n && line[k] >= '0' && line[k] <= '9')
        k++;
    if (n - k > 5 && memcmp(line + k, ", in ", 5) == 0) {
        size_t fs = k + 5, fe = n;
        while (fe > fs && (line[fe - 1] == ' ' || line[fe - 1] == '\r'))
            fe--;
        if (fe > fs && line[fs] != '<')
            nd_kb_frame_add(&sb, line + fs, fe - fs);
    }
    /* The source line Python prints under the frame is indented; an
     * unindented line after a frame is the exception or the next record. */
    if (next && nn && (next[0] == ' ' || next[0] == '\t')) {
        size_t s = nd_kb_frame_skip_ws(next, 0, nn), e = nn;
        while (e > s && (next[e - 1] == ' ' || next[e - 1] == '\r'))
            e--;
        if (e > s && !(e - s >= 6 && memcmp(next + s, "File \"", 6) == 0))
            nd_kb_frame_add(&sb, next + s, e - s);
    }
    if (!sb.len) {
        nd_strbuf_release(&sb);
        return 0;
    }
    char *text = nd_strbuf_detach(&sb, NULL);
    if (r->n < ND_KB_FRAMES) {
        r->v[(r->head + r->n++) % ND_KB_FRAMES] = text;
    } else {
        free(r->v[r->head]);
        r->v[r->head] = text;
        r->head = (r->head + 1) % ND_KB_FRAMES;
    }
    return 0;
}

char *nd_kb_frames_join(const struct nd_kb_frames *r)
{
    if (!r->n)
        return NULL;
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    for (size_t i = 0; i < r->n; i++) {
        if (i)
            nd_strbuf_addc(&sb, '\n');
        nd_strbuf_adds(&sb, r->v[(r->head + i) % ND_KB_FRAMES]);
    }
    return nd_strbuf_detach(&sb, NULL);
}

void nd_kb_frames_clear(struct nd_kb_frames *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->v[(r->head + i) % ND_KB_FRAMES]);
    r->n = r->head = 0;
}
