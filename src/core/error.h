/* The error record every fallible function fills: a negative errno-style
 * code plus one line a user can read. No exit() below cmd/. */
#ifndef ND_CORE_ERROR_H
#define ND_CORE_ERROR_H

struct nd_error {
    int code;      /* negative errno-style code, 0 when unset */
    char msg[512]; /* one line, no trailing newline */
};

/* Sets err (if non-NULL) and returns code, so callers can `return nd_error_set(...)`. */
int nd_error_set(struct nd_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void nd_error_clear(struct nd_error *err);

#endif
