/* Bounded formatting into fixed path buffers for the probes. A path that does
 * not fit is cut and reported (return < 0), never overflowed; going through
 * a function keeps -Wformat-truncation quiet where truncation is handled. */
#ifndef ND_PROBE_PATHFMT_H
#define ND_PROBE_PATHFMT_H

#include <stddef.h>

/* snprintf into out; returns the length, or -ENAMETOOLONG when cut. */
int nd_pfmt(char *out, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
