/* The report a command builds: per-area check lines (for text), findings and
 * grouped facts (for JSON). Reporters in report_text.c and report_json.c turn
 * it into output; nothing else prints. */
#ifndef ND_CORE_REPORT_H
#define ND_CORE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "core/finding.h"
#include "core/json_envelope.h"

enum nd_check_status { ND_CHECK_OK, ND_CHECK_INFO, ND_CHECK_WARN, ND_CHECK_FAIL };

struct nd_check_line {
    char *area; /* "Host", "Ascend", "Environment", ... */
    enum nd_check_status status;
    char *text;
};

struct nd_report {
    const char *command; /* "check", "ps", ... (static string) */
    struct nd_findings findings;
    struct nd_check_line *lines;
    size_t nlines;
    json_t *facts; /* object of groups; created on first use */
    json_t *extra; /* object merged into the JSON top level */
};

void nd_report_init(struct nd_report *rep, const char *command);
void nd_report_release(struct nd_report *rep);
void nd_report_line(struct nd_report *rep, const char *area, enum nd_check_status status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The facts object for one group ("host", "ascend", ...), created if absent.
 * Borrowed reference. */
json_t *nd_report_facts(struct nd_report *rep, const char *group);
/* Sets a top-level JSON key (steals the reference to value). */
void nd_report_set_extra(struct nd_report *rep, const char *key, json_t *value);

struct nd_text_options {
    bool color;
    bool quiet;   /* problems only: no ✓ lines, no facts */
    bool verbose; /* include info-severity findings in full */
};

/* True when colour is wanted on this stream: a TTY and NO_COLOR unset. */
bool nd_term_wants_color(FILE *fp);

void nd_report_print_text(const struct nd_report *rep, FILE *fp, const struct nd_text_options *opt);
/* One finding as a block: title, evidence, cause, fix. Used by run's live alerts too. */
void nd_finding_print_text(const struct nd_finding *f, FILE *fp, bool color, const char *prefix);
/* One line of text with secrets redacted, newline added: the short notes
 * that go with a table ("3 of 412 processes shown"). */
void nd_report_note(FILE *fp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* explain's view, most important first: the root cause (an error) or top
 * finding in full with where it began, then one line per other finding
 * (every one in full with all), then the summary over scope, for example
 * "8 inputs (1620 lines)". */
void nd_findings_print_ranked(const struct nd_findings *fs, bool all, const char *scope, FILE *fp);
/* "2 errors, 1 warning" style summary line, no newline. */
void nd_findings_summary(const struct nd_findings *list, char *buf, size_t size);

/* check --report-issue (report_issue.c): one fenced, redacted Markdown block
 * of the report's facts and findings, ready to paste into an issue. */
void nd_report_print_issue(const struct nd_report *rep, FILE *fp, const char *version);

json_t *nd_finding_to_json(const struct nd_finding *f);
json_t *nd_findings_to_json(const struct nd_findings *list);
/* The envelope (core/json_envelope.h), then {"findings": [...], "facts": {...}, extra...} */
json_t *nd_report_to_json(const struct nd_report *rep);
/* Prints nd_report_to_json, indented, with a trailing newline. Returns 0 or -EIO. */
int nd_report_print_json(const struct nd_report *rep, FILE *fp);

#endif
