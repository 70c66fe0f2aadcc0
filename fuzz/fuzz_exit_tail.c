/* Fuzz target for the exit tail (monitor/exit_tail.c): the job's output, cut
 * into lines at '\n', any bytes; never a crash, and what is kept is always
 * a terminated, printable string. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "monitor/exit_tail.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void nd_check(const char *s)
{
    size_t n = strnlen(s, ND_EXIT_TAIL_LINE);
    if (n >= ND_EXIT_TAIL_LINE)
        __builtin_trap();
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] == 0x7f)
            __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct nd_exit_tail t;
    memset(&t, 0, sizeof t);
    const char *p = (const char *)data, *end = p + size;
    long lineno = 0;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        size_t len = eol ? (size_t)(eol - p) : (size_t)(end - p);
        nd_exit_tail_feed(&t, p, len, ++lineno);
        (void)nd_exit_line_is_error(p, len);
        p += len + 1;
    }
    nd_check(t.last_error);
    nd_check(t.last_line);
    /* Tracebacks across blocks: the input cut in two, on alternating streams. */
    struct nd_exit_tail u;
    memset(&u, 0, sizeof u);
    size_t half = size / 2;
    nd_exit_tail_traceback_block(&u, 2, (const char *)data, half, 1);
    nd_exit_tail_traceback_block(&u, 1 + (int)(size & 1), (const char *)data + half, size - half, 1);
    nd_exit_tail_traceback_block(&u, 7, (const char *)data, size, 1);
    nd_check(u.traceback_error);
    return 0;
}
