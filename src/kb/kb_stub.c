/* Temporary stand-ins until the knowledge base lands (issue 5). */
#include <errno.h>
#include <stdlib.h>

#include "kb/kb.h"

struct nd_kb {
    int unused;
};

int nd_kb_load(struct nd_kb **kb, const char *const *extra_dirs, size_t nextra, struct nd_error *err)
{
    (void)extra_dirs;
    (void)nextra;
    (void)err;
    *kb = calloc(1, sizeof **kb);
    return *kb ? 0 : -ENOMEM;
}

void nd_kb_free(struct nd_kb *kb)
{
    free(kb);
}

int nd_kb_explain_buffer(struct nd_kb *kb, const char *name, const char *buf, size_t len,
                         struct nd_findings *out, struct nd_error *err)
{
    (void)kb; (void)name; (void)buf; (void)len; (void)out; (void)err;
    return 0;
}

int nd_kb_match_line(struct nd_kb *kb, const char *line, size_t len, const char *source, long lineno,
                     struct nd_findings *out)
{
    (void)kb; (void)line; (void)len; (void)source; (void)lineno; (void)out;
    return 0;
}
