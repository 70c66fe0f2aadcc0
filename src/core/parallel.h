/* A parallel for-loop over independent items, for scans that are mostly
 * system calls (every process's /proc entries): the kernel work spreads over
 * the CPUs. No fork may happen while it runs (see nd_assert_fork_safe); it
 * returns only after every thread has ended. */
#ifndef ND_CORE_PARALLEL_H
#define ND_CORE_PARALLEL_H

#include <stddef.h>

/* Calls fn(ctx, i) once for every i in [0, n), from up to max_threads
 * threads (the calling one included), fewer when there are few CPUs or
 * few items; in the calling thread alone when threads cannot be started.
 * fn must only touch what item i owns. */
void nd_parallel_for(size_t n, unsigned max_threads, void (*fn)(void *ctx, size_t i), void *ctx);

#endif
