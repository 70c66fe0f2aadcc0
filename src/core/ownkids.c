/* The list of our own helper children (see ownkids.h): a fixed table of
 * atomics, so probes forked from worker threads need no lock. */
#include "core/ownkids.h"

#include <stdatomic.h>

static _Atomic int nd_kids[ND_OWNKIDS_MAX];

void nd_ownkids_add(pid_t pid)
{
    if (pid <= 0)
        return;
    for (int i = 0; i < ND_OWNKIDS_MAX; i++) {
        int zero = 0;
        if (atomic_compare_exchange_strong(&nd_kids[i], &zero, (int)pid))
            return;
    }
}

void nd_ownkids_del(pid_t pid)
{
    if (pid <= 0)
        return;
    for (int i = 0; i < ND_OWNKIDS_MAX; i++) {
        int want = (int)pid;
        if (atomic_compare_exchange_strong(&nd_kids[i], &want, 0))
            return;
    }
}

bool nd_ownkids_has(pid_t pid)
{
    if (pid <= 0)
        return false;
    for (int i = 0; i < ND_OWNKIDS_MAX; i++)
        if (atomic_load(&nd_kids[i]) == (int)pid)
            return true;
    return false;
}
