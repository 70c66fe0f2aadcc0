/* Private to src/kb/: the log-shape analysis. When no specific rule explains
 * a log, its shape still says something: a stack dump of a stuck process,
 * the blocking step a log stopped in, a throughput that collapses, a tool
 * dump pasted alone. The vocabulary ([shape.*] sections, rules/logshape.rules)
 * is parsed by kb_shape_rules.c; kb_logshape.c reads a log's tail with it. */
#ifndef ND_KB_KB_SHAPE_H
#define ND_KB_KB_SHAPE_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/finding.h"

struct nd_strv;

/* What a [shape.KIND.NAME] section describes. */
enum nd_shape_kind {
    ND_SHAPE_FRAMES,  /* [shape.frames.NAME]: who waits, from a stack's innermost frames */
    ND_SHAPE_WAIT,    /* [shape.wait]: blocking primitives (a thread that waits) */
    ND_SHAPE_STEP,    /* [shape.step.NAME]: a blocking step a log may stop in */
    ND_SHAPE_DUMP,    /* [shape.dump.NAME]: a tool dump and the lines in it that mean a fault */
    ND_SHAPE_END,     /* [shape.end]: lines that mean the run ended or reported */
    ND_SHAPE_SIGNAL,  /* [shape.signal.NAME]: the words of a finding the code derives */
    ND_SHAPE_REFINES, /* [shape.refines]: rules a shape finding goes before */
    ND_SHAPE_RATE,    /* [shape.rate.NAME]: a progress line's throughput (one number) */
    ND_SHAPE_RATIO    /* [shape.ratio.NAME]: two numbers of one line whose ratio means a cause */
};

struct nd_shape_re {
    char *src;
    long line;
    regex_t re;
    bool ok;
    /* Prefilter (kb_shape_prefilter.c): a match holds one of these runs of
     * plain characters (lower case when icase); none known when nlit is 0. */
    char **lit;
    size_t nlit;
    bool icase;
};

/* Reads the runs that every match of x->src must hold (x->lit). */
void nd_shape_prefilter_build(struct nd_shape_re *x, bool icase);
void nd_shape_prefilter_release(struct nd_shape_re *x);
/* False only when no match of x can be in the NUL-terminated text. */
bool nd_shape_prefilter_may_match(const struct nd_shape_re *x, const char *text);

struct nd_shape_res {
    struct nd_shape_re *v;
    size_t n;
};

struct nd_shape_entry {
    enum nd_shape_kind kind;
    char *name; /* the section name after "shape." */
    char *file;
    long line;
    unsigned parse_id;
    char *category, *title, *cause;
    char **fix;
    size_t nfix;
    struct nd_shape_res pat;   /* frame / pattern / header / rule (as text); rate: value; ratio: part */
    struct nd_shape_res done;  /* step: done; dump: fault; rate: inverse; ratio: whole */
    struct nd_shape_res ctx;   /* dump: a line elsewhere in the log that the fault needs; rate: skip */
    struct nd_shape_res alone; /* dump: the other lines of the dump, when pasted alone */
    char **example, **counter;
    long *example_line, *counter_line;
    size_t nexample, ncounter;
    long tail;    /* step: how many non-blank lines from the end (default 6) */
    double min;   /* signal: a threshold the code reads (ratio, minutes); ratio: part/whole from */
    double max;   /* ratio: part/whole up to (default 1.05: a part above the whole is another field) */
    double scale; /* rate: the rate is value * scale, or scale / inverse (default 1) */
    char *unit;   /* rate: what the rate counts per second, for the finding's sentence */
    long count;   /* ratio: lines that must show it (default 3) */
    int priority; /* frames, steps: the stronger entry wins over a weaker one */
    bool has_min;
};

struct nd_kb_shape_set {
    struct nd_shape_entry *v;
    size_t n;
};

/* One key of a [shape.*] section (kb_rules.c hands them over). fresh: the
 * first key since the section header (a section of an earlier file with
 * the same name is then replaced). cont: an indented line continuing the
 * previous value. Problems are appended as "file:line: message". */
void nd_kb_shape_key(struct nd_kb_shape_set *set, const char *file, long line, unsigned parse_id, bool fresh, bool cont,
                     const char *section, const char *key, const char *val, struct nd_strv *problems);
/* Checks what a key alone cannot: category, title, fix, patterns, examples. */
void nd_kb_shape_check(const struct nd_kb_shape_set *set, struct nd_strv *problems);
/* Runs the examples (must match) and counters (must not); failures to fp. */
size_t nd_kb_shape_test(const struct nd_kb_shape_set *set, FILE *fp, size_t *nchecked);
void nd_kb_shape_release(struct nd_kb_shape_set *set);
const struct nd_shape_entry *nd_kb_shape_find(const struct nd_kb_shape_set *set, enum nd_shape_kind kind,
                                              const char *name);
/* True when some pattern of res matches the NUL-terminated text. */
bool nd_shape_res_match(const struct nd_shape_res *res, const char *text);
/* The number a pattern of res captures in text: in the first pattern that
 * gives one, the last group outside any other group whose text starts with
 * a number ("1.5", ".5"). */
bool nd_shape_res_number(const struct nd_shape_res *res, const char *text, double *v);
/* A rate entry's rate in text (value * scale, or scale / inverse). */
bool nd_shape_rate_of(const struct nd_shape_entry *e, const char *text, double *rate);
/* A ratio entry's part / whole in text. */
bool nd_shape_ratio_of(const struct nd_shape_entry *e, const char *text, double *ratio);

/* Tool tables pasted into a log (kb_shape_tables.c), read line by line in
 * order: the reader keeps the last header it saw, so a row is read by its
 * table's columns. */
enum nd_shape_row_kind {
    ND_ROW_NONE,   /* not part of a known table */
    ND_ROW_TABLE,  /* a header, border or other line of a table */
    ND_ROW_DEVICE, /* a device: util, mem_ratio, key */
    ND_ROW_PROC,   /* a process row of nvidia-smi / npu-smi */
    ND_ROW_HOST    /* a top / ps process row: cpu, python */
};

struct nd_shape_row {
    int util;         /* percent busy (SM, AI Core, GPU%), -1 unknown */
    double mem_ratio; /* device memory in use / total, -1 unknown */
    int key;          /* the device's index in its tool's output, -1 unknown */
    double cpu;       /* host row: %CPU as top counts it (100 = one core) */
    bool python;      /* host row: the program is a Python interpreter or torchrun */
};

struct nd_shape_table {
    enum { ND_TBL_NONE, ND_TBL_COLS, ND_TBL_CONCISE, ND_TBL_TOP } kind;
    bool in_procs; /* inside an smi tool's process table */
    bool csv;
    int ordinal;                  /* devices read since the last smi header */
    int smi_headers, bus_headers; /* nvidia-smi / npu-smi title lines and column headers seen */
    int ncols;
    int col_util, col_mem, col_used, col_total, col_key, col_cpu, col_cmd;
};

void nd_shape_table_init(struct nd_shape_table *t);
/* s: one line, prefix and outer blanks removed. */
enum nd_shape_row_kind nd_shape_table_line(struct nd_shape_table *t, const char *s, struct nd_shape_row *r);

/* Analysis of one source's tail (kb_logshape.c), pure: text holds whole
 * lines, the first of them line first_line of the source called name.
 * Appends the shape findings it supports, strongest first (all severity
 * warning, confidence low). */
void nd_kb_shape_analyze(const struct nd_kb_shape_set *set, const char *name, const char *text, size_t len,
                         long first_line, struct nd_findings *out);

/* The scan side: keeps the tail of each source as it streams, analyses it
 * when the source ends, and at the end merges the findings into explain's
 * list where no specific rule explained the log. */
struct nd_kb_shape_scan;
struct nd_kb_shape_scan *nd_kb_shape_scan_new(const struct nd_kb_shape_set *set);
void nd_kb_shape_begin(struct nd_kb_shape_scan *sh, const char *name);
/* Whole lines of the current source (the last may lack its newline). */
void nd_kb_shape_feed(struct nd_kb_shape_scan *sh, const char *data, size_t len);
/* The source ended after nlines physical lines. */
void nd_kb_shape_end(struct nd_kb_shape_scan *sh, long nlines);
/* out[before..] are the findings the rules gave: shape findings are added
 * after them when none is specific, or first when the top one is a rule
 * the shape refines ([shape.refines], an unexplained KeyboardInterrupt). */
void nd_kb_shape_merge(struct nd_kb_shape_scan *sh, struct nd_findings *out, size_t before);
void nd_kb_shape_scan_free(struct nd_kb_shape_scan *sh);

#endif
