/* explain's version judgement: versions that the logs print (found in the
 * evidence of every matched rule, the versions.* rules included) are judged
 * against the compatibility tables, as check judges an installed set. */
#ifndef ND_CMD_EXPLAIN_COMPAT_H
#define ND_CMD_EXPLAIN_COMPAT_H

#include "core/finding.h"

/* Scans the evidence of every finding in seen (explain's findings with info
 * and wrappers kept) and adds to out, before its first finding of a lower
 * rank, one compat.* finding per incompatible pair, with the log lines that
 * printed the versions as evidence. Returns the number added. */
int nd_explain_compat(const struct nd_findings *seen, struct nd_findings *out);

#endif
