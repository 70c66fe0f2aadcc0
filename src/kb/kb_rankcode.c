/* Ranks the findings that code makes (compat.*, exit.*, explain's stall and
 * fallback findings) among the rules' findings, from the [code.*] entries of
 * the rule files: a code finding goes after each finding it yields to. A
 * compatibility warning only says a pair is not the documented one, so a
 * rule that reads what failed goes first; a known incompatibility (an
 * error) still leads the symptoms it causes. Pure. */
#include <string.h>

#include "kb/kb_internal.h"

/* The rule that made f, or NULL for a code finding. */
static const struct nd_kb_rule *nd_kb_rule_of(struct nd_kb *kb, const struct nd_finding *f)
{
    size_t ri = 0;
    return f->id ? nd_kb_ruleset_find(&kb->rules, f->id, &ri) : NULL;
}

bool nd_kb_has_rule(struct nd_kb *kb, const char *id)
{
    size_t ri = 0;
    return kb && id && nd_kb_ruleset_find(&kb->rules, id, &ri) != NULL;
}

static bool nd_kb_item_names(const char *item, const struct nd_finding *b, const struct nd_kb_rule *rb)
{
    if (strcmp(item, "named") == 0)
        return rb && !rb->generic && rb->role != ND_ROLE_WRAPPER && b->severity >= ND_SEV_WARNING;
    if (strcmp(item, ND_KB_MECHANISM) == 0)
        return rb && !rb->family && !rb->generic && rb->role == ND_ROLE_CAUSE && b->severity >= ND_SEV_WARNING;
    if (nd_category_is_valid(item))
        return b->category && strcmp(b->category, item) == 0;
    return b->id && strcmp(b->id, item) == 0;
}

/* True when code finding a (entry ca) goes after finding b. */
static bool nd_kb_yields(struct nd_kb *kb, const struct nd_kb_code *ca, const struct nd_finding *a,
                         const struct nd_finding *b)
{
    if (a == b || (int)a->severity > ca->yield_max || b->severity < a->severity)
        return false;
    const struct nd_kb_rule *rb = nd_kb_rule_of(kb, b);
    /* The role's own rule: a wrapper says only that something failed, a
     * symptom is what a mechanism causes. */
    if (ca->role == ND_ROLE_WRAPPER && nd_kb_item_names("named", b, rb))
        return true;
    if (ca->role == ND_ROLE_SYMPTOM && nd_kb_item_names(ND_KB_MECHANISM, b, rb))
        return true;
    for (size_t i = 0; i < ca->yields.n; i++)
        if (nd_kb_item_names(ca->yields.v[i], b, rb))
            return true;
    return false;
}

/* The entry ranking f, NULL when a rule made f or no entry names it. */
static const struct nd_kb_code *nd_kb_code_of(struct nd_kb *kb, const struct nd_finding *f)
{
    if (!f->id || nd_kb_rule_of(kb, f))
        return NULL;
    return nd_kb_code_find(&kb->rules.code, f->id);
}

void nd_kb_rank_code_findings(struct nd_kb *kb, struct nd_findings *list)
{
    if (!kb || !list || list->n < 2 || kb->rules.code.n == 0)
        return;
    size_t n = list->n;
    /* Bounded passes: entries that yield to each other cannot loop. */
    for (size_t pass = 0; pass < n * n + 1; pass++) {
        bool moved = false;
        for (size_t a = 0; a < n && !moved; a++) {
            const struct nd_kb_code *ca = nd_kb_code_of(kb, list->v[a]);
            if (!ca)
                continue;
            size_t last = a;
            for (size_t b = a + 1; b < n; b++) {
                if (!nd_kb_yields(kb, ca, list->v[a], list->v[b]))
                    continue;
                const struct nd_kb_code *cb = nd_kb_code_of(kb, list->v[b]);
                if (cb && nd_kb_yields(kb, cb, list->v[b], list->v[a]))
                    continue;
                last = b;
            }
            if (last == a)
                continue;
            struct nd_finding *x = list->v[a];
            memmove(&list->v[a], &list->v[a + 1], (last - a) * sizeof *list->v);
            list->v[last] = x;
            moved = true;
        }
        if (!moved)
            break;
    }
}
