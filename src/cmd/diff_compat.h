/* diff's compatibility annotation: each snapshot's versions judged against
 * the tables under data/, so that diff names a node whose versions are an
 * incompatible pair, not only that they differ. */
#ifndef ND_CMD_DIFF_COMPAT_H
#define ND_CMD_DIFF_COMPAT_H

#include <jansson.h>

#include "diff/diff.h"
#include "core/finding.h"

/* The versions of one snapshot (torch, torch_npu, CUDA, Python, CANN, the NPU
 * and NVIDIA drivers, the CUDA toolkit) judged by nd_compat_judge_set; the
 * warnings and errors go to out, info findings are dropped. */
void nd_diff_compat_judge(const json_t *snapshot, struct nd_findings *out);
/* Merges the per-file findings (per_file[i] for file i of d) into out: one
 * finding per incompatible pair, titled with the nodes that have it
 * ("node-07: NPU driver ... is older than CANN ... supports"), with each
 * file as evidence. */
void nd_diff_compat_merge(const struct nd_diff *d, const struct nd_findings *per_file, struct nd_findings *out);

#endif
