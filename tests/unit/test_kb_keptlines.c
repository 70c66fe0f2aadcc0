/* Unit tests for the lines the explain scan keeps (kb_scan.c): they are
 * kept unredacted while the scan runs and redacted when it is finished, so
 * every finding's evidence and message is redacted whichever way its line
 * was decided (at once, after waiting for its context, as a wrapper, as a
 * fallback); and a warning line is a fallback candidate only when no rule
 * explains its line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/strbuf.h"
#include "kb/kb_internal.h"
#include "kb_test_kb.h"

static const char *rules_text =
    "[t.cause]\ncategory = device-oom\npattern = HBMGONE\ntitle = oom\nfix = f\nexample = HBMGONE\n"
    /* Waits for the end of the log (unless, no window) before it counts. */
    "[t.ctx]\ncategory = distributed\npattern = LINKDOWN\nunless = re:SIMULATED\ncapture = tok: token=([^ ]+)\n"
    "title = link {tok}\nfix = f\nexample = LINKDOWN\n"
    /* A capture reads the kept line: its value goes into the title as it is. */
    "[t.cap]\ncategory = config\npattern = BADLOGIN\ncapture = pw: password=([^ ]+)\ntitle = login {pw}\nfix = f\n"
    "example = BADLOGIN password=x\n"
    "[t.wrap]\ncategory = device-fault\nrole = wrapper\npattern = INNERWRAP\ntitle = w\nfix = f\nexample = INNERWRAP\n"
    "[t.dtype]\ncategory = config\nseverity = info\npattern = double dtype now\ntitle = cast\nfix = f\n"
    "example = Warning: Device do not support double dtype now\n"
    "[vocab.distributed]\nword = 3 hccl collective allreduce\n";

static const char *secret = "hunter2secretvalue";

static void explain(const char *text, struct nd_findings *out, bool all)
{
    struct nd_kb *kb = nd_test_kb(rules_text);
    struct nd_kb_scan *s = nd_kb_scan_new(kb);
    assert_int_equal(nd_kb_scan_buffer(s, "rank0.log", text, strlen(text)), 0);
    nd_kb_scan_finish(s, out, all);
    nd_kb_scan_free(s);
    nd_kb_free(kb);
}

static const struct nd_finding *find(const struct nd_findings *out, const char *id)
{
    for (size_t i = 0; i < out->n; i++)
        if (strcmp(out->v[i]->id, id) == 0)
            return out->v[i];
    return NULL;
}

/* Every string of a finding that comes from the log: title, cause and
 * evidence lines. */
static bool finding_has(const struct nd_finding *f, const char *word)
{
    if (strstr(f->title, word) || (f->cause && strstr(f->cause, word)))
        return true;
    for (size_t i = 0; i < f->nevidence; i++)
        if (strstr(f->evidence[i].text, word))
            return true;
    return false;
}

static void assert_clean(const struct nd_findings *out)
{
    for (size_t i = 0; i < out->n; i++)
        if (finding_has(out->v[i], secret)) {
            print_message("%s shows the secret\n", out->v[i]->id);
            fail();
        }
}

/* The lines decided at once, after their context, and the wrapper that
 * became another finding's evidence, all with a password on them. */
static void test_rule_lines_redacted(void **state)
{
    (void)state;
    char *log = nd_xasprintf("INNERWRAP password=%s\n"
                             "HBMGONE password=%s\n"
                             "LINKDOWN token=%s\n"
                             "BADLOGIN password=%s\n"
                             "HBMGONE on rank 0 again password=%s\n",
                             secret, secret, secret, secret, secret);
    struct nd_findings out = ND_FINDINGS_INIT;
    explain(log, &out, true);
    const struct nd_finding *oom = find(&out, "t.cause"), *link = find(&out, "t.ctx"), *cap = find(&out, "t.cap");
    assert_non_null(oom);
    assert_non_null(link);
    assert_non_null(cap);
    /* The captures read the redacted lines. */
    assert_non_null(strstr(cap->title, "login <redacted:"));
    assert_non_null(strstr(link->title, "link <redacted:"));
    assert_true(oom->nevidence > 0);
    assert_true(link->nevidence > 0);
    /* The lines are there, only their secrets are gone. */
    assert_true(finding_has(oom, "password="));
    assert_true(finding_has(link, "LINKDOWN"));
    assert_clean(&out);
    nd_findings_release(&out);
    free(log);
}

/* A secret far into a long line: the evidence is cut, and what is cut was
 * judged with the whole secret. */
static void test_long_line_redacted_then_cut(void **state)
{
    (void)state;
    struct nd_strbuf b = ND_STRBUF_INIT;
    nd_strbuf_init(&b);
    nd_strbuf_adds(&b, "HBMGONE");
    for (int i = 0; i < 300; i++)
        nd_strbuf_adds(&b, " word");
    nd_strbuf_addf(&b, " password=%s", secret);
    for (int i = 0; i < 2000; i++)
        nd_strbuf_adds(&b, " tail");
    nd_strbuf_addc(&b, '\n');
    struct nd_findings out = ND_FINDINGS_INIT;
    explain(b.buf, &out, false);
    const struct nd_finding *oom = find(&out, "t.cause");
    assert_non_null(oom);
    assert_true(oom->nevidence > 0);
    assert_clean(&out);
    nd_findings_release(&out);
    nd_strbuf_release(&b);
}

/* The fallbacks' lines: an exception no rule knows, and a warning. */
static void test_fallback_lines_redacted(void **state)
{
    (void)state;
    char *exc = nd_xasprintf("Traceback (most recent call last):\n"
                             "  File \"train.py\", line 3, in <module>\n"
                             "ValueError: bad login password=%s\n",
                             secret);
    struct nd_findings out = ND_FINDINGS_INIT;
    explain(exc, &out, false);
    assert_true(out.n > 0);
    assert_true(finding_has(out.v[0], "ValueError"));
    assert_clean(&out);
    nd_findings_release(&out);
    free(exc);

    char *warn = nd_xasprintf("W1201 10:00:01.123 12345 comm.cc:88] hccl collective allreduce timeout waiting rank "
                              "link not ready password=%s\n",
                              secret);
    out = (struct nd_findings)ND_FINDINGS_INIT;
    explain(warn, &out, false);
    assert_non_null(find(&out, "generic.unexplained-warning"));
    assert_clean(&out);
    nd_findings_release(&out);
    free(warn);
}

/* Warnings a rule explains on their own line are no fallback candidates,
 * however many there are: the one warning no rule knows, after them, is
 * still the hint the log gives. */
static void test_explained_warnings_leave_room(void **state)
{
    (void)state;
    struct nd_strbuf b = ND_STRBUF_INIT;
    nd_strbuf_init(&b);
    for (int i = 0; i < 100; i++)
        nd_strbuf_addf(&b,
                       "[rank0]:[W compiler_depend.ts:51] Warning: Device do not support double dtype now, "
                       "step %d\n",
                       i);
    nd_strbuf_adds(&b, "W1201 10:00:01.123 12345 comm.cc:88] hccl collective allreduce timeout waiting rank link not "
                       "ready\n");
    struct nd_findings out = ND_FINDINGS_INIT;
    explain(b.buf, &out, false);
    const struct nd_finding *w = find(&out, "generic.unexplained-warning");
    assert_non_null(w);
    assert_true(finding_has(w, "comm.cc:88"));
    assert_false(finding_has(w, "double dtype"));
    nd_findings_release(&out);
    nd_strbuf_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_lines_redacted),
        cmocka_unit_test(test_long_line_redacted_then_cut),
        cmocka_unit_test(test_fallback_lines_redacted),
        cmocka_unit_test(test_explained_warnings_leave_room),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
