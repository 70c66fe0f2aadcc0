/* Which patterns stay within one line: a conservative reading of the
 * pattern's syntax that the scanner relies on when it leaves a repeated
 * line out of a scan and replays that line's matches (kb_elide.c).
 *
 * A pattern is line-local when no match can contain a newline except as
 * its first byte (a leading "[^A-Za-z]" that takes the end of the line
 * before), its last byte (a trailing "([^0-9]|$)" that takes the line's own
 * end), or inside a whitespace run that may be empty and that a line start
 * opens ("^\s*") or a line end closes ("\s*$"). The edges touch only the newline at the line's
 * edge, and a whitespace run can only reach lines that hold nothing but
 * whitespace; so the matches that end on a line are the same whatever lines
 * surround it, as long as neither that line nor the one after it is blank
 * (kb_elide.c leaves such lines alone). Anything that can take a newline
 * elsewhere (\s in the middle, [^ ]*, a class holding \n) makes the pattern
 * cross lines, as does anything not understood here: the answer errs on
 * "crosses". A negated class that names the newline ("[^ \n]*", as
 * nd_kb_pattern_one_line writes the database's patterns) cannot take one. */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "kb/kb_internal.h"

#define ND_LL_DEPTH 32

struct nd_ll {
    const char *p;
    size_t i, n;
    bool bad;
    int depth;
};

/* One element of a sequence: an atom or a group, with its quantifier. */
struct nd_ll_el {
    bool cap;      /* can match a newline somewhere inside */
    bool rep;      /* may repeat (*, +, {2,}) */
    bool ok_first; /* as the first element of a match: newlines only at its start */
    bool ok_last;  /* as the last element: newlines only at its end */
    bool ok_both;  /* as the whole match: newlines only at its edges */
    bool ws;       /* matches whitespace only (\s, [ \t]) */
    bool opt;      /* may match nothing (*, ?, {0,n}) */
    bool nullable; /* may consume nothing: optional, zero-width, or a group that can be empty */
    bool bol, eol; /* ^ or $ */
    bool zero;     /* another zero-width assertion (\b, \B) */
};

/* Escapes that can stand for a newline, or that are not understood. */
static bool nd_ll_escape_cap(char e)
{
    if (strchr("wdShVNbBtrfae", e))
        return false;
    /* Punctuation escapes are the character itself. */
    return (e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9');
}

/* The code of a single-character class member, or -1 when not known. */
static int nd_ll_escape_code(char e)
{
    switch (e) {
    case 't': return 9;
    case 'r': return 13;
    case 'f': return 12;
    case 'a': return 7;
    case 'e': return 27;
    case 'b': return 8;
    default: break;
    }
    if ((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9'))
        return -1;
    return (unsigned char)e;
}

/* [...] at p[i]; returns whether it can match a newline, and in *ws
 * whether it matches nothing but whitespace. */
static bool nd_ll_class(struct nd_ll *s, bool *ws)
{
    const char *p = s->p;
    size_t j = s->i + 1;
    bool cap = false, neg = false;
    bool nl = false; /* a member that surely is, or holds, a newline */
    *ws = true;
    if (j < s->n && p[j] == '^') {
        neg = true;
        *ws = false;
        j++;
    }
    bool first = true;
    int prev = -1; /* code of the previous single member, for a range */
    while (j < s->n) {
        char c = p[j];
        if (c == ']' && !first) {
            s->i = j + 1;
            /* A negated class holds a newline unless it names one. */
            return neg ? !nl : cap;
        }
        first = false;
        if (c == '[' && j + 1 < s->n && p[j + 1] == ':') {
            const char *end = strstr(p + j + 2, ":]");
            if (!end || (size_t)(end - p) >= s->n)
                break;
            size_t len = (size_t)(end - (p + j + 2));
            const char *name = p + j + 2;
            bool space = len == 5 && memcmp(name, "space", 5) == 0;
            if (len == 0 || name[0] == '^' || space || (len == 5 && memcmp(name, "cntrl", 5) == 0) ||
                (len == 5 && memcmp(name, "ascii", 5) == 0))
                cap = true;
            if (space || (len == 5 && memcmp(name, "cntrl", 5) == 0) || (len == 5 && memcmp(name, "ascii", 5) == 0))
                nl = true;
            if (!space && !(len == 5 && memcmp(name, "blank", 5) == 0))
                *ws = false;
            j = (size_t)(end - p) + 2;
            prev = -1;
            continue;
        }
        int code;
        if (c == '\\') {
            if (j + 1 >= s->n)
                break;
            char e = p[j + 1];
            if (nd_ll_escape_cap(e))
                cap = true;
            if (e == 'n' || e == 's')
                nl = true;
            if (!strchr("stnrfvh", e))
                *ws = false;
            code = nd_ll_escape_code(e);
            if (strchr("wdShVN", e))
                code = -1; /* a set, not one character */
            j += 2;
        } else if (c == '-' && prev >= 0 && j + 1 < s->n && p[j + 1] != ']') {
            int hi;
            if (p[j + 1] == '\\') {
                hi = j + 2 < s->n ? nd_ll_escape_code(p[j + 2]) : -1;
                j += 3;
            } else {
                hi = (unsigned char)p[j + 1];
                j += 2;
            }
            if (hi < 0 || (prev <= '\n' && hi >= '\n'))
                cap = true;
            if (hi >= 0 && prev <= '\n' && hi >= '\n')
                nl = true;
            *ws = false;
            prev = -1;
            continue;
        } else {
            code = (unsigned char)c;
            if (c == '\n')
                cap = nl = true;
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v')
                *ws = false;
            j++;
        }
        prev = code;
    }
    s->bad = true; /* unterminated */
    s->i = s->n;
    return true;
}

/* A quantifier at p[i], if any: sets *rep when it may repeat, *opt when it
 * may match nothing. */
static void nd_ll_quant(struct nd_ll *s, bool *rep, bool *opt)
{
    const char *p = s->p;
    *rep = false;
    *opt = false;
    if (s->i >= s->n)
        return;
    char c = p[s->i];
    if (c == '*' || c == '+') {
        *rep = true;
        *opt = c == '*';
        s->i++;
    } else if (c == '?') {
        *opt = true;
        s->i++;
    } else if (c == '{') {
        size_t j = s->i + 1;
        unsigned long lo = 0, hi = 0;
        bool digits = false, comma = false, hidigits = false;
        while (j < s->n && p[j] >= '0' && p[j] <= '9' && lo < 100000)
            lo = lo * 10 + (unsigned long)(p[j++] - '0'), digits = true;
        if (j < s->n && p[j] == ',') {
            comma = true;
            j++;
            while (j < s->n && p[j] >= '0' && p[j] <= '9' && hi < 100000)
                hi = hi * 10 + (unsigned long)(p[j++] - '0'), hidigits = true;
        }
        if (j >= s->n || p[j] != '}' || !digits)
            return; /* a literal '{' */
        s->i = j + 1;
        *rep = comma ? (!hidigits || hi > 1) : lo > 1;
        *opt = lo == 0;
    } else {
        return;
    }
    if (s->i < s->n && (p[s->i] == '?' || p[s->i] == '+'))
        s->i++;
}

static void nd_ll_alts(struct nd_ll *s, struct nd_ll_el *out);

/* Is a sequence of elements line-local, given whether its first and last
 * elements sit at the edge of the whole match? */
static bool nd_ll_seq_ok(const struct nd_ll_el *v, size_t n, bool first_open, bool last_open)
{
    /* "^\s*" and "\s*$" at the edges: whitespace runs from a line start or
     * to a line end. They must be able to match nothing: "\s+$" on a line
     * without trailing blanks matches only if the next line is empty. */
    size_t head = first_open && n >= 2 && v[0].bol && v[1].ws && v[1].opt ? 1 : (size_t)-1;
    size_t tail = last_open && n >= 2 && v[n - 1].eol && v[n - 2].ws && v[n - 2].opt ? n - 2 : (size_t)-1;
    for (size_t k = 0; k < n; k++) {
        if (!v[k].cap || k == head || k == tail)
            continue;
        if (n == 1 && first_open && last_open && !v[k].rep && v[k].ok_both)
            continue;
        /* A leading newline must be followed by something the match
         * takes: else the match could be the line's own end alone, and a
         * "$" or "\b" after it would look at the next line. Inside a
         * group, what follows is the group's follower (checked there). */
        if (k == 0 && first_open && !v[k].rep && v[k].ok_first && (n >= 2 ? !v[1].nullable : !last_open))
            continue;
        if (k == n - 1 && last_open && !v[k].rep && v[k].ok_last)
            continue;
        return false;
    }
    return true;
}

#define ND_LL_SEQ_MAX 256

/* Parses alternatives up to ')' or the end into one element summary. */
static void nd_ll_alts(struct nd_ll *s, struct nd_ll_el *out)
{
    struct nd_ll_el seq[ND_LL_SEQ_MAX];
    size_t n = 0;
    *out = (struct nd_ll_el){.ok_first = true, .ok_last = true, .ok_both = true};
    if (++s->depth > ND_LL_DEPTH) {
        s->bad = true;
        return;
    }
    for (;;) {
        bool end = s->i >= s->n || s->p[s->i] == ')' || s->p[s->i] == '|';
        if (end || s->bad) {
            /* One alternative done. */
            bool empty = true;
            for (size_t k = 0; k < n; k++) {
                out->cap = out->cap || seq[k].cap;
                empty = empty && seq[k].nullable;
            }
            out->nullable = out->nullable || empty;
            out->ok_first = out->ok_first && nd_ll_seq_ok(seq, n, true, false);
            out->ok_last = out->ok_last && nd_ll_seq_ok(seq, n, false, true);
            out->ok_both = out->ok_both && nd_ll_seq_ok(seq, n, true, true);
            n = 0;
            if (s->bad || s->i >= s->n || s->p[s->i] == ')')
                break;
            s->i++; /* '|' */
            continue;
        }
        if (n == ND_LL_SEQ_MAX) {
            s->bad = true;
            continue;
        }
        struct nd_ll_el *el = &seq[n++];
        *el = (struct nd_ll_el){.ok_first = true, .ok_last = true, .ok_both = true};
        char c = s->p[s->i];
        if (c == '(') {
            s->i++;
            if (s->i + 1 < s->n && s->p[s->i] == '?' && s->p[s->i + 1] == ':')
                s->i += 2;
            else if (s->i < s->n && s->p[s->i] == '?')
                s->bad = true; /* flags, lookaround: not read here */
            if (s->bad)
                continue;
            nd_ll_alts(s, el);
            if (s->bad || s->i >= s->n || s->p[s->i] != ')') {
                s->bad = true;
                continue;
            }
            s->i++;
        } else if (c == '[') {
            el->cap = nd_ll_class(s, &el->ws);
        } else if (c == '\\') {
            if (s->i + 1 >= s->n) {
                s->bad = true;
                continue;
            }
            char e = s->p[s->i + 1];
            if (strchr("AzZG", e))
                s->bad = true; /* buffer anchors: where the scan starts matters */
            el->cap = nd_ll_escape_cap(e);
            el->ws = strchr("stnrfvh", e) != NULL;
            el->zero = e == 'b' || e == 'B';
            s->i += 2;
        } else if (c == '^' || c == '$') {
            /* Zero-width, but it holds an element's place: before a
             * leading or after a trailing newline it would look at the
             * neighbouring line. */
            el->bol = c == '^';
            el->eol = c == '$';
            s->i++;
        } else {
            el->cap = c == '\n';
            el->ws = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
            s->i++;
        }
        bool group_empty = el->nullable;
        nd_ll_quant(s, &el->rep, &el->opt);
        el->nullable = group_empty || el->opt || el->bol || el->eol || el->zero;
    }
    s->depth--;
}

bool nd_kb_pattern_line_local(const char *re)
{
    if (!re)
        return false;
    struct nd_ll s = {.p = re, .n = strlen(re)};
    struct nd_ll_el top;
    nd_ll_alts(&s, &top);
    if (s.bad || s.i != s.n || top.nullable)
        return false;
    /* Each top-level alternative is a whole match: both edges open. */
    return !top.cap || top.ok_both;
}

/* The pattern as the database compiles it: patterns are written for one
 * (joined) line, as grep -E and rg read them, so a negated class, which
 * stands for any character but a few, is kept off the line end: it gets
 * "\n" added ("[^0-9]" becomes "[^0-9\n]"). Then more patterns are
 * line-local (nd_kb_pattern_line_local) and fewer need the second scan of
 * kb_elide.c. "\s" stays as written: "compile\s*PyTorch" reads a message
 * that PyTorch itself prints on two lines. Anything not understood here
 * (flags, a class left open) is left as it is. Returns a malloc'd copy, or
 * NULL when nothing changes. */
char *nd_kb_pattern_one_line(const char *re)
{
    if (!re)
        return NULL;
    size_t n = strlen(re);
    /* Each class grows by at most 3 bytes ("[^]]" -> "[^\n\]]"). */
    char *out = nd_xmalloc(4 * n + 1);
    size_t w = 0;
    bool changed = false;
    for (size_t i = 0; i < n;) {
        char c = re[i];
        if (c == '(' && i + 1 < n && re[i + 1] == '?' && !(i + 2 < n && re[i + 2] == ':')) {
            free(out); /* flags or lookaround: not read here */
            return NULL;
        }
        if (c == '\\') {
            if (i + 1 >= n) {
                free(out);
                return NULL;
            }
            out[w++] = re[i];
            out[w++] = re[i + 1];
            i += 2;
            continue;
        }
        if (c != '[') {
            out[w++] = c;
            i++;
            continue;
        }
        /* A class: find its end as nd_ll_class reads it. */
        size_t j = i + 1;
        bool neg = j < n && re[j] == '^';
        if (neg)
            j++;
        size_t body = j;
        bool first = true, closed = false, last_dash = false;
        while (j < n) {
            char d = re[j];
            if (d == ']' && !first) {
                closed = true;
                break;
            }
            first = false;
            last_dash = d == '-';
            if (d == '[' && j + 1 < n && re[j + 1] == ':') {
                const char *end = strstr(re + j + 2, ":]");
                if (!end)
                    break;
                j = (size_t)(end - re) + 2;
                last_dash = false;
                continue;
            }
            j += d == '\\' ? 2 : 1;
        }
        /* The newline goes last, or first when a '-' ends the class (it
         * would make a range); a leading ']' is then escaped, and a class
         * with a '-' at both ends is left alone. */
        if (!closed || (neg && last_dash && re[body] == '-')) {
            free(out);
            return NULL;
        }
        if (neg && last_dash) {
            memcpy(out + w, re + i, body - i);
            w += body - i;
            out[w++] = '\\';
            out[w++] = 'n';
            if (re[body] == ']')
                out[w++] = '\\';
            memcpy(out + w, re + body, j - body);
            w += j - body;
        } else {
            memcpy(out + w, re + i, j - i);
            w += j - i;
            if (neg) {
                out[w++] = '\\';
                out[w++] = 'n';
            }
        }
        changed = changed || neg;
        out[w++] = ']';
        i = j + 1;
    }
    if (!changed) {
        free(out);
        return NULL;
    }
    out[w] = '\0';
    return out;
}
