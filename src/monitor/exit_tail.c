/* The last error line of a job's output (see exit_tail.h): what a failed
 * job's summary names when no detector or rule said more. */
#include "monitor/exit_tail.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

/* "Name: text" or "pkg.mod.NameError" where the name ends in Error,
 * Exception, Exit or Interrupt: how Python prints the exception of a
 * traceback. */
static bool nd_python_exception(const char *line, size_t len)
{
    size_t i = 0;
    if (i >= len || !(isalpha((unsigned char)line[i]) || line[i] == '_'))
        return false;
    while (i < len && (isalnum((unsigned char)line[i]) || line[i] == '_' || line[i] == '.'))
        i++;
    if (i < len && line[i] != ':')
        return false;
    static const char *const ends[] = {"Error", "Exception", "Exit", "Interrupt", "Failure"};
    for (size_t k = 0; k < sizeof ends / sizeof *ends; k++) {
        size_t n = strlen(ends[k]);
        if (i >= n && memcmp(line + i - n, ends[k], n) == 0)
            return true;
    }
    return false;
}

static bool nd_has_word(const char *line, size_t len, const char *word)
{
    size_t n = strlen(word);
    for (size_t i = 0; i + n <= len; i++)
        if (strncasecmp(line + i, word, n) == 0)
            return true;
    return false;
}

bool nd_exit_line_is_error(const char *line, size_t len)
{
    while (len && (line[len - 1] == '\r' || line[len - 1] == '\n'))
        len--;
    if (nd_python_exception(line, len))
        return true;
    static const char *const words[] = {
        "error:", "error ", "fatal", "exception", "no such file", "can't open file", "cannot open",
        "command not found", "permission denied", "killed", "segmentation fault", "aborted", "traceback",
    };
    for (size_t k = 0; k < sizeof words / sizeof *words; k++)
        if (nd_has_word(line, len, words[k]))
            return true;
    return false;
}

/* A printable copy: control bytes become '?', the tail of a long line is cut. */
static void nd_keep(char *dst, const char *line, size_t len)
{
    while (len && (line[len - 1] == '\r' || line[len - 1] == '\n'))
        len--;
    if (len >= ND_EXIT_TAIL_LINE)
        len = ND_EXIT_TAIL_LINE - 1;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)line[i];
        dst[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    dst[len] = '\0';
}

void nd_exit_tail_feed(struct nd_exit_tail *t, const char *line, size_t len, long lineno)
{
    size_t i = 0;
    while (i < len && isspace((unsigned char)line[i]))
        i++;
    if (i == len)
        return;
    nd_keep(t->last_line, line, len);
    /* "Traceback (most recent call last):" opens a block whose last line is the exception. */
    static const char tb[] = "Traceback (most recent";
    bool traceback = len - i >= sizeof tb - 1 && memcmp(line + i, tb, sizeof tb - 1) == 0;
    if (!traceback && nd_exit_line_is_error(line + i, len - i)) {
        nd_keep(t->last_error, line + i, len - i);
        t->last_error_line = lineno;
    }
}
