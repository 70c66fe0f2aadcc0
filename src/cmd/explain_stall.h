/* explain: a log that stops in a step (communication set-up, a wait) is a
 * stall only when the job stopped there too (explain_stall.c). */
#ifndef ND_CMD_EXPLAIN_STALL_H
#define ND_CMD_EXPLAIN_STALL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/finding.h"

/* The last timestamped line of each input (files, and directories walked
 * as explain walks them, links followed only with follow) against each
 * "stalled" finding's last line: when another log of the job goes on for
 * more than a minute after it, the job did not stop there, and the finding
 * becomes a note that says where the job went on. */
void nd_explain_stall_check(struct nd_findings *fs, char *const *paths, size_t npaths, bool follow);

/* The timestamp of the last line of buf that carries one; false when none. Pure. */
bool nd_explain_last_timestamp(const char *buf, size_t len, double *t);

#endif
