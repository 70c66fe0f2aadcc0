/* Terminal width, UTF-8 locale and word wrapping for human output. */
#include "core/term.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

static bool nd_wide;

bool nd_term_utf8_from(const char *lc_all, const char *lc_ctype, const char *lang)
{
    const char *v[] = {lc_all, lc_ctype, lang};
    for (size_t i = 0; i < 3; i++) {
        if (!v[i] || !*v[i])
            continue;
        /* "en_US.UTF-8", "C.UTF-8", "zh_CN.utf8", "de_DE.UTF-8@euro". */
        for (const char *p = v[i]; *p; p++)
            if (strncasecmp(p, "utf-8", 5) == 0 || strncasecmp(p, "utf8", 4) == 0)
                return true;
        return false;
    }
    return true;
}

bool nd_term_utf8(void)
{
    return nd_term_utf8_from(getenv("LC_ALL"), getenv("LC_CTYPE"), getenv("LANG"));
}

void nd_term_set_wide(bool wide)
{
    nd_wide = wide;
}

int nd_term_width(FILE *fp)
{
    if (nd_wide)
        return 0;
    struct winsize ws;
    if (fp && isatty(fileno(fp)) == 1 && ioctl(fileno(fp), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
        return ws.ws_col;
    return 80;
}

size_t nd_term_columns(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xc0) != 0x80)
            n++;
    return n;
}

static size_t nd_columns_n(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)s[i] & 0xc0) != 0x80)
            n++;
    return n;
}

size_t nd_term_wrap(FILE *fp, const char *text, size_t col, const char *lead, size_t indent, int width)
{
    if (width <= 0 || col + nd_term_columns(text) <= (size_t)width) {
        fputs(text, fp);
        return col + nd_term_columns(text);
    }
    size_t cur = col;
    bool line_empty = true; /* nothing of the text on this line yet */
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        const char *w = p;
        while (*p && *p != ' ')
            p++;
        size_t wl = (size_t)(p - w), wc = nd_columns_n(w, wl);
        if (!line_empty && cur + 1 + wc > (size_t)width) {
            fputc('\n', fp);
            if (lead)
                fputs(lead, fp);
            for (size_t i = 0; i < indent; i++)
                fputc(' ', fp);
            cur = (lead ? nd_term_columns(lead) : 0) + indent;
            line_empty = true;
        }
        if (!line_empty) {
            fputc(' ', fp);
            cur++;
        }
        fwrite(w, 1, wl, fp);
        cur += wc;
        line_empty = false;
    }
    return cur;
}
