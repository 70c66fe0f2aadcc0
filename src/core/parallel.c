/* nd_parallel_for: items handed out in small batches from one atomic
 * counter, so a slow item (a process with thousands of fds) does not leave
 * the other threads idle. */
#include "core/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

/* Below this many items per thread, starting a thread costs more than it saves. */
#define ND_PARALLEL_MIN_PER_THREAD 64
#define ND_PARALLEL_BATCH 16
#define ND_PARALLEL_MAX_THREADS 16

struct nd_parallel {
    size_t n;
    atomic_size_t next;
    void (*fn)(void *ctx, size_t i);
    void *ctx;
};

static void *nd_parallel_worker(void *arg)
{
    struct nd_parallel *p = arg;
    for (;;) {
        size_t start = atomic_fetch_add(&p->next, ND_PARALLEL_BATCH);
        if (start >= p->n)
            break;
        size_t end = start + ND_PARALLEL_BATCH < p->n ? start + ND_PARALLEL_BATCH : p->n;
        for (size_t i = start; i < end; i++)
            p->fn(p->ctx, i);
    }
    return NULL;
}

void nd_parallel_for(size_t n, unsigned max_threads, void (*fn)(void *ctx, size_t i), void *ctx)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t want = n / ND_PARALLEL_MIN_PER_THREAD;
    if (cpus > 0 && want > (size_t)cpus)
        want = (size_t)cpus;
    if (want > max_threads)
        want = max_threads;
    if (want > ND_PARALLEL_MAX_THREADS)
        want = ND_PARALLEL_MAX_THREADS;
    struct nd_parallel p = {n, 0, fn, ctx};
    pthread_t threads[ND_PARALLEL_MAX_THREADS];
    size_t started = 0;
    for (size_t t = 1; t < want; t++) {
        if (pthread_create(&threads[started], NULL, nd_parallel_worker, &p) != 0)
            break;
        started++;
    }
    nd_parallel_worker(&p);
    for (size_t t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
}
