/* Unit tests for the matcher's view of a log: per-line prefixes
 * and continuation lines (kb_logical.c), one finding per line (kb_spec.c),
 * context rules (requires/unless/within), the fallback for unknown
 * failures (kb_fallback.c) and the refusal of unsafe captures. */
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
#include "kb/kb_logical.h"

static const char *rules_text =
    "[t.generic]\ncategory = device-oom\ngeneric = true\npattern = out of memory\ntitle = g\nfix = f\nexample = out of "
    "memory\n"
    "[t.anyvendor]\ncategory = device-oom\npattern = NPU out of memory\ntitle = a\nfix = f\nexample = NPU out of "
    "memory\n"
    "[t.vendor]\ncategory = device-oom\nvendor = ascend\npattern = out of memory\ntitle = v\nfix = f\nexample = out of "
    "memory\n"
    "[t.other]\ncategory = config\npattern = NPU out\ntitle = o\nfix = f\nexample = NPU out\n"
    "[t.needs]\ncategory = no-device\npattern = CUDAONLY\nrequires = re:npu_marker\ntitle = n\nfix = f\nexample = "
    "CUDAONLY\n"
    "[t.near]\ncategory = input-bound\npattern = TIMEOUTX\nrequires = t.iter\nwithin = 2\ntitle = near\nfix = f\n"
    "example = TIMEOUTX\n"
    "[t.iter]\ncategory = config\nseverity = info\npattern = ITERATOR\ntitle = it\nfix = f\nexample = ITERATOR\n"
    "[t.notif]\ncategory = config\npattern = WARNME\nunless = re:silenced\ntitle = u\nfix = f\nexample = WARNME\n"
    "[t.split]\ncategory = device-fault\npattern = kernel task happen error\ntitle = s\nfix = f\n"
    "example = kernel task happen error\n"
    "[t.wrapper]\ncategory = device-fault\nrole = wrapper\npattern = Inner Error!\ntitle = w\nfix = f\n"
    "example = Inner Error!\n"
    "[t.anchored]\ncategory = config\npattern = ^Anchored start\ntitle = an\nfix = f\nexample = Anchored start\n"
    "[vocab.device-oom]\nword = 3 memory\n[vocab.distributed]\nword = 3 hccl\nword = 1 rank\n";

static struct nd_kb *make_kb(void)
{
    return nd_test_kb(rules_text);
}

/* What `explain` does with one file. */
static struct nd_findings explain(struct nd_kb *kb, const char *text)
{
    struct nd_findings out = ND_FINDINGS_INIT;
    struct nd_kb_scan *s = nd_kb_scan_new(kb);
    nd_kb_scan_buffer(s, "t.log", text, strlen(text));
    nd_kb_scan_finish(s, &out, false);
    nd_kb_scan_free(s);
    return out;
}

static bool has(const struct nd_findings *f, const char *id)
{
    return nd_findings_find((struct nd_findings *)f, id) != NULL;
}

static void test_prefixes(void **state)
{
    (void)state;
    const char *cases[][2] = {
        {"[rank3]: RuntimeError: x", "RuntimeError: x"},
        {"[rank3]:[W compiler_depend.ts:10] Warning", "[W compiler_depend.ts:10] Warning"},
        {"[default0]:hello", "hello"},
        {"rank0: Traceback", "Traceback"},
        {"(RayWorkerWrapper pid=123) ERROR 09-10 boom", "ERROR 09-10 boom"},
        {"(VllmWorker rank=3 pid=50935) ERROR x", "ERROR x"},
        {"(VllmWorker rank=3 pid=50935) ERROR 09-10 03:36:31 [multiproc_executor.py:527]   File \"a.py\"",
         "  File \"a.py\""},
        {"INFO 05-01 10:00:00 [engine.py:12] ready", "ready"},
        {"INFO 05-01 10:00:00 engine ready", "INFO 05-01 10:00:00 engine ready"},
        {"2024-05-01T10:00:00.123456789Z stderr F [rank1]: EZ9999: Inner Error!", "EZ9999: Inner Error!"},
        {"2024-05-01 10:00:00,123 - INFO - step", "2024-05-01 10:00:00,123 - INFO - step"},
        {"(not a prefix) text", "(not a prefix) text"},
        {"ranked list", "ranked list"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = nd_kb_line_prefix(cases[i][0], strlen(cases[i][0]));
        assert_string_equal(cases[i][0] + n, cases[i][1]);
    }
}

static void test_logical_lines(void **state)
{
    (void)state;
    const char *log = "EZ9999: Inner Error!\n"
                      "EZ9999: Op Equal failed.\n"
                      "        TraceBack (most recent call last):\n"
                      "        Kernel Run failed.\n"
                      "Traceback (most recent call last):\n"
                      "  File \"a.py\", line 1, in <module>\n"
                      "    f()\n"
                      "ValueError: bad\n";
    assert_true(nd_kb_logical_needed(log, strlen(log)));
    struct nd_kb_logical lg = {0};
    size_t n = nd_kb_logical_build(log, strlen(log), &lg);
    char *text = nd_xstrndup(lg.buf, n);
    assert_string_equal(text, "EZ9999: Inner Error!\n"
                              "EZ9999: Op Equal failed. TraceBack (most recent call last): Kernel Run failed.\n"
                              "Traceback (most recent call last):\n"
                              "  File \"a.py\", line 1, in <module>\n"
                              "    f()\n"
                              "ValueError: bad\n");
    assert_int_equal(lg.nlines, 8);
    assert_int_equal(lg.lines[3].logical, 1);
    assert_int_equal(lg.lines[5].logical, 5);
    free(text);
    /* Prefixed and plain lines, a joint and an open last line: the runs
     * copied as they are end where a prefix, a joint or the end starts. */
    const char *mixed = "[rank0]:x1\nplain2\n[rank1]: y3\n    cont4\nplain5\nlast6";
    n = nd_kb_logical_build(mixed, strlen(mixed), &lg);
    text = nd_xstrndup(lg.buf, n);
    assert_string_equal(text, "x1\nplain2\ny3 cont4\nplain5\nlast6");
    assert_int_equal(lg.nlines, 6);
    const size_t n_off[] = {0, 3, 10, 13, 19, 26};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(lg.lines[i].n_off, n_off[i]);
    assert_int_equal(lg.lines[3].logical, 2);
    assert_int_equal(lg.lines[2].o_content, 27);
    free(text);
    /* Quiet logs are scanned as they are. */
    const char *quiet = "[INFO] RUNTIME started\n2024-05-01 10:00:00,123 - INFO - step 1\n";
    assert_false(nd_kb_logical_needed(quiet, strlen(quiet)));
    nd_kb_logical_release(&lg);
}

/* NCCL's bare "Last error:" and the line after it are one message; an
 * IPython traceback's frames ("Cell In[3], line 5", "File ~/x.py:8, in f()")
 * keep their indented source lines apart, as a Python traceback's do. */
static void test_last_error_and_ipython(void **state)
{
    (void)state;
    const char *nccl = "ncclSystemError: System call (e.g. socket, malloc) or external library call failed.\n"
                       "[rank1]: Last error:\n"
                       "[rank1]: socketStartConnect: Connect to 10.0.0.2<45763> failed : Software caused connection "
                       "abort\n"
                       "Last error:\n"
                       "\n"
                       "next record\n";
    assert_true(nd_kb_logical_needed(nccl, strlen(nccl)));
    struct nd_kb_logical lg = {0};
    size_t n = nd_kb_logical_build(nccl, strlen(nccl), &lg);
    char *text = nd_xstrndup(lg.buf, n);
    assert_string_equal(text, "ncclSystemError: System call (e.g. socket, malloc) or external library call failed.\n"
                              "Last error: socketStartConnect: Connect to 10.0.0.2<45763> failed : Software caused "
                              "connection abort\n"
                              "Last error:\n"
                              "\n"
                              "next record\n");
    assert_int_equal(lg.lines[2].logical, 1);
    free(text);
    const char *ipy = "RuntimeError                              Traceback (most recent call last)\n"
                      "Cell In[12], line 3\n"
                      "      1 import torch\n"
                      "----> 3 model.to(\"npu\")\n"
                      "\n"
                      "File ~/venv/lib/python3.10/site-packages/torch/nn/modules/module.py:1145, in Module.to(self)\n"
                      "   1141     return t.to(device)\n"
                      "-> 1145 return self._apply(convert)\n"
                      "\n"
                      "RuntimeError: the real error\n"
                      "    continued here\n";
    n = nd_kb_logical_build(ipy, strlen(ipy), &lg);
    text = nd_xstrndup(lg.buf, n);
    assert_non_null(strstr(text, "Cell In[12], line 3\n      1 import torch\n"));
    assert_non_null(strstr(text, "in Module.to(self)\n   1141     return t.to(device)\n"));
    /* After the traceback, indentation continues a message again. */
    assert_non_null(strstr(text, "RuntimeError: the real error continued here\n"));
    free(text);
    nd_kb_logical_release(&lg);
}

static void test_wrapped_message_matches(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    /* Split by indentation, with rank prefixes on every line. */
    struct nd_findings f = explain(kb, "[rank2]: EZ9999: some wrapper, kernel task\n[rank2]:     happen error here\n");
    assert_true(has(&f, "t.split"));
    assert_int_equal(f.v[0]->rank, 2);
    assert_int_equal(f.v[0]->first_line, 2);
    assert_non_null(strstr(f.v[0]->evidence[0].text, "[rank2]: EZ9999"));
    nd_findings_release(&f);
    /* The wrapper block becomes evidence of the line that explains it. */
    f = explain(kb, "EZ9999: Inner Error!\nEZ9999: detail\n        kernel task happen error\n");
    assert_int_equal(f.n, 1);
    assert_string_equal(f.v[0]->id, "t.split");
    assert_true(f.v[0]->nevidence >= 2);
    assert_string_equal(f.v[0]->evidence[f.v[0]->nevidence - 1].text, "EZ9999: Inner Error!");
    assert_int_equal(f.v[0]->evidence[f.v[0]->nevidence - 1].line, 1);
    nd_findings_release(&f);
    /* Cut at 80 columns. */
    char line[200];
    memset(line, 'x', sizeof line);
    memcpy(line + 80 - 13, "kernel task h", 13);
    memcpy(line + 80, "\nappen error\n", 14);
    f = explain(kb, line);
    assert_true(has(&f, "t.split"));
    nd_findings_release(&f);
    /* A prefix does not defeat an anchored pattern. */
    f = explain(kb, "[rank0]: Anchored start of a message\n");
    assert_true(has(&f, "t.anchored"));
    nd_findings_release(&f);
    nd_kb_free(kb);
}

static void test_one_finding_per_line(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    /* generic < any-vendor < vendor within device-oom; t.other (another
     * category) stays. */
    struct nd_findings f = explain(kb, "RuntimeError: NPU out of memory.\n");
    assert_true(has(&f, "t.vendor"));
    assert_false(has(&f, "t.generic"));
    assert_false(has(&f, "t.anyvendor"));
    assert_true(has(&f, "t.other"));
    nd_findings_release(&f);
    /* The same through the live path. */
    const char *l = "RuntimeError: NPU out of memory.";
    struct nd_findings live = ND_FINDINGS_INIT;
    assert_int_equal(nd_kb_match_line(kb, l, strlen(l), "stderr", 1, &live), 2);
    assert_true(has(&live, "t.vendor"));
    assert_true(has(&live, "t.other"));
    nd_findings_release(&live);
    /* Every line counts once for the rule that explains it. */
    f = explain(kb, "out of memory\nNPU out of memory\n");
    assert_int_equal(nd_findings_find(&f, "t.vendor")->count, 2);
    assert_false(has(&f, "t.generic"));
    nd_findings_release(&f);
    nd_kb_free(kb);
}

static void test_context(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    struct nd_findings f = explain(kb, "AssertionError: CUDAONLY\n");
    assert_false(has(&f, "t.needs"));
    nd_findings_release(&f);
    f = explain(kb, "import npu_marker\nAssertionError: CUDAONLY\n");
    assert_true(has(&f, "t.needs"));
    nd_findings_release(&f);
    /* requires looks forward too, in the same source only. */
    f = explain(kb, "AssertionError: CUDAONLY\nlater: npu_marker\n");
    assert_true(has(&f, "t.needs"));
    nd_findings_release(&f);
    /* within = 2 lines, either side. */
    f = explain(kb, "TIMEOUTX\nx\nITERATOR\n");
    assert_true(has(&f, "t.near"));
    nd_findings_release(&f);
    f = explain(kb, "TIMEOUTX\nx\ny\nz\nITERATOR\n");
    assert_false(has(&f, "t.near"));
    nd_findings_release(&f);
    f = explain(kb, "WARNME\n");
    assert_true(has(&f, "t.notif"));
    nd_findings_release(&f);
    f = explain(kb, "WARNME\nall silenced\n");
    assert_false(has(&f, "t.notif"));
    nd_findings_release(&f);
    /* Live: a line that needs a later one is held, and counts (with its
     * own line as evidence) when that line comes. */
    struct nd_findings live = ND_FINDINGS_INIT;
    assert_int_equal(nd_kb_match_line(kb, "CUDAONLY", 8, "stderr", 1, &live), 0);
    assert_int_equal(nd_kb_match_line(kb, "npu_marker", 10, "stderr", 2, &live), 1);
    assert_string_equal(live.v[0]->id, "t.needs");
    assert_int_equal(live.v[0]->evidence[0].line, 1);
    assert_string_equal(live.v[0]->evidence[0].text, "CUDAONLY");
    /* Once what it needs was seen, a later match counts on its own line. */
    assert_int_equal(nd_kb_match_line(kb, "CUDAONLY", 8, "stderr", 3, &live), 1);
    assert_int_equal(live.v[1]->evidence[0].line, 3);
    nd_findings_release(&live);
    nd_kb_free(kb);
    /* Within the window it is completed; past it, it is dropped. */
    kb = make_kb();
    assert_int_equal(nd_kb_match_line(kb, "TIMEOUTX", 8, "stderr", 1, &live), 0);
    assert_int_equal(nd_kb_match_line(kb, "x", 1, "stderr", 2, &live), 0);
    assert_int_equal(nd_kb_match_line(kb, "ITERATOR", 8, "stderr", 3, &live), 2);
    assert_non_null(nd_findings_find(&live, "t.near"));
    assert_int_equal(nd_findings_find(&live, "t.near")->evidence[0].line, 1);
    nd_findings_release(&live);
    nd_kb_free(kb);
    kb = make_kb();
    assert_int_equal(nd_kb_match_line(kb, "TIMEOUTX", 8, "stderr", 1, &live), 0);
    for (long i = 2; i <= 4; i++)
        assert_int_equal(nd_kb_match_line(kb, "y", 1, "stderr", i, &live), 0);
    assert_int_equal(nd_kb_match_line(kb, "ITERATOR", 8, "stderr", 5, &live), 1);
    assert_null(nd_findings_find(&live, "t.near"));
    nd_findings_release(&live);
    nd_kb_free(kb);
    /* A line that only touches the keys of a repeat completes it too. */
    kb = make_kb();
    assert_int_equal(nd_kb_match_line(kb, "ITERATOR", 8, "stderr", 1, &live), 1);
    unsigned keys[8];
    bool depends = true;
    int nkeys = nd_kb_live_keys(kb, keys, 8, &depends);
    assert_true(nkeys > 0);
    assert_false(depends);
    for (long i = 2; i <= 5; i++)
        nd_kb_match_line(kb, "y", 1, "stderr", i, &live);
    assert_int_equal(nd_kb_match_line(kb, "TIMEOUTX", 8, "stderr", 6, &live), 0);
    nd_kb_live_touch(kb, keys, (size_t)nkeys);
    assert_int_equal(nd_kb_live_resolve(kb, &live), 1);
    assert_int_equal(nd_findings_find(&live, "t.near")->evidence[0].line, 6);
    nd_findings_release(&live);
    nd_kb_free(kb);
}

static void test_fallback(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    struct nd_findings f = explain(kb, "step 1\nTraceback (most recent call last):\n  File \"/x/a.py\", line 3\n"
                                       "[rank1]: ValueError: HCCL rank 3 gave /tmp/y.bin 42\n");
    assert_int_equal(f.n, 1);
    assert_string_equal(f.v[0]->id, "generic.unexplained-error");
    assert_string_equal(f.v[0]->category, "distributed");
    assert_int_equal(f.v[0]->confidence, ND_CONF_LOW);
    assert_non_null(strstr(f.v[0]->title, "ValueError: HCCL rank 3"));
    assert_non_null(strstr(f.v[0]->fix[0], "\"ValueError: HCCL rank gave\""));
    nd_findings_release(&f);
    /* check has its own fallback: nd_kb_explain_buffer adds none. */
    struct nd_error err = {0};
    struct nd_findings none = ND_FINDINGS_INIT;
    nd_kb_explain_buffer(kb, "probe", "KeyError: x\n", 12, &none, &err);
    assert_int_equal(none.n, 0);
    nd_findings_release(&none);
    f = explain(kb, "[ERROR] something about memory went wrong\n");
    assert_int_equal(f.n, 1);
    assert_string_equal(f.v[0]->category, "device-oom");
    nd_findings_release(&f);
    /* No error, no finding; and a known rule wins over the fallback. */
    f = explain(kb, "step 1 loss 0.5\nstep 2 loss 0.4\nall done\n");
    assert_int_equal(f.n, 0);
    nd_findings_release(&f);
    f = explain(kb, "RuntimeError: out of memory\n");
    assert_false(has(&f, "generic.unexplained-error"));
    nd_findings_release(&f);
    nd_kb_free(kb);
}

static void test_unsafe_captures(void **state)
{
    (void)state;
    const char *bad[] = {"(a+)*b", "(x|y+)+z", "([a-z]*){2,}q", "(a)\\1", "((ab)+)+"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *text = nd_xasprintf("[t.evil]\ncategory = config\npattern = EVIL\ncapture = v: %s\ntitle = {v}\n"
                                  "fix = f\nexample = EVIL\n",
                                  bad[i]);
        struct nd_kb_ruleset set = {0};
        struct nd_strv problems = {0};
        nd_kb_parse_rules(&set, "e.rules", text, strlen(text), false, &problems);
        nd_kb_check_rules(&set, NULL, &problems);
        bool found = false;
        for (size_t j = 0; j < problems.n; j++)
            found |= strstr(problems.v[j], "[t.evil] capture") != NULL;
        assert_true(found);
        nd_kb_ruleset_release(&set);
        nd_strv_release(&problems);
        free(text);
    }
    /* Bounded and plain repeats are fine. */
    const char *text = "[t.ok]\ncategory = config\npattern = OKAY\ncapture = v: (a+b)?([0-9]+) x{1,3}\ntitle = {v}\n"
                       "fix = f\nexample = OKAY\n";
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    nd_kb_parse_rules(&set, "o.rules", text, strlen(text), false, &problems);
    nd_kb_check_rules(&set, NULL, &problems);
    assert_int_equal(problems.n, 0);
    nd_kb_ruleset_release(&set);
    nd_strv_release(&problems);
}

/* The shipped rules through run's live path: one NPU OOM line with
 * fragmentation is one finding, not the vendor OOM, the generic OOM and
 * the fragmentation rule together. */
static void test_live_builtin(void **state)
{
    (void)state;
    setenv("NPU_DOCTOR_CACHE_DIR", "", 1);
    struct nd_kb *kb = NULL;
    struct nd_error err = {0};
    assert_int_equal(nd_kb_load(&kb, NULL, 0, &err), 0);
    const char *l = "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total capacity; "
                    "50.10 GiB already allocated; 50.10 GiB current active; 1.02 GiB free; 58.62 GiB reserved in "
                    "total by PyTorch)";
    struct nd_findings live = ND_FINDINGS_INIT;
    assert_int_equal(nd_kb_match_line(kb, l, strlen(l), "stderr", 7, &live), 1);
    assert_string_equal(live.v[0]->id, "device-oom.fragmentation");
    nd_findings_release(&live);
    /* Without fragmentation: the vendor's rule, not the generic one. */
    const char *l2 = "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB";
    assert_int_equal(nd_kb_match_line(kb, l2, strlen(l2), "stderr", 8, &live), 1);
    assert_string_equal(live.v[0]->id, "ascend.device-oom");
    nd_findings_release(&live);
    /* A rank prefix does not change what matches. */
    const char *l3 = "[rank5]: RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB";
    assert_int_equal(nd_kb_match_line(kb, l3, strlen(l3), "stderr", 9, &live), 1);
    assert_int_equal(live.v[0]->rank, 5);
    nd_findings_release(&live);
    nd_kb_free(kb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefixes),
        cmocka_unit_test(test_logical_lines),
        cmocka_unit_test(test_last_error_and_ipython),
        cmocka_unit_test(test_wrapped_message_matches),
        cmocka_unit_test(test_one_finding_per_line),
        cmocka_unit_test(test_context),
        cmocka_unit_test(test_fallback),
        cmocka_unit_test(test_unsafe_captures),
        cmocka_unit_test(test_live_builtin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
