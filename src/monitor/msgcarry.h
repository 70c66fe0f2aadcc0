/* The last message of an output block, carried to the next block of the
 * same stream: a job whose stderr is line-buffered (Python's) writes a
 * traceback one line per write, so "RuntimeError: NPU out of" and its
 * wrapped "    memory. Tried to allocate" reach `run` in different reads, yet
 * the knowledge base reads them as one logical line only within a block.
 * The block's last line, with the lines before it that continue it, waits
 * here for the lines that continue it; a short settle time, or the end,
 * releases it. */
#ifndef ND_MONITOR_MSGCARRY_H
#define ND_MONITOR_MSGCARRY_H

#include <stdbool.h>
#include <stddef.h>

#define ND_MSGCARRY_MAX 4096      /* a longer group is matched as it is */
#define ND_MSGCARRY_SETTLE_S 0.15 /* how long a carried group waits */

struct nd_msgcarry {
    char buf[ND_MSGCARRY_MAX];
    size_t len; /* 0: nothing carried */
    long first_lineno;
    double at_s;  /* when its first line arrived (the job's clock) */
    double since; /* monotonic time it was last extended */
    bool late, noted;
};

/* Where the last group of the whole lines data[0..len) starts: its last
 * line and the lines before it that continue one another
 * (nd_kb_line_continues). len when the group would not fit the carry. */
size_t nd_msgcarry_tail_start(const char *data, size_t len);

/* Bytes at the start of data that continue the carried group: its
 * continuation lines, up to the first line that starts a new message. */
size_t nd_msgcarry_lead(const struct nd_msgcarry *c, const char *data, size_t len);

/* Carries data (replacing what was carried). */
void nd_msgcarry_set(struct nd_msgcarry *c, const char *data, size_t len, long first_lineno, double at_s, bool late,
                     bool noted, double now);
/* Appends the continuation lines data to the carried group; false (and
 * nothing appended) when they do not fit. */
bool nd_msgcarry_append(struct nd_msgcarry *c, const char *data, size_t len, double now);

#endif
