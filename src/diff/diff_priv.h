/* Private to the diff engine (diff.c, diff_flatten.c, diff_report.c): the
 * comparison's state and the one way facts enter it. */
#ifndef ND_DIFF_DIFF_PRIV_H
#define ND_DIFF_DIFF_PRIV_H

#include "diff/diff.h"
#include "core/strtab.h"

struct nd_diff {
    size_t nfiles;
    struct nd_strtab *strs;   /* values, labels, keys, entries */
    struct nd_strtab *ids;    /* "key\x1f entry" -> key index (ids are dense, so equal to the index) */
    struct nd_strtab *groups; /* key -> its group (dense ids) */
    size_t *group_first;      /* group -> index of its first fact */
    size_t ngroups_cap;
    struct nd_diff_key *keys;
    size_t nkeys, capkeys;
    char **files;
    char **nodes;  /* identity node name per file, or NULL */
    char **whens;  /* identity time per file, or NULL */
    char **keyfps; /* redaction key fingerprint per file, or NULL (older snapshots) */
    char **labels; /* computed once every file is in */
    bool labels_ready;
};

/* The fact (key, entry), created with the given classification when new.
 * label NULL: derived from the key. Returns its index. */
size_t nd_diff_intern_key(struct nd_diff *d, const char *key, const char *entry, const char *label,
                          enum nd_diff_category cat, int section, size_t parent, bool is_env);
/* Records file's value of fact k (the first one wins when a file repeats a fact). */
void nd_diff_put(struct nd_diff *d, size_t k, size_t file, const char *value);
/* Flattens one snapshot into d (diff_flatten.c). */
void nd_diff_flatten(struct nd_diff *d, size_t file, const json_t *doc);

#endif
