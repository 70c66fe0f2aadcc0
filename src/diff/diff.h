/* The diff engine behind `npu-doctor diff`: snapshots are flattened into
 * keyed facts (diff_flatten.c), classified by how much they matter, and
 * compared: two files side by side, or three and more against the majority
 * (diff.c). diff_report.c prints the result as text or JSON.
 *
 * A fact is a key ("env.ASCEND_HOME_PATH", "facts.ascend.cann_version") and,
 * for set-like values, an entry: each PATH-like variable entry, device file,
 * finding id and array element is its own fact whose value is "present" (or
 * the finding's severity), so "missing: /usr/local/Ascend/driver/lib64" and
 * "node-12 lacks /dev/davinci3" fall out of the same comparison. Values are
 * redacted as they are read. */
#ifndef ND_DIFF_DIFF_H
#define ND_DIFF_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "core/error.h"

/* Most relevant first (the order of the output). */
enum nd_diff_category {
    ND_DIFF_VENDOR = 0, /* vendor stack versions, CANN/CUDA variables, LD_LIBRARY_PATH, PYTHONPATH */
    ND_DIFF_DEVICES,    /* devices, device files */
    ND_DIFF_PYTHON,     /* interpreter and packages */
    ND_DIFF_LIMITS,     /* /dev/shm, memlock, ulimits, host facts */
    ND_DIFF_OTHER,      /* other variables, findings, distributed settings */
    ND_DIFF_NOISE,      /* times, pids, hostnames, ranks, OLDPWD, SHLVL...: shown with --all only */
    ND_DIFF_NCATEGORIES
};

/* "vendor", "devices", "python", "limits", "other", "noise" (JSON). */
const char *nd_diff_category_name(enum nd_diff_category c);
/* "vendor stack and environment", ... (text headings). */
const char *nd_diff_category_title(enum nd_diff_category c);

#define ND_DIFF_NO_PARENT ((size_t)-1)

struct nd_diff_value {
    size_t file;       /* file index */
    const char *value; /* interned */
};

/* One flattened fact and its value in each file that has it. */
struct nd_diff_key {
    const char *key;   /* interned, "env.LD_LIBRARY_PATH" */
    const char *entry; /* interned set element, or NULL for a scalar */
    const char *label; /* interned, for people: "LD_LIBRARY_PATH", "CANN", "device file" */
    enum nd_diff_category category;
    int section;                /* sort rank inside the category: env before facts */
    bool is_env;                /* shown as "(unset)" when absent */
    size_t parent;              /* the array element this field belongs to, or ND_DIFF_NO_PARENT */
    size_t group;               /* index of the first fact with this key: entries stay together */
    struct nd_diff_value *vals; /* sorted by file; a file without the fact is absent */
    size_t nvals, capvals;
};

struct nd_diff;

/* A comparison of nfiles snapshots (added in order 0..nfiles-1). */
struct nd_diff *nd_diff_new(size_t nfiles);
void nd_diff_free(struct nd_diff *d);
/* Flattens one checked snapshot (nd_snapshot_load) as file index i, named
 * file. Files must be added in index order. */
void nd_diff_add(struct nd_diff *d, size_t i, const char *file, const json_t *snapshot);

size_t nd_diff_nfiles(const struct nd_diff *d);
const char *nd_diff_file(const struct nd_diff *d, size_t i);
/* How a file is named in text: its node name when every file has a
 * distinct one, else the file name. */
const char *nd_diff_label(const struct nd_diff *d, size_t i);
/* "good.json (node-01 at 2026-11-28T09:14:02Z)" for headers. */
void nd_diff_describe_file(const struct nd_diff *d, size_t i, char *buf, size_t size);
const struct nd_diff_key *nd_diff_key_at(const struct nd_diff *d, size_t k);
/* The value of fact k in file i (NULL when absent). */
const char *nd_diff_value(const struct nd_diff_key *k, size_t file);

struct nd_difference {
    size_t key;           /* index for nd_diff_key_at */
    bool has_majority;    /* three or more files and one value strictly most common */
    const char *majority; /* the majority value (NULL: the majority lacks the fact) */
    size_t *outliers;     /* files whose value is not the majority's, in file order */
    size_t noutliers;
};

struct nd_diff_result {
    struct nd_difference *v; /* most relevant first */
    size_t n;
    size_t noise_hidden; /* differing noise facts not shown (without --all) */
    size_t incomparable; /* redacted values not compared: the files used different redaction keys */
    bool all;
};

/* Compares. all: include noise. Returns 0 (the result is owned by the
 * caller: nd_diff_result_release). */
int nd_diff_compute(const struct nd_diff *d, bool all, struct nd_diff_result *out);
void nd_diff_result_release(struct nd_diff_result *r);

/* Reporters (diff_report.c). Text: aligned sections, most relevant first;
 * two files as "A -> B" and "missing:/added:" entries, more files as
 * "node-17: CANN 8.0.0 (others: 8.1.RC1)". */
void nd_diff_print_text(const struct nd_diff *d, const struct nd_diff_result *r, FILE *fp, bool color);
/* {"schema", "command": "diff", "findings": [], "files", "labels",
 *  "noise_hidden", "differences": [{"key", "entry"?, "label", "category",
 *  "values": {"<file>": "<value>" | null}, "majority"?, "outliers"?}],
 *  "outlier_files"? (three or more files: every file named as an outlier)} */
json_t *nd_diff_to_json(const struct nd_diff *d, const struct nd_diff_result *r);

/* --- classification (diff_flatten.c), exposed for tests --- */

/* Environment variables that differ between any two runs by nature. */
bool nd_diff_env_is_noise(const char *name);
/* CANN/CUDA/driver variables and the search paths. */
bool nd_diff_env_is_vendor(const char *name);
/* Variables compared entry by entry (PATH, LD_LIBRARY_PATH, PYTHONPATH...). */
bool nd_diff_env_is_pathlike(const char *name, const char *value);
/* Fact names whose values move by themselves (time, pid, free memory...). */
bool nd_diff_fact_is_noise(const char *leaf);

#endif
