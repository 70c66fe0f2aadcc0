/* The knowledge base: rules (INI files under rules/) compiled into one
 * vectorscan database. Used by `explain` on log files, by `run` on live job
 * output, and by `check` on probe errors. */
#ifndef ND_KB_KB_H
#define ND_KB_KB_H

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
int nd_kb_explain_buffer(struct nd_kb *kb, const char *name, const char *buf, size_t len,
                         struct nd_findings *out, struct nd_error *err);

/* Live use (run): matches one output line (no newline) and appends one
 * finding per rule that matches, evidence = the line with source:lineno.
 * Returns the number of findings appended. */
int nd_kb_match_line(struct nd_kb *kb, const char *line, size_t len, const char *source, long lineno,
                     struct nd_findings *out);

#endif
