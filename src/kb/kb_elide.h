/* Repeated lines left out of the scan (kb_elide.c): private to src/kb/
 * (kb_scan.c and the unit tests). */
#ifndef ND_KB_KB_ELIDE_H
#define ND_KB_KB_ELIDE_H

#include <stdbool.h>
#include <stddef.h>

struct nd_kb;
struct nd_kb_elide;

struct nd_kb_elide *nd_kb_elide_new(void);
void nd_kb_elide_free(struct nd_kb_elide *e);

/* Receives a match in the coordinates of the text given to
 * nd_kb_elide_scan; returns non-zero to stop (the caller's buffer is full). */
typedef int (*nd_kb_elide_add_fn)(void *arg, unsigned id, unsigned long long to);

enum nd_kb_elide_result {
    ND_KB_ELIDE_NONE = 0, /* nothing done: scan the text as usual */
    ND_KB_ELIDE_DONE,     /* every match of the text was passed to add */
    ND_KB_ELIDE_STOPPED,  /* add stopped it: drop what it got, scan as usual */
};

/* Matches text[0..len) ('\n'-separated lines, as the database would see
 * it) with the lines known to repeat left out: their matches are replayed
 * from the first time they were seen, and the patterns that can cross a
 * line end are scanned over the whole text. Only worth it while the input
 * is match-heavy (nd_kb_elide_learn says so). add receives each match in
 * end order per source (the scan, then the cross-line scan, then the
 * replays, these sorted by end, then pattern): the caller sorts. */
enum nd_kb_elide_result nd_kb_elide_scan(struct nd_kb_elide *e, struct nd_kb *kb, const char *text, size_t len,
                                         nd_kb_elide_add_fn add, void *arg);

/* How many of the matches passed to add by the last nd_kb_elide_scan were
 * replays (they come last). */
size_t nd_kb_elide_replayed(const struct nd_kb_elide *e);

/* Lines left out of the scans so far. */
unsigned long long nd_kb_elide_left_out(const struct nd_kb_elide *e);

/* After a chunk: the byte b of text matched (call for each match found by a
 * scan, not for replays). Lines that match again and again become known. */
void nd_kb_elide_learn(struct nd_kb_elide *e, struct nd_kb *kb, const char *text, size_t len, size_t b);
/* Called once per chunk after its matches were learnt: decides whether the
 * next chunk is worth the try. */
void nd_kb_elide_chunk_done(struct nd_kb_elide *e);

/* Turns leaving lines out on or off for one scan (on by default), so that
 * the tests compare the two. */
struct nd_kb_scan;
void nd_kb_scan_set_elide(struct nd_kb_scan *s, bool on);
/* Lines the scan left out and replayed (kb_scan.c). */
unsigned long long nd_kb_scan_elided(const struct nd_kb_scan *s);

#endif
