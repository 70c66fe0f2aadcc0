/* The output `run` has passed through but not matched yet: while the
 * knowledge base loads, and whenever matching falls behind a flood. A FIFO of
 * blocks of whole lines, held in memory up to a bound (the job's own pipe
 * pages where tee can keep them, else an area of ours) and past it in an
 * unlinked temporary file, so a long flood costs disk rather than memory and
 * no line goes unmatched. */
#ifndef ND_MONITOR_BACKLOG_H
#define ND_MONITOR_BACKLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nd_backlog;

struct nd_backlog_block {
    int stream;        /* 1 stdout, 2 stderr */
    long first_lineno; /* line number of the block's first line */
    double at_s;       /* when the block arrived (monitor clock) */
    unsigned flags;    /* the caller's, as pushed */
    const char *data;  /* valid until the next push or pop */
    size_t len;
};

/* mem_limit: bytes held in memory before the file is used (address space
 * for all of it is reserved at the first use; pages only as they fill). */
struct nd_backlog *nd_backlog_new(size_t mem_limit);
/* A memory bound for a backlog: most, or a quarter of the memory available
 * now when that is less (never under a few MiB). */
size_t nd_backlog_mem_bound(size_t most);
void nd_backlog_free(struct nd_backlog *b);

/* Where the next block may be written in place: up to *cap (<= want) bytes
 * at the address returned, or NULL (and *cap 0) when memory is full. Writing
 * there changes nothing held; a push of bytes from there keeps them where
 * they are instead of copying them. Valid until the next push. */
char *nd_backlog_tail(struct nd_backlog *b, size_t want, size_t *cap);
/* Appends the block (a copy, unless it lies in the tail given above).
 * Returns 0, or -errno when neither memory nor the file can take it: the
 * block is then dropped and its bytes counted. */
int nd_backlog_push(struct nd_backlog *b, int stream, long first_lineno, double at_s, unsigned flags, const char *data,
                    size_t len);
/* Holds up to max bytes waiting in the pipe fd without reading them (see
 * holdpipe.h); returns how many, 0 when none. Each call that returns n > 0
 * must be followed by nd_backlog_push_held with raw = n. */
size_t nd_backlog_hold(struct nd_backlog *b, int fd, size_t max);
/* Appends the block data (len bytes: prefix_len bytes from earlier reads,
 * copied now, then bytes of the raw ones just held; len may be 0 when the
 * raw bytes end no line). */
int nd_backlog_push_held(struct nd_backlog *b, int stream, long first_lineno, double at_s, unsigned flags,
                         const char *data, size_t len, size_t prefix_len, size_t raw);
/* The oldest block, false when empty (or when its bytes cannot be read back,
 * in which case it is dropped and counted). */
bool nd_backlog_peek(struct nd_backlog *b, struct nd_backlog_block *out);
void nd_backlog_pop(struct nd_backlog *b);
bool nd_backlog_empty(const struct nd_backlog *b);

/* Bytes held now, most bytes ever held, bytes that went to the file, and
 * bytes dropped (no memory or disk left). */
uint64_t nd_backlog_bytes(const struct nd_backlog *b);
uint64_t nd_backlog_peak_bytes(const struct nd_backlog *b);
uint64_t nd_backlog_spilled_bytes(const struct nd_backlog *b);
uint64_t nd_backlog_dropped_bytes(const struct nd_backlog *b);

#endif
