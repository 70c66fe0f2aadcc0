/* A literal prefilter for the log-shape patterns. glibc's regexec costs
 * thousands of instructions a line even when nothing matches, and the tail
 * pass asks every rate, ratio and step pattern about every line. Most
 * patterns hold a run of plain characters that any match must contain
 * ("it/s" in "([0-9]+(\.[0-9]+)?) ?it/s"); a line without it is skipped
 * before regexec. The reading is conservative: whatever it is unsure of
 * (groups, classes, escapes other than punctuation, repeats, bytes above
 * ASCII) ends a run, and a pattern with a branch that has no run gets no
 * prefilter, so it never rejects a line the pattern would match. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "kb/kb_internal.h"
#include "kb/kb_shape.h"

/* Past the bracket expression that starts at p ('['), or NULL. */
static const char *nd_pf_skip_bracket(const char *p)
{
    p++;
    if (*p == '^')
        p++;
    if (*p == ']')
        p++;
    while (*p && *p != ']') {
        if (p[0] == '[' && (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
            char close = p[1];
            const char *q = p + 2;
            while (*q && !(q[0] == close && q[1] == ']'))
                q++;
            if (!*q)
                return NULL;
            p = q + 2;
            continue;
        }
        p++;
    }
    return *p ? p + 1 : NULL;
}

/* Past the group that starts at p ('('), or NULL. */
static const char *nd_pf_skip_group(const char *p)
{
    int depth = 0;
    while (*p) {
        if (*p == '\\') {
            if (!p[1])
                return NULL;
            p += 2;
            continue;
        }
        if (*p == '[') {
            p = nd_pf_skip_bracket(p);
            if (!p)
                return NULL;
            continue;
        }
        if (*p == '(')
            depth++;
        else if (*p == ')' && --depth == 0)
            return p + 1;
        p++;
    }
    return NULL;
}

static bool nd_pf_quantifier(char c)
{
    return c == '*' || c == '+' || c == '?' || c == '{';
}

/* A character that stands for itself after a backslash: ERE's specials and
 * plain punctuation (a letter or digit is a class, a word boundary or a
 * back-reference; \< \> \` \' are anchors). */
static bool nd_pf_escaped_literal(char c)
{
    return c && strchr(".[]()*+?{}|^$\\/-:=\"#%&,;@!~_ ", c) != NULL;
}

/* The longest run of plain characters that every match of the branch at
 * *pp holds, into best (room for the whole pattern), its length in *nbest;
 * *pp is left at the '|' or NUL that ends the branch. False when the
 * pattern is not read or the branch has no run (no prefilter then). */
static bool nd_pf_branch(const char **pp, bool icase, char *best, size_t *nbest, char *run)
{
    const char *p = *pp;
    size_t nrun = 0;
    *nbest = 0;
    while (*p && *p != '|') {
        char lit = 0;
        if (*p == '(') {
            p = nd_pf_skip_group(p);
        } else if (*p == '[') {
            p = nd_pf_skip_bracket(p);
        } else if (*p == '\\') {
            if (!p[1]) {
                p = NULL;
            } else {
                if (nd_pf_escaped_literal(p[1]))
                    lit = p[1];
                p += 2;
            }
        } else if (strchr(".^$*+?{})]", *p)) {
            p++;
        } else {
            if ((unsigned char)*p < 0x80 && isprint((unsigned char)*p))
                lit = *p;
            p++;
        }
        if (!p)
            return false;
        /* A repeat after a character: '+' keeps one of it and ends the run,
         * any other ('*', '?', an interval, "+?") may leave it out. */
        bool optional = false, repeated = false;
        while (nd_pf_quantifier(*p)) {
            if (*p == '+') {
                repeated = true;
                p++;
            } else if (*p == '{') {
                optional = true;
                const char *q = strchr(p, '}');
                p = q ? q + 1 : p + 1;
            } else {
                optional = true;
                p++;
            }
        }
        if (lit && !optional)
            run[nrun++] = icase ? (char)tolower((unsigned char)lit) : lit;
        if (!lit || optional || repeated) {
            if (nrun > *nbest) {
                memcpy(best, run, nrun);
                *nbest = nrun;
            }
            nrun = 0;
        }
    }
    if (nrun > *nbest) {
        memcpy(best, run, nrun);
        *nbest = nrun;
    }
    best[*nbest] = '\0';
    *pp = p;
    return *nbest > 0;
}

void nd_shape_prefilter_build(struct nd_shape_re *x, bool icase)
{
    size_t cap = strlen(x->src) + 1;
    char *best = nd_xmalloc(cap), *run = nd_xmalloc(cap);
    char **lits = NULL;
    size_t n = 0, nbest = 0;
    const char *p = x->src;
    bool ok;
    while ((ok = nd_pf_branch(&p, icase, best, &nbest, run))) {
        lits = nd_xrealloc(lits, (n + 1) * sizeof *lits);
        lits[n++] = nd_xstrdup(best);
        if (*p != '|')
            break;
        p++;
    }
    free(best);
    free(run);
    x->lit = lits;
    x->nlit = n;
    x->icase = icase;
    if (!ok)
        nd_shape_prefilter_release(x);
}

void nd_shape_prefilter_release(struct nd_shape_re *x)
{
    for (size_t i = 0; i < x->nlit; i++)
        free(x->lit[i]);
    free(x->lit);
    x->lit = NULL;
    x->nlit = 0;
}

/* strstr that ignores ASCII case; needle is lower case. */
static bool nd_pf_has_icase(const char *text, const char *needle)
{
    size_t nl = strlen(needle);
    char first = needle[0], upper = (char)toupper((unsigned char)first);
    for (const char *p = text; *p; p++) {
        if (*p != first && *p != upper)
            continue;
        size_t k = 1;
        while (k < nl && p[k] && tolower((unsigned char)p[k]) == (unsigned char)needle[k])
            k++;
        if (k == nl)
            return true;
    }
    return false;
}

bool nd_shape_prefilter_may_match(const struct nd_shape_re *x, const char *text)
{
    if (!x->nlit)
        return true;
    for (size_t i = 0; i < x->nlit; i++)
        if (x->icase ? nd_pf_has_icase(text, x->lit[i]) : strstr(text, x->lit[i]) != NULL)
            return true;
    return false;
}
