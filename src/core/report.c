/* Building a report: check lines, facts and extra JSON keys. */
#include "core/report.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/strbuf.h"

void nd_report_init(struct nd_report *rep, const char *command)
{
    memset(rep, 0, sizeof *rep);
    rep->command = command;
}

void nd_report_release(struct nd_report *rep)
{
    nd_findings_release(&rep->findings);
    for (size_t i = 0; i < rep->nlines; i++) {
        free(rep->lines[i].area);
        free(rep->lines[i].text);
    }
    free(rep->lines);
    json_decref(rep->facts);
    json_decref(rep->extra);
    memset(rep, 0, sizeof *rep);
}

void nd_report_line(struct nd_report *rep, const char *area, enum nd_check_status status, const char *fmt, ...)
{
    struct nd_strbuf sb = ND_STRBUF_INIT;
    va_list ap;
    /* Whole: a line cut to a fixed size could cut a secret in its middle
     * and leave redaction, which runs when the line is printed, a part of
     * it that no longer looks like one. */
    va_start(ap, fmt);
    nd_strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    rep->lines = nd_xrealloc(rep->lines, (rep->nlines + 1) * sizeof *rep->lines);
    rep->lines[rep->nlines].area = nd_xstrdup(area);
    rep->lines[rep->nlines].status = status;
    rep->lines[rep->nlines].text = nd_strbuf_detach(&sb, NULL);
    rep->nlines++;
}

json_t *nd_report_facts(struct nd_report *rep, const char *group)
{
    if (!rep->facts)
        rep->facts = json_object();
    json_t *g = json_object_get(rep->facts, group);
    if (!g) {
        g = json_object();
        json_object_set_new(rep->facts, group, g);
    }
    return g;
}

void nd_report_set_extra(struct nd_report *rep, const char *key, json_t *value)
{
    if (!rep->extra)
        rep->extra = json_object();
    json_object_set_new(rep->extra, key, value);
}

bool nd_term_wants_color(FILE *fp)
{
    const char *no = getenv("NO_COLOR");
    if (no && *no)
        return false;
    /* A dumb terminal (Emacs shell, some CI logs) shows escapes as text. */
    const char *term = getenv("TERM");
    if (term && strcmp(term, "dumb") == 0)
        return false;
    return isatty(fileno(fp)) == 1;
}
