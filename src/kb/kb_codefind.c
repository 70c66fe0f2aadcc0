/* The [code.ID] sections: ranking data for findings that code makes rather
 * than a rule (compat.*, exit.*, generic.unexplained-error), so that a rule
 * naming a cause can go before a code finding that only suspects one, and
 * the ranking of both lives in the rule files, not in the code. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "kb/kb_internal.h"

/* Lower-case words, digits, '-', '_' and '.', optionally ending in ".*". */
static bool nd_kb_code_id_ok(const char *id, bool *prefix)
{
    size_t n = strlen(id);
    *prefix = n > 2 && strcmp(id + n - 2, ".*") == 0;
    if (*prefix)
        n -= 1; /* keep the '.' of the prefix */
    if (n == 0 || id[0] == '.')
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)id[i];
        if (!(islower(c) || isdigit(c) || c == '-' || c == '_' || c == '.'))
            return false;
    }
    return true;
}

static struct nd_kb_code *nd_kb_code_slot(struct nd_kb_codeset *set, const char *id, bool prefix)
{
    size_t n = strlen(id) - (prefix ? 1 : 0);
    for (size_t i = 0; i < set->n; i++)
        if (set->v[i].prefix == prefix && strlen(set->v[i].id) == n && strncmp(set->v[i].id, id, n) == 0)
            return &set->v[i];
    return NULL;
}

static void nd_kb_code_clear(struct nd_kb_code *c)
{
    nd_strv_release(&c->yields);
    c->role = ND_ROLE_CAUSE;
    c->yield_max = ND_SEV_ERROR;
}

void nd_kb_code_key(struct nd_kb_codeset *set, const char *file, long line, unsigned parse_id, bool fresh,
                    const char *id, const char *key, const char *val, struct nd_strv *problems)
{
    bool prefix = false;
    if (!nd_kb_code_id_ok(id, &prefix)) {
        nd_kb_problem(problems, file, line, "[code.%s]: not a finding id (lower-case, dotted, may end in .*)", id);
        return;
    }
    struct nd_kb_code *c = nd_kb_code_slot(set, id, prefix);
    if (c && fresh) {
        if (c->parse_id == parse_id) {
            nd_kb_problem(problems, file, line, "[code.%s] given twice (first at line %ld)", id, c->line);
            return;
        }
        /* A later file (rules.d, --rules) replaces the entry. */
        nd_kb_code_clear(c);
        free(c->file);
        c->file = nd_xstrdup(file);
        c->line = line;
        c->parse_id = parse_id;
    }
    if (!c) {
        set->v = nd_xrealloc(set->v, (set->n + 1) * sizeof *set->v);
        c = &set->v[set->n++];
        memset(c, 0, sizeof *c);
        c->id = nd_xstrndup(id, strlen(id) - (prefix ? 1 : 0));
        c->prefix = prefix;
        c->file = nd_xstrdup(file);
        c->line = line;
        c->parse_id = parse_id;
        nd_kb_code_clear(c);
    }
    if (strcmp(key, "role") == 0) {
        int role = nd_kb_role_parse(val);
        if (role < 0)
            nd_kb_problem(problems, file, line, "[code.%s] role '%s' is not cause, symptom or wrapper", id, val);
        else
            c->role = (enum nd_kb_role)role;
    } else if (strcmp(key, "yields-up-to") == 0) {
        int s = nd_severity_parse(val);
        if (s < 0)
            nd_kb_problem(problems, file, line, "[code.%s] yields-up-to '%s' is not error, warning or info", id, val);
        else
            c->yield_max = s;
    } else if (strcmp(key, "yields-to") == 0) {
        char *copy = nd_xstrdup(val), *save = NULL;
        for (char *t = strtok_r(copy, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
            bool pfx = false;
            if (strcmp(t, ND_KB_MECHANISM) == 0 || strcmp(t, "named") == 0 || nd_category_is_valid(t) ||
                (strchr(t, '.') && nd_kb_code_id_ok(t, &pfx) && !pfx))
                nd_strv_push(&c->yields, t, line);
            else
                nd_kb_problem(problems, file, line,
                              "[code.%s] yields-to '%s' is not a rule id, a category, 'mechanism' or 'named'", id, t);
        }
        free(copy);
    } else {
        nd_kb_problem(problems, file, line, "unknown key '%s' in [code.%s] (only role, yields-to, yields-up-to)", key,
                      id);
    }
}

const struct nd_kb_code *nd_kb_code_find(const struct nd_kb_codeset *set, const char *id)
{
    const struct nd_kb_code *best = NULL;
    size_t best_len = 0;
    for (size_t i = 0; set && id && i < set->n; i++) {
        const struct nd_kb_code *c = &set->v[i];
        size_t n = strlen(c->id);
        if (!c->prefix && strcmp(c->id, id) == 0)
            return c;
        if (c->prefix && strncmp(c->id, id, n) == 0 && n > best_len) {
            best = c;
            best_len = n;
        }
    }
    return best;
}

void nd_kb_codeset_release(struct nd_kb_codeset *set)
{
    for (size_t i = 0; i < set->n; i++) {
        free(set->v[i].id);
        free(set->v[i].file);
        nd_strv_release(&set->v[i].yields);
    }
    free(set->v);
    set->v = NULL;
    set->n = 0;
}
