/* Saying a diff: aligned text sections most relevant first (two files as
 * "A -> B" and "missing:/added:" entries; more files as "node-17: CANN 8.0.0
 * (others: 8.1.RC1)"), or JSON. */
#include <stdlib.h>
#include <string.h>

#include "diff/diff_priv.h"
#include "core/json_util.h"
#include "core/json_envelope.h"
#include "core/report.h"
#include "core/strbuf.h"
#include "core/strtab.h"
#include "core/termsafe.h"

/* At most this many file names in one outlier line; then "and N more". */
#define ND_DIFF_MAX_NAMES 10
/* At most this many distinct values in a "no majority" line. */
#define ND_DIFF_MAX_VALUES 6

/* One indented line of values read from snapshot files: another host's
 * environment can hold escape sequences, shown here, not obeyed. */
static void nd_put_line(FILE *fp, const char *text)
{
    char *p = nd_term_printable(text);
    fprintf(fp, "  %s\n", p);
    free(p);
}

static const char *nd_absent_text(const struct nd_diff_key *k)
{
    return k->is_env ? "(unset)" : "(absent)";
}

static const char *nd_show(const struct nd_diff_key *k, const char *v)
{
    if (!v)
        return nd_absent_text(k);
    return *v ? v : "\"\" (empty)";
}

static bool nd_is_present(const char *v)
{
    return v && strcmp(v, "present") == 0;
}

/* "LD_LIBRARY_PATH entry /x", "device file /dev/davinci3". */
static void nd_entry_name(struct nd_strbuf *sb, const struct nd_diff_key *k)
{
    nd_strbuf_adds(sb, k->label);
    if (k->is_env)
        nd_strbuf_adds(sb, " entry");
    nd_strbuf_addc(sb, ' ');
    nd_strbuf_adds(sb, k->entry);
}

static void nd_heading(FILE *fp, enum nd_diff_category c, bool color, enum nd_diff_category *last)
{
    if (*last == c)
        return;
    *last = c;
    fprintf(fp, "%s%s%s\n", color ? "\033[1m" : "", nd_diff_category_title(c), color ? "\033[0m" : "");
}

static void nd_print_pairwise(const struct nd_diff *d, const struct nd_diff_result *r, FILE *fp, bool color)
{
    char desc[2][1024];
    nd_diff_describe_file(d, 0, desc[0], sizeof desc[0]);
    nd_diff_describe_file(d, 1, desc[1], sizeof desc[1]);
    char *d0 = nd_term_printable(desc[0]), *d1 = nd_term_printable(desc[1]); /* node names from the files */
    fprintf(fp, "--- %s\n+++ %s\n", d0, d1);
    free(d0);
    free(d1);
    size_t width = 0;
    for (size_t i = 0; i < r->n; i++) {
        size_t l = strlen(nd_diff_key_at(d, r->v[i].key)->label);
        if (l > width)
            width = l;
    }
    if (width > 28)
        width = 28;
    enum nd_diff_category last = ND_DIFF_NCATEGORIES;
    const char *last_label = NULL;
    struct nd_strbuf sb = ND_STRBUF_INIT;
    struct nd_strtab *seen = nd_strtab_new();
    for (size_t i = 0; i < r->n; i++) {
        const struct nd_diff_key *k = nd_diff_key_at(d, r->v[i].key);
        enum nd_diff_category before = last;
        nd_heading(fp, k->category, color, &last);
        if (before != last)
            last_label = NULL;
        const char *a = nd_diff_value(k, 0), *b = nd_diff_value(k, 1);
        nd_strbuf_reset(&sb);
        if (k->entry) {
            if (a && !b)
                nd_strbuf_addf(&sb, "missing: %s", k->entry);
            else if (!a && b)
                nd_strbuf_addf(&sb, "added: %s", k->entry);
            else
                nd_strbuf_addf(&sb, "%s: %s -> %s", k->entry, a, b);
            const char *v = a ? a : b;
            if ((!a || !b) && !nd_is_present(v))
                nd_strbuf_addf(&sb, " (%s)", v);
        } else {
            nd_strbuf_addf(&sb, "%s -> %s", nd_show(k, a), nd_show(k, b));
        }
        /* The same fact can come from two probes (a device file in check's
         * facts and in the snapshot's own list): say it once. */
        size_t before_n = nd_strtab_count(seen);
        nd_strbuf_addf(&sb, "\x1f%s", k->label);
        nd_strtab_intern(seen, sb.buf, sb.len, NULL);
        sb.len -= strlen(k->label) + 1;
        sb.buf[sb.len] = '\0';
        if (nd_strtab_count(seen) == before_n)
            continue;
        /* Consecutive entries of one variable share its label. */
        bool same = last_label == k->label;
        last_label = k->label;
        char *lab = nd_term_printable(same ? "" : k->label), *val = nd_term_printable(sb.buf);
        fprintf(fp, "  %-*s  %s\n", (int)width, lab, val); /* values from other hosts' files */
        free(lab);
        free(val);
    }
    nd_strbuf_release(&sb);
    nd_strtab_free(seen);
}

/* "node-03, node-09 and 4 more" for the files in idx. */
static void nd_names(struct nd_strbuf *sb, const struct nd_diff *d, const size_t *idx, size_t n)
{
    for (size_t i = 0; i < n && i < ND_DIFF_MAX_NAMES; i++) {
        if (i)
            nd_strbuf_adds(sb, ", ");
        nd_strbuf_adds(sb, nd_diff_label(d, idx[i]));
    }
    if (n > ND_DIFF_MAX_NAMES)
        nd_strbuf_addf(sb, " and %zu more", n - ND_DIFF_MAX_NAMES);
}

/* One line per distinct outlier value: "node-17: CANN 8.0.0 (others: 8.1.RC1)". */
static void nd_print_outlier_lines(const struct nd_diff *d, const struct nd_difference *df, FILE *fp,
                                   struct nd_strtab *seen)
{
    const struct nd_diff_key *k = nd_diff_key_at(d, df->key);
    size_t *group = nd_xcalloc(df->noutliers, sizeof *group);
    bool *done = nd_xcalloc(df->noutliers, sizeof *done);
    struct nd_strbuf sb = ND_STRBUF_INIT;
    for (size_t i = 0; i < df->noutliers; i++) {
        if (done[i])
            continue;
        const char *v = nd_diff_value(k, df->outliers[i]);
        size_t ng = 0;
        for (size_t j = i; j < df->noutliers; j++)
            if (!done[j] && nd_diff_value(k, df->outliers[j]) == v) {
                done[j] = true;
                group[ng++] = df->outliers[j];
            }
        nd_strbuf_reset(&sb);
        nd_names(&sb, d, group, ng);
        nd_strbuf_adds(&sb, ": ");
        if (k->entry && !v) {
            nd_strbuf_adds(&sb, "missing ");
            nd_entry_name(&sb, k);
            nd_strbuf_adds(&sb, " (others have it)");
        } else if (k->entry && !df->majority) {
            nd_strbuf_adds(&sb, "extra ");
            nd_entry_name(&sb, k);
            if (!nd_is_present(v))
                nd_strbuf_addf(&sb, " (%s)", v);
            nd_strbuf_adds(&sb, " (others lack it)");
        } else if (k->entry) {
            nd_entry_name(&sb, k);
            nd_strbuf_addf(&sb, ": %s (others: %s)", v, df->majority);
        } else {
            nd_strbuf_addf(&sb, "%s %s (others: %s)", k->label, nd_show(k, v), nd_show(k, df->majority));
        }
        size_t before_n = nd_strtab_count(seen);
        nd_strtab_intern(seen, sb.buf, sb.len, NULL);
        if (nd_strtab_count(seen) > before_n)
            nd_put_line(fp, sb.buf);
    }
    nd_strbuf_release(&sb);
    free(group);
    free(done);
}

/* No single most common value: every value with its files. */
static void nd_print_split(const struct nd_diff *d, const struct nd_difference *df, FILE *fp)
{
    const struct nd_diff_key *k = nd_diff_key_at(d, df->key);
    size_t n = nd_diff_nfiles(d);
    size_t *group = nd_xcalloc(n, sizeof *group);
    bool *done = nd_xcalloc(n, sizeof *done);
    struct nd_strbuf sb = ND_STRBUF_INIT;
    if (k->entry)
        nd_entry_name(&sb, k);
    else
        nd_strbuf_adds(&sb, k->label);
    nd_strbuf_adds(&sb, ": no majority:");
    size_t shown = 0, more = 0;
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        /* A fact that differs on every node would fill the screen. */
        if (shown == ND_DIFF_MAX_VALUES) {
            for (size_t j = i; j < n; j++)
                if (!done[j] && nd_diff_value(k, j) == nd_diff_value(k, i))
                    done[j] = true;
            more++;
            continue;
        }
        shown++;
        const char *v = nd_diff_value(k, i);
        size_t ng = 0;
        for (size_t j = i; j < n; j++)
            if (!done[j] && nd_diff_value(k, j) == v) {
                done[j] = true;
                group[ng++] = j;
            }
        nd_strbuf_addf(&sb, "%s %s (", i ? ";" : "", k->entry ? (v ? "has it" : "lacks it") : nd_show(k, v));
        nd_names(&sb, d, group, ng);
        nd_strbuf_addc(&sb, ')');
    }
    if (more)
        nd_strbuf_addf(&sb, "; and %zu more value%s (--json lists them)", more, more == 1 ? "" : "s");
    nd_put_line(fp, sb.buf);
    nd_strbuf_release(&sb);
    free(group);
    free(done);
}

/* True when difference a is "these files lack (or alone have) this entry"
 * with a present/absent majority: such lines can be merged. */
static bool nd_simple_entry(const struct nd_diff *d, const struct nd_difference *a)
{
    const struct nd_diff_key *k = nd_diff_key_at(d, a->key);
    if (!k->entry || !a->has_majority || !a->noutliers)
        return false;
    if (a->majority && !nd_is_present(a->majority))
        return false;
    for (size_t j = 0; j < a->noutliers; j++) {
        const char *v = nd_diff_value(k, a->outliers[j]);
        if (a->majority ? v != NULL : !nd_is_present(v))
            return false;
    }
    return true;
}

/* How many differences from i on are entries of one key, all missing (or
 * all extra) on exactly the same files: a node whose image lacks the CANN
 * environment is one line per variable, not one per path. */
static size_t nd_entry_run(const struct nd_diff *d, const struct nd_diff_result *r, size_t i)
{
    const struct nd_difference *a = &r->v[i];
    if (!nd_simple_entry(d, a))
        return 1;
    const struct nd_diff_key *ka = nd_diff_key_at(d, a->key);
    size_t n = 1;
    for (size_t j = i + 1; j < r->n; j++, n++) {
        const struct nd_difference *b = &r->v[j];
        const struct nd_diff_key *kb = nd_diff_key_at(d, b->key);
        if (kb->key != ka->key || !nd_simple_entry(d, b) || (a->majority == NULL) != (b->majority == NULL) ||
            a->noutliers != b->noutliers || memcmp(a->outliers, b->outliers, a->noutliers * sizeof *a->outliers) != 0)
            break;
    }
    return n;
}

/* "node-05: missing LD_LIBRARY_PATH entries /a, /b (others have them)". */
static void nd_print_entry_run(const struct nd_diff *d, const struct nd_difference *v, size_t run, FILE *fp)
{
    const struct nd_diff_key *k = nd_diff_key_at(d, v->key);
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_names(&sb, d, v->outliers, v->noutliers);
    nd_strbuf_addf(&sb, ": %s %s%s ", v->majority ? "missing" : "extra", k->label, k->is_env ? " entries" : "");
    for (size_t i = 0; i < run; i++)
        nd_strbuf_addf(&sb, "%s%s", i ? ", " : "", nd_diff_key_at(d, v[i].key)->entry);
    nd_strbuf_adds(&sb, v->majority ? " (others have them)" : " (others lack them)");
    nd_put_line(fp, sb.buf);
    nd_strbuf_release(&sb);
}

static void nd_print_outliers(const struct nd_diff *d, const struct nd_diff_result *r, FILE *fp, bool color)
{
    size_t n = nd_diff_nfiles(d);
    bool *odd = nd_xcalloc(n, sizeof *odd);
    size_t nodd = 0;
    for (size_t i = 0; i < r->n; i++)
        for (size_t j = 0; j < r->v[i].noutliers; j++)
            if (!odd[r->v[i].outliers[j]]) {
                odd[r->v[i].outliers[j]] = true;
                nodd++;
            }
    size_t *idx = nd_xcalloc(nodd ? nodd : 1, sizeof *idx);
    for (size_t i = 0, m = 0; i < n; i++)
        if (odd[i])
            idx[m++] = i;
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_names(&sb, d, idx, nodd);
    char *names = nd_term_printable(sb.buf);
    fprintf(fp, "%zu snapshots: %zu differ from the majority%s%s%s\n", n, nodd, nodd ? " (" : "", names, nodd ? ")" : "");
    free(names);
    nd_strbuf_release(&sb);
    free(idx);
    free(odd);
    enum nd_diff_category last = ND_DIFF_NCATEGORIES;
    struct nd_strtab *seen = nd_strtab_new();
    for (size_t i = 0; i < r->n;) {
        const struct nd_diff_key *k = nd_diff_key_at(d, r->v[i].key);
        nd_heading(fp, k->category, color, &last);
        size_t run = nd_entry_run(d, r, i);
        if (run > 1) {
            nd_print_entry_run(d, &r->v[i], run, fp);
            i += run;
            continue;
        }
        if (r->v[i].has_majority)
            nd_print_outlier_lines(d, &r->v[i], fp, seen);
        else
            nd_print_split(d, &r->v[i], fp);
        i++;
    }
    nd_strtab_free(seen);
}

void nd_diff_print_text(const struct nd_diff *d, const struct nd_diff_result *r, FILE *fp, bool color)
{
    if (nd_diff_nfiles(d) == 2)
        nd_print_pairwise(d, r, fp, color);
    else
        nd_print_outliers(d, r, fp, color);
    if (r->n == 0)
        fprintf(fp, "no differences");
    else
        fprintf(fp, "%zu difference%s", r->n, r->n == 1 ? "" : "s");
    if (r->noise_hidden)
        fprintf(fp, "; %zu noise difference%s hidden (times, pids, hostnames, ranks...; --all shows them)",
                r->noise_hidden, r->noise_hidden == 1 ? "" : "s");
    fputc('\n', fp);
    if (r->incomparable)
        fprintf(fp,
                "%zu redacted value%s not comparable: the snapshots were redacted under different keys "
                "(set NPU_DOCTOR_REDACT_KEY to one value on every node, e.g. the job id)\n",
                r->incomparable, r->incomparable == 1 ? " is" : "s are");
}

static json_t *nd_value_json(const char *v)
{
    return v ? nd_json_str(v) : json_null();
}

json_t *nd_diff_to_json(const struct nd_diff *d, const struct nd_diff_result *r)
{
    json_t *o = nd_json_envelope("diff");
    json_object_set_new(o, "findings", json_array());
    size_t n = nd_diff_nfiles(d);
    /* File names as object keys must be valid UTF-8 (jansson refuses others). */
    json_t *files = json_array(), *labels = json_object();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(files, nd_json_str(nd_diff_file(d, i)));
        json_object_set_new(labels, json_string_value(json_array_get(files, i)), nd_json_str(nd_diff_label(d, i)));
    }
    json_object_set_new(o, "files", files);
    json_object_set_new(o, "labels", labels);
    json_object_set_new(o, "noise_hidden", json_integer((json_int_t)r->noise_hidden));
    json_object_set_new(o, "redacted_not_comparable", json_integer((json_int_t)r->incomparable));
    json_t *diffs = json_array();
    for (size_t i = 0; i < r->n; i++) {
        const struct nd_difference *df = &r->v[i];
        const struct nd_diff_key *k = nd_diff_key_at(d, df->key);
        json_t *e = json_object();
        json_object_set_new(e, "key", nd_json_str(k->key));
        if (k->entry)
            json_object_set_new(e, "entry", nd_json_str(k->entry));
        json_object_set_new(e, "label", nd_json_str(k->label));
        json_object_set_new(e, "category", json_string(nd_diff_category_name(k->category)));
        json_t *values = json_object();
        for (size_t f = 0; f < n; f++)
            json_object_set_new(values, json_string_value(json_array_get(files, f)), nd_value_json(nd_diff_value(k, f)));
        json_object_set_new(e, "values", values);
        if (df->has_majority) {
            json_object_set_new(e, "majority", nd_value_json(df->majority));
            json_t *out = json_array();
            for (size_t j = 0; j < df->noutliers; j++)
                json_array_append(out, json_array_get(files, df->outliers[j]));
            json_object_set_new(e, "outliers", out);
        }
        json_array_append_new(diffs, e);
    }
    json_object_set_new(o, "differences", diffs);
    if (n >= 3) {
        /* For scripts: the nodes to look at (or drain), in file order. */
        bool *odd = nd_xcalloc(n, sizeof *odd);
        for (size_t i = 0; i < r->n; i++)
            for (size_t j = 0; j < r->v[i].noutliers; j++)
                odd[r->v[i].outliers[j]] = true;
        json_t *of = json_array();
        for (size_t i = 0; i < n; i++)
            if (odd[i])
                json_array_append(of, json_array_get(files, i));
        free(odd);
        json_object_set_new(o, "outlier_files", of);
    }
    return o;
}
