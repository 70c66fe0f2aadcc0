/* The end of a job's output that its exit verdict needs: the last line
 * that reads like an error or an exception, and the very last line. Fed
 * every output line by run (watch sees no output). */
#ifndef ND_MONITOR_EXIT_TAIL_H
#define ND_MONITOR_EXIT_TAIL_H

#include <stdbool.h>
#include <stddef.h>

#define ND_EXIT_TAIL_LINE 400

struct nd_exit_tail {
    char last_error[ND_EXIT_TAIL_LINE]; /* printable, not yet redacted */
    long last_error_line;
    char last_line[ND_EXIT_TAIL_LINE];
    /* The exception line of the last Python traceback printed ("" none):
     * what a job that exits 0 anyway hid. */
    char traceback_error[ND_EXIT_TAIL_LINE];
    long traceback_line;
    bool tb_open[3]; /* per stream: a traceback's header seen, its exception line not yet */
};

/* True when the line reads like an error: a Python exception line
 * ("ValueError: ...", "torch.OutOfMemoryError: ..."), "error:", "fatal",
 * "No such file", "can't open file", "command not found"... Pure. */
bool nd_exit_line_is_error(const char *line, size_t len);
void nd_exit_tail_feed(struct nd_exit_tail *t, const char *line, size_t len, long lineno);
/* The same for a block of whole lines ('\n'-separated), the first numbered
 * first_lineno: one scan of the block, so a flood costs little. */
void nd_exit_tail_feed_block(struct nd_exit_tail *t, const char *data, size_t len, long first_lineno);
/* Follows Python tracebacks through a block of one stream (1 stdout, 2
 * stderr; blocks in output order): the exception line that ends the last
 * one goes to traceback_error, also when it comes blocks later. */
void nd_exit_tail_traceback_block(struct nd_exit_tail *t, int stream, const char *data, size_t len, long first_lineno);

#endif
