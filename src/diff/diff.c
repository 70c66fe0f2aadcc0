/* The comparison itself: facts from every file side by side, then for each
 * fact either the two values (two files) or the majority value and the files
 * that differ from it (three or more). Values are interned, so "equal" is a
 * pointer comparison and 1000 snapshots take a fraction of a second. */
#include "diff/diff.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff_priv.h"
#include "core/json_util.h"
#include "core/redact.h"
#include "core/strbuf.h"

static const char *const nd_cat_names[] = {"vendor", "devices", "python", "limits", "other", "noise"};
static const char *const nd_cat_titles[] = {
    "vendor stack and environment", "devices", "Python stack", "host limits", "other", "noise (--all)",
};

const char *nd_diff_category_name(enum nd_diff_category c)
{
    return c < ND_DIFF_NCATEGORIES ? nd_cat_names[c] : "?";
}

const char *nd_diff_category_title(enum nd_diff_category c)
{
    return c < ND_DIFF_NCATEGORIES ? nd_cat_titles[c] : "?";
}

struct nd_diff *nd_diff_new(size_t nfiles)
{
    struct nd_diff *d = nd_xcalloc(1, sizeof *d);
    d->nfiles = nfiles;
    d->strs = nd_strtab_new();
    d->ids = nd_strtab_new();
    d->groups = nd_strtab_new();
    d->files = nd_xcalloc(nfiles ? nfiles : 1, sizeof *d->files);
    d->nodes = nd_xcalloc(nfiles ? nfiles : 1, sizeof *d->nodes);
    d->whens = nd_xcalloc(nfiles ? nfiles : 1, sizeof *d->whens);
    d->keyfps = nd_xcalloc(nfiles ? nfiles : 1, sizeof *d->keyfps);
    return d;
}

void nd_diff_free(struct nd_diff *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->nkeys; i++)
        free(d->keys[i].vals);
    free(d->keys);
    for (size_t i = 0; i < d->nfiles; i++) {
        free(d->files[i]);
        free(d->nodes[i]);
        free(d->whens[i]);
        free(d->keyfps[i]);
    }
    free(d->keyfps);
    free(d->files);
    free(d->nodes);
    free(d->whens);
    free(d->labels);
    nd_strtab_free(d->strs);
    nd_strtab_free(d->ids);
    nd_strtab_free(d->groups);
    free(d->group_first);
    free(d);
}

/* Friendly names for the facts people look for first ("CANN", "firmware").
 * '*' matches one key component, which "%s" in the label repeats. */
static const char *const nd_labels[][2] = {
    {"facts.ascend.cann.version", "CANN"},
    {"facts.ascend.firmware.version", "firmware"},
    {"facts.ascend.driver.version", "Ascend driver"},
    {"facts.nvidia.driver_version", "NVIDIA driver"},
    {"facts.python.packages.*.version", "%s"},
    {"facts.python.version", "python version"},
    {"facts.host.shm_bytes", "/dev/shm size"},
    {"facts.host.nofile_soft", "open files (ulimit -n)"},
    {"device_layer[*].driver_version", "%s driver"},
    {"device_layer[*].device_count", "%s device count"},
    {"device_layer[*].library", "%s device library"},
    {"facts.devices.vendors[*].devices", "%s device"},
    {"facts.devices.vendors[*].driver_version", "%s driver"},
};

/* Matches key against pattern; the part '*' matched goes to star. */
static bool nd_label_match(const char *pattern, const char *key, char *star, size_t size)
{
    const char *w = strchr(pattern, '*');
    if (!w)
        return strcmp(pattern, key) == 0;
    size_t pre = (size_t)(w - pattern);
    if (strncmp(pattern, key, pre) != 0)
        return false;
    const char *rest = w + 1;
    size_t klen = strlen(key), rlen = strlen(rest);
    if (klen < pre + rlen || strcmp(key + klen - rlen, rest) != 0)
        return false;
    size_t slen = klen - rlen - pre;
    if (slen == 0 || slen >= size || memchr(key + pre, '.', slen))
        return false;
    memcpy(star, key + pre, slen);
    star[slen] = '\0';
    return true;
}

static char *nd_default_label(const char *key)
{
    char star[128];
    for (size_t i = 0; i < sizeof nd_labels / sizeof *nd_labels; i++)
        if (nd_label_match(nd_labels[i][0], key, star, sizeof star))
            return strstr(nd_labels[i][1], "%s") ? nd_xasprintf(nd_labels[i][1], star) : nd_xstrdup(nd_labels[i][1]);
    if (strncmp(key, "facts.", 6) == 0)
        return nd_xstrdup(key + 6);
    return nd_xstrdup(key);
}

size_t nd_diff_intern_key(struct nd_diff *d, const char *key, const char *entry, const char *label,
                          enum nd_diff_category cat, int section, size_t parent, bool is_env)
{
    struct nd_strbuf id = ND_STRBUF_INIT;
    nd_strbuf_adds(&id, key);
    if (entry) {
        nd_strbuf_addc(&id, '\x1f');
        nd_strbuf_adds(&id, entry);
    }
    size_t k;
    nd_strtab_intern(d->ids, id.buf, id.len, &k);
    nd_strbuf_release(&id);
    if (k < d->nkeys)
        return k;
    /* New: ids are dense, so the new id is exactly the next index. */
    if (d->nkeys == d->capkeys) {
        d->capkeys = d->capkeys ? d->capkeys * 2 : 256;
        d->keys = nd_xrealloc(d->keys, d->capkeys * sizeof *d->keys);
    }
    struct nd_diff_key *nk = &d->keys[d->nkeys++];
    memset(nk, 0, sizeof *nk);
    nk->key = nd_strtab_intern(d->strs, key, strlen(key), NULL);
    nk->entry = entry ? nd_strtab_intern(d->strs, entry, strlen(entry), NULL) : NULL;
    char *dl = label ? NULL : nd_default_label(key);
    const char *l = label ? label : dl;
    nk->label = nd_strtab_intern(d->strs, l, strlen(l), NULL);
    free(dl);
    /* Entries of one key (PATH's "missing:" and "added:" lines) sort
     * together, where the key first appeared. */
    size_t g, ngroups = nd_strtab_count(d->groups);
    nd_strtab_intern(d->groups, key, strlen(key), &g);
    if (g == ngroups) {
        if (g >= d->ngroups_cap) {
            d->ngroups_cap = d->ngroups_cap ? d->ngroups_cap * 2 : 256;
            d->group_first = nd_xrealloc(d->group_first, d->ngroups_cap * sizeof *d->group_first);
        }
        d->group_first[g] = k;
    }
    nk->group = d->group_first[g];
    nk->category = cat;
    nk->section = section;
    nk->parent = parent;
    nk->is_env = is_env;
    return k;
}

void nd_diff_put(struct nd_diff *d, size_t k, size_t file, const char *value)
{
    struct nd_diff_key *key = &d->keys[k];
    if (key->nvals && key->vals[key->nvals - 1].file == file)
        return;
    if (key->nvals == key->capvals) {
        key->capvals = key->capvals ? key->capvals * 2 : 4;
        key->vals = nd_xrealloc(key->vals, key->capvals * sizeof *key->vals);
    }
    key->vals[key->nvals].file = file;
    key->vals[key->nvals].value = value;
    key->nvals++;
}

/* Text names files by node when every file has its own node name. */
static void nd_diff_make_labels(struct nd_diff *d)
{
    d->labels = nd_xcalloc(d->nfiles ? d->nfiles : 1, sizeof *d->labels);
    struct nd_strtab *seen = nd_strtab_new();
    bool unique = true;
    for (size_t i = 0; i < d->nfiles && unique; i++) {
        if (!d->nodes[i] || !d->nodes[i][0]) {
            unique = false;
            break;
        }
        size_t before = nd_strtab_count(seen);
        nd_strtab_intern(seen, d->nodes[i], strlen(d->nodes[i]), NULL);
        unique = nd_strtab_count(seen) > before;
    }
    nd_strtab_free(seen);
    for (size_t i = 0; i < d->nfiles; i++)
        d->labels[i] = unique ? d->nodes[i] : d->files[i];
    d->labels_ready = true;
}

void nd_diff_add(struct nd_diff *d, size_t i, const char *file, const json_t *snapshot)
{
    if (i >= d->nfiles)
        return;
    free(d->files[i]);
    d->files[i] = nd_xstrdup(file);
    json_t *id = json_object_get(snapshot, "identity");
    const char *node = nd_json_get_str(id, "node_name");
    if (!node)
        node = nd_json_get_str(id, "hostname");
    free(d->nodes[i]);
    d->nodes[i] = node ? nd_xstrdup(node) : NULL;
    const char *when = nd_json_get_str(id, "time");
    free(d->whens[i]);
    d->whens[i] = when ? nd_xstrdup(when) : NULL;
    const char *fp = nd_json_get_str(json_object_get(snapshot, "redaction"), "key_fingerprint");
    free(d->keyfps[i]);
    d->keyfps[i] = fp ? nd_xstrdup(fp) : NULL;
    nd_diff_flatten(d, i, snapshot);
    if (i + 1 == d->nfiles)
        nd_diff_make_labels(d);
}

size_t nd_diff_nfiles(const struct nd_diff *d)
{
    return d->nfiles;
}

const char *nd_diff_file(const struct nd_diff *d, size_t i)
{
    return i < d->nfiles && d->files[i] ? d->files[i] : "?";
}

const char *nd_diff_label(const struct nd_diff *d, size_t i)
{
    if (i >= d->nfiles)
        return "?";
    return d->labels_ready ? d->labels[i] : nd_diff_file(d, i);
}

void nd_diff_describe_file(const struct nd_diff *d, size_t i, char *buf, size_t size)
{
    if (i >= d->nfiles) {
        snprintf(buf, size, "?");
        return;
    }
    snprintf(buf, size, "%s", d->files[i] ? d->files[i] : "?");
    size_t n = strlen(buf);
    if (d->nodes[i] && d->whens[i])
        snprintf(buf + n, size - n, " (%s at %s)", d->nodes[i], d->whens[i]);
    else if (d->nodes[i])
        snprintf(buf + n, size - n, " (%s)", d->nodes[i]);
}

const struct nd_diff_key *nd_diff_key_at(const struct nd_diff *d, size_t k)
{
    return k < d->nkeys ? &d->keys[k] : NULL;
}

const char *nd_diff_value(const struct nd_diff_key *k, size_t file)
{
    size_t lo = 0, hi = k->nvals;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->vals[mid].file < file)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < k->nvals && k->vals[lo].file == file ? k->vals[lo].value : NULL;
}

static int nd_cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (const char *const *)a, y = (uintptr_t) * (const char *const *)b;
    return (x > y) - (x < y);
}

/* Distinct values of a key and how often each occurs (absence included). */
struct nd_tally {
    const char **vals; /* sorted copy */
    size_t ndistinct;  /* present values only */
    size_t nabsent;
    const char *top; /* most common value (NULL: absent) */
    size_t top_count;
    bool top_unique;
};

static void nd_tally(const struct nd_diff *d, const struct nd_diff_key *k, struct nd_tally *t, const char **scratch)
{
    memset(t, 0, sizeof *t);
    t->vals = scratch;
    for (size_t i = 0; i < k->nvals; i++)
        scratch[i] = k->vals[i].value;
    qsort(scratch, k->nvals, sizeof *scratch, nd_cmp_ptr);
    t->nabsent = d->nfiles - k->nvals;
    /* Absence first: a tie between "absent" and a value is no majority. */
    t->top = NULL;
    t->top_count = t->nabsent;
    t->top_unique = t->nabsent > 0;
    for (size_t i = 0; i < k->nvals;) {
        size_t j = i;
        while (j < k->nvals && scratch[j] == scratch[i])
            j++;
        t->ndistinct++;
        size_t c = j - i;
        if (c > t->top_count) {
            t->top = scratch[i];
            t->top_count = c;
            t->top_unique = true;
        } else if (c == t->top_count) {
            t->top_unique = false;
        }
        i = j;
    }
}

struct nd_sortable {
    enum nd_diff_category cat;
    int section;
    const char *env_key; /* variables sort by name, whichever file had them first */
    size_t group;
    size_t key;
    struct nd_difference diff;
};

static int nd_cmp_sortable(const void *a, const void *b)
{
    const struct nd_sortable *x = a, *y = b;
    if (x->cat != y->cat)
        return (int)x->cat - (int)y->cat;
    if (x->section != y->section)
        return x->section - y->section;
    if (x->env_key && y->env_key && x->env_key != y->env_key)
        return strcmp(x->env_key, y->env_key);
    if (x->group != y->group)
        return (x->group > y->group) - (x->group < y->group);
    return (x->key > y->key) - (x->key < y->key);
}

/* True when two files were redacted under different keys (a file without
 * a fingerprint predates keyed markers: a key of its own). */
static bool nd_diff_keys_differ(const struct nd_diff *d)
{
    for (size_t i = 1; i < d->nfiles; i++) {
        const char *a = d->keyfps[0], *b = d->keyfps[i];
        if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
            return true;
    }
    return false;
}

static bool nd_all_markers(const struct nd_diff_key *k)
{
    for (size_t i = 0; i < k->nvals; i++)
        if (!k->vals[i].value || !nd_redact_is_marker(k->vals[i].value))
            return false;
    return true;
}

int nd_diff_compute(const struct nd_diff *d, bool all, struct nd_diff_result *out)
{
    memset(out, 0, sizeof *out);
    out->all = all;
    struct nd_sortable *list = NULL;
    size_t n = 0, cap = 0;
    const char **scratch = nd_xcalloc(d->nfiles ? d->nfiles : 1, sizeof *scratch);
    bool keys_differ = nd_diff_keys_differ(d);
    for (size_t ki = 0; ki < d->nkeys; ki++) {
        const struct nd_diff_key *k = &d->keys[ki];
        if (k->nvals == d->nfiles) {
            /* Cheap common case: present everywhere with one value. */
            bool same = true;
            for (size_t i = 1; i < k->nvals && same; i++)
                same = k->vals[i].value == k->vals[0].value;
            if (same)
                continue;
        }
        struct nd_tally t;
        nd_tally(d, k, &t, scratch);
        if (t.ndistinct + (t.nabsent > 0) <= 1)
            continue;
        /* A field of an array element that is simply missing where its
         * element is missing: the element's own line says it. */
        if (k->parent != ND_DIFF_NO_PARENT && d->keys[k->parent].nvals == k->nvals && t.ndistinct == 1)
            continue;
        if (k->category == ND_DIFF_NOISE && !all) {
            out->noise_hidden++;
            continue;
        }
        /* Markers made under different keys differ whatever the secrets:
         * "not comparable", not "different". */
        if (keys_differ && k->nvals == d->nfiles && nd_all_markers(k)) {
            out->incomparable++;
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            list = nd_xrealloc(list, cap * sizeof *list);
        }
        struct nd_sortable *s = &list[n++];
        memset(s, 0, sizeof *s);
        s->cat = k->category;
        s->section = k->section;
        s->group = k->group;
        s->env_key = k->is_env ? k->key : NULL;
        s->key = ki;
        s->diff.key = ki;
        if (d->nfiles >= 3 && t.top_unique) {
            s->diff.has_majority = true;
            s->diff.majority = t.top;
            s->diff.outliers = nd_xcalloc(d->nfiles - t.top_count, sizeof *s->diff.outliers);
            size_t j = 0;
            for (size_t f = 0; f < d->nfiles; f++) {
                const char *v = NULL;
                if (j < k->nvals && k->vals[j].file == f)
                    v = k->vals[j++].value;
                if (v != t.top)
                    s->diff.outliers[s->diff.noutliers++] = f;
            }
        }
    }
    free(scratch);
    if (n)
        qsort(list, n, sizeof *list, nd_cmp_sortable);
    out->v = nd_xcalloc(n ? n : 1, sizeof *out->v);
    for (size_t i = 0; i < n; i++)
        out->v[i] = list[i].diff;
    out->n = n;
    free(list);
    return 0;
}

void nd_diff_result_release(struct nd_diff_result *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->v[i].outliers);
    free(r->v);
    memset(r, 0, sizeof *r);
}
