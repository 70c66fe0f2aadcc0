/* Loads the knowledge base in a background thread, so `run` starts the job
 * and passes its output through at once while the rule database compiles
 * (tens of milliseconds of CPU, taken only from idle cores at first). The
 * monitor holds early lines until it is ready. */
#ifndef ND_KB_KB_LOADER_H
#define ND_KB_KB_LOADER_H

#include <stdbool.h>

struct nd_kb;
struct nd_kb_loader;

/* Starts loading the compiled-in rules (and /etc/npu-doctor/rules.d).
 * Returns NULL when no thread could be started (load synchronously then). */
struct nd_kb_loader *nd_kb_loader_start(void);
/* The load runs at idle priority (a flood at the start is passed through
 * first); from now on at normal priority. */
void nd_kb_loader_hurry(struct nd_kb_loader *l);
/* True once the load has finished (waits for it when wait is set); *kb then
 * gets the knowledge base (the caller owns it) or NULL when it failed, with
 * the reason in why. */
bool nd_kb_loader_done(struct nd_kb_loader *l, bool wait, struct nd_kb **kb, char *why, unsigned long why_size);
/* Joins the thread; frees a knowledge base nobody collected. */
void nd_kb_loader_free(struct nd_kb_loader *l);

#endif
