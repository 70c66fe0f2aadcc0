/* One finding per line: when several rules match one log line, the most
 * specific explains it and the others yield. Specificity comes from rule
 * data only, so it works for rules from any file or table:
 *  - `outranks = B`: this rule hides B;
 *  - a generic rule (`generic = true`, or role = wrapper) yields to any
 *    rule that is not generic;
 *  - within one category, a vendor-specific rule hides an any-vendor one,
 *    then the rule whose longest literal is longer hides the other. */
#include <string.h>

#include "kb/kb_internal.h"

/* Longest run of plain characters in a pattern: a rough measure of how
 * much of a message it pins down ("NPU out of memory" vs "[Oo]ut of"). */
static int nd_kb_longest_literal(const char *p)
{
    int best = 0, run = 0, depth = 0;
    for (; *p; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            /* \. \( are literal; \s \w \d are classes. */
            if (strchr("sSwWdDbB", *p))
                run = 0;
            else if (depth == 0)
                run++;
        } else if (*p == '[') {
            run = 0;
            while (p[1] && p[1] != ']')
                p++;
        } else if (*p == '(') {
            depth++;
            run = 0;
        } else if (*p == ')') {
            if (depth)
                depth--;
            run = 0;
        } else if (strchr(".|^$", *p)) {
            run = 0;
        } else if (strchr("?*{", *p)) {
            /* The last character is optional or repeated. */
            if (run)
                run--;
            if (run > best)
                best = run;
            run = 0;
            if (*p == '{')
                while (p[1] && *p != '}')
                    p++;
        } else if (*p == '+') {
            continue;
        } else if (depth == 0) {
            run++;
        }
        if (run > best)
            best = run;
    }
    return best;
}

/* A rule that names a vendor outranks any literal length. */
#define ND_KB_SPEC_VENDOR 10000

void nd_kb_rule_specificity(struct nd_kb_rule *r)
{
    if (r->role == ND_ROLE_WRAPPER)
        r->generic = true;
    int lit = 0;
    for (size_t i = 0; i < r->patterns.n; i++) {
        int l = nd_kb_longest_literal(r->patterns.v[i]);
        if (l > lit)
            lit = l;
    }
    if (lit > ND_KB_SPEC_VENDOR - 1)
        lit = ND_KB_SPEC_VENDOR - 1;
    r->spec = (r->vendor ? ND_KB_SPEC_VENDOR : 0) + lit;
}

bool nd_kb_rule_hides(const struct nd_kb_rule *a, size_t bi, const struct nd_kb_rule *b)
{
    if (a == b)
        return false;
    for (size_t i = 0; i < a->noutrank_idx; i++)
        if (a->outrank_idx[i] == bi)
            return true;
    /* A rule that names the other as outranking it never hides it. */
    for (size_t i = 0; i < b->noutrank_idx; i++)
        if (b->outrank_idx[i] == (size_t)(a - b + (long)bi))
            return false;
    if (b->generic != a->generic)
        return b->generic;
    if (a->category && b->category && strcmp(a->category, b->category) == 0) {
        /* Vendor-specific first, then the more severe reading of the line,
         * then the longer literal. */
        if ((a->spec >= ND_KB_SPEC_VENDOR) != (b->spec >= ND_KB_SPEC_VENDOR))
            return a->spec > b->spec;
        if (a->severity != b->severity && a->severity >= 0 && b->severity >= 0)
            return a->severity > b->severity;
        return a->spec > b->spec;
    }
    return false;
}

size_t nd_kb_line_dedup(const struct nd_kb *kb, size_t *rules, size_t n)
{
    if (n < 2)
        return n;
    bool hidden[64] = {false};
    if (n > 64)
        n = 64;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n && !hidden[i]; j++)
            if (j != i && !hidden[j] && nd_kb_rule_hides(&kb->rules.v[rules[j]], rules[i], &kb->rules.v[rules[i]]))
                hidden[i] = true;
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (!hidden[i])
            rules[w++] = rules[i];
    return w;
}
