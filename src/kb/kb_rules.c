/* The rule-file parser: INI read with inih, one section per rule, repeated
 * keys (pattern, fix, example…) collected by the handler, every problem
 * reported as "file:line: message" for `rules lint`. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "core/fileio.h"
#include "core/array.h"
#include "core/strbuf.h"
#include "kb/kb_internal.h"

void nd_strv_push(struct nd_strv *sv, const char *s, long line)
{
    sv->v = nd_xrealloc(sv->v, (sv->n + 1) * sizeof *sv->v);
    sv->line = nd_xrealloc(sv->line, (sv->n + 1) * sizeof *sv->line);
    sv->v[sv->n] = nd_xstrdup(s);
    sv->line[sv->n] = line;
    sv->n++;
}

void nd_strv_release(struct nd_strv *sv)
{
    for (size_t i = 0; i < sv->n; i++)
        free(sv->v[i]);
    free(sv->v);
    free(sv->line);
    sv->v = NULL;
    sv->line = NULL;
    sv->n = 0;
}

/* Debian's libinih is built with 200-byte lines, no line numbers in the
 * handler and ';' inline comments, all wrong for log-line examples and long
 * patterns. So our reader hands inih one line at a time (it therefore knows
 * the line number of every handler call) and passes each value through a
 * side table: inih sees "key=\x1fN" and still does sections, comments and
 * key names. */
struct nd_kb_reader {
    const char *p, *end;
    const char *file;
    long lineno;
    long section_line;
    bool new_section;
    bool cont; /* the line just read continues the previous value */
    struct nd_strv side;
    struct nd_kb_ruleset *set;
    struct nd_kb_rule *cur; /* rule being filled, NULL outside a section */
    bool cur_skip;          /* duplicate id: keys are checked, then dropped */
    bool replace;
    unsigned parse_id;
    struct nd_strv *problems;
};

void nd_kb_problem(struct nd_strv *problems, const char *file, long line, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char *s = nd_xasprintf("%s:%ld: %s", file, line, msg);
    nd_strv_push(problems, s, line);
    free(s);
}

static char *nd_kb_reader_line(char *str, int num, void *stream)
{
    struct nd_kb_reader *rd = stream;
    if (rd->p >= rd->end)
        return NULL;
    const char *nl = memchr(rd->p, '\n', (size_t)(rd->end - rd->p));
    const char *le = nl ? nl : rd->end;
    const char *ls = rd->p;
    rd->p = nl ? nl + 1 : rd->end;
    rd->lineno++;
    rd->cont = false;
    while (le > ls && (le[-1] == '\r' || le[-1] == ' ' || le[-1] == '\t'))
        le--;
    /* A BOM on the first line is inih's business, but we strip it ourselves
     * since we rewrite the line. */
    if (rd->lineno == 1 && le - ls >= 3 && memcmp(ls, "\xEF\xBB\xBF", 3) == 0)
        ls += 3;
    size_t cap = (size_t)num - 1;
    const char *s = ls;
    while (s < le && (*s == ' ' || *s == '\t'))
        s++;
    if (s == le) {
        str[0] = '\0';
        return str;
    }
    if (*s == ';' || *s == '#') {
        str[0] = ';';
        str[1] = '\0';
        return str;
    }
    if (s == ls && *s == '[') {
        size_t n = (size_t)(le - ls);
        if (n > cap) {
            nd_kb_problem(rd->problems, rd->file, rd->lineno, "section name too long");
            n = cap;
        }
        memcpy(str, ls, n);
        str[n] = '\0';
        rd->section_line = rd->lineno;
        rd->new_section = true;
        return str;
    }
    if (s != ls) {
        /* Indented: a continuation of the previous value (inih's multiline). */
        char *v = nd_xstrndup(s, (size_t)(le - s));
        nd_strv_push(&rd->side, v, rd->lineno);
        free(v);
        rd->cont = true;
        snprintf(str, (size_t)num, " \x1f%zu", rd->side.n - 1);
        return str;
    }
    const char *eq = s;
    while (eq < le && *eq != '=' && *eq != ':')
        eq++;
    if (eq == le) {
        nd_kb_problem(rd->problems, rd->file, rd->lineno, "expected 'key = value'");
        str[0] = '\0';
        return str;
    }
    const char *ke = eq;
    while (ke > s && (ke[-1] == ' ' || ke[-1] == '\t'))
        ke--;
    const char *vs = eq + 1;
    while (vs < le && (*vs == ' ' || *vs == '\t'))
        vs++;
    size_t klen = (size_t)(ke - s);
    if (klen == 0 || klen > 40) {
        nd_kb_problem(rd->problems, rd->file, rd->lineno, klen ? "key name too long" : "missing key name");
        str[0] = '\0';
        return str;
    }
    char *v = nd_xstrndup(vs, (size_t)(le - vs));
    nd_strv_push(&rd->side, v, rd->lineno);
    free(v);
    snprintf(str, (size_t)num, "%.*s=\x1f%zu", (int)klen, s, rd->side.n - 1);
    return str;
}

static const char *const nd_kb_keys[] = {
    "category",      "severity",      "vendor",   "pattern",  "capture", "title",    "cause",
    "fix",           "see",           "outranks", "example",  "counter", "negative", "confidence",
    "role",          "require",       "generic",  "requires", "unless",  "within",   "consequence-of",
    "example-block", "counter-block", "echo-of",  NULL,
};

static bool nd_kb_key_known(const char *k)
{
    for (size_t i = 0; nd_kb_keys[i]; i++)
        if (strcmp(nd_kb_keys[i], k) == 0)
            return true;
    return false;
}

static struct nd_kb_rule *nd_kb_set_find(struct nd_kb_ruleset *set, const char *id, size_t *idx)
{
    return nd_kb_ruleset_find(set, id, idx);
}

unsigned nd_kb_next_parse_id(void)
{
    static unsigned next;
    return ++next;
}

static void nd_kb_rule_init(struct nd_kb_rule *r)
{
    memset(r, 0, sizeof *r);
    r->severity = -1;
    r->confidence = -1;
    r->role = ND_ROLE_CAUSE;
}

static struct nd_kb_rule *nd_kb_set_push(struct nd_kb_ruleset *set)
{
    ND_ALLOC_GROW(set->v, set->n + 1, set->cap);
    struct nd_kb_rule *r = &set->v[set->n++];
    nd_kb_rule_init(r);
    return r;
}

static void nd_kb_start_rule(struct nd_kb_reader *rd, const char *section)
{
    rd->new_section = false;
    rd->cur_skip = false;
    size_t idx;
    struct nd_kb_rule *old = nd_kb_set_find(rd->set, section, &idx);
    if (old && old->parse_id == rd->parse_id) {
        nd_kb_problem(rd->problems, rd->file, rd->section_line, "duplicate rule id [%s] (first at line %ld)", section,
                      old->line);
        rd->cur_skip = true;
    } else if (old && !rd->replace) {
        nd_kb_problem(rd->problems, rd->file, rd->section_line, "duplicate rule id [%s] (first in %s:%ld)", section,
                      old->file, old->line);
        rd->cur_skip = true;
    } else if (old) {
        /* A later rules directory overrides a compiled-in rule of that id:
         * the new rule takes the old one's slot (the id index stays valid). */
        nd_kb_rule_release(old);
        nd_kb_rule_init(old);
        rd->cur = old;
        rd->cur->id = nd_xstrdup(section);
        rd->cur->file = nd_xstrdup(rd->file);
        rd->cur->line = rd->section_line;
        rd->cur->parse_id = rd->parse_id;
        return;
    }
    /* A skipped duplicate is still parsed into a scratch rule so its keys are linted. */
    rd->cur = nd_kb_set_push(rd->set);
    rd->cur->dup_scratch = rd->cur_skip;
    rd->cur->id = nd_xstrdup(section);
    rd->cur->file = nd_xstrdup(rd->file);
    rd->cur->line = rd->section_line;
    rd->cur->parse_id = rd->parse_id;
}

static void nd_kb_set_single(struct nd_kb_reader *rd, char **slot, const char *key, const char *val)
{
    if (rd->cont && *slot) {
        char *j = nd_xasprintf("%s %s", *slot, val);
        free(*slot);
        *slot = j;
        return;
    }
    if (*slot) {
        nd_kb_problem(rd->problems, rd->file, rd->lineno, "key '%s' given twice in [%s]", key, rd->cur->id);
        return;
    }
    *slot = nd_xstrdup(val);
}

static void nd_kb_add_multi(struct nd_kb_reader *rd, struct nd_strv *sv, const char *key, const char *val, bool joinable)
{
    if (rd->cont) {
        if (!joinable || sv->n == 0) {
            nd_kb_problem(rd->problems, rd->file, rd->lineno, "indented line continues '%s', which cannot span lines",
                          key);
            return;
        }
        char *j = nd_xasprintf("%s %s", sv->v[sv->n - 1], val);
        free(sv->v[sv->n - 1]);
        sv->v[sv->n - 1] = j;
        return;
    }
    nd_strv_push(sv, val, rd->lineno);
}

/* example-block / counter-block: the value and each indented line under it
 * are the lines of one little log. The reader strips an indented line's
 * leading blanks, so "|text" keeps text as written (a traceback frame's own
 * indent); an empty first value starts the block on the next line. */
static void nd_kb_add_block(struct nd_kb_reader *rd, struct nd_strv *sv, const char *val)
{
    const char *line = val[0] == '|' ? val + 1 : val;
    if (!rd->cont || sv->n == 0) {
        nd_strv_push(sv, line, rd->lineno);
        return;
    }
    char *last = sv->v[sv->n - 1];
    char *j = last[0] ? nd_xasprintf("%s\n%s", last, line) : nd_xstrdup(line);
    free(last);
    sv->v[sv->n - 1] = j;
}

static void nd_kb_vocab_push(struct nd_kb_ruleset *set, long line, const char *category, const char *word, int weight,
                             bool whole)
{
    nd_strv_push(&set->vocab_cat, category, line);
    nd_strv_push(&set->vocab_word, word, line);
    set->vocab_weight = nd_xrealloc(set->vocab_weight, set->vocab_word.n * sizeof *set->vocab_weight);
    set->vocab_weight[set->vocab_word.n - 1] = weight;
    set->vocab_whole = nd_xrealloc(set->vocab_whole, set->vocab_word.n * sizeof *set->vocab_whole);
    set->vocab_whole[set->vocab_word.n - 1] = whole;
}

/* [vocab.CATEGORY] sections hold the fallback classifier's words:
 * "word = WEIGHT WORD..." (each also matches the words it begins) and
 * "token = WEIGHT WORD..." (whole words: the learned vocabulary) and
 * "prior = N" (the category's score before any word), see kb_classify.c. */
static void nd_kb_vocab_key(struct nd_kb_reader *rd, const char *category, const char *name, const char *val)
{
    rd->new_section = false;
    rd->cur = NULL;
    if (!nd_category_is_valid(category)) {
        nd_kb_problem(rd->problems, rd->file, rd->lineno,
                      "[vocab.%s]: '%s' is not a known category (rules/FORMAT.md lists them)", category, category);
        return;
    }
    bool whole = strcmp(name, "token") == 0, prior = strcmp(name, "prior") == 0;
    if (!whole && !prior && strcmp(name, "word") != 0) {
        nd_kb_problem(rd->problems, rd->file, rd->lineno,
                      "unknown key '%s' in [vocab.%s] (only 'word', 'token' and 'prior')", name, category);
        return;
    }
    char *end = NULL;
    if (prior) {
        /* The category's score before any word counts: an entry without a
         * word. */
        long p = strtol(val, &end, 10);
        if (end == val || *end || p < 0 || p > 99) {
            nd_kb_problem(rd->problems, rd->file, rd->lineno, "[vocab.%s] prior must be a number from 0 to 99", category);
            return;
        }
        nd_kb_vocab_push(rd->set, rd->lineno, category, "", (int)p, false);
        return;
    }
    long w = strtol(val, &end, 10);
    if (end == val || w < 1 || w > 9 || !end || (*end != ' ' && *end != '\t')) {
        nd_kb_problem(rd->problems, rd->file, rd->lineno, "[vocab.%s] %s must be 'WEIGHT(1-9) WORD...'", category, name);
        return;
    }
    struct nd_kb_ruleset *set = rd->set;
    char *copy = nd_xstrdup(end), *save = NULL;
    for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        for (char *c = t; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        nd_kb_vocab_push(set, rd->lineno, category, t, (int)w, whole);
    }
    free(copy);
}

static int nd_kb_handler(void *user, const char *section, const char *name, const char *value)
{
    struct nd_kb_reader *rd = user;
    const char *val = value;
    if (value[0] == '\x1f') {
        size_t i = strtoul(value + 1, NULL, 10);
        if (i < rd->side.n)
            val = rd->side.v[i];
    }
    if (!section[0]) {
        nd_kb_problem(rd->problems, rd->file, rd->lineno, "key '%s' outside of a [rule] section", name);
        return 1;
    }
    if (strncmp(section, "vocab.", 6) == 0) {
        nd_kb_vocab_key(rd, section + 6, name, val);
        return 1;
    }
    if (strncmp(section, "code.", 5) == 0) {
        nd_kb_code_key(&rd->set->code, rd->file, rd->lineno, rd->parse_id, rd->new_section, section + 5, name, val,
                       rd->problems);
        rd->new_section = false;
        rd->cur = NULL;
        return 1;
    }
    if (strncmp(section, "shape.", 6) == 0) {
        nd_kb_shape_key(&rd->set->shape, rd->file, rd->lineno, rd->parse_id, rd->new_section, rd->cont, section + 6,
                        name, val, rd->problems);
        rd->new_section = false;
        rd->cur = NULL;
        return 1;
    }
    if (rd->new_section || !rd->cur || strcmp(rd->cur->id, section) != 0)
        nd_kb_start_rule(rd, section);
    struct nd_kb_rule *r = rd->cur;
    if (!nd_kb_key_known(name)) {
        nd_kb_problem(rd->problems, rd->file, rd->lineno, "unknown key '%s' in [%s]", name, r->id);
        return 1;
    }
    if (strcmp(name, "category") == 0)
        nd_kb_set_single(rd, &r->category, name, val);
    else if (strcmp(name, "vendor") == 0)
        nd_kb_set_single(rd, &r->vendor, name, val);
    else if (strcmp(name, "title") == 0)
        nd_kb_set_single(rd, &r->title, name, val);
    else if (strcmp(name, "cause") == 0)
        nd_kb_set_single(rd, &r->cause, name, val);
    else if (strcmp(name, "see") == 0)
        nd_kb_set_single(rd, &r->see, name, val);
    else if (strcmp(name, "require") == 0) {
        if (!r->require)
            r->require_line = rd->lineno;
        nd_kb_set_single(rd, &r->require, name, val);
    } else if (strcmp(name, "pattern") == 0)
        nd_kb_add_multi(rd, &r->patterns, name, val, false);
    else if (strcmp(name, "example") == 0)
        nd_kb_add_multi(rd, &r->examples, name, val, false);
    else if (strcmp(name, "counter") == 0 || strcmp(name, "negative") == 0)
        nd_kb_add_multi(rd, &r->counters, name, val, false);
    else if (strcmp(name, "example-block") == 0)
        nd_kb_add_block(rd, &r->example_blocks, val);
    else if (strcmp(name, "counter-block") == 0)
        nd_kb_add_block(rd, &r->counter_blocks, val);
    else if (strcmp(name, "capture") == 0)
        nd_kb_add_multi(rd, &r->captures_src, name, val, false);
    else if (strcmp(name, "fix") == 0)
        nd_kb_add_multi(rd, &r->fixes, name, val, true);
    else if (strcmp(name, "requires") == 0)
        nd_kb_add_multi(rd, &r->requires_src, name, val, false);
    else if (strcmp(name, "unless") == 0)
        nd_kb_add_multi(rd, &r->unless_src, name, val, false);
    else if (strcmp(name, "generic") == 0) {
        if (strcmp(val, "true") == 0)
            r->generic = true;
        else if (strcmp(val, "false") != 0)
            nd_kb_problem(rd->problems, rd->file, rd->lineno, "generic '%s' is not true or false", val);
    } else if (strcmp(name, "within") == 0) {
        char *end = NULL;
        long w = strtol(val, &end, 10);
        if (end == val || *end || w < 1 || w > 1000000)
            nd_kb_problem(rd->problems, rd->file, rd->lineno, "within '%s' is not a number of lines (1-1000000)", val);
        else
            r->within = w;
    } else if (strcmp(name, "outranks") == 0 || strcmp(name, "consequence-of") == 0 || strcmp(name, "echo-of") == 0) {
        struct nd_strv *sv = name[0] == 'o' ? &r->outranks : name[0] == 'e' ? &r->echo_of : &r->consequence_of;
        char *copy = nd_xstrdup(val), *save = NULL;
        for (char *t = strtok_r(copy, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save))
            nd_strv_push(sv, t, rd->lineno);
        free(copy);
    } else if (strcmp(name, "severity") == 0) {
        int s = nd_severity_parse(val);
        if (s < 0)
            nd_kb_problem(rd->problems, rd->file, rd->lineno, "severity '%s' is not error, warning or info", val);
        else if (r->severity >= 0)
            nd_kb_problem(rd->problems, rd->file, rd->lineno, "key 'severity' given twice in [%s]", r->id);
        else
            r->severity = s;
    } else if (strcmp(name, "confidence") == 0) {
        int c = strcmp(val, "high") == 0     ? ND_CONF_HIGH
                : strcmp(val, "medium") == 0 ? ND_CONF_MEDIUM
                : strcmp(val, "low") == 0    ? ND_CONF_LOW
                                             : -1;
        if (c < 0)
            nd_kb_problem(rd->problems, rd->file, rd->lineno, "confidence '%s' is not high, medium or low", val);
        else
            r->confidence = c;
    } else if (strcmp(name, "role") == 0) {
        int role = nd_kb_role_parse(val);
        if (role < 0)
            nd_kb_problem(rd->problems, rd->file, rd->lineno, "role '%s' is not cause, symptom or wrapper", val);
        else
            r->role = (enum nd_kb_role)role;
    }
    return 1;
}

void nd_kb_parse_rules(struct nd_kb_ruleset *set, const char *file, const char *text, size_t len, bool replace,
                       struct nd_strv *problems)
{
    struct nd_kb_reader rd = {
        .p = text,
        .end = text + len,
        .file = file,
        .set = set,
        .replace = replace,
        .parse_id = nd_kb_next_parse_id(),
        .problems = problems,
    };
    size_t before = set->n;
    int rc = ini_parse_stream(nd_kb_reader_line, &rd, nd_kb_handler, &rd);
    if (rc > 0 && rc <= rd.lineno)
        nd_kb_problem(problems, file, rc, "not a valid INI line");
    else if (rc < 0)
        nd_kb_problem(problems, file, 0, "cannot parse (out of memory)");
    /* Drop the scratch rules that duplicated an id (already reported), in
     * one pass. */
    size_t w = before;
    for (size_t i = before; i < set->n; i++) {
        if (set->v[i].dup_scratch)
            nd_kb_rule_release(&set->v[i]);
        else
            set->v[w++] = set->v[i];
    }
    if (w != set->n) {
        set->n = w;
        nd_kb_ruleset_reindex(set);
    }
    nd_strv_release(&rd.side);
}

static bool nd_kb_id_ok(const char *id);

/* A rule id has a dot, a category never does: an id names one rule, a
 * wrapper included (a wrapper's category alone never explains anything). */
bool nd_kb_consequence_item_is_id(const char *item)
{
    return strchr(item, '.') != NULL;
}

bool nd_kb_consequence_names(const struct nd_kb_rule *r, const char *id)
{
    for (size_t i = 0; i < r->consequence_of.n; i++)
        if (strcmp(r->consequence_of.v[i], id) == 0)
            return true;
    return false;
}

bool nd_kb_consequence_item_ok(const char *item)
{
    return strcmp(item, ND_KB_MECHANISM) == 0 || nd_category_is_valid(item) ||
           (nd_kb_consequence_item_is_id(item) && nd_kb_id_ok(item));
}

int nd_kb_category_tier(const char *category)
{
    static const struct {
        const char *cat;
        int tier;
    } tiers[] = {
        {ND_CAT_ENV_NOT_LOADED, 90}, {ND_CAT_VERSION_MISMATCH, 85}, {ND_CAT_NO_DEVICE, 80},   {ND_CAT_HOST_OOM, 72},
        {ND_CAT_DEVICE_OOM, 70},     {ND_CAT_UNSUPPORTED_OP, 66},   {ND_CAT_CONFIG, 62},      {ND_CAT_DEVICE_FAULT, 60},
        {ND_CAT_NUMERICS, 55},       {ND_CAT_CPU_FALLBACK, 50},     {ND_CAT_DISTRIBUTED, 45}, {ND_CAT_INPUT_BOUND, 40},
        {ND_CAT_HANG, 30},
    };
    for (size_t i = 0; i < ND_ARRAY_SIZE(tiers); i++)
        if (category && strcmp(tiers[i].cat, category) == 0)
            return tiers[i].tier;
    return 0;
}

static bool nd_kb_id_ok(const char *id)
{
    if (!*id)
        return false;
    for (const char *p = id; *p; p++)
        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '.' || *p == '-' || *p == '_'))
            return false;
    return true;
}

/* Every {name} or {name|default} in tmpl must name a capture of r. */
static void nd_kb_check_placeholders(const struct nd_kb_rule *r, const char *what, const char *tmpl,
                                     struct nd_strv *problems)
{
    for (const char *p = tmpl ? strchr(tmpl, '{') : NULL; p; p = strchr(p + 1, '{')) {
        const char *e = p + 1;
        while (*e && (isalnum((unsigned char)*e) || *e == '_'))
            e++;
        if (e == p + 1 || (*e != '}' && *e != '|' && *e != '?'))
            continue;
        bool found = false;
        for (size_t i = 0; i < r->captures_src.n; i++) {
            const char *c = r->captures_src.v[i];
            size_t n = (size_t)(e - p - 1);
            if (strncmp(c, p + 1, n) == 0 && c[n] == ':')
                found = true;
        }
        if (!found)
            nd_kb_problem(problems, r->file, r->line, "[%s] %s uses {%.*s} but no capture has that name", r->id, what,
                          (int)(e - p - 1), p + 1);
    }
}

static bool nd_kb_has_capture(const struct nd_kb_rule *r, const char *name)
{
    for (size_t i = 0; i < r->ncaptures; i++)
        if (strcmp(r->captures[i].name, name) == 0)
            return true;
    return false;
}

/* Parses "A > C" or "A - B > C" (capture names) into req_a/req_b/req_c. */
static void nd_kb_check_require(struct nd_kb_rule *r, struct nd_strv *problems)
{
    char a[64] = "", b[64] = "", c[64] = "";
    int n = 0;
    bool ok = sscanf(r->require, " %63[A-Za-z0-9_] - %63[A-Za-z0-9_] > %63[A-Za-z0-9_] %n", a, b, c, &n) == 3 &&
              n > 0 && r->require[n] == '\0';
    if (!ok) {
        b[0] = '\0';
        n = 0;
        ok = sscanf(r->require, " %63[A-Za-z0-9_] > %63[A-Za-z0-9_] %n", a, c, &n) == 2 && n > 0 && r->require[n] == '\0';
    }
    if (!ok) {
        nd_kb_problem(problems, r->file, r->require_line, "[%s] require must be 'A > C' or 'A - B > C'", r->id);
        return;
    }
    const char *names[3] = {a, b, c};
    for (int i = 0; i < 3; i++)
        if (names[i][0] && !nd_kb_has_capture(r, names[i])) {
            nd_kb_problem(problems, r->file, r->require_line, "[%s] require uses '%s' but no capture has that name",
                          r->id, names[i]);
            return;
        }
    r->req_a = nd_xstrdup(a);
    r->req_b = b[0] ? nd_xstrdup(b) : NULL;
    r->req_c = nd_xstrdup(c);
}

static long long nd_kb_capture_size(const struct nd_kb_rule *r, const char *name, const char *line)
{
    for (size_t i = 0; i < r->ncaptures; i++) {
        regmatch_t m[2];
        if (strcmp(r->captures[i].name, name) != 0 || regexec(&r->captures[i].re, line, 2, m, 0) != 0)
            continue;
        regmatch_t g = m[1].rm_so >= 0 ? m[1] : m[0];
        char buf[64];
        size_t n = (size_t)(g.rm_eo - g.rm_so);
        if (n >= sizeof buf)
            continue;
        memcpy(buf, line + g.rm_so, n);
        buf[n] = '\0';
        long long v = nd_parse_size(buf);
        if (v >= 0)
            return v;
    }
    return -1;
}

bool nd_kb_rule_accepts(const struct nd_kb_rule *r, const char *line)
{
    if (!r->req_a)
        return true;
    long long a = nd_kb_capture_size(r, r->req_a, line);
    long long b = r->req_b ? nd_kb_capture_size(r, r->req_b, line) : 0;
    long long c = nd_kb_capture_size(r, r->req_c, line);
    return a >= 0 && b >= 0 && c >= 0 && a - b > c;
}

/* Captures run with POSIX regexec on kept lines. Backreferences make that
 * engine backtrack, and a repeated group that itself repeats ("(a+)*")
 * is the classic blow-up shape: both are refused, so no rule can stall a
 * scan. And a capture's value is its last group that took part
 * (kb_order.c): when that group sits inside another one
 * ("((drv|hal)[A-Z]+)"), the value is the inner alternative ("drv"), not the
 * name the writer meant, so the value group must be written flat
 * ("(drv[A-Z]+|hal[A-Z]+)"). Returns the problem, or NULL. */
static const char *nd_kb_capture_unsafe(const char *re)
{
    bool inner[64] = {false}; /* per open group: holds an unbounded repeat */
    int depth = 0, last_open_depth = 0;
    bool last_group_unbounded = false;
    for (const char *p = re; *p; p++) {
        bool was_group = last_group_unbounded;
        last_group_unbounded = false;
        if (*p == '\\') {
            if (p[1] >= '1' && p[1] <= '9')
                return "uses a backreference";
            if (p[1])
                p++;
            continue;
        }
        if (*p == '[') {
            const char *q = p + 1;
            if (*q == '^')
                q++;
            if (*q == ']')
                q++;
            while (*q && *q != ']')
                q++;
            p = *q ? q : q - 1;
            continue;
        }
        bool unbounded = *p == '*' || *p == '+';
        if (*p == '{') {
            const char *c = strchr(p, '}');
            unbounded = c && c[-1] == ',';
        }
        if (unbounded) {
            if (was_group)
                return "repeats a group that already repeats without bound (nested quantifier)";
            if (depth > 0)
                inner[depth < 64 ? depth : 63] = true;
        }
        if (*p == '(') {
            last_open_depth = ++depth;
            if (depth < 64)
                inner[depth] = false;
        } else if (*p == ')' && depth > 0) {
            last_group_unbounded = inner[depth < 64 ? depth : 63];
            depth--;
            if (last_group_unbounded && depth > 0)
                inner[depth < 64 ? depth : 63] = true;
        }
    }
    return last_open_depth > 1 ? "takes its value from a group inside another group (write the value group flat)" : NULL;
}

/* What a pattern's bracket expressions may not hold, for every engine to
 * read it alike:
 * - a '[' is a literal to vectorscan and POSIX but opens a nested class in
 *   Rust's regex (ripgrep, the benchmark's anchor and what users paste
 *   patterns into): "[[ ]*" means two things; write "\\[" or "(\\[| )";
 * - patterns match bytes, not characters: a multi-byte UTF-8 character
 *   ("[^，。]") stands for each of its bytes, which most other CJK
 *   characters share, so "[^，。]{0,30}" stops inside the very text it
 *   was meant to cross; write "(，|。)" or a bounded ".{0,N}". */
enum nd_kb_class_problem { ND_KB_CLASS_OK, ND_KB_CLASS_NESTED, ND_KB_CLASS_MULTIBYTE };

static enum nd_kb_class_problem nd_kb_pattern_class_problem(const char *re)
{
    for (const char *p = re; *p; p++) {
        if (*p == '\\') {
            if (p[1])
                p++;
            continue;
        }
        if (*p != '[')
            continue;
        const char *q = p + 1;
        if (*q == '^')
            q++;
        if (*q == ']')
            q++;
        for (; *q && *q != ']'; q++) {
            if ((unsigned char)*q >= 0x80)
                return ND_KB_CLASS_MULTIBYTE;
            if (*q == '\\' && q[1]) {
                q++;
                continue;
            }
            if (*q == '[') {
                if (q[1] != ':' && q[1] != '.' && q[1] != '=')
                    return ND_KB_CLASS_NESTED;
                const char *end = strstr(q + 2, (const char[]){q[1], ']', 0});
                if (!end)
                    return ND_KB_CLASS_NESTED;
                q = end + 1;
            }
        }
        p = *q ? q : q - 1;
    }
    return ND_KB_CLASS_OK;
}

/* requires/unless: "RULE_ID" or "re:REGEX". */
static void nd_kb_check_conds(struct nd_kb_ruleset *set, const struct nd_kb_ruleset *ref, struct nd_kb_rule *r,
                              struct nd_strv *problems)
{
    for (size_t i = 0; i < r->nconds; i++)
        free(r->conds[i].regex);
    free(r->conds);
    r->nconds = 0;
    size_t n = r->requires_src.n + r->unless_src.n;
    r->conds = nd_xcalloc(n ? n : 1, sizeof *r->conds);
    for (size_t k = 0; k < n; k++) {
        bool unless = k >= r->requires_src.n;
        const struct nd_strv *sv = unless ? &r->unless_src : &r->requires_src;
        size_t j = unless ? k - r->requires_src.n : k;
        const char *v = sv->v[j];
        struct nd_kb_cond *c = &r->conds[r->nconds];
        c->unless = unless;
        c->key = -1;
        if (strncmp(v, "re:", 3) == 0) {
            hs_expr_info_t *info = NULL;
            hs_compile_error_t *cerr = NULL;
            if (hs_expression_info(v + 3, HS_FLAG_MULTILINE, &info, &cerr) != HS_SUCCESS) {
                nd_kb_problem(problems, r->file, sv->line[j], "[%s] %s regex does not compile: %s", r->id,
                              unless ? "unless" : "requires", cerr ? cerr->message : "unknown error");
                hs_free_compile_error(cerr);
                continue;
            }
            bool empty = info->min_width == 0;
            free(info);
            if (empty) {
                nd_kb_problem(problems, r->file, sv->line[j], "[%s] %s regex can match an empty line", r->id,
                              unless ? "unless" : "requires");
                continue;
            }
            c->regex = nd_xstrdup(v + 3);
        } else {
            size_t idx;
            if (nd_kb_set_find(set, v, &idx)) {
                c->key = (long)idx;
            } else if (!(ref && nd_kb_set_find((struct nd_kb_ruleset *)ref, v, NULL))) {
                nd_kb_problem(problems, r->file, sv->line[j], "[%s] %s unknown rule '%s' (use re:REGEX for a line)",
                              r->id, unless ? "unless" : "requires", v);
                continue;
            }
        }
        r->nconds++;
    }
    if (r->within && n == 0)
        nd_kb_problem(problems, r->file, r->line, "[%s] within without requires or unless", r->id);
}

/* True when p has no regex syntax at all (vectorscan reads it as itself). */
static bool nd_kb_is_literal(const char *p)
{
    if (!*p)
        return false;
    for (; *p; p++)
        if (strchr("\\^$.|?*+()[]{}", *p))
            return false;
    return true;
}

void nd_kb_check_rules(struct nd_kb_ruleset *set, const struct nd_kb_ruleset *ref, struct nd_strv *problems)
{
    nd_kb_shape_check(&set->shape, problems);
    /* A [code.*] entry that yields to a rule id names a rule that exists. */
    for (size_t i = 0; i < set->code.n; i++) {
        const struct nd_kb_code *c = &set->code.v[i];
        for (size_t j = 0; j < c->yields.n; j++) {
            const char *v = c->yields.v[j];
            if (strcmp(v, ND_KB_MECHANISM) == 0 || strcmp(v, "named") == 0 || nd_category_is_valid(v))
                continue;
            if (!nd_kb_set_find(set, v, NULL) && !(ref && nd_kb_set_find((struct nd_kb_ruleset *)ref, v, NULL)))
                nd_kb_problem(problems, c->file, c->yields.line[j], "[code.%s%s] yields-to names no rule '%s'", c->id,
                              c->prefix ? "*" : "", v);
        }
    }
    for (size_t i = 0; i < set->n; i++) {
        struct nd_kb_rule *r = &set->v[i];
        if (!nd_kb_id_ok(r->id))
            nd_kb_problem(problems, r->file, r->line, "rule id [%s]: use lower-case letters, digits, '.', '-', '_'",
                          r->id);
        if (!r->category)
            nd_kb_problem(problems, r->file, r->line, "[%s] has no category", r->id);
        else if (!nd_category_is_valid(r->category))
            nd_kb_problem(problems, r->file, r->line,
                          "[%s] category '%s' is not a known category (rules/FORMAT.md lists them)", r->id, r->category);
        if (r->fixes.n == 0)
            nd_kb_problem(problems, r->file, r->line, "[%s] has no fix", r->id);
        if (!r->title)
            nd_kb_problem(problems, r->file, r->line, "[%s] has no title", r->id);
        if (r->patterns.n == 0)
            nd_kb_problem(problems, r->file, r->line, "[%s] has no pattern", r->id);
        if (r->examples.n == 0 && r->example_blocks.n == 0)
            nd_kb_problem(problems, r->file, r->line, "[%s] has no example", r->id);
        for (size_t j = 0; j < r->example_blocks.n; j++)
            if (!r->example_blocks.v[j][0])
                nd_kb_problem(problems, r->file, r->example_blocks.line[j], "[%s] example-block has no lines", r->id);
        for (size_t j = 0; j < r->counter_blocks.n; j++)
            if (!r->counter_blocks.v[j][0])
                nd_kb_problem(problems, r->file, r->counter_blocks.line[j], "[%s] counter-block has no lines", r->id);
        if (r->severity < 0)
            r->severity = ND_SEV_ERROR;
        if (r->confidence < 0)
            r->confidence = r->role == ND_ROLE_CAUSE ? ND_CONF_HIGH : ND_CONF_MEDIUM;
        r->tier = nd_kb_category_tier(r->category);
        if (r->role == ND_ROLE_SYMPTOM)
            r->tier -= 40;
        else if (r->role == ND_ROLE_WRAPPER)
            r->tier = 1;
        for (size_t j = 0; !r->patterns_checked && j < r->patterns.n; j++) {
            /* A plain literal always compiles and is never empty: skip the
             * compiler's analysis (~40 us a pattern, most of loading a large
             * generated rule set). */
            if (nd_kb_is_literal(r->patterns.v[j]))
                continue;
            hs_expr_info_t *info = NULL;
            hs_compile_error_t *cerr = NULL;
            if (hs_expression_info(r->patterns.v[j], HS_FLAG_MULTILINE, &info, &cerr) != HS_SUCCESS) {
                nd_kb_problem(problems, r->file, r->patterns.line[j], "[%s] pattern does not compile: %s", r->id,
                              cerr ? cerr->message : "unknown error");
                hs_free_compile_error(cerr);
                continue;
            }
            if (info->min_width == 0)
                nd_kb_problem(problems, r->file, r->patterns.line[j], "[%s] pattern can match an empty line", r->id);
            free(info);
            enum nd_kb_class_problem cp = nd_kb_pattern_class_problem(r->patterns.v[j]);
            if (cp == ND_KB_CLASS_NESTED)
                nd_kb_problem(problems, r->file, r->patterns.line[j],
                              "[%s] pattern has '[' inside a bracket expression (a nested class to other regex "
                              "engines): write \\[ outside the class or (\\[|...)",
                              r->id);
            else if (cp == ND_KB_CLASS_MULTIBYTE)
                nd_kb_problem(problems, r->file, r->patterns.line[j],
                              "[%s] pattern has a multi-byte character inside a bracket expression (patterns "
                              "match bytes): write the characters as a group, (，|。), or a bounded .{0,N}",
                              r->id);
        }
        r->captures = nd_xcalloc(r->captures_src.n ? r->captures_src.n : 1, sizeof *r->captures);
        for (size_t j = 0; j < r->captures_src.n; j++) {
            const char *c = r->captures_src.v[j];
            const char *colon = strchr(c, ':');
            const char *n = c;
            while (n < (colon ? colon : c) && (isalnum((unsigned char)*n) || *n == '_'))
                n++;
            if (!colon || colon == c || n != colon) {
                nd_kb_problem(problems, r->file, r->captures_src.line[j], "[%s] capture must be 'name: POSIX-REGEX'",
                              r->id);
                continue;
            }
            const char *re = colon + 1;
            while (*re == ' ')
                re++;
            const char *unsafe = nd_kb_capture_unsafe(re);
            if (unsafe) {
                nd_kb_problem(problems, r->file, r->captures_src.line[j], "[%s] capture %s", r->id, unsafe);
                continue;
            }
            struct nd_kb_capture *cap = &r->captures[r->ncaptures];
            /* REG_NEWLINE: captures may run over several kept lines at once. */
            int rc = regcomp(&cap->re, re, REG_EXTENDED | REG_NEWLINE);
            if (rc != 0) {
                char buf[200];
                regerror(rc, &cap->re, buf, sizeof buf);
                regfree(&cap->re);
                nd_kb_problem(problems, r->file, r->captures_src.line[j], "[%s] capture does not compile: %s", r->id,
                              buf);
                continue;
            }
            cap->name = nd_xstrndup(c, (size_t)(colon - c));
            r->ncaptures++;
        }
        if (r->require)
            nd_kb_check_require(r, problems);
        nd_kb_rule_specificity(r);
        nd_kb_check_conds(set, ref, r, problems);
        nd_kb_check_placeholders(r, "title", r->title, problems);
        nd_kb_check_placeholders(r, "cause", r->cause, problems);
        for (size_t j = 0; j < r->fixes.n; j++)
            nd_kb_check_placeholders(r, "fix", r->fixes.v[j], problems);
        for (size_t j = 0; j < r->consequence_of.n; j++)
            if (!nd_kb_consequence_item_ok(r->consequence_of.v[j]))
                nd_kb_problem(problems, r->file, r->consequence_of.line[j],
                              "[%s] consequence-of '%s' is neither a category, a rule id nor 'mechanism'", r->id,
                              r->consequence_of.v[j]);
            else if (nd_kb_consequence_item_is_id(r->consequence_of.v[j]) &&
                     !nd_kb_set_find(set, r->consequence_of.v[j], NULL) &&
                     !(ref && nd_kb_set_find((struct nd_kb_ruleset *)ref, r->consequence_of.v[j], NULL)))
                nd_kb_problem(problems, r->file, r->consequence_of.line[j], "[%s] consequence-of unknown rule '%s'",
                              r->id, r->consequence_of.v[j]);
        for (size_t j = 0; j < r->echo_of.n; j++)
            if (strcmp(r->echo_of.v[j], ND_KB_MECHANISM) == 0 || !nd_kb_consequence_item_ok(r->echo_of.v[j]))
                nd_kb_problem(problems, r->file, r->echo_of.line[j],
                              "[%s] echo-of '%s' is neither a category nor a rule id", r->id, r->echo_of.v[j]);
            else if (nd_kb_consequence_item_is_id(r->echo_of.v[j]) && !nd_kb_set_find(set, r->echo_of.v[j], NULL) &&
                     !(ref && nd_kb_set_find((struct nd_kb_ruleset *)ref, r->echo_of.v[j], NULL)))
                nd_kb_problem(problems, r->file, r->echo_of.line[j], "[%s] echo-of unknown rule '%s'", r->id,
                              r->echo_of.v[j]);
        free(r->outrank_idx);
        r->outrank_idx = nd_xcalloc(r->outranks.n ? r->outranks.n : 1, sizeof *r->outrank_idx);
        r->noutrank_idx = 0;
        for (size_t j = 0; j < r->outranks.n; j++) {
            size_t idx;
            if (nd_kb_set_find(set, r->outranks.v[j], &idx))
                r->outrank_idx[r->noutrank_idx++] = idx;
            else if (ref && nd_kb_set_find((struct nd_kb_ruleset *)ref, r->outranks.v[j], NULL))
                continue;
            else
                nd_kb_problem(problems, r->file, r->outranks.line[j], "[%s] outranks unknown rule '%s'", r->id,
                              r->outranks.v[j]);
        }
    }
}

void nd_kb_rule_release(struct nd_kb_rule *r)
{
    free(r->id);
    free(r->category);
    free(r->vendor);
    free(r->title);
    free(r->cause);
    free(r->see);
    free(r->family);
    free(r->file);
    free(r->require);
    free(r->req_a);
    free(r->req_b);
    free(r->req_c);
    nd_strv_release(&r->patterns);
    nd_strv_release(&r->fixes);
    nd_strv_release(&r->examples);
    nd_strv_release(&r->counters);
    nd_strv_release(&r->example_blocks);
    nd_strv_release(&r->counter_blocks);
    nd_strv_release(&r->outranks);
    nd_strv_release(&r->consequence_of);
    nd_strv_release(&r->echo_of);
    nd_strv_release(&r->captures_src);
    nd_strv_release(&r->requires_src);
    nd_strv_release(&r->unless_src);
    for (size_t i = 0; i < r->nconds; i++)
        free(r->conds[i].regex);
    free(r->conds);
    for (size_t i = 0; i < r->ncaptures; i++) {
        free(r->captures[i].name);
        regfree(&r->captures[i].re);
    }
    free(r->captures);
    free(r->outrank_idx);
    memset(r, 0, sizeof *r);
}

void nd_kb_ruleset_release(struct nd_kb_ruleset *set)
{
    for (size_t i = 0; i < set->n; i++)
        nd_kb_rule_release(&set->v[i]);
    free(set->v);
    nd_kb_ruleidx_free(set);
    nd_strv_release(&set->vocab_cat);
    nd_strv_release(&set->vocab_word);
    free(set->vocab_weight);
    free(set->vocab_whole);
    nd_kb_shape_release(&set->shape);
    nd_kb_codeset_release(&set->code);
    memset(set, 0, sizeof *set);
}

int nd_kb_role_parse(const char *val)
{
    if (strcmp(val, "cause") == 0)
        return ND_ROLE_CAUSE;
    if (strcmp(val, "symptom") == 0)
        return ND_ROLE_SYMPTOM;
    if (strcmp(val, "wrapper") == 0)
        return ND_ROLE_WRAPPER;
    return -1;
}
