/* Output held for matching without a copy: tee(2) duplicates what the job
 * wrote into its pipe into pipes of our own, so the bytes stay in the pages
 * the job's writes filled (no page of ours to allocate and clear per 4 KiB,
 * which under a flood costs more than the whole passthrough). One FIFO of
 * bytes over a few large pipes; read back in order when matching catches up.
 * Linux only; where tee is refused (a pty, an old kernel) nothing is held
 * here and the caller copies. */
#ifndef ND_MONITOR_HOLDPIPE_H
#define ND_MONITOR_HOLDPIPE_H

#include <stddef.h>

struct nd_holdpipe;

/* max_bytes: the most held at once. */
struct nd_holdpipe *nd_holdpipe_new(size_t max_bytes);
void nd_holdpipe_free(struct nd_holdpipe *h);

/* Duplicates up to max bytes waiting in the pipe fd, without consuming
 * them; returns how many (0: none held, the caller reads as usual). */
size_t nd_holdpipe_tee(struct nd_holdpipe *h, int fd, size_t max);
/* The next n held bytes, oldest first, into dst (NULL: discarded). Returns
 * 0, or -errno when they cannot be read back (then they are gone). */
int nd_holdpipe_read(struct nd_holdpipe *h, char *dst, size_t n);
/* Bytes held now. */
size_t nd_holdpipe_bytes(const struct nd_holdpipe *h);

#endif
