/* Private to src/kb/: the rule model, the rule-file parser and the compiled
 * matcher that kb_rules.c, kb_load.c, kb_scan.c and kb_order.c share. Unit
 * tests include it to test the parser and the ranking directly. */
#ifndef ND_KB_KB_INTERNAL_H
#define ND_KB_KB_INTERNAL_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hs/hs.h>

#include "kb/kb.h"
#include "kb/kb_shape.h"

/* A list of strings, each with the rule-file line it came from. */
struct nd_strv {
    char **v;
    long *line;
    size_t n;
};

void nd_strv_push(struct nd_strv *sv, const char *s, long line);
void nd_strv_release(struct nd_strv *sv);
/* Adds "file:line: message" to problems (rule-file lint and load errors). */
void nd_kb_problem(struct nd_strv *problems, const char *file, long line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* How a rule takes part in ranking (design: causes before their symptoms). */
enum nd_kb_role { ND_ROLE_CAUSE = 0, ND_ROLE_SYMPTOM = 1, ND_ROLE_WRAPPER = 2 };
/* A `role` value of a rule or a [code.*] entry; -1 when it is none of them. */
int nd_kb_role_parse(const char *val);

struct nd_kb_capture {
    char *name;
    regex_t re;
};

/* A fresh id per file parsed, so "same file" does not depend on the name: a
 * rules directory named like the built-in one (--rules rules) overrides it. */
unsigned nd_kb_next_parse_id(void);

struct nd_kb_rule {
    char *id;
    char *category;
    char *vendor;
    char *title;
    char *cause;
    char *see;
    char *family;      /* catalogue family ("#! family"), NULL for INI rules */
    char *file;        /* rule file, for lint messages */
    long line;         /* line of the [section] */
    unsigned parse_id; /* which parse call read it: a duplicate id in the same file shares it */
    int severity;      /* enum nd_severity; -1 until set */
    int confidence;    /* enum nd_confidence */
    enum nd_kb_role role;
    int tier; /* ranking weight, derived from category and role */
    struct nd_strv patterns, fixes, examples, counters, outranks, captures_src;
    /* example-block / counter-block: little logs ('\n'-joined lines) that must
     * (must not) yield this rule's finding with context rules applied. */
    struct nd_strv example_blocks, counter_blocks;
    /* consequence-of: categories (or "mechanism": any specific INI rule)
     * whose finding in the same file explains this one, so goes first. */
    struct nd_strv consequence_of;
    /* echo-of: categories or rule ids whose finding in ANY file of the
     * input explains this one (a peer's timeout echoes another rank's
     * failure wherever that rank logged it), so goes first. */
    struct nd_strv echo_of;
    bool patterns_checked; /* checked already (a template once per file; the prebuilt built-ins at build time) */
    struct nd_kb_capture *captures;
    size_t ncaptures;
    size_t *outrank_idx; /* resolved outranks, indexes into the rule table */
    size_t noutrank_idx;
    /* require = A [- B] > C: sizes from captures that must hold on the line
     * (e.g. reserved - allocated > requested: fragmentation). */
    char *require;
    long require_line;
    char *req_a, *req_b, *req_c;
    bool dup_scratch; /* parsed only to lint a duplicate id; dropped after the file */
    /* One finding per line (kb_spec.c): a generic rule (`generic = true`,
     * or a wrapper) yields to a specific one on the same line; spec orders
     * rules of one category (vendor-specific first, then longer literal). */
    bool generic;
    int spec;
    /* Context (requires/unless/within): the rule counts only if each
     * `requires` key also matched, and none of its `unless` keys did, within
     * `within` lines (0: anywhere in the same source). */
    struct nd_strv requires_src, unless_src;
    long within;
    struct nd_kb_cond *conds;
    size_t nconds;
};

/* A context condition: a key (rule index, or a regex of the kb) that must
 * (requires) or must not (unless) match near the rule's line. */
struct nd_kb_cond {
    bool unless;
    long key;    /* rule index, or nrules + regex number; -1 unresolved */
    char *regex; /* "re:" condition, else NULL */
};

/* A [code.ID] section: how a finding that code makes (not a rule: the
 * compatibility judge's compat.*, run's exit.*, the fallback's
 * generic.unexplained-error) takes part in ranking (kb_codefind.c). */
struct nd_kb_code {
    char *id;    /* a finding id, or a prefix ("compat.") when prefix */
    bool prefix; /* written "compat.*": every id that starts so */
    enum nd_kb_role role;
    int yield_max;         /* enum nd_severity: it yields only while its severity is at most this */
    struct nd_strv yields; /* yields-to: rule ids, categories, "mechanism", "named" */
    char *file;            /* rule file, for lint messages */
    long line;
    unsigned parse_id;
};
struct nd_kb_codeset {
    struct nd_kb_code *v;
    size_t n;
};

struct nd_kb_ruleidx;
struct nd_kb_ruleset {
    struct nd_kb_rule *v;
    size_t n, cap;
    struct nd_kb_ruleidx *idx; /* id -> slot (kb_ruleidx.c), kept up to date lazily */
    /* The fallback classifier's vocabulary ([vocab.CATEGORY] sections). */
    struct nd_strv vocab_cat, vocab_word;
    int *vocab_weight;
    bool *vocab_whole; /* a `token` entry: matches the whole word only, not the words it begins */
    /* The log-shape vocabulary ([shape.*] sections, kb_shape_rules.c). */
    struct nd_kb_shape_set shape;
    /* How code findings rank ([code.*] sections, kb_codefind.c). */
    struct nd_kb_codeset code;
};

/* One key of a [code.ID] section (kb_rules.c hands them over); fresh: the
 * first key since the section header. Problems: "file:line: message". */
void nd_kb_code_key(struct nd_kb_codeset *set, const char *file, long line, unsigned parse_id, bool fresh,
                    const char *id, const char *key, const char *val, struct nd_strv *problems);
/* The entry for a finding id: an exact one, else the longest prefix; NULL. */
const struct nd_kb_code *nd_kb_code_find(const struct nd_kb_codeset *set, const char *id);
void nd_kb_codeset_release(struct nd_kb_codeset *set);

/* The rule with this id, or NULL (idx gets its slot). O(1): a hash index
 * that catches up with rules appended since the last lookup. Call reindex
 * after moving or removing rules. */
struct nd_kb_rule *nd_kb_ruleset_find(struct nd_kb_ruleset *set, const char *id, size_t *idx);
void nd_kb_ruleset_reindex(struct nd_kb_ruleset *set);
void nd_kb_ruleidx_free(struct nd_kb_ruleset *set);

/* The fallback classifier (kb_fallback.c): the category whose vocabulary
 * weighs most in text, or "config" with *score 0 when no word counts. */
const char *nd_kb_fb_classify(const struct nd_kb_ruleset *set, const char *text, int *score);
/* The same, also reading frames (the last traceback's frames, may be NULL)
 * at half the weight of text. */
const char *nd_kb_fb_classify_frames(const struct nd_kb_ruleset *set, const char *text, const char *frames, int *score);

/* Parses one rule file's text. Rules are appended to set (a rule whose id is
 * already there replaces it when replace is true, else it is a duplicate).
 * Each problem is appended to problems as "file:line: message". */
void nd_kb_parse_rules(struct nd_kb_ruleset *set, const char *file, const char *text, size_t len, bool replace,
                       struct nd_strv *problems);
/* Checks what the parser cannot: required keys, known category, that every
 * pattern and capture compiles (position in the message), outranks targets.
 * Appends problems; compiles the captures of valid rules. Call once per set.
 * ref (may be NULL) holds further rules that outranks may name (lint). */
void nd_kb_check_rules(struct nd_kb_ruleset *set, const struct nd_kb_ruleset *ref, struct nd_strv *problems);
/* Parses one catalogue table (rules/catalog/NAME.tsv, kb_catalog.c): each row
 * becomes a rule in set, with the same replace and problem conventions. */
void nd_kb_parse_catalog(struct nd_kb_ruleset *set, const char *file, const char *text, size_t len, bool replace,
                         struct nd_strv *problems);
/* "ascend.acl" + "EL0004" -> "ascend.acl.el0004" (malloc'd). */
char *nd_kb_catalog_id(const char *prefix, const char *code);
/* Decimal (optionally signed) or 0x-hex: such a code needs context to match. */
bool nd_kb_catalog_code_is_numeric(const char *code);
/* Parses the compiled-in rule files and catalogues into set. */
void nd_kb_parse_builtin(struct nd_kb_ruleset *set, struct nd_strv *problems);
void nd_kb_rule_release(struct nd_kb_rule *r);
void nd_kb_ruleset_release(struct nd_kb_ruleset *set);
/* True when the rule's `require` condition holds on line (NUL-terminated),
 * or when it has none. */
bool nd_kb_rule_accepts(const struct nd_kb_rule *r, const char *line);
/* In consequence-of: any specific INI rule (not a catalogue row, not
 * generic, role cause) at least as severe names the mechanism. */
#define ND_KB_MECHANISM "mechanism"
/* A category, a rule id, or ND_KB_MECHANISM. */
bool nd_kb_consequence_item_ok(const char *item);
/* True when a consequence-of item names one rule rather than a category. */
bool nd_kb_consequence_item_is_id(const char *item);
/* True when r's consequence-of names the rule with this id: that rule's
 * line is r's cause, so a wrapper named so never defers to r's line. */
bool nd_kb_consequence_names(const struct nd_kb_rule *r, const char *id);
/* Ranking weight of a category (cause categories high, symptoms low). */
int nd_kb_category_tier(const char *category);

#define ND_KB_LIVE_KEYS 16
#define ND_KB_LIVE_HELD 16

/* Live: a line a context rule matched before the line it requires came
 * (run sees only what came before), held until that line comes within the
 * rule's window, when it counts as explain counts it, or the window closes. */
struct nd_kb_held {
    unsigned rule;
    long line;    /* live line it was on */
    long lineno;  /* its line number in its source, for the evidence */
    char *source; /* owned */
    char *text;   /* the trimmed line, owned */
    int rank, chain;
    /* Rules whose finding on the same line it hides once it counts (one
     * finding per line, as explain's shadowed count). */
    unsigned hides[4];
    size_t nhides;
};

/* Keys: what a database pattern reports. [0, nrules) are rules; then the
 * regexes of context conditions; then the fallback's exception and error
 * lines (kb_fallback.c). */
struct nd_kb {
    struct nd_kb_ruleset rules;
    hs_database_t *db;
    hs_scratch_t *scratch;
    unsigned *pat_rule; /* pattern id -> key */
    size_t npatterns;
    size_t nkeys;                        /* rules + condition regexes + 3 */
    size_t key_exc, key_err;             /* the fallback's keys */
    size_t key_warn;                     /* warning lines (kb_warnfall.c) */
    size_t key_chain;                    /* "During handling of the above exception" */
    size_t key_frame;                    /* a traceback frame: File "...", line N, in f */
    bool has_conds;                      /* some rule has requires/unless */
    long *live_seen;                     /* per key: last line it matched in nd_kb_match_line, + 1 */
    long live_line;                      /* the output line nd_kb_match_line is on */
    bool live_line_set;                  /* nd_kb_live_line gave the next one */
    unsigned live_keys[ND_KB_LIVE_KEYS]; /* keys the last matched line set */
    size_t live_nkeys;                   /* how many; more than fit: ND_KB_LIVE_KEYS + 1 */
    bool live_dependent;                 /* its result looked at earlier lines */
    int live_chain;                      /* exception-chain markers matched live so far */
    /* The candidate nd_kb_block_lines_after hands to its fn: the lines
     * before it (the stream's window, then the block's own), and whether a
     * cross-line pattern matched on it. */
    const char *live_prev;
    size_t live_prev_len;
    bool live_cross;
    /* Context rules' lines waiting for what they require, oldest first. */
    struct nd_kb_held live_held[ND_KB_LIVE_HELD];
    size_t live_nheld;
    /* What the last nd_kb_live_resolve withdrew: rules whose finding on a
     * held line the resolved rule hides (nd_kb_live_withdrawn). */
    unsigned live_withdrawn[ND_KB_LIVE_WITHDRAWN_MAX];
    size_t live_nwithdrawn;
    /* Leaving repeated lines out of explain's scan (kb_elide.c). */
    const char **pat_expr;   /* pattern id -> its expression (owned by the rules, or pat_own) */
    char **pat_own;          /* pattern id -> its one-line form when it differs (nd_kb_pattern_one_line) */
    bool *pat_local;         /* pattern id -> stays within a line; made on first use */
    hs_database_t *db_cross; /* the patterns that do not, or NULL */
    int cross_state;         /* 0 not tried, 1 ready, -1 unavailable */
};

/* Makes db_cross and pat_local on first use (kb_elide.c); false when the
 * cross-line database cannot be had (then no pattern is known to stay
 * within a line). */
bool nd_kb_cross_ready(struct nd_kb *kb);

/* Frees the pending context matches of live use (nd_kb_free). */
void nd_kb_live_held_release(struct nd_kb *kb);

/* True when a outranks b or, on the same line, makes b redundant (b is
 * generic and a is not, or both are of one category and a is more
 * specific). */
bool nd_kb_rule_hides(const struct nd_kb_rule *a, size_t bi, const struct nd_kb_rule *b);
/* Computes generic and spec of r from its data (kb_spec.c). */
void nd_kb_rule_specificity(struct nd_kb_rule *r);
/* Removes from rules[0..n) (rule indexes matched on one line) those that a
 * more specific one hides; returns the new count, order kept. */
size_t nd_kb_line_dedup(const struct nd_kb *kb, size_t *rules, size_t n);

/* Builds the vectorscan database over every pattern of the rules (from the
 * cache in kb_cache.c when the same patterns were compiled before). */
int nd_kb_compile(struct nd_kb *kb, struct nd_error *err);
void nd_kb_cache_key(const char *const *exprs, const unsigned *flags, size_t n, char key[33]);
/* The same key for a database compiled for platform (the prebuilt one is
 * compiled for the generic platform of this architecture). */
void nd_kb_platform_key(const hs_platform_info_t *platform, const char *const *exprs, const unsigned *flags, size_t n,
                        char key[33]);
/* The database compiled into the binary at build time (kb_prebuilt.c) when
 * its key is the key of these patterns on the generic platform, else NULL. */
hs_database_t *nd_kb_prebuilt_load(const char *const *exprs, const unsigned *flags, size_t n);
/* The built-in rules compiled for the generic platform, serialized with
 * their key in front (key[32] then the database), for the build step that
 * embeds it. Returns 0 or a negative errno with err set. */
int nd_kb_prebuild(char **bytes, size_t *len, struct nd_error *err);
hs_database_t *nd_kb_cache_load(const char *key);
void nd_kb_cache_store(const hs_database_t *db, const char *key);

/* True when no match of the pattern can hold a newline except as its first
 * or last byte (kb_linelocal.c): then the matches ending on a line depend on
 * that line alone. Errs on false. */
bool nd_kb_pattern_line_local(const char *re);

/* The pattern kept within one line for the database (kb_linelocal.c):
 * negated classes and "\s", "\W", "\D" made to leave the newline out, as
 * grep -E and rg read a pattern line by line. A malloc'd copy, or NULL when
 * nothing changes or the pattern is not understood. */
char *nd_kb_pattern_one_line(const char *re);

/* Fills {name}, {name|default} and {name?text with $} placeholders in tmpl
 * from the rule's captures run on line ({name?...} vanishes without a value). Returns a malloc'd string. */
char *nd_kb_expand(const struct nd_kb_rule *r, const char *tmpl, const char *line);
/* Appends the finding rule r describes, its title, cause and fixes expanded
 * from line, title_suffix (may be "") after the title. No evidence yet. */
struct nd_finding *nd_kb_rule_finding(struct nd_findings *out, const struct nd_kb_rule *r, const char *line,
                                      const char *title_suffix);

/* One place a rule matched. */
struct nd_kb_occ {
    const char *file; /* interned source name (owned by the scan) */
    long line;
    double ts;  /* seconds, or < 0 when unknown */
    int rank;   /* -1 when unknown */
    char *text; /* trimmed line, NULL when not kept */
    int chain;  /* Python exception-chain markers before it in its file */
};

struct nd_strbuf;

/* The ranks a rule was seen on (see kb_rankset.c). Zeroed is empty. */
#define ND_KB_RANK_MAX 1000000
struct nd_rank_set {
    uint64_t *words;
    size_t nwords;
};
void nd_rank_set_add(struct nd_rank_set *s, int rank);
size_t nd_rank_set_count(const struct nd_rank_set *s);
/* "0-3,5,7" (eight ranges at most, then the count). */
void nd_rank_set_text(const struct nd_rank_set *s, struct nd_strbuf *sb);
void nd_rank_set_release(struct nd_rank_set *s);

/* Everything the scan learnt about one rule. Memory is bounded: a few
 * occurrences with text, counters for the rest. */
#define ND_KB_SAMPLES 3
struct nd_kb_hit {
    long count;
    long deferred;             /* wrapper matches with a specific line near them */
    struct nd_kb_occ earliest; /* by timestamp across files; first line within one */
    struct nd_kb_occ samples[ND_KB_SAMPLES];
    size_t nsamples;
    struct nd_rank_set ranks; /* the ranks it was seen on */
    size_t seq;               /* order in which rules were first seen */
    long shadowed;            /* lines a more specific rule accepted later explained */
    int ts_tries;             /* timestamps looked for after the first line */
    struct nd_kb_occ wrapped; /* a wrapper line ("EZ9999: Inner Error!") this rule explained */
};

/* The low-confidence finding for a log whose failure no rule knows
 * (kb_fallback.c): exc is its last exception line (may be NULL), errs its
 * first ERROR lines. */
/* Leaves the fallback finding out (nd_kb_explain_buffer: check explains
 * import errors its own way when no rule knows them). */
void nd_kb_scan_no_fallback(struct nd_kb_scan *s);
void nd_kb_fallback_finding(const struct nd_kb *kb, const struct nd_kb_occ *exc, const struct nd_kb_occ *errs,
                            size_t nerrs, long errcount, const char *frames, struct nd_findings *out);

/* The low-confidence hint for a log with no error line that no rule
 * explains (kb_warnfall.c): the most telling of its warning lines, when one
 * says enough to name a category. */
void nd_kb_warning_finding(const struct nd_kb *kb, const struct nd_kb_occ *warns, size_t nwarns, struct nd_findings *out);

/* Ranks the hits (one per rule, count 0 = not seen) and appends findings
 * root cause first. Pure: no I/O, used by nd_kb_scan_finish and unit tests. */
void nd_kb_rank_hits(const struct nd_kb *kb, const struct nd_kb_hit *hits, struct nd_findings *out, bool all);

/* Trims a log line for keeping: whitespace, control bytes, length cap
 * (ND_KB_TEXT_MAX; evidence shows fewer, captures may look further). */
#define ND_KB_TEXT_MAX 1000
#define ND_KB_EVIDENCE_MAX 240
char *nd_kb_trim_line(const char *line, size_t len);

#endif
