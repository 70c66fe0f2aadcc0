/* Unit tests for the never-silent fallback (kb_fallback.c, kb_scan.c): the
 * first exception no rule explained goes before symptoms, wrappers and
 * consequences, never before a named cause, and a log without an error
 * gets no finding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kb/kb_internal.h"
#include "kb_test_kb.h"

static const char *rules_text =
    "[t.cause]\ncategory = device-oom\npattern = HBMGONE\ntitle = oom\nfix = f\nexample = HBMGONE\n"
    "[t.abort]\ncategory = distributed\nrole = symptom\npattern = PEERABORT\ntitle = abort\nfix = f\n"
    "example = PEERABORT\n"
    "[t.wrap]\ncategory = device-fault\nrole = wrapper\npattern = INNERWRAP\ntitle = w\nfix = f\nexample = INNERWRAP\n"
    "[t.warn]\ncategory = version-mismatch\nseverity = warning\npattern = OLDPKG\ntitle = old\nfix = f\n"
    "example = OLDPKG\n"
    "[t.info]\ncategory = config\nseverity = info\npattern = STEPINFO\ntitle = i\nfix = f\nexample = STEPINFO\n"
    "[vocab.host-oom]\nword = 3 killed\n"
    "[vocab.input-bound]\nword = 3 dataset sampler\n";

static struct nd_kb *make_kb(void)
{
    return nd_test_kb(rules_text);
}

static void explain(struct nd_kb *kb, const char *text, struct nd_findings *out)
{
    struct nd_kb_scan *s = nd_kb_scan_new(kb);
    assert_int_equal(nd_kb_scan_buffer(s, "rank0.log", text, strlen(text)), 0);
    nd_kb_scan_finish(s, out, false);
    nd_kb_scan_free(s);
}

static bool has(const struct nd_findings *out, const char *id)
{
    for (size_t i = 0; i < out->n; i++)
        if (strcmp(out->v[i]->id, id) == 0)
            return true;
    return false;
}

/* A job whose data loader failed; rank 1 aborts afterwards and the launcher
 * reports the exit: the symptom rule knows only the abort. */
static const char *loader_then_abort = "step 10 loss 2.31\n"
                                       "Traceback (most recent call last):\n"
                                       "  File \"train.py\", line 40, in <module>\n"
                                       "    batch = next(it)\n"
                                       "IndexError: dataset sampler index 4096 out of range\n"
                                       "[rank1] PEERABORT: communicator aborted, peer rank 0 exited\n"
                                       "ERROR:torch.distributed.elastic:failed (exitcode: 1)\n"
                                       "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
                                       "RuntimeError: rank 1 stopped after the abort\n";

static void test_first_unexplained_before_symptom(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    struct nd_findings out = ND_FINDINGS_INIT;
    explain(kb, loader_then_abort, &out);
    assert_true(out.n >= 2);
    assert_string_equal(out.v[0]->id, "generic.unexplained-error");
    /* The first real exception, not the launcher's report nor the later one. */
    assert_non_null(strstr(out.v[0]->title, "IndexError: dataset sampler"));
    assert_int_equal(out.v[0]->first_line, 5);
    assert_int_equal(out.v[0]->confidence, ND_CONF_LOW);
    /* Its words are classified as when no rule matched. */
    assert_string_equal(out.v[0]->category, "input-bound");
    assert_string_equal(out.v[1]->id, "t.abort");
    nd_findings_release(&out);
    nd_kb_free(kb);
}

static void test_not_before_a_cause(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    struct nd_findings out = ND_FINDINGS_INIT;
    /* A specific cause rule matched: the unexplained exception stays out. */
    explain(kb,
            "HBMGONE on device 0\n"
            "ValueError: dataset sampler got a bad batch\n"
            "PEERABORT\n",
            &out);
    assert_true(out.n >= 1);
    assert_string_equal(out.v[0]->id, "t.cause");
    assert_false(has(&out, "generic.unexplained-error"));
    nd_findings_release(&out);
    nd_kb_free(kb);
}

static void test_explained_line_is_no_candidate(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    struct nd_findings out = ND_FINDINGS_INIT;
    /* The only exception is the symptom's own line: nothing is unexplained. */
    explain(kb, "step 3\nRuntimeError: PEERABORT after rank 2 left\n", &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->id, "t.abort");
    nd_findings_release(&out);
    /* Only the launcher's report besides the symptom: not a real exception. */
    explain(kb,
            "PEERABORT\n"
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
            "subprocess.CalledProcessError: Command 'python' returned non-zero exit status 1.\n",
            &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->id, "t.abort");
    nd_findings_release(&out);
    nd_kb_free(kb);
}

static void test_before_wrapper_and_warning(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    struct nd_findings out = ND_FINDINGS_INIT;
    explain(kb, "INNERWRAP\nline\nKeyError: 'killed_at'\n", &out);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0]->id, "generic.unexplained-error");
    assert_string_equal(out.v[1]->id, "t.wrap");
    nd_findings_release(&out);
    /* A warning is less severe than a failure no rule knows. */
    explain(kb, "OLDPKG 1.2\nTypeError: forward() missing 1 required argument\n", &out);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0]->id, "generic.unexplained-error");
    assert_string_equal(out.v[1]->id, "t.warn");
    nd_findings_release(&out);
    /* Only an info rule matched: the exception is still reported. */
    explain(kb, "STEPINFO\nOSError: [Errno 5] Input/output error\n", &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->id, "generic.unexplained-error");
    nd_findings_release(&out);
    nd_kb_free(kb);
}

static void test_no_error_no_finding(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    struct nd_findings out = ND_FINDINGS_INIT;
    explain(kb, "STEPINFO\nstep 1 loss 2.0\nstep 2 loss 1.9\ndone\n", &out);
    assert_int_equal(out.n, 0);
    nd_findings_release(&out);
    explain(kb, "step 1\nPEERABORT\n", &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->id, "t.abort");
    nd_findings_release(&out);
    nd_kb_free(kb);
}

/* A traceback header is a failure wherever it starts: after a progress or
 * log prefix glued to it, or as faulthandler's "most recent call first"
 * dump, even when the excerpt ends before the exception line. */
static void test_traceback_header_anywhere(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    struct nd_findings out = ND_FINDINGS_INIT;
    explain(kb, "step 1 loss 2.0\n[3/8]Traceback (most recent call last):\n  File \"a.py\", line 3, in f\n", &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->id, "generic.unexplained-error");
    nd_findings_release(&out);
    explain(kb, "Fatal Python error: Aborted\n\nThread 0x7f (most recent call first):\n", &out);
    assert_int_equal(out.n, 1);
    nd_findings_release(&out);
    explain(kb, "worker 2: Traceback (most recent call first):\n  File \"b.py\", line 9 in g\n", &out);
    assert_int_equal(out.n, 1);
    nd_findings_release(&out);
    explain(kb, "step 1 loss 2.0\nthe traceback module prints frames\n", &out);
    assert_int_equal(out.n, 0);
    nd_findings_release(&out);
    nd_kb_free(kb);
}

static void test_no_rule_first_real_exception(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    struct nd_findings out = ND_FINDINGS_INIT;
    /* No rule at all: the root exception, not the launcher's last word. */
    explain(kb,
            "Traceback (most recent call last):\n"
            "ZeroDivisionError: division by zero\n"
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n",
            &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->id, "generic.unexplained-error");
    assert_non_null(strstr(out.v[0]->title, "ZeroDivisionError"));
    nd_findings_release(&out);
    /* Only the launcher's report: still never silent. */
    explain(kb, "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n", &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->id, "generic.unexplained-error");
    nd_findings_release(&out);
    nd_kb_free(kb);
}

/* A rule that reports nothing (info) matched, yet another line says ERROR:
 * that line is still a finding; an ERROR on the info rule's own line is
 * explained by it and stays quiet. */
static void test_hidden_rule_does_not_silence_error(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    struct nd_findings out = ND_FINDINGS_INIT;
    explain(kb,
            "STEPINFO step 1\n"
            "step 2 loss 1.9\n"
            "[ERROR] 2024-05-01 10:00:00 writer: failed to flush shard 3\n"
            "step 3 loss 1.8\n",
            &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->id, "generic.unexplained-error");
    assert_non_null(strstr(out.v[0]->title, "failed to flush shard"));
    assert_int_equal(out.v[0]->nevidence, 1);
    assert_int_equal(out.v[0]->evidence[0].line, 3);
    nd_findings_release(&out);
    explain(kb, "step 1 loss 2.0\nSTEPINFO ERROR: retrying, nothing lost\nstep 2 loss 1.9\n", &out);
    assert_int_equal(out.n, 0);
    nd_findings_release(&out);
    /* Several ERROR lines, the first ones on the info rule's lines: the
     * unexplained one leads. */
    explain(kb,
            "STEPINFO ERROR: retry 1\nSTEPINFO ERROR: retry 2\nstep 2\n"
            "ERROR: checkpoint write failed\nSTEPINFO ERROR: retry 3\n",
            &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->id, "generic.unexplained-error");
    assert_non_null(strstr(out.v[0]->title, "checkpoint write failed"));
    assert_int_equal(out.v[0]->count, 1);
    nd_findings_release(&out);
    nd_kb_free(kb);
}

/* A traceback cut before its exception line: the frames' words (path
 * parts, function, source line) pick the category; a new traceback header
 * drops the frames of the one before. */
static void test_frames_of_last_traceback(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    struct nd_findings out = ND_FINDINGS_INIT;
    explain(kb,
            "step 1\nTraceback (most recent call last):\n  File \"/usr/lib/python3/site-packages/torch/utils/data/"
            "dataset.py\", line 5, in __getitem__\n    x = self.sampler[i]\n",
            &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->id, "generic.unexplained-error");
    assert_string_equal(out.v[0]->category, "input-bound");
    nd_findings_release(&out);
    /* The source line alone, behind a rank prefix. */
    explain(kb,
            "Traceback (most recent call last):\n[rank0]:   File \"m.py\", line 3, in f\n[rank0]:     killed = run()\n",
            &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->category, "host-oom");
    nd_findings_release(&out);
    /* The first traceback's frames are not the second's. */
    explain(kb,
            "Traceback (most recent call last):\n  File \"data/dataset.py\", line 5, in sampler\n    x = 1\n"
            "Traceback (most recent call last):\n  File \"m.py\", line 1, in f\n    g()\n",
            &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->category, "config");
    nd_findings_release(&out);
    /* The frames go with their exception line. */
    explain(kb,
            "Traceback (most recent call last):\n  File \"data/dataset.py\", line 5, in sampler\n    x = 1\n"
            "FooError: boom\n",
            &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->category, "input-bound");
    nd_findings_release(&out);
    /* An unindented line after a frame is no source line of it. */
    explain(kb, "Traceback (most recent call last):\n  File \"m.py\", line 1, in f\nFooError: killed\n", &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->category, "host-oom");
    nd_findings_release(&out);
    /* Frame-shaped lines without an error say nothing. */
    explain(kb, "step 1\n  File \"data/dataset.py\", line 5, in sampler\n    killed = 1\ndone\n", &out);
    assert_int_equal(out.n, 0);
    nd_findings_release(&out);
    nd_kb_free(kb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_unexplained_before_symptom),
        cmocka_unit_test(test_not_before_a_cause),
        cmocka_unit_test(test_explained_line_is_no_candidate),
        cmocka_unit_test(test_before_wrapper_and_warning),
        cmocka_unit_test(test_no_error_no_finding),
        cmocka_unit_test(test_traceback_header_anywhere),
        cmocka_unit_test(test_no_rule_first_real_exception),
        cmocka_unit_test(test_hidden_rule_does_not_silence_error),
        cmocka_unit_test(test_frames_of_last_traceback),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
