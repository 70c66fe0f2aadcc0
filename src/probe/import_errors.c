/* Import and runtime errors met by `check`'s probes, explained by the
 * knowledge base: the rules under rules/ (one id per condition) are the
 * only place this knowledge lives, so `check`, `explain` and `run` say the
 * same about the same message. What is particular to this machine is
 * filled in here: a fix that sources set_env.sh names the one found. */
#include "probe/pyimport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "kb/kb.h"

/* "source /usr/local/Ascend/ascend-toolkit/set_env.sh" in a rule's fix:
 * the set_env.sh of this machine, or how to get one. */
static void nd_import_fix_set_env(struct nd_finding *f, const char *set_env)
{
    for (size_t i = 0; i < f->nfix; i++) {
        char *fx = f->fix[i];
        char *hit = strstr(fx, "set_env.sh");
        if (!hit || strncmp(fx, "see ", 4) == 0)
            continue;
        char *start = hit;
        while (start > fx && start[-1] != ' ')
            start--;
        char *nfx;
        if (set_env && *set_env)
            nfx = nd_xasprintf("%.*s%s%s", (int)(start - fx), fx, set_env, hit + strlen("set_env.sh"));
        else
            nfx = nd_xstrdup("install the CANN toolkit and source its set_env.sh");
        free(fx);
        f->fix[i] = nfx;
    }
}

int nd_import_error_explain(const char *text, const char *set_env, struct nd_findings *out)
{
    if (!text || !*text)
        return 0;
    struct nd_kb *kb = NULL;
    struct nd_error err;
    if (nd_kb_load(&kb, NULL, 0, &err) != 0)
        return 0;
    struct nd_findings tmp = ND_FINDINGS_INIT;
    nd_kb_explain_buffer(kb, "python probe", text, strlen(text), &tmp, &err);
    nd_kb_free(kb);
    int added = 0;
    for (size_t i = 0; i < tmp.n && !added; i++) {
        if (tmp.v[i]->severity < ND_SEV_WARNING)
            continue;
        struct nd_finding *f = nd_findings_add_copy(out, tmp.v[i]);
        nd_import_fix_set_env(f, set_env);
        added = 1;
    }
    nd_findings_release(&tmp);
    return added;
}
