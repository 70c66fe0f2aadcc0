/* Never silent on a failure: when a log ends in an exception or says ERROR
 * and no rule explains that line, explain turns it into a low-confidence
 * finding. Its category comes from a keyword classifier (kb_classify.c)
 * whose vocabulary is rule data ([vocab.CATEGORY] sections), and its fix
 * says what to search for: the exception type and message with the paths,
 * numbers and addresses that differ between runs taken out. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/redact.h"
#include "core/strbuf.h"
#include "kb/kb_internal.h"

/* The message as a search query: no paths, numbers, hex or quoted names
 * that are particular to this run. */
static char *nd_kb_search_text(const char *line)
{
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    const char *p = line;
    /* Drop a leading log header up to the exception ("[ERROR] 2024-... "). */
    while (*p) {
        const char *t = p;
        while (*t && *t != ' ')
            t++;
        bool word = t > p && (t[-1] == ':' || isalpha((unsigned char)*p));
        bool digitish = false;
        for (const char *c = p; c < t; c++)
            if (isdigit((unsigned char)*c))
                digitish = true;
        bool pathish = memchr(p, '/', (size_t)(t - p)) != NULL || memchr(p, '\\', (size_t)(t - p)) != NULL;
        if (!digitish && !pathish && word) {
            if (sb.len)
                nd_strbuf_addc(&sb, ' ');
            nd_strbuf_add(&sb, p, (size_t)(t - p));
        }
        p = *t ? t + 1 : t;
        if (sb.len > 160)
            break;
    }
    char *out = nd_strbuf_detach(&sb, NULL);
    char *red = nd_redact_text(out);
    free(out);
    return red;
}

static void nd_kb_fb_evidence(struct nd_finding *f, const struct nd_kb_occ *o)
{
    if (!o || !o->text)
        return;
    for (size_t i = 0; i < f->nevidence; i++)
        if (f->evidence[i].line == o->line && f->evidence[i].file && o->file && strcmp(f->evidence[i].file, o->file) == 0)
            return;
    char *red = nd_redact_cut(o->text, strlen(o->text), ND_KB_EVIDENCE_MAX);
    nd_finding_add_evidence(f, o->file, o->line, "%s", red);
    free(red);
}

void nd_kb_fallback_finding(const struct nd_kb *kb, const struct nd_kb_occ *exc, const struct nd_kb_occ *errs,
                            size_t nerrs, long errcount, const char *frames, struct nd_findings *out)
{
    const struct nd_kb_occ *lead = exc && exc->text ? exc : nerrs ? &errs[0] : NULL;
    if (!lead)
        return;
    /* The classifier reads the exception and the ERROR lines together, and
     * the frames above the exception at a lower weight. */
    struct nd_strbuf all = ND_STRBUF_INIT;
    nd_strbuf_init(&all);
    nd_strbuf_adds(&all, lead->text);
    for (size_t i = 0; i < nerrs; i++) {
        nd_strbuf_addc(&all, '\n');
        nd_strbuf_adds(&all, errs[i].text);
    }
    int score = 0;
    const char *cat = nd_kb_fb_classify_frames(&kb->rules, all.buf, frames, &score);
    nd_strbuf_release(&all);
    char *red = nd_redact_text(lead->text);
    struct nd_finding *f = nd_findings_add(out, "generic.unexplained-error", cat, ND_SEV_ERROR, "%s: %.120s%s",
                                           exc && exc->text ? "the job failed" : "the log reports an error", red,
                                           strlen(red) > 120 ? "..." : "");
    free(red);
    f->confidence = ND_CONF_LOW;
    if (score > 0)
        nd_finding_set_cause(f, "No rule knows this message; its words suggest %s (a guess, low confidence).", cat);
    else
        nd_finding_set_cause(f, "No rule knows this message, and its words do not point to a known cause.");
    nd_kb_fb_evidence(f, lead);
    for (size_t i = 0; i < nerrs && f->nevidence < ND_KB_SAMPLES; i++)
        nd_kb_fb_evidence(f, &errs[i]);
    char *q = nd_kb_search_text(lead->text);
    if (*q)
        nd_finding_add_fix(f, "search for: \"%s\" (the vendor's documentation and issue trackers)", q);
    free(q);
    nd_finding_add_fix(
        f, "read the lines just before it; a rule for it can go in /etc/npu-doctor/rules.d (rules/FORMAT.md)");
    f->count = exc && exc->text ? 1 : errcount;
    if (lead->file) {
        f->first_file = nd_xstrdup(lead->file);
        f->first_line = lead->line;
    }
}
