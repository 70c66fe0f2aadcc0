/* Unit tests for rules decided by their context (requires/unless, kb_scan.c):
 * once accepted they rank by the line they matched on and wrappers near them
 * defer to them, like rules decided on their line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/strbuf.h"
#include "kb/kb_internal.h"
#include "kb_test_kb.h"

/* t.ctx waits for the end of the log (unless, no window) before it counts. */
static const char *rules_text =
    "[t.ctx]\ncategory = device-fault\npattern = CTXFAULT\nunless = re:SIMULATED\ntitle = ctx\nfix = f\n"
    "example = CTXFAULT\n"
    "[t.plain]\ncategory = device-fault\npattern = PLAINFAULT\ntitle = plain\nfix = f\nexample = PLAINFAULT\n"
    "[t.wrap]\ncategory = device-fault\nrole = wrapper\npattern = WRAPHERE\ntitle = w\nfix = f\nexample = WRAPHERE\n";

static struct nd_kb *make_kb(void)
{
    return nd_test_kb(rules_text);
}

static void explain(struct nd_kb *kb, const char *text, bool all, struct nd_findings *out)
{
    struct nd_kb_scan *s = nd_kb_scan_new(kb);
    assert_int_equal(nd_kb_scan_buffer(s, "a.log", text, strlen(text)), 0);
    nd_kb_scan_finish(s, out, all);
    nd_kb_scan_free(s);
}

static void test_wrapper_before_defers(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    struct nd_findings out = ND_FINDINGS_INIT;
    explain(kb, "WRAPHERE\nWRAPHERE\n  trace\nCTXFAULT core 3\n", false, &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->id, "t.ctx");
    /* The wrapper block it resolved is its evidence. */
    assert_int_equal(out.v[0]->nevidence, 2);
    assert_int_equal(out.v[0]->evidence[1].line, 1);
    nd_findings_release(&out);
    explain(kb, "WRAPHERE\nWRAPHERE\n  trace\nCTXFAULT core 3\n", true, &out);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[1]->id, "t.wrap");
    nd_findings_release(&out);
    nd_kb_free(kb);
}

static void test_wrapper_after_defers(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    struct nd_findings out = ND_FINDINGS_INIT;
    /* On the same line, and on the lines after it, before it is decided. */
    explain(kb, "WRAPHERE CTXFAULT\nWRAPHERE\nline\nWRAPHERE\n", false, &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->id, "t.ctx");
    nd_findings_release(&out);
    nd_kb_free(kb);
}

static void test_rejected_keeps_wrapper(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    struct nd_findings out = ND_FINDINGS_INIT;
    /* Its `unless` matched: nothing explains the wrapper, which stays. */
    explain(kb, "WRAPHERE\nCTXFAULT\nSIMULATED run\n", false, &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->id, "t.wrap");
    nd_findings_release(&out);
    nd_kb_free(kb);
}

static void test_far_wrapper_stays(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    nd_strbuf_adds(&sb, "CTXFAULT\n");
    for (int i = 0; i < 60; i++)
        nd_strbuf_adds(&sb, "step\n");
    nd_strbuf_adds(&sb, "WRAPHERE\n");
    struct nd_findings out = ND_FINDINGS_INIT;
    explain(kb, sb.buf, false, &out);
    nd_strbuf_release(&sb);
    /* Too far to be its block: listed, after the cause. */
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0]->id, "t.ctx");
    assert_string_equal(out.v[1]->id, "t.wrap");
    nd_findings_release(&out);
    nd_kb_free(kb);
}

static void test_ranks_by_its_line(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    struct nd_findings out = ND_FINDINGS_INIT;
    /* Same severity and tier, no timestamps: the earlier line comes first,
     * although t.ctx is decided only at the end of the log. */
    explain(kb, "CTXFAULT\nPLAINFAULT\n", false, &out);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0]->id, "t.ctx");
    assert_string_equal(out.v[1]->id, "t.plain");
    nd_findings_release(&out);
    explain(kb, "PLAINFAULT\nCTXFAULT\n", false, &out);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0]->id, "t.plain");
    nd_findings_release(&out);
    nd_kb_free(kb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrapper_before_defers),  cmocka_unit_test(test_wrapper_after_defers),
        cmocka_unit_test(test_rejected_keeps_wrapper), cmocka_unit_test(test_far_wrapper_stays),
        cmocka_unit_test(test_ranks_by_its_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
