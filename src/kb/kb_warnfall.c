/* The fallback of a log with no error line: a thread's pasted log is often
 * only warnings, status output and progress, and when no rule and no log
 * shape explains it, a warning whose words point clearly to one category
 * (the classifier of kb_classify.c) is the best hint the log holds. It is a
 * weak hint (severity warning, low confidence), so a real error or any rule
 * outranks it, and warnings that every healthy job prints (deprecations,
 * "set this option explicitly" advice) never count. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/redact.h"
#include "core/strbuf.h"
#include "kb/kb_internal.h"

/* How much word evidence a warning needs: config is the classifier's
 * default and its words (value, argument, file) are in any warning, so it
 * needs more. */
#define ND_WF_MIN_SCORE 4
#define ND_WF_MIN_SCORE_CONFIG 7

/* Advice and notices that healthy runs print: API deprecations, defaults
 * that will change, options to set explicitly, device banners. */
static const char *const nd_wf_benign[] = {
    "deprecat",
    "will be removed",
    "in a future",
    "future version",
    "will change",
    "explicitly",
    "is not writable",
    "tokenizers_parallelism",
    "not initialized from",
    "should be passed",
    "no longer",
    "renamed",
    "to silence",
    "to disable this warning",
    "is experimental",
    "beta",
    "please note",
    "compute capability",
};

static bool nd_wf_has(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = text; *p; p++) {
        size_t i = 0;
        while (i < n && p[i] && tolower((unsigned char)p[i]) == word[i])
            i++;
        if (i == n)
            return true;
    }
    return false;
}

static bool nd_wf_benign_line(const char *text)
{
    for (size_t i = 0; i < ND_ARRAY_SIZE(nd_wf_benign); i++)
        if (nd_wf_has(text, nd_wf_benign[i]))
            return true;
    return false;
}

void nd_kb_warning_finding(const struct nd_kb *kb, const struct nd_kb_occ *warns, size_t nwarns, struct nd_findings *out)
{
    const struct nd_kb_occ *best = NULL;
    const char *best_cat = NULL;
    int best_score = 0;
    for (size_t i = 0; i < nwarns; i++) {
        if (!warns[i].text || nd_wf_benign_line(warns[i].text))
            continue;
        int score = 0;
        const char *cat = nd_kb_fb_classify(&kb->rules, warns[i].text, &score);
        int need = strcmp(cat, ND_CAT_CONFIG) == 0 ? ND_WF_MIN_SCORE_CONFIG : ND_WF_MIN_SCORE;
        if (score >= need && score > best_score) {
            best = &warns[i];
            best_cat = cat;
            best_score = score;
        }
    }
    if (!best)
        return;
    char *red = nd_redact_text(best->text);
    struct nd_finding *f = nd_findings_add(out, "generic.unexplained-warning", best_cat, ND_SEV_WARNING,
                                           "the log has no error, but warns: %.120s%s", red,
                                           strlen(red) > 120 ? "..." : "");
    free(red);
    f->confidence = ND_CONF_LOW;
    nd_finding_set_cause(f,
                         "No line says the job failed and no rule knows this warning; its words suggest %s "
                         "(a guess, low confidence).",
                         best_cat);
    char *ev = nd_redact_cut(best->text, strlen(best->text), ND_KB_EVIDENCE_MAX);
    nd_finding_add_evidence(f, best->file, best->line, "%s", ev);
    free(ev);
    nd_finding_add_fix(f, "if the job misbehaves, read the lines around this warning and search for its words "
                          "in the vendor's documentation and issue trackers");
    nd_finding_add_fix(f, "a rule for it can go in /etc/npu-doctor/rules.d (rules/FORMAT.md)");
    f->count = 1;
    if (best->file) {
        f->first_file = nd_xstrdup(best->file);
        f->first_line = best->line;
    }
}
