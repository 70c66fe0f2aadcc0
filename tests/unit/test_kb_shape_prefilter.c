/* Unit tests for the log-shape literal prefilter (kb_shape_prefilter.c):
 * the runs it reads from a pattern, patterns it declines to read, and that
 * it never rejects a line the pattern matches. */
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kb/kb_shape.h"

static void compile(struct nd_shape_re *x, const char *src, int flags)
{
    memset(x, 0, sizeof *x);
    x->src = strdup(src);
    assert_int_equal(regcomp(&x->re, src, REG_EXTENDED | REG_NOSUB | flags), 0);
    x->ok = true;
    nd_shape_prefilter_build(x, (flags & REG_ICASE) != 0);
}

static void release(struct nd_shape_re *x)
{
    regfree(&x->re);
    nd_shape_prefilter_release(x);
    free(x->src);
}

/* The runs read from src, joined by '|' ("" when none). */
static void expect_runs(const char *src, int flags, const char *want)
{
    struct nd_shape_re x;
    compile(&x, src, flags);
    char got[256] = "";
    for (size_t i = 0; i < x.nlit; i++) {
        if (i)
            strcat(got, "|");
        strcat(got, x.lit[i]);
    }
    if (strcmp(got, want) != 0)
        fail_msg("%s: runs '%s', expected '%s'", src, got, want);
    release(&x);
}

static void test_runs(void **state)
{
    (void)state;
    expect_runs("([0-9]+(\\.[0-9]+)?) ?it/s", 0, "it/s");
    expect_runs("[Ss]amples/sec[:= ]+ *([0-9]+)|ips: *([0-9]+) *(samples|img)", 0, "amples/sec|ips:");
    expect_runs("(^|[^_a-zA-Z])[Tt]ime: *([0-9]+(\\.[0-9]+)?)", 0, "ime:");
    expect_runs("elapsed time per iteration \\(ms\\): *([0-9]+)", 0, "elapsed time per iteration (ms):");
    expect_runs("abc+d", 0, "abc");    /* '+' keeps one c, then the run ends */
    expect_runs("xyab*c", 0, "xya");   /* b may be absent */
    expect_runs("abcd?e", 0, "abc");   /* so may d */
    expect_runs("ab{0}cde", 0, "cde"); /* and a b under an interval */
    expect_runs("ab+?cd", 0, "cd");    /* "+?" is optional in ERE */
    expect_runs("[]x]yz", 0, "yz");    /* ']' first in a class is a member */
    expect_runs("q[[:digit:]]rs", 0, "rs");
    expect_runs("NCCL INFO", REG_ICASE, "nccl info");
    expect_runs("\\<word\\>s", 0, "word"); /* \< \> are anchors, not characters */
    expect_runs("a.b", 0, "a");
    /* No prefilter: a branch without a run, or a pattern with none. */
    expect_runs("abc|", 0, "");
    expect_runs("(abc|def)", 0, "");
    expect_runs("[0-9]+", 0, "");
    expect_runs("\\w+", 0, "");
    expect_runs("caf\xc3\xa9", 0, "caf");
}

/* Soundness: every line a pattern matches passes the prefilter; and the
 * prefilter does reject some lines (else it would test nothing). */
static void test_never_rejects_a_match(void **state)
{
    (void)state;
    static const struct {
        const char *src;
        int flags;
    } pats[] = {
        {"([0-9]+(\\.[0-9]+)?) ?it/s", 0},
        {"[Tt]okens ?[Pp]er ?[Ss]ec(ond)?[^:=]{0,20}[:=] *([0-9]+)", 0},
        {"ab+?cd|x{1,2}yz", 0},
        {"^GPU[0-9]+ .* (PXB|PIX)( |$)", 0},
        {"\\| +(Alarm|Critical) +\\|", 0},
        {"Loading checkpoint shards: +[0-9]+%", 0},
        {"(^| |_)(all_?reduce|barrier)( |\\(|_|$)", REG_ICASE},
        {"[Hh][Cc][Cc][Ll]|nccl|ProcessGroup(NCCL|HCCL)", REG_ICASE},
        {"eta: .*(^|[^_a-zA-Z])time: *([0-9]+)", 0},
        {"\\bstep\\b time", 0},
    };
    static const char *lines[] = {
        "12.5it/s",
        "3 it/s]",
        "it/s",
        "Tokens per sec: 40",
        "tokens Per Second = 9",
        "abbcd",
        "acd",
        "xyz",
        "xxyz",
        "GPU0 X PIX",
        "GPU12 foo bar PXB more",
        "| 0 910B | Alarm |",
        "|   Critical   |",
        "Loading checkpoint shards:   50%",
        "call ALLREDUCE now",
        "x_barrier(",
        "libhccl.so",
        "NCCL init",
        "processgroupnccl",
        "eta: 0:01 time: 0.5",
        "ETA: 1 Time: 2",
        "step time 3",
        "a step time",
        "nothing here",
        "",
        "it /s",
        "abcd",
        "GPU X PIX",
    };
    size_t rejected = 0;
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
        struct nd_shape_re x;
        compile(&x, pats[i].src, pats[i].flags);
        for (size_t k = 0; k < sizeof lines / sizeof lines[0]; k++) {
            bool matches = regexec(&x.re, lines[k], 0, NULL, 0) == 0;
            bool may = nd_shape_prefilter_may_match(&x, lines[k]);
            if (matches && !may)
                fail_msg("%s: the prefilter rejects '%s', which it matches", pats[i].src, lines[k]);
            rejected += !may;
        }
        release(&x);
    }
    assert_true(rejected > 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs),
        cmocka_unit_test(test_never_rejects_a_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
