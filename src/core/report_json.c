/* JSON output (docs/json.md): the envelope (core/json_envelope.h), the
 * findings, then each command's keys. */
#include <errno.h>
#include <stdio.h>

#include "core/json_util.h"
#include "core/redact.h"
#include "core/report.h"

json_t *nd_finding_to_json(const struct nd_finding *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", nd_json_str(f->id));
    json_object_set_new(o, "category", nd_json_str(f->category));
    json_object_set_new(o, "severity", json_string(nd_severity_name(f->severity)));
    json_object_set_new(o, "title", nd_json_str(f->title));
    json_object_set_new(o, "cause", f->cause ? nd_json_str(f->cause) : json_null());
    json_t *fix = json_array();
    for (size_t i = 0; i < f->nfix; i++)
        json_array_append_new(fix, nd_json_str(f->fix[i]));
    json_object_set_new(o, "fix", fix);
    json_t *ev = json_array();
    for (size_t i = 0; i < f->nevidence; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "text", nd_json_str(f->evidence[i].text));
        if (f->evidence[i].file)
            json_object_set_new(e, "file", nd_json_str(f->evidence[i].file));
        if (f->evidence[i].line > 0)
            json_object_set_new(e, "line", json_integer(f->evidence[i].line));
        json_array_append_new(ev, e);
    }
    json_object_set_new(o, "evidence", ev);
    json_object_set_new(o, "confidence", json_string(nd_confidence_name(f->confidence)));
    if (f->count > 0)
        json_object_set_new(o, "count", json_integer(f->count));
    if (f->first_file) {
        json_t *first = json_object();
        json_object_set_new(first, "file", nd_json_str(f->first_file));
        json_object_set_new(first, "line", json_integer(f->first_line));
        json_object_set_new(o, "first", first);
    }
    if (f->rank >= 0)
        json_object_set_new(o, "rank", json_integer(f->rank));
    if (f->at_s >= 0)
        json_object_set_new(o, "at_s", json_real(f->at_s));
    return o;
}

json_t *nd_findings_to_json(const struct nd_findings *list)
{
    json_t *a = json_array();
    for (size_t i = 0; i < list->n; i++)
        json_array_append_new(a, nd_finding_to_json(list->v[i]));
    return a;
}

json_t *nd_report_to_json(const struct nd_report *rep)
{
    json_t *o = nd_json_envelope(rep->command);
    json_object_set_new(o, "findings", nd_findings_to_json(&rep->findings));
    if (rep->facts)
        json_object_set(o, "facts", rep->facts);
    if (rep->extra)
        json_object_update(o, rep->extra);
    /* The safety net: whatever a probe copied into a fact or an evidence
     * line, no secret leaves through JSON. */
    nd_redact_json(o);
    return o;
}

int nd_report_print_json(const struct nd_report *rep, FILE *fp)
{
    json_t *o = nd_report_to_json(rep);
    /* Strings were made with nd_json_str(), so invalid UTF-8 from logs was
     * already replaced and nothing is silently dropped here. */
    int rc = nd_json_dumpf_safe(o, fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (rc != 0 || fputc('\n', fp) == EOF)
        return -EIO;
    return 0;
}
