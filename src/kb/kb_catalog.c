/* Catalogue tables (rules/catalog/NAME.tsv): one tab-separated row per vendor
 * code, each turned into an ordinary struct nd_kb_rule in the same ruleset as
 * the INI rules. A catalogue of a thousand codes then stays one reviewable
 * line per code, with file-wide defaults and pattern templates instead of a
 * twelve-line INI section each. The format is documented in rules/FORMAT.md. */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hs/hs.h>

#include "core/finding.h"
#include "core/array.h"
#include "core/strbuf.h"
#include "kb/kb_internal.h"

enum nd_cat_col {
    COL_CODE,
    COL_TITLE,
    COL_FIX,
    COL_EXAMPLE,
    COL_ID,
    COL_CATEGORY,
    COL_SEVERITY,
    COL_VENDOR,
    COL_ROLE,
    COL_CONFIDENCE,
    COL_CAUSE,
    COL_SEE,
    COL_PATTERN,
    COL_COUNTER,
    COL_OUTRANKS,
    COL_CONSEQUENCE,
    COL_COUNT
};

static const char *const nd_cat_col_names[COL_COUNT] = {
    "code", "title",      "fix",   "example", "id",      "category", "severity", "vendor",
    "role", "confidence", "cause", "see",     "pattern", "counter",  "outranks", "consequence-of",
};

/* The values of "#! key = value" lines. */
struct nd_cat_defaults {
    char *id_prefix, *vendor, *category, *severity, *role, *confidence, *see, *cause, *family, *consequence_of;
    struct nd_strv templates;
};

/* Open-addressing index of rule ids -> position in the set, so that the
 * override and duplicate checks stay linear in the number of rules. */
struct nd_cat_index {
    size_t *slot; /* position + 1; 0 = empty */
    size_t cap;
    size_t used;
};

struct nd_cat_parser {
    const char *file;
    struct nd_kb_ruleset *set;
    struct nd_strv *problems;
    bool replace;
    size_t first_new; /* rules at or after this index came from this file */
    unsigned parse_id;
    struct nd_cat_defaults def;
    struct nd_cat_index idx;
    int colpos[COL_COUNT]; /* header position of each column, -1 when absent */
    size_t ncols;
    bool have_header;
    bool header_ok;
};

static void nd_cat_problem(struct nd_cat_parser *p, long line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void nd_cat_problem(struct nd_cat_parser *p, long line, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char *s = nd_xasprintf("%s:%ld: %s", p->file, line, msg);
    nd_strv_push(p->problems, s, line);
    free(s);
}

static uint64_t nd_cat_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void nd_cat_index_put(struct nd_cat_index *ix, const struct nd_kb_ruleset *set, size_t pos);

static void nd_cat_index_grow(struct nd_cat_index *ix, const struct nd_kb_ruleset *set)
{
    size_t *old = ix->slot, oldcap = ix->cap;
    ix->cap = oldcap ? oldcap * 2 : 256;
    ix->slot = nd_xcalloc(ix->cap, sizeof *ix->slot);
    ix->used = 0;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i])
            nd_cat_index_put(ix, set, old[i] - 1);
    free(old);
}

/* Finds id; returns the slot where it is, or the empty slot where it goes. */
static size_t *nd_cat_index_slot(const struct nd_cat_index *ix, const struct nd_kb_ruleset *set, const char *id)
{
    size_t mask = ix->cap - 1;
    for (size_t i = (size_t)nd_cat_hash(id) & mask;; i = (i + 1) & mask) {
        if (!ix->slot[i] || strcmp(set->v[ix->slot[i] - 1].id, id) == 0)
            return &ix->slot[i];
    }
}

static void nd_cat_index_put(struct nd_cat_index *ix, const struct nd_kb_ruleset *set, size_t pos)
{
    if ((ix->used + 1) * 2 > ix->cap)
        nd_cat_index_grow(ix, set);
    size_t *s = nd_cat_index_slot(ix, set, set->v[pos].id);
    if (!*s)
        ix->used++;
    *s = pos + 1;
}

/* Position of the rule with this id, or -1. */
static long nd_cat_index_find(const struct nd_cat_index *ix, const struct nd_kb_ruleset *set, const char *id)
{
    if (!ix->cap)
        return -1;
    size_t *s = nd_cat_index_slot(ix, set, id);
    return *s ? (long)(*s - 1) : -1;
}

static char *nd_cat_trim(const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    return nd_xstrndup(s, n);
}

bool nd_kb_catalog_code_is_numeric(const char *code)
{
    const char *p = code;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && p[2]) {
        for (p += 2; *p; p++)
            if (!isxdigit((unsigned char)*p))
                return false;
        return true;
    }
    if (*p == '-' || *p == '+')
        p++;
    if (!*p)
        return false;
    for (; *p; p++)
        if (!isdigit((unsigned char)*p))
            return false;
    return true;
}

char *nd_kb_catalog_id(const char *prefix, const char *code)
{
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    nd_strbuf_adds(&sb, prefix);
    nd_strbuf_addc(&sb, '.');
    for (const char *p = code; *p; p++) {
        unsigned char c = (unsigned char)tolower((unsigned char)*p);
        nd_strbuf_addc(&sb, (char)((isalnum(c) && c < 128) || c == '_' || c == '-' ? c : '-'));
    }
    return nd_strbuf_detach(&sb, NULL);
}

/* Replaces {code} (regex-escaped when escape) and {title} in s; other braces
 * ({2,}, capture placeholders) are left as they are. */
static char *nd_cat_fill(const char *s, const char *code, const char *title, bool escape)
{
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    for (const char *p = s; *p;) {
        if (strncmp(p, "{code}", 6) == 0) {
            for (const char *c = code; *c; c++) {
                if (escape && strchr("\\.^$|()[]{}*+?", *c))
                    nd_strbuf_addc(&sb, '\\');
                nd_strbuf_addc(&sb, *c);
            }
            p += 6;
        } else if (title && strncmp(p, "{title}", 7) == 0) {
            nd_strbuf_adds(&sb, title);
            p += 7;
        } else {
            nd_strbuf_addc(&sb, *p++);
        }
    }
    return nd_strbuf_detach(&sb, NULL);
}

/* Splits s at sep (" ;; " or " || "), trimming each item, into sv. */
static void nd_cat_split(struct nd_strv *sv, const char *s, const char *sep, long line, const char *code, bool fill)
{
    size_t seplen = strlen(sep);
    for (const char *p = s;;) {
        const char *e = strstr(p, sep);
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char *item = nd_cat_trim(p, n);
        if (item[0]) {
            char *v = fill ? nd_cat_fill(item, code, NULL, false) : item;
            nd_strv_push(sv, v, line);
            if (v != item)
                free(v);
        }
        free(item);
        if (!e)
            break;
        p = e + seplen;
    }
}

/* A row's own patterns: " || " between them, {code} filled in regex-escaped
 * as in the templates. */
static void nd_cat_split_pattern(struct nd_strv *sv, const char *s, long line, const char *code)
{
    struct nd_strv raw = {0};
    nd_cat_split(&raw, s, " || ", line, code, false);
    for (size_t i = 0; i < raw.n; i++) {
        char *pat = nd_cat_fill(raw.v[i], code, NULL, true);
        nd_strv_push(sv, pat, line);
        free(pat);
    }
    nd_strv_release(&raw);
}

static bool nd_cat_vendor_ok(const char *v)
{
    return strcmp(v, "ascend") == 0 || strcmp(v, "nvidia") == 0 || strcmp(v, "rocm") == 0 || strcmp(v, "any") == 0;
}

static int nd_cat_role(const char *v)
{
    return strcmp(v, "cause") == 0     ? ND_ROLE_CAUSE
           : strcmp(v, "symptom") == 0 ? ND_ROLE_SYMPTOM
           : strcmp(v, "wrapper") == 0 ? ND_ROLE_WRAPPER
                                       : -1;
}

static int nd_cat_confidence(const char *v)
{
    return strcmp(v, "high") == 0     ? ND_CONF_HIGH
           : strcmp(v, "medium") == 0 ? ND_CONF_MEDIUM
           : strcmp(v, "low") == 0    ? ND_CONF_LOW
                                      : -1;
}

/* A template is checked once, here, with a stand-in code: a code is always
 * inserted regex-escaped, as a literal, so if the template compiles and
 * cannot match an empty line with "X", it cannot with any code. The rows
 * built from it then skip the per-pattern check (100k rows stay fast). */
static bool nd_cat_template_ok(struct nd_cat_parser *p, const char *tmpl, long line)
{
    char *pat = nd_cat_fill(tmpl, "X", NULL, true);
    hs_expr_info_t *info = NULL;
    hs_compile_error_t *cerr = NULL;
    bool ok = true;
    if (hs_expression_info(pat, HS_FLAG_MULTILINE, &info, &cerr) != HS_SUCCESS) {
        nd_cat_problem(p, line, "template does not compile: %s", cerr ? cerr->message : "unknown error");
        hs_free_compile_error(cerr);
        ok = false;
    } else {
        if (info->min_width == 0) {
            nd_cat_problem(p, line, "template can match an empty line");
            ok = false;
        }
        free(info);
    }
    free(pat);
    return ok;
}

/* Every comma-separated item of a consequence-of value is known. */
static bool nd_cat_consequence_ok(const char *val)
{
    char *copy = nd_xstrdup(val), *save = NULL;
    bool ok = true;
    for (char *t = strtok_r(copy, ", ", &save); t && ok; t = strtok_r(NULL, ", ", &save))
        ok = nd_kb_consequence_item_ok(t);
    free(copy);
    return ok;
}

static void nd_cat_default(struct nd_cat_parser *p, const char *text, long line)
{
    const char *eq = strchr(text, '=');
    if (!eq) {
        nd_cat_problem(p, line, "expected '#! key = value'");
        return;
    }
    char *key = nd_cat_trim(text, (size_t)(eq - text));
    char *val = nd_cat_trim(eq + 1, strlen(eq + 1));
    struct {
        const char *name;
        char **slot;
    } singles[] = {
        {"id-prefix", &p->def.id_prefix},
        {"vendor", &p->def.vendor},
        {"category", &p->def.category},
        {"severity", &p->def.severity},
        {"role", &p->def.role},
        {"confidence", &p->def.confidence},
        {"see", &p->def.see},
        {"cause", &p->def.cause},
        {"family", &p->def.family},
        {"consequence-of", &p->def.consequence_of},
    };
    bool known = false;
    if (strcmp(key, "template") == 0) {
        known = true;
        if (!val[0])
            nd_cat_problem(p, line, "empty template");
        else if (!strstr(val, "{code}"))
            nd_cat_problem(p, line, "template does not contain {code}");
        else if (nd_cat_template_ok(p, val, line))
            nd_strv_push(&p->def.templates, val, line);
    }
    for (size_t i = 0; !known && i < ND_ARRAY_SIZE(singles); i++) {
        if (strcmp(key, singles[i].name) != 0)
            continue;
        known = true;
        const char *bad = NULL;
        if (strcmp(key, "vendor") == 0 && !nd_cat_vendor_ok(val))
            bad = "vendor '%s' is not ascend, nvidia, rocm or any";
        else if (strcmp(key, "severity") == 0 && nd_severity_parse(val) < 0)
            bad = "severity '%s' is not error, warning or info";
        else if (strcmp(key, "role") == 0 && nd_cat_role(val) < 0)
            bad = "role '%s' is not cause, symptom or wrapper";
        else if (strcmp(key, "confidence") == 0 && nd_cat_confidence(val) < 0)
            bad = "confidence '%s' is not high, medium or low";
        else if (strcmp(key, "category") == 0 && !nd_category_is_valid(val))
            bad = "category '%s' is not a known category (rules/FORMAT.md lists them)";
        else if (strcmp(key, "consequence-of") == 0 && !nd_cat_consequence_ok(val))
            bad = "consequence-of '%s' holds an item that is neither a category, a rule id nor 'mechanism'";
        if (bad) {
            char msg[300];
            snprintf(msg, sizeof msg, bad, val);
            nd_cat_problem(p, line, "%s", msg);
        } else if (*singles[i].slot) {
            nd_cat_problem(p, line, "default '%s' given twice", key);
        } else {
            *singles[i].slot = nd_xstrdup(val);
        }
    }
    if (!known)
        nd_cat_problem(p, line,
                       "unknown default '%s' (id-prefix, family, vendor, category, severity, role, "
                       "confidence, see, cause, consequence-of, template)",
                       key);
    free(key);
    free(val);
}

static void nd_cat_header(struct nd_cat_parser *p, char **fields, size_t n, long line)
{
    p->have_header = true;
    p->ncols = n;
    for (size_t c = 0; c < COL_COUNT; c++)
        p->colpos[c] = -1;
    bool ok = true;
    for (size_t i = 0; i < n; i++) {
        size_t c = 0;
        while (c < COL_COUNT && strcmp(nd_cat_col_names[c], fields[i]) != 0)
            c++;
        if (c == COL_COUNT) {
            nd_cat_problem(p, line, "unknown column '%s'", fields[i]);
            ok = false;
        } else if (p->colpos[c] >= 0) {
            nd_cat_problem(p, line, "column '%s' given twice", fields[i]);
            ok = false;
        } else {
            p->colpos[c] = (int)i;
        }
    }
    static const enum nd_cat_col required[] = {COL_CODE, COL_TITLE, COL_FIX, COL_EXAMPLE};
    for (size_t i = 0; i < ND_ARRAY_SIZE(required); i++)
        if (p->colpos[required[i]] < 0) {
            nd_cat_problem(p, line, "header lacks the required column '%s'", nd_cat_col_names[required[i]]);
            ok = false;
        }
    p->header_ok = ok;
}

/* The row's value of column c, or the file default (NULL when neither). */
static const char *nd_cat_get(struct nd_cat_parser *p, char **fields, enum nd_cat_col c, const char *def)
{
    const char *v = p->colpos[c] >= 0 ? fields[p->colpos[c]] : "";
    return v[0] ? v : def;
}

/* Adds r to the set under the override-by-id rules (design: a later rules
 * directory replaces a compiled-in rule of the same id). Takes r. */
static void nd_cat_insert(struct nd_cat_parser *p, struct nd_kb_rule *r)
{
    long old = nd_cat_index_find(&p->idx, p->set, r->id);
    if (old >= 0) {
        struct nd_kb_rule *o = &p->set->v[old];
        if ((size_t)old >= p->first_new || o->parse_id == p->parse_id) {
            nd_cat_problem(p, r->line, "duplicate rule id [%s] (first at line %ld)", r->id, o->line);
        } else if (!p->replace) {
            nd_cat_problem(p, r->line, "duplicate rule id [%s] (first in %s:%ld)", r->id, o->file, o->line);
        } else {
            /* In place: the index and the other rules' positions stay valid. */
            nd_kb_rule_release(o);
            *o = *r;
            return;
        }
        nd_kb_rule_release(r);
        return;
    }
    ND_ALLOC_GROW(p->set->v, p->set->n + 1, p->set->cap);
    p->set->v[p->set->n] = *r;
    nd_cat_index_put(&p->idx, p->set, p->set->n);
    p->set->n++;
}

static void nd_cat_row(struct nd_cat_parser *p, char **fields, size_t n, long line)
{
    if (n != p->ncols) {
        nd_cat_problem(p, line, "%zu fields, the header has %zu (fields are separated by one tab)", n, p->ncols);
        return;
    }
    const char *code = nd_cat_get(p, fields, COL_CODE, NULL);
    const char *title = nd_cat_get(p, fields, COL_TITLE, NULL);
    const char *fix = nd_cat_get(p, fields, COL_FIX, NULL);
    const char *example = nd_cat_get(p, fields, COL_EXAMPLE, NULL);
    const char *what = !code ? "code" : !title ? "title" : !fix ? "fix" : !example ? "example" : NULL;
    if (what) {
        nd_cat_problem(p, line, "row%s%s has no %s", code ? " " : "", code ? code : "", what);
        return;
    }
    const char *id = nd_cat_get(p, fields, COL_ID, NULL);
    if (!id && !p->def.id_prefix) {
        nd_cat_problem(p, line, "row %s has no id and the file no '#! id-prefix'", code);
        return;
    }
    const char *pattern = nd_cat_get(p, fields, COL_PATTERN, NULL);
    if (!pattern && p->def.templates.n == 0 && nd_kb_catalog_code_is_numeric(code)) {
        nd_cat_problem(p, line, "numeric code %s needs a template or a pattern: alone it matches any number", code);
        return;
    }
    struct nd_kb_rule r;
    memset(&r, 0, sizeof r);
    r.id = id ? nd_xstrdup(id) : nd_kb_catalog_id(p->def.id_prefix, code);
    r.file = nd_xstrdup(p->file);
    r.line = line;
    r.parse_id = p->parse_id;
    r.severity = -1;
    r.confidence = -1;
    r.role = ND_ROLE_CAUSE;
    r.title = nd_cat_fill(title, code, NULL, false);
    const char *cause = nd_cat_get(p, fields, COL_CAUSE, p->def.cause);
    if (cause)
        r.cause = nd_cat_fill(cause, code, r.title, false);
    const char *v;
    if ((v = nd_cat_get(p, fields, COL_CATEGORY, p->def.category)))
        r.category = nd_xstrdup(v);
    if ((v = nd_cat_get(p, fields, COL_SEE, p->def.see)))
        r.see = nd_xstrdup(v);
    if (p->def.family)
        r.family = nd_xstrdup(p->def.family);
    bool bad = false;
    if ((v = nd_cat_get(p, fields, COL_VENDOR, p->def.vendor))) {
        if (!nd_cat_vendor_ok(v)) {
            nd_cat_problem(p, line, "[%s] vendor '%s' is not ascend, nvidia, rocm or any", r.id, v);
            bad = true;
        } else if (strcmp(v, "any") != 0) {
            r.vendor = nd_xstrdup(v);
        }
    }
    if ((v = nd_cat_get(p, fields, COL_SEVERITY, p->def.severity))) {
        r.severity = nd_severity_parse(v);
        if (r.severity < 0) {
            nd_cat_problem(p, line, "[%s] severity '%s' is not error, warning or info", r.id, v);
            bad = true;
        }
    }
    if ((v = nd_cat_get(p, fields, COL_ROLE, p->def.role))) {
        int role = nd_cat_role(v);
        if (role < 0) {
            nd_cat_problem(p, line, "[%s] role '%s' is not cause, symptom or wrapper", r.id, v);
            bad = true;
        } else {
            r.role = (enum nd_kb_role)role;
        }
    }
    if ((v = nd_cat_get(p, fields, COL_CONFIDENCE, p->def.confidence))) {
        r.confidence = nd_cat_confidence(v);
        if (r.confidence < 0) {
            nd_cat_problem(p, line, "[%s] confidence '%s' is not high, medium or low", r.id, v);
            bad = true;
        }
    }
    if (pattern) {
        nd_cat_split_pattern(&r.patterns, pattern, line, code);
    } else if (p->def.templates.n) {
        for (size_t i = 0; i < p->def.templates.n; i++) {
            char *pat = nd_cat_fill(p->def.templates.v[i], code, NULL, true);
            nd_strv_push(&r.patterns, pat, line);
            free(pat);
        }
        r.patterns_checked = true;
    } else {
        /* The code as a word: no letter or digit right before or after it. */
        char *esc = nd_cat_fill("{code}", code, NULL, true);
        char *pat = nd_xasprintf("(^|[^A-Za-z0-9])%s([^A-Za-z0-9]|$)", esc);
        nd_strv_push(&r.patterns, pat, line);
        free(pat);
        free(esc);
        r.patterns_checked = true; /* a literal: always compiles, never empty */
    }
    nd_cat_split(&r.fixes, fix, " ;; ", line, code, true);
    nd_cat_split(&r.examples, example, " ;; ", line, code, false);
    if ((v = nd_cat_get(p, fields, COL_COUNTER, NULL)))
        nd_cat_split(&r.counters, v, " ;; ", line, code, false);
    if ((v = nd_cat_get(p, fields, COL_CONSEQUENCE, p->def.consequence_of))) {
        char *copy = nd_xstrdup(v), *save = NULL;
        for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
            nd_strv_push(&r.consequence_of, t, line);
        free(copy);
    }
    if ((v = nd_cat_get(p, fields, COL_OUTRANKS, NULL))) {
        char *copy = nd_xstrdup(v), *save = NULL;
        for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
            nd_strv_push(&r.outranks, t, line);
        free(copy);
    }
    if (r.fixes.n == 0 || r.examples.n == 0) {
        nd_cat_problem(p, line, "[%s] has no %s", r.id, r.fixes.n == 0 ? "fix" : "example");
        bad = true;
    }
    if (bad) {
        nd_kb_rule_release(&r);
        return;
    }
    nd_cat_insert(p, &r);
}

/* Splits one line at tabs into trimmed fields (fields[] grows as needed). */
static size_t nd_cat_fields(const char *s, size_t len, char ***fields, size_t *cap)
{
    size_t n = 0;
    for (const char *p = s, *end = s + len;;) {
        const char *t = memchr(p, '\t', (size_t)(end - p));
        const char *e = t ? t : end;
        ND_ALLOC_GROW(*fields, n + 1, *cap);
        (*fields)[n++] = nd_cat_trim(p, (size_t)(e - p));
        if (!t)
            break;
        p = t + 1;
    }
    return n;
}

void nd_kb_parse_catalog(struct nd_kb_ruleset *set, const char *file, const char *text, size_t len, bool replace,
                         struct nd_strv *problems)
{
    struct nd_cat_parser p = {
        .file = file,
        .set = set,
        .problems = problems,
        .replace = replace,
        .first_new = set->n,
        .parse_id = nd_kb_next_parse_id(),
    };
    for (size_t i = 0; i < set->n; i++)
        nd_cat_index_put(&p.idx, set, i);
    char **fields = NULL;
    size_t fcap = 0;
    long lineno = 0;
    const char *end = text + len;
    for (const char *ls = text; ls < end;) {
        const char *nl = memchr(ls, '\n', (size_t)(end - ls));
        const char *le = nl ? nl : end;
        const char *next = nl ? nl + 1 : end;
        lineno++;
        if (lineno == 1 && le - ls >= 3 && memcmp(ls, "\xEF\xBB\xBF", 3) == 0)
            ls += 3;
        if (le > ls && le[-1] == '\r')
            le--;
        size_t n = (size_t)(le - ls);
        const char *s = ls;
        while (s < le && (*s == ' ' || *s == '\t'))
            s++;
        if (s == le) {
            ls = next;
            continue;
        }
        if (memchr(ls, '\0', n)) {
            nd_cat_problem(&p, lineno, "NUL byte in the line");
        } else if (s[0] == '#' && s[1] == '!') {
            if (p.have_header)
                nd_cat_problem(&p, lineno, "'#!' defaults must come before the header line");
            else {
                char *d = nd_xstrndup(s + 2, (size_t)(le - s - 2));
                nd_cat_default(&p, d, lineno);
                free(d);
            }
        } else if (s[0] == '#') {
            /* comment */
        } else {
            size_t nf = nd_cat_fields(ls, n, &fields, &fcap);
            if (!p.have_header)
                nd_cat_header(&p, fields, nf, lineno);
            else if (p.header_ok)
                nd_cat_row(&p, fields, nf, lineno);
            for (size_t i = 0; i < nf; i++)
                free(fields[i]);
        }
        ls = next;
    }
    if (!p.have_header)
        nd_cat_problem(&p, lineno, "no header line (tab-separated column names: code, title, fix, example, ...)");
    free(fields);
    free(p.idx.slot);
    free(p.def.id_prefix);
    free(p.def.vendor);
    free(p.def.category);
    free(p.def.severity);
    free(p.def.role);
    free(p.def.confidence);
    free(p.def.see);
    free(p.def.cause);
    free(p.def.family);
    free(p.def.consequence_of);
    nd_strv_release(&p.def.templates);
}
