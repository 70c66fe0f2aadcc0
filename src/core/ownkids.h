/* The children npu-doctor forks for itself (probes, device sampling
 * sessions): as the job's child subreaper it also gets the job's orphans
 * as children, and this list tells the two apart. */
#ifndef ND_CORE_OWNKIDS_H
#define ND_CORE_OWNKIDS_H

#include <stdbool.h>
#include <sys/types.h>

/* Notes pid (a child just forked, the leader of its own group) as ours;
 * safe from any thread. At most ND_OWNKIDS_MAX at once: past that a
 * helper counts as the job's and is stopped with it. */
#define ND_OWNKIDS_MAX 64
void nd_ownkids_add(pid_t pid);
/* Forgets pid once it is reaped (its number may be reused by anyone). */
void nd_ownkids_del(pid_t pid);
/* True while pid is one of ours. */
bool nd_ownkids_has(pid_t pid);

#endif
