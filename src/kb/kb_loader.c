/* Background load of the knowledge base for `run` (see kb_loader.h). One
 * thread, one result, handed over through an atomic flag. */
#include "kb/kb_loader.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/error.h"
#include "core/strbuf.h"
#include "kb/kb.h"

struct nd_kb_loader {
    pthread_t thread;
    atomic_bool finished;
    bool hurried;
    bool joined;
    bool collected;
    struct nd_kb *kb;
    struct nd_error err;
};

static void *nd_kb_loader_main(void *arg)
{
    struct nd_kb_loader *l = arg;
    /* Idle priority: when the job floods its output, the passthrough and
     * the job come first, and on a machine with few cores even nice 19 would
     * take a share of one from them; early lines wait in the monitor
     * meanwhile. Where SCHED_IDLE is refused, the lowest nice value. */
    struct sched_param sp = {.sched_priority = 0};
    if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp) != 0)
        setpriority(PRIO_PROCESS, (id_t)gettid(), 19);
    if (nd_kb_load(&l->kb, NULL, 0, &l->err) < 0)
        l->kb = NULL;
    atomic_store(&l->finished, true);
    return NULL;
}

struct nd_kb_loader *nd_kb_loader_start(void)
{
    struct nd_kb_loader *l = nd_xcalloc(1, sizeof *l);
    atomic_init(&l->finished, false);
    if (pthread_create(&l->thread, NULL, nd_kb_loader_main, l) != 0) {
        free(l);
        return NULL;
    }
    return l;
}

void nd_kb_loader_hurry(struct nd_kb_loader *l)
{
    if (l->hurried || l->joined || atomic_load(&l->finished))
        return;
    l->hurried = true;
    struct sched_param sp = {.sched_priority = 0};
    /* (Where SCHED_IDLE was refused, nice 19 stays: another thread's nice
     * value is set by its id, which may belong to someone else by now.) */
    pthread_setschedparam(l->thread, SCHED_OTHER, &sp);
}

bool nd_kb_loader_done(struct nd_kb_loader *l, bool wait, struct nd_kb **kb, char *why, unsigned long why_size)
{
    if (!wait && !atomic_load(&l->finished))
        return false;
    if (wait)
        nd_kb_loader_hurry(l); /* someone waits for it now */
    if (!l->joined) {
        pthread_join(l->thread, NULL);
        l->joined = true;
    }
    *kb = l->collected ? NULL : l->kb;
    l->collected = true;
    if (why && why_size)
        snprintf(why, why_size, "%s", l->kb ? "" : l->err.msg);
    return true;
}

void nd_kb_loader_free(struct nd_kb_loader *l)
{
    if (!l)
        return;
    if (!l->joined)
        pthread_join(l->thread, NULL);
    if (!l->collected)
        nd_kb_free(l->kb);
    free(l);
}
