/* The last frames of the current Python traceback, kept for the fallback
 * classifier: a failure often names itself in the frames just above its
 * exception line (a torch_npu allocator, a collective, a .to("npu:0")), or
 * a log is cut after the frames and has no exception line at all. */
#ifndef ND_KB_FRAMES_H
#define ND_KB_FRAMES_H

#include <stddef.h>

#define ND_KB_FRAMES 4      /* frames kept: the innermost ones say most */
#define ND_KB_FRAME_MAX 240 /* bytes kept of one frame's words */

/* A ring of the last ND_KB_FRAMES frames, each reduced to its words: the
 * end of its file path, its function, its source line. */
struct nd_kb_frames {
    char *v[ND_KB_FRAMES];
    size_t n, head; /* head: the oldest when the ring is full */
};

/* Reads `File "PATH", line N, in FUNC` (line, n bytes, no newline) and, when
 * next (nn bytes) is indented, the source line it shows. Returns 0 and adds
 * the frame, or -1 when line is no frame line (nothing is added). */
int nd_kb_frames_push(struct nd_kb_frames *r, const char *line, size_t n, const char *next, size_t nn);
/* The frames, oldest first, one a line; NULL when there are none. */
char *nd_kb_frames_join(const struct nd_kb_frames *r);
void nd_kb_frames_clear(struct nd_kb_frames *r);

#endif
