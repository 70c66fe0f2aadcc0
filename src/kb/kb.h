/* The knowledge base: rules (INI files under rules/) compiled into one
 * vectorscan database. Used by `explain` on log files, by `run` on live job
 * output, and by `check` on probe errors. */
#ifndef ND_KB_KB_H
#define ND_KB_KB_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/finding.h"

struct nd_kb;

/* Loads the compiled-in rules, then /etc/npu-doctor/rules.d (through the
 * root prefix, when present), then each of extra_dirs, and compiles them.
 * A broken rule file fails with a "file:line: message" error (-EINVAL). */
int nd_kb_load(struct nd_kb **kb, const char *const *extra_dirs, size_t nextra, struct nd_error *err);
void nd_kb_free(struct nd_kb *kb);

/* Explains a buffer (a probe's stderr, a captured traceback): appends ranked
 * findings, root cause first, with evidence "name:line". */
int nd_kb_explain_buffer(struct nd_kb *kb, const char *name, const char *buf, size_t len, struct nd_findings *out,
                         struct nd_error *err);

/* Live use (run): matches one output line (no newline; a "[rank3]: "
 * style prefix is skipped) and appends a finding for each rule that
 * explains it: when several match, the most specific hides the generic
 * ones (as in explain), and context rules (requires/unless) see the lines
 * matched before. Evidence = the line with source:lineno. Returns the
 * number of findings appended. One vectorscan scan of the line, nothing
 * allocated unless a rule matches. A kb holds one scratch space and the
 * live context: use it from one thread at a time. */
int nd_kb_match_line(struct nd_kb *kb, const char *line, size_t len, const char *source, long lineno,
                     struct nd_findings *out);
/* Live context for a caller that hands over only some lines (the candidate
 * lines of a block): the output line number the next nd_kb_match_line call
 * is on, so that `within N` counts output lines as explain counts a file's
 * (without it each call counts as the next line). */
void nd_kb_live_line(struct nd_kb *kb, long line);
/* After nd_kb_match_line: the context keys that line set, for a repeat of it
 * answered without a match to set again (nd_kb_live_touch); and whether its
 * result depended on earlier lines (then a repeat must be matched again).
 * Returns how many keys there are, or -1 when more than max. */
int nd_kb_live_keys(const struct nd_kb *kb, unsigned *keys, size_t max, bool *depends);
/* Sets the keys again on the current line (see nd_kb_live_line). */
void nd_kb_live_touch(struct nd_kb *kb, const unsigned *keys, size_t n);
/* A context rule whose `requires` line comes after its own is held when it
 * matches; nd_kb_match_line appends it, with its own line as evidence, on
 * the line that completes it (within its window), as explain would count
 * it. After nd_kb_live_touch the caller takes those the touched keys
 * completed with this call. Returns the number appended. */
int nd_kb_live_resolve(struct nd_kb *kb, struct nd_findings *out);
/* After nd_kb_match_line or nd_kb_live_resolve: the ids of the rules whose
 * finding on a held line's own line the line resolved just now hides (a
 * generic reading of the line that a specific context rule explains, as
 * explain keeps one finding per line): the caller takes one line's count
 * off each. Fills ids (valid while kb lives), returns how many. */
#define ND_KB_LIVE_WITHDRAWN_MAX 64
size_t nd_kb_live_withdrawn(const struct nd_kb *kb, const char **ids, size_t max);

/* run's summary: reorders the findings of list that rules of kb made (the
 * id is a rule's) as explain ranks them (severity, tier, wrappers last,
 * consequence-of, outranks), within the places they hold; the list's order
 * is taken for the order of arrival, a finding's chain for where its line
 * stood in a Python exception chain. Other findings (what run measured: a
 * CPU fallback, an idle device, a hang, the exit) keep their places. */
void nd_kb_order_findings(struct nd_kb *kb, struct nd_findings *list);
/* Moves each finding that code made (not a rule: compat.*, exit.*) after
 * the findings its [code.*] entry in the rule files says it yields to (see
 * rules/FORMAT.md); the others keep their order. nd_kb_order_findings ends
 * with it; explain calls it once its own code findings are in. */
void nd_kb_rank_code_findings(struct nd_kb *kb, struct nd_findings *list);
/* True when a rule of kb has this id (its findings come from a pattern). */
bool nd_kb_has_rule(struct nd_kb *kb, const char *id);

/* Live use on a block of whole lines ('\n'-separated; the last may lack its
 * newline): one scan of the database for the whole block, then fn for each
 * line on which some pattern matched, in order, with the line's index in the
 * block (0-based). A block with per-line prefixes ("[rank3]: ") or
 * continued lines is matched as explain reads it: fn gets each logical line
 * (the first physical line's prefix, then the joined message) with the
 * index of its first physical line. The lines between cost nothing more
 * than the scan.
 * Returns the number of lines passed to fn. Same scratch rule as above. */
typedef void (*nd_kb_block_fn)(void *arg, const char *line, size_t len, size_t index);
size_t nd_kb_block_lines(struct nd_kb *kb, const char *buf, size_t len, nd_kb_block_fn fn, void *arg);

/* The last lines a stream's blocks ended with, as the database read them
 * (logical lines, prefixes stripped): a pattern that crosses a line end
 * ("...used to compile\n      PyTorch (12.1)") matches in explain's scan of
 * the whole log whether or not the job wrote the two lines in one write.
 * Zeroed is empty; one per stream. */
#define ND_KB_WINDOW_MAX 1024
#define ND_KB_WINDOW_LINES 4
struct nd_kb_window {
    char buf[ND_KB_WINDOW_MAX];
    size_t len; /* '\n'-separated lines, no '\n' at the end; 0: none */
};
/* nd_kb_block_lines for a stream whose earlier lines w holds (NULL: none):
 * the block is scanned after them, so a match that began there counts on
 * the line of the block it ends on (as explain counts it), and w then holds
 * the block's last lines. */
size_t nd_kb_block_lines_after(struct nd_kb *kb, struct nd_kb_window *w, const char *buf, size_t len, nd_kb_block_fn fn,
                               void *arg);
/* Inside fn: whether the line may hold a match that began on an earlier
 * line (a pattern that crosses a line end matched on it), so its result
 * depends on the lines before it: a cached result for its text is not its
 * result (nd_kb_match_line then reads the earlier lines too). */
bool nd_kb_live_crossed(const struct nd_kb *kb);

/* Whether line (no newline) may continue prev as one logical line (an
 * indented line under a message, a width-wrapped tail, NCCL's detail after
 * "Last error:"). Generous on purpose: a live reader holds such a group back
 * until its next read so that the message reaches nd_kb_block_lines whole. */
bool nd_kb_line_continues(const char *prev, size_t pn, const char *line, size_t n);

/* ---- Introspection for explain, `rules list|test` and the tests ---- */

#include <stdbool.h>
#include <stdio.h>

/* Read-only view of one loaded rule (rules list). */
struct nd_kb_rule_info {
    const char *id, *category, *vendor, *title, *file;
    const char *family; /* catalogue family, or NULL (INI rule) */
    enum nd_severity severity;
    long line;
    size_t npatterns, nexamples, ncounters;
};
size_t nd_kb_rule_count(const struct nd_kb *kb);
void nd_kb_rule_get(const struct nd_kb *kb, size_t i, struct nd_kb_rule_info *out);
/* Every pattern, one per line (for bench/explain.sh: grep -E -f / rg -f). */
void nd_kb_write_patterns(const struct nd_kb *kb, FILE *fp);

/* Checks the rule files at path (one file, or every *.rules in a directory):
 * unknown keys, patterns that do not compile, duplicate ids, missing
 * category or fix. Each problem is written to fp as "file:line: message".
 * Returns the number of problems, or a negative errno (err filled) when path
 * cannot be read. */
int nd_kb_lint_path(const char *path, FILE *fp, struct nd_error *err);

/* Runs every rule's examples (must match the rule) and counter examples
 * (must not). Failures go to fp; *nchecked gets the number of lines tried.
 * Returns the number of failures. */
size_t nd_kb_test_examples(struct nd_kb *kb, FILE *fp, size_t *nchecked);

/* explain: streams inputs through the matcher, then ranks what it found. */
struct nd_kb_scan;
struct nd_kb_scan *nd_kb_scan_new(struct nd_kb *kb);
/* A file, a directory (recursive) or "-" for stdin; .gz is read through
 * zlib. Problems (missing, binary, empty, truncated, loops, huge lines) are
 * recorded as notes and never stop the run. Returns 0 when at least one byte
 * was scanned from path, -errno otherwise. */
int nd_kb_scan_path(struct nd_kb_scan *s, const char *path);
/* Directory walks stay inside the named tree: a symbolic link that leads out
 * of it is noted and not read, unless follow (explain --follow). */
void nd_kb_scan_set_follow(struct nd_kb_scan *s, bool follow);
int nd_kb_scan_buffer(struct nd_kb_scan *s, const char *name, const char *buf, size_t len);
/* Inputs from which something was read, bytes and lines scanned. */
size_t nd_kb_scan_inputs(const struct nd_kb_scan *s);
unsigned long long nd_kb_scan_bytes(const struct nd_kb_scan *s);
unsigned long long nd_kb_scan_lines(const struct nd_kb_scan *s);
size_t nd_kb_scan_nnotes(const struct nd_kb_scan *s);
const char *nd_kb_scan_note(const struct nd_kb_scan *s, size_t i);
/* Appends the findings, root cause first. Wrappers (EZ9999 "Inner Error")
 * that defer to specific lines near them, and info findings, are left out
 * unless all is set. When no rule matched but an input ends in an
 * exception or has ERROR lines, one low-confidence finding
 * (generic.unexplained-error) says so. */
void nd_kb_scan_finish(struct nd_kb_scan *s, struct nd_findings *out, bool all);
void nd_kb_scan_free(struct nd_kb_scan *s);

/* The first timestamp in a log line (CANN plog "2024-05-01-10:00:00.123.456",
 * Python logging "2024-05-01 10:00:00,123", ISO 8601 with optional zone,
 * "05/01/2024 10:00:00", and without a year glog's "W0501 10:00:00.123" and
 * vLLM's "INFO 05-01 10:00:00", taken as the latest such date not ahead of
 * now) within its first 256 bytes, as seconds since the epoch (UTC when a
 * zone is given, else as written).
 * Returns true when one was found. */
bool nd_kb_parse_timestamp(const char *line, size_t len, double *out);
/* The rank named by a line ("[rank3]:", "RankID:3") or a path ("rank_3.log",
 * "rank3/"), or -1. */
int nd_kb_line_rank(const char *line, size_t len);
int nd_kb_path_rank(const char *path);

/* The size of the built-in rules' database compiled into the binary at
 * build time, 0 when the rules are compiled on first use (kb_prebuilt.c). */
size_t nd_kb_prebuilt_size(void);

#endif
