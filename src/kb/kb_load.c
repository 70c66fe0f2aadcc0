/* Loading the knowledge base: compiled-in rules and catalogues, then /etc/npu-doctor/rules.d
 * (through the root prefix), then --rules directories; one vectorscan
 * database over every pattern; `rules lint` and `rules list` helpers. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/embedded.h"
#include "core/fileio.h"
#include "core/rootfs.h"
#include "core/strbuf.h"
#include "kb/kb.h"
#include "kb/kb_internal.h"

#define ND_KB_RULE_FILE_MAX (4u << 20)

static bool nd_kb_is_rules_name(const char *name)
{
    size_t n = strlen(name);
    return n > 6 && strcmp(name + n - 6, ".rules") == 0 && name[0] != '.';
}

/* A catalogue table (kb_catalog.c). */
static bool nd_kb_is_catalog_name(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, ".tsv") == 0 && name[0] != '.';
}

static void nd_kb_parse_any(struct nd_kb_ruleset *set, const char *name, const char *text, size_t len, bool replace,
                            struct nd_strv *problems)
{
    size_t n = strlen(name);
    if (n > 4 && strcmp(name + n - 4, ".tsv") == 0)
        nd_kb_parse_catalog(set, name, text, len, replace, problems);
    else
        nd_kb_parse_rules(set, name, text, len, replace, problems);
}

void nd_kb_parse_builtin(struct nd_kb_ruleset *set, struct nd_strv *problems)
{
    for (const struct nd_embedded_file *f = nd_embedded_files; f->name; f++)
        if ((strncmp(f->name, "rules/", 6) == 0 && nd_kb_is_rules_name(f->name)) ||
            (strncmp(f->name, "rules/catalog/", 14) == 0 && nd_kb_is_catalog_name(f->name)))
            nd_kb_parse_any(set, f->name, f->data, f->len, false, problems);
    /* A binary that carries the prebuilt database had every built-in
     * pattern compiled and checked by the build (tools/nd_kbc.c fails on a
     * problem): the compiler's per-pattern analysis is not run again. */
    if (nd_kb_prebuilt_size() > 0)
        for (size_t i = 0; i < set->n; i++)
            set->v[i].patterns_checked = true;
}

static int nd_kb_name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.rules and *.tsv files of dir, sorted, appended to out as host paths. */
static int nd_kb_list_dir(const char *dir, struct nd_strv *out, struct nd_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return nd_error_set(err, -errno, "%s: %s", dir, strerror(errno));
    size_t start = out->n;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!nd_kb_is_rules_name(de->d_name) && !nd_kb_is_catalog_name(de->d_name))
            continue;
        char *p = nd_xasprintf("%s/%s", dir, de->d_name);
        nd_strv_push(out, p, 0);
        free(p);
    }
    closedir(d);
    if (out->n > start)
        qsort(out->v + start, out->n - start, sizeof *out->v, nd_kb_name_cmp);
    return 0;
}

/* The rule files of a directory, then the catalogues in its catalog/
 * subdirectory (so the source tree's rules/ is one knowledge base), as host
 * paths. A plain file is returned as itself. */
static int nd_kb_list_rule_files(const char *host_path, struct nd_strv *out, struct nd_error *err)
{
    struct stat st;
    if (stat(host_path, &st) != 0)
        return nd_error_set(err, -errno, "%s: %s", host_path, strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
        nd_strv_push(out, host_path, 0);
        return 0;
    }
    int rc = nd_kb_list_dir(host_path, out, err);
    char *sub = nd_xasprintf("%s/catalog", host_path);
    if (rc == 0 && stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
        rc = nd_kb_list_dir(sub, out, err);
    free(sub);
    return rc;
}

static int nd_kb_parse_path(struct nd_kb_ruleset *set, const char *host_path, bool replace, struct nd_strv *problems,
                            struct nd_error *err)
{
    struct nd_strv files = {0};
    int rc = nd_kb_list_rule_files(host_path, &files, err);
    for (size_t i = 0; rc == 0 && i < files.n; i++) {
        char *buf = NULL;
        size_t len = 0;
        rc = nd_read_file(files.v[i], ND_KB_RULE_FILE_MAX, &buf, &len, err);
        /* A NUL would end a value early without a word: the file is refused. */
        const char *nul = rc == 0 ? memchr(buf, '\0', len) : NULL;
        if (nul) {
            long line = 1;
            for (const char *c = buf; c < nul; c++)
                line += *c == '\n';
            nd_kb_problem(problems, files.v[i], line, "a NUL byte: not a text file");
        } else if (rc == 0)
            nd_kb_parse_any(set, files.v[i], buf, len, replace, problems);
        free(buf);
    }
    nd_strv_release(&files);
    return rc;
}

/* The fallback's patterns (kb_fallback.c): a Python exception's last line
 * ("RuntimeError: ..."), and lines that say something failed: ERROR tags,
 * "Error:" with or without a space, glog's E-level prefix ("[rank0]:[E731
 * 07:58:03..." or "E0731 07:58:03"), "... failed!", a traceback header (a
 * log cut before its exception), "error may be caused by"-style sentences,
 * the words failed, fatal, exception and error (not "errors": "0 errors" is
 * no failure), exception class names anywhere in a line ("raise
 * ValueError(") and error-code fields ("errorCode=", "error_msg").
 * Used when no rule names the failure: the lines no rule's match explains. */
static const char *const nd_kb_exc_pattern = "^[A-Za-z_][A-Za-z0-9_.]*(Error|Exception|Fault)(: |$)";
static const char *const nd_kb_err_pattern =
    "\\[ERROR\\]|(^|[^A-Za-z_])ERROR([^A-Za-z_]|$)|[Ee]rror: |^Error:|(^|\\]:\\[|\\[)E[0-9]{4} [0-9]{2}:[0-9]{2}|"
    "[a-z] failed!|Traceback \\(most recent call (last|first)\\)|[Ee]rror (may be caused|occurred|happened)|FAILED|"
    "(^|[^A-Za-z])([Ff]ailed|[Ff]atal|[Ee]xception)([^A-Za-z]|$)|(^|[^A-Za-z_])[Ee]rror([^A-Za-z_s]|$)|"
    "[a-z](Error|Exception)([^A-Za-z]|$)|[Ee]rror(Code|Msg|_code|_msg|code|msg|No|no)";

/* Warning lines, for the fallback of a log with no error line
 * (kb_warnfall.c): Python's warnings ("UserWarning: "), c10's and glog's
 * W-level prefixes ("[W ProcessGroup.cpp:12]", "[W1201 10:00:00",
 * "W1201 10:00:00"), WARNING/WARN tags ("[WARNING]", "WARNING:root:") and
 * "Warning: " sentences. */
static const char *const nd_kb_warn_pattern =
    "[A-Za-z]Warning: |\\[WARN(ING)?\\]|(^|[^A-Za-z_])WARN(ING)?([^A-Za-z_]|$)|[Ww]arning: |"
    "(^|\\]:\\[|\\[)W[0-9]{4} [0-9]{2}:[0-9]{2}|\\[W [A-Za-z0-9_]+\\.(cpp|cc|h|hpp):[0-9]+";

/* Python's chained exceptions: the exception above the marker is where the
 * failure began, the one below re-raises it (kb_order.c). */
static const char *const nd_kb_chain_pattern = "^(During handling of the above exception, another exception occurred|"
                                               "The above exception was the direct cause of the following exception):";

/* A traceback frame line; the fallback classifier reads its words
 * (kb_frames.c). */
static const char *const nd_kb_frame_pattern = "^[ \\t]*File \"[^\"\\n]*\", line [0-9]+, in ";

/* Every pattern the database holds, in key order: the rules' patterns, the
 * condition regexes, then the fallback lines. Sets kb's key layout. */
struct nd_kb_exprs {
    const char **v;
    unsigned *flags, *ids;
    size_t n, nrule_pats;
};

static void nd_kb_pat_own_release(struct nd_kb *kb)
{
    if (!kb->pat_own)
        return;
    for (size_t i = 0; i < kb->npatterns; i++)
        free(kb->pat_own[i]);
    free(kb->pat_own);
    kb->pat_own = NULL;
}

static int nd_kb_collect(struct nd_kb *kb, struct nd_kb_exprs *x, struct nd_error *err)
{
    size_t n = 0, nre = 0;
    for (size_t i = 0; i < kb->rules.n; i++) {
        n += kb->rules.v[i].patterns.n;
        for (size_t j = 0; j < kb->rules.v[i].nconds; j++)
            nre += kb->rules.v[i].conds[j].regex != NULL;
    }
    if (n == 0)
        return nd_error_set(err, -EINVAL, "no rule patterns to compile");
    x->nrule_pats = n;
    n += nre + 5;
    const char **exprs = nd_xcalloc(n, sizeof *exprs);
    unsigned *flags = nd_xcalloc(n, sizeof *flags);
    unsigned *ids = nd_xcalloc(n, sizeof *ids);
    kb->pat_rule = nd_xcalloc(n, sizeof *kb->pat_rule);
    size_t k = 0;
    for (size_t i = 0; i < kb->rules.n; i++)
        for (size_t j = 0; j < kb->rules.v[i].patterns.n; j++, k++) {
            exprs[k] = kb->rules.v[i].patterns.v[j];
            flags[k] = HS_FLAG_MULTILINE;
            ids[k] = (unsigned)k;
            kb->pat_rule[k] = (unsigned)i;
        }
    /* Condition regexes and the fallback lines are keys after the rules. */
    size_t nk = kb->rules.n;
    for (size_t i = 0; i < kb->rules.n; i++)
        for (size_t j = 0; j < kb->rules.v[i].nconds; j++) {
            struct nd_kb_cond *c = &kb->rules.v[i].conds[j];
            kb->has_conds = true;
            if (!c->regex)
                continue;
            c->key = (long)nk;
            exprs[k] = c->regex;
            flags[k] = HS_FLAG_MULTILINE;
            ids[k] = (unsigned)k;
            kb->pat_rule[k++] = (unsigned)nk++;
        }
    kb->key_exc = nk++;
    kb->key_err = nk++;
    kb->key_chain = nk++;
    kb->key_frame = nk++;
    kb->key_warn = nk++;
    kb->nkeys = nk;
    const char *fb[5] = {nd_kb_exc_pattern, nd_kb_err_pattern, nd_kb_chain_pattern, nd_kb_frame_pattern,
                         nd_kb_warn_pattern};
    for (size_t j = 0; j < 5; j++, k++) {
        exprs[k] = fb[j];
        flags[k] = HS_FLAG_MULTILINE;
        ids[k] = (unsigned)k;
        kb->pat_rule[k] = (unsigned)(kb->key_exc + j);
    }
    /* Compiled in their one-line forms: a match never spans a line end
     * that the pattern does not name (kb_linelocal.c). */
    nd_kb_pat_own_release(kb);
    kb->pat_own = nd_xcalloc(n, sizeof *kb->pat_own);
    for (size_t i = 0; i < n; i++)
        if ((kb->pat_own[i] = nd_kb_pattern_one_line(exprs[i])))
            exprs[i] = kb->pat_own[i];
    kb->live_seen = nd_xcalloc(kb->nkeys, sizeof *kb->live_seen);
    kb->npatterns = n;
    *x = (struct nd_kb_exprs){.v = exprs, .flags = flags, .ids = ids, .n = n, .nrule_pats = x->nrule_pats};
    return 0;
}

static void nd_kb_exprs_release(struct nd_kb_exprs *x)
{
    free(x->v);
    free(x->flags);
    free(x->ids);
}

/* Compiles the patterns for plat (NULL: this CPU); a pattern that does not
 * compile is named by its rule file and line. */
static int nd_kb_build_db(struct nd_kb *kb, const struct nd_kb_exprs *x, const hs_platform_info_t *plat,
                          struct nd_error *err)
{
    hs_compile_error_t *cerr = NULL;
    if (hs_compile_multi(x->v, x->flags, x->ids, (unsigned)x->n, HS_MODE_BLOCK, plat, &kb->db, &cerr) == HS_SUCCESS)
        return 0;
    int rc;
    if (cerr && cerr->expression >= 0 && (size_t)cerr->expression < x->nrule_pats) {
        const struct nd_kb_rule *r = &kb->rules.v[kb->pat_rule[cerr->expression]];
        size_t base = 0;
        while (&kb->rules.v[kb->pat_rule[base]] != r)
            base++;
        rc = nd_error_set(err, -EINVAL, "%s:%ld: [%s] pattern does not compile: %s", r->file,
                          r->patterns.line[(size_t)cerr->expression - base], r->id, cerr->message);
    } else {
        rc = nd_error_set(err, -EINVAL, "cannot compile the rule patterns: %s", cerr ? cerr->message : "unknown error");
    }
    hs_free_compile_error(cerr);
    kb->db = NULL;
    return rc;
}

int nd_kb_compile(struct nd_kb *kb, struct nd_error *err)
{
    struct nd_kb_exprs x = {0};
    int rc = nd_kb_collect(kb, &x, err);
    if (rc != 0)
        return rc;
    /* The built-in rules come precompiled; a site's extra rules are
     * compiled once for this CPU and then cached. */
    char key[33];
    kb->db = nd_kb_prebuilt_load(x.v, x.flags, x.n);
    if (!kb->db) {
        nd_kb_cache_key(x.v, x.flags, x.n, key);
        kb->db = nd_kb_cache_load(key);
        if (!kb->db && (rc = nd_kb_build_db(kb, &x, NULL, err)) == 0)
            nd_kb_cache_store(kb->db, key);
    }
    if (rc == 0 && hs_alloc_scratch(kb->db, &kb->scratch) != HS_SUCCESS)
        rc = nd_error_set(err, -ENOMEM, "cannot allocate vectorscan scratch space");
    /* The expressions stay for the scanner (kb_elide.c). */
    free(kb->pat_expr);
    kb->pat_expr = x.v;
    x.v = NULL;
    nd_kb_exprs_release(&x);
    return rc;
}

int nd_kb_prebuild(char **bytes, size_t *len, struct nd_error *err)
{
    *bytes = NULL;
    *len = 0;
    struct nd_kb *kb = nd_xcalloc(1, sizeof *kb);
    struct nd_strv problems = {0};
    nd_kb_parse_builtin(&kb->rules, &problems);
    if (problems.n == 0)
        nd_kb_check_rules(&kb->rules, NULL, &problems);
    int rc = problems.n ? nd_error_set(err, -EINVAL, "%s", problems.v[0]) : 0;
    nd_strv_release(&problems);
    struct nd_kb_exprs x = {0};
    if (rc == 0)
        rc = nd_kb_collect(kb, &x, err);
    /* The generic platform of this architecture: any CPU of it runs the
     * database (on x86-64 the scan speed measured the same as a tuned one). */
    hs_platform_info_t generic;
    memset(&generic, 0, sizeof generic);
    generic.tune = HS_TUNE_FAMILY_GENERIC;
    if (rc == 0)
        rc = nd_kb_build_db(kb, &x, &generic, err);
    char *db = NULL;
    size_t dblen = 0;
    if (rc == 0 && hs_serialize_database(kb->db, &db, &dblen) != HS_SUCCESS)
        rc = nd_error_set(err, -ENOMEM, "cannot serialize the rule database");
    if (rc == 0) {
        char key[33];
        nd_kb_platform_key(&generic, x.v, x.flags, x.n, key);
        *bytes = nd_xcalloc(1, 32 + dblen);
        memcpy(*bytes, key, 32);
        memcpy(*bytes + 32, db, dblen);
        *len = 32 + dblen;
    }
    free(db);
    nd_kb_exprs_release(&x);
    nd_kb_free(kb);
    return rc;
}

int nd_kb_load(struct nd_kb **out, const char *const *extra_dirs, size_t nextra, struct nd_error *err)
{
    *out = NULL;
    struct nd_kb *kb = nd_xcalloc(1, sizeof *kb);
    struct nd_strv problems = {0};
    int rc = 0;
    nd_kb_parse_builtin(&kb->rules, &problems);
    const char *sysdir = "/etc/npu-doctor/rules.d";
    if (problems.n == 0 && nd_rootfs_is_dir(sysdir)) {
        char host[4096];
        if (nd_rootfs_path(sysdir, host, sizeof host) == 0)
            rc = nd_kb_parse_path(&kb->rules, host, true, &problems, err);
    }
    for (size_t i = 0; rc == 0 && problems.n == 0 && i < nextra; i++)
        rc = nd_kb_parse_path(&kb->rules, extra_dirs[i], true, &problems, err);
    if (rc == 0 && problems.n == 0)
        nd_kb_check_rules(&kb->rules, NULL, &problems);
    if (rc == 0 && problems.n > 0)
        rc = nd_error_set(err, -EINVAL, "%s", problems.v[0]);
    if (rc == 0)
        rc = nd_kb_compile(kb, err);
    nd_strv_release(&problems);
    if (rc != 0) {
        nd_kb_free(kb);
        return rc;
    }
    *out = kb;
    return 0;
}

void nd_kb_free(struct nd_kb *kb)
{
    if (!kb)
        return;
    nd_kb_ruleset_release(&kb->rules);
    hs_free_scratch(kb->scratch);
    hs_free_database(kb->db);
    free(kb->pat_rule);
    free(kb->live_seen);
    nd_kb_live_held_release(kb);
    free(kb->pat_expr);
    nd_kb_pat_own_release(kb);
    free(kb->pat_local);
    hs_free_database(kb->db_cross);
    free(kb);
}

size_t nd_kb_rule_count(const struct nd_kb *kb)
{
    return kb->rules.n;
}

void nd_kb_rule_get(const struct nd_kb *kb, size_t i, struct nd_kb_rule_info *out)
{
    const struct nd_kb_rule *r = &kb->rules.v[i];
    out->id = r->id;
    out->category = r->category;
    out->vendor = r->vendor ? r->vendor : "any";
    out->title = r->title;
    out->file = r->file;
    out->family = r->family;
    out->severity = (enum nd_severity)r->severity;
    out->line = r->line;
    out->npatterns = r->patterns.n;
    out->nexamples = r->examples.n;
    out->ncounters = r->counters.n;
}

void nd_kb_write_patterns(const struct nd_kb *kb, FILE *fp)
{
    for (size_t i = 0; i < kb->rules.n; i++)
        for (size_t j = 0; j < kb->rules.v[i].patterns.n; j++)
            fprintf(fp, "%s\n", kb->rules.v[i].patterns.v[j]);
}

int nd_kb_lint_path(const char *path, FILE *fp, struct nd_error *err)
{
    struct nd_kb_ruleset set = {0}, ref = {0};
    struct nd_strv problems = {0}, refprob = {0}, files = {0};
    int rc = nd_kb_list_rule_files(path, &files, err);
    if (rc == 0 && files.n == 0)
        rc = nd_error_set(err, -ENOENT, "%s: no *.rules files or *.tsv catalogues", path);
    nd_strv_release(&files);
    if (rc == 0)
        rc = nd_kb_parse_path(&set, path, false, &problems, err);
    if (rc == 0) {
        nd_kb_parse_builtin(&ref, &refprob);
        nd_kb_check_rules(&set, &ref, &problems);
        for (size_t i = 0; i < problems.n; i++)
            fprintf(fp, "%s\n", problems.v[i]);
        rc = (int)problems.n;
    }
    nd_kb_ruleset_release(&set);
    nd_kb_ruleset_release(&ref);
    nd_strv_release(&problems);
    nd_strv_release(&refprob);
    return rc;
}
