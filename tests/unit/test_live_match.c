/* Unit tests for the pieces that let `run` match every output line under a
 * flood: the block matcher (kb_block.c), the backlog that holds what waits
 * (backlog.c: pipes, memory, then file), the live context of the knowledge
 * base and the repeat cache (linecache.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/finding.h"
#include "kb/kb.h"
#include "monitor/backlog.h"
#include "monitor/linecache.h"

/* ---- block matching ---- */

struct seen {
    size_t n;
    size_t index[16];
    char text[16][160];
};

static void collect(void *arg, const char *line, size_t len, size_t index)
{
    struct seen *s = arg;
    if (s->n < 16) {
        s->index[s->n] = index;
        snprintf(s->text[s->n], sizeof s->text[s->n], "%.*s", (int)len, line);
    }
    s->n++;
}

static void test_block_lines(void **state)
{
    (void)state;
    struct nd_kb *kb = NULL;
    struct nd_error err = {0};
    assert_int_equal(nd_kb_load(&kb, NULL, 0, &err), 0);
    /* Line 1 and 4 match; line 4 matches two rules and several patterns but comes once;
     * the last line has no newline. */
    const char blk[] = "step 1 loss 2.0\n"
                       "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\n"
                       "step 2 loss 1.9\n"
                       "step 3 loss 1.8\n"
                       "torch.cuda.OutOfMemoryError: CUDA out of memory. NPU out of memory\n"
                       "RuntimeError: DataLoader worker (pid 7) is killed by signal: Bus error.";
    struct seen s = {0};
    assert_int_equal(nd_kb_block_lines(kb, blk, strlen(blk), collect, &s), 3);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.index[0], 1);
    assert_string_equal(s.text[0], "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB");
    assert_int_equal(s.index[1], 4);
    assert_int_equal(s.index[2], 5);
    assert_string_equal(s.text[2], "RuntimeError: DataLoader worker (pid 7) is killed by signal: Bus error.");
    /* A block with nothing in it costs one scan and no call. */
    struct seen none = {0};
    const char quiet[] = "a\nb\nc\n";
    assert_int_equal(nd_kb_block_lines(kb, quiet, strlen(quiet), collect, &none), 0);
    assert_int_equal(nd_kb_block_lines(kb, quiet, 0, collect, &none), 0);
    nd_kb_free(kb);
}

static void test_block_logical_lines(void **state)
{
    (void)state;
    struct nd_kb *kb = NULL;
    struct nd_error err = {0};
    assert_int_equal(nd_kb_load(&kb, NULL, 0, &err), 0);
    /* Prefixed lines, a traceback's frames, and a message continued on an
     * indented line: the message is one logical line, handed over with the
     * first physical line's prefix and index. */
    const char blk[] = "step 1 loss 2.0\n"
                       "[rank3]: Traceback (most recent call last):\n"
                       "[rank3]:   File \"/w/train.py\", line 8, in <module>\n"
                       "[rank3]:     loss = model(x)\n"
                       "[rank3]: RuntimeError: NPU out of\n"
                       "[rank3]:     memory. Tried to allocate 2.00 GiB\n"
                       "step 2 loss 1.9\n";
    struct seen s = {0};
    size_t called = nd_kb_block_lines(kb, blk, strlen(blk), collect, &s);
    assert_true(called >= 1);
    bool found = false;
    for (size_t i = 0; i < s.n && i < 16; i++)
        if (strcmp(s.text[i], "[rank3]: RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB") == 0) {
            assert_int_equal(s.index[i], 4);
            found = true;
        }
    assert_true(found);
    /* The matcher reads the rank from that prefix, as explain does. */
    struct nd_findings out = ND_FINDINGS_INIT;
    const char *joined = "[rank3]: RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB";
    assert_true(nd_kb_match_line(kb, joined, strlen(joined), "stderr", 5, &out) >= 1);
    assert_int_equal(out.v[0]->rank, 3);
    nd_findings_release(&out);
    nd_kb_free(kb);
}

/* ---- live context: `within` counts output lines ---- */

static bool has_id(const struct nd_findings *f, const char *id)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->v[i]->id, id) == 0)
            return true;
    return false;
}

/* The built-in rule ascend.aicpu-getnext-timeout requires a GetNext line
 * within 20 lines; the timeout line alone is the AI CPU task timeout. */
static bool timeout_is_getnext(struct nd_kb *kb, long getnext_at, long timeout_at)
{
    const char ctx[] = "E: op IteratorGetNext started";
    const char hit[] = "[ERROR] AI CPU operator execution timeout";
    struct nd_findings f = ND_FINDINGS_INIT;
    nd_kb_live_line(kb, getnext_at);
    nd_kb_match_line(kb, ctx, strlen(ctx), "stdout", getnext_at, &f);
    nd_findings_release(&f);
    nd_kb_live_line(kb, timeout_at);
    nd_kb_match_line(kb, hit, strlen(hit), "stdout", timeout_at, &f);
    bool getnext = has_id(&f, "ascend.aicpu-getnext-timeout");
    assert_true(getnext || has_id(&f, "ascend.aicpu-op-timeout"));
    nd_findings_release(&f);
    return getnext;
}

static void test_live_within_counts_output_lines(void **state)
{
    (void)state;
    struct nd_kb *kb = NULL;
    struct nd_error err = {0};
    assert_int_equal(nd_kb_load(&kb, NULL, 0, &err), 0);
    /* Two calls, but 31 output lines apart (the lines between matched nothing). */
    assert_false(timeout_is_getnext(kb, 1, 32));
    /* 10 lines apart: within 20. */
    assert_true(timeout_is_getnext(kb, 100, 110));
    /* The context line's keys, for a repeat answered from the cache; the
     * timeout line's result depends on earlier lines. */
    const char ctx[] = "E: op IteratorGetNext started";
    const char hit[] = "[ERROR] AI CPU operator execution timeout";
    struct nd_findings f = ND_FINDINGS_INIT;
    unsigned keys[16];
    bool depends = true;
    nd_kb_live_line(kb, 500);
    nd_kb_match_line(kb, ctx, strlen(ctx), "stdout", 500, &f);
    int nkeys = nd_kb_live_keys(kb, keys, 16, &depends);
    assert_true(nkeys >= 1);
    assert_false(depends);
    nd_kb_live_line(kb, 505);
    nd_kb_match_line(kb, hit, strlen(hit), "stdout", 505, &f);
    unsigned k2[16];
    nd_kb_live_keys(kb, k2, 16, &depends);
    assert_true(depends);
    nd_findings_release(&f);
    /* A repeat of the context line 1000 lines later, answered from the cache:
     * touching its keys makes the timeout 5 lines after it the GetNext form. */
    nd_kb_live_line(kb, 1500);
    nd_kb_live_touch(kb, keys, (size_t)nkeys);
    nd_kb_live_line(kb, 1505);
    nd_kb_match_line(kb, hit, strlen(hit), "stdout", 1505, &f);
    assert_true(has_id(&f, "ascend.aicpu-getnext-timeout"));
    nd_findings_release(&f);
    /* Untouched, the same distance from the last context (line 1500) past 20: generic. */
    nd_kb_live_line(kb, 1600);
    nd_kb_match_line(kb, hit, strlen(hit), "stdout", 1600, &f);
    assert_false(has_id(&f, "ascend.aicpu-getnext-timeout"));
    nd_findings_release(&f);
    nd_kb_free(kb);
}

/* ---- backlog ---- */

static void push_n(struct nd_backlog *b, int from, int to)
{
    for (int i = from; i < to; i++) {
        char line[64];
        int n = snprintf(line, sizeof line, "line %06d of the flood\n", i);
        assert_int_equal(nd_backlog_push(b, 1 + i % 2, i, i * 0.5, (unsigned)i & 1u, line, (size_t)n), 0);
    }
}

static void expect_n(struct nd_backlog *b, int from, int to)
{
    struct nd_backlog_block blk;
    for (int i = from; i < to; i++) {
        char line[64];
        int n = snprintf(line, sizeof line, "line %06d of the flood\n", i);
        assert_true(nd_backlog_peek(b, &blk));
        assert_int_equal(blk.stream, 1 + i % 2);
        assert_int_equal(blk.first_lineno, i);
        assert_int_equal(blk.flags, (unsigned)i & 1u);
        assert_true(blk.at_s == i * 0.5);
        assert_int_equal(blk.len, (size_t)n);
        assert_memory_equal(blk.data, line, (size_t)n);
        nd_backlog_pop(b);
    }
}

static void test_backlog_order_and_spill(void **state)
{
    (void)state;
    /* 1 KiB of memory: most of 2000 blocks go to the file, in order. */
    struct nd_backlog *b = nd_backlog_new(1024);
    assert_true(nd_backlog_empty(b));
    push_n(b, 0, 2000);
    assert_true(nd_backlog_spilled_bytes(b) > 40000);
    assert_int_equal(nd_backlog_dropped_bytes(b), 0);
    uint64_t held = nd_backlog_bytes(b);
    assert_int_equal(nd_backlog_peak_bytes(b), held);
    /* Half out, more in (memory is reused once its blocks are gone), the rest out. */
    expect_n(b, 0, 1000);
    push_n(b, 2000, 2100);
    expect_n(b, 1000, 2100);
    assert_true(nd_backlog_empty(b));
    assert_int_equal(nd_backlog_bytes(b), 0);
    struct nd_backlog_block blk;
    assert_false(nd_backlog_peek(b, &blk));
    /* Empty again: both stores start over. */
    push_n(b, 0, 10);
    expect_n(b, 0, 10);
    nd_backlog_free(b);
}

static void test_backlog_tail_in_place(void **state)
{
    (void)state;
    struct nd_backlog *b = nd_backlog_new(8192);
    size_t cap = 0;
    char *t = nd_backlog_tail(b, 4096, &cap);
    assert_non_null(t);
    assert_int_equal(cap, 4096);
    /* Written in the tail and pushed from there: held where it is. */
    memcpy(t, "first block\n", 12);
    assert_int_equal(nd_backlog_push(b, 1, 1, 0, 0, t, 12), 0);
    /* The next tail lies past it; a copy pushed meanwhile goes after it too. */
    char *t2 = nd_backlog_tail(b, 1 << 20, &cap);
    assert_true(t2 >= t + 12);
    assert_int_equal(cap, 8192 - (size_t)(t2 - t));
    assert_int_equal(nd_backlog_push(b, 2, 1, 0, 0, "copied\n", 7), 0);
    t2 = nd_backlog_tail(b, 1 << 20, &cap);
    memset(t2, 'x', cap - 1);
    t2[cap - 1] = '\n';
    assert_int_equal(nd_backlog_push(b, 1, 2, 0, 0, t2, cap), 0);
    /* Memory is full: no tail, and the next block goes to the file. */
    assert_null(nd_backlog_tail(b, 4096, &cap));
    assert_int_equal(cap, 0);
    assert_int_equal(nd_backlog_spilled_bytes(b), 0);
    assert_int_equal(nd_backlog_push(b, 1, 3, 0, 0, "spilled\n", 8), 0);
    assert_int_equal(nd_backlog_spilled_bytes(b), 8);
    struct nd_backlog_block blk;
    assert_true(nd_backlog_peek(b, &blk));
    assert_ptr_equal(blk.data, t);
    assert_memory_equal(blk.data, "first block\n", 12);
    nd_backlog_pop(b);
    assert_true(nd_backlog_peek(b, &blk));
    assert_int_equal(blk.stream, 2);
    assert_memory_equal(blk.data, "copied\n", 7);
    nd_backlog_pop(b);
    assert_true(nd_backlog_peek(b, &blk));
    assert_int_equal(blk.first_lineno, 2);
    assert_true(blk.data[0] == 'x' && blk.data[blk.len - 1] == '\n');
    nd_backlog_pop(b);
    assert_true(nd_backlog_peek(b, &blk));
    assert_memory_equal(blk.data, "spilled\n", 8);
    nd_backlog_pop(b);
    assert_true(nd_backlog_empty(b));
    /* Empty again: the tail starts over at the beginning. */
    assert_ptr_equal(nd_backlog_tail(b, 4096, &cap), t);
    nd_backlog_free(b);
}

/* Writes text into the pipe, holds what waits there, reads it as the
 * supervisor does; returns how many bytes were held. */
static size_t hold_and_read(struct nd_backlog *b, int p[2], const char *text)
{
    size_t n = strlen(text);
    assert_int_equal(write(p[1], text, n), (ssize_t)n);
    size_t held = nd_backlog_hold(b, p[0], 1 << 20);
    char buf[256];
    assert_int_equal(read(p[0], buf, sizeof buf), (ssize_t)n);
    assert_memory_equal(buf, text, n);
    return held;
}

static void test_backlog_held_in_pipes(void **state)
{
    (void)state;
    struct nd_backlog *b = nd_backlog_new(1 << 20);
    int p[2];
    assert_int_equal(pipe(p), 0);
    /* Read 1: two lines and the start of a third. */
    assert_int_equal(hold_and_read(b, p, "line1\nline2\npart"), 16);
    assert_int_equal(nd_backlog_push_held(b, 1, 1, 0.5, 0, "line1\nline2\n", 12, 0, 16), 0);
    /* Read 2: the rest of it (the block starts with the 4 bytes kept) and one more. */
    assert_int_equal(hold_and_read(b, p, "ial\nnext\n"), 9);
    assert_int_equal(nd_backlog_push_held(b, 1, 3, 1.0, 1, "partial\nnext\n", 13, 4, 9), 0);
    /* Read 3 ends no line: nothing to match, its bytes are skipped. */
    assert_int_equal(hold_and_read(b, p, "no newline"), 10);
    assert_int_equal(nd_backlog_push_held(b, 2, 1, 1.5, 0, "", 0, 0, 10), 0);
    assert_int_equal(nd_backlog_push(b, 2, 1, 2.0, 0, "copied\n", 7), 0);
    struct nd_backlog_block blk;
    assert_true(nd_backlog_peek(b, &blk));
    assert_int_equal(blk.len, 12);
    assert_memory_equal(blk.data, "line1\nline2\n", 12);
    assert_true(nd_backlog_peek(b, &blk)); /* again: the same block, not the next bytes */
    assert_memory_equal(blk.data, "line1\nline2\n", 12);
    nd_backlog_pop(b);
    assert_true(nd_backlog_peek(b, &blk));
    assert_int_equal(blk.first_lineno, 3);
    assert_int_equal(blk.flags, 1);
    assert_int_equal(blk.len, 13);
    assert_memory_equal(blk.data, "partial\nnext\n", 13);
    nd_backlog_pop(b);
    assert_true(nd_backlog_peek(b, &blk));
    assert_true(blk.at_s == 2.0);
    assert_memory_equal(blk.data, "copied\n", 7);
    nd_backlog_pop(b);
    assert_true(nd_backlog_empty(b));
    assert_int_equal(nd_backlog_dropped_bytes(b), 0);
    /* A block popped unread still takes its held bytes along. */
    assert_int_equal(hold_and_read(b, p, "skipped\n"), 8);
    assert_int_equal(nd_backlog_push_held(b, 1, 5, 3.0, 0, "skipped\n", 8, 0, 8), 0);
    assert_int_equal(hold_and_read(b, p, "kept\n"), 5);
    assert_int_equal(nd_backlog_push_held(b, 1, 6, 3.0, 0, "kept\n", 5, 0, 5), 0);
    nd_backlog_pop(b);
    assert_true(nd_backlog_peek(b, &blk));
    assert_memory_equal(blk.data, "kept\n", 5);
    nd_backlog_pop(b);
    close(p[0]);
    close(p[1]);
    /* Not a pipe: nothing is held (the caller copies). */
    FILE *f = tmpfile();
    assert_non_null(f);
    fputs("a file\n", f);
    fflush(f);
    rewind(f);
    assert_int_equal(nd_backlog_hold(b, fileno(f), 4096), 0);
    fclose(f);
    nd_backlog_free(b);
}

static void test_backlog_no_tmpdir(void **state)
{
    (void)state;
    /* No file can be made: what memory cannot hold is dropped and counted, never lost silently. */
    const char *old = getenv("TMPDIR");
    char *keep = old ? strdup(old) : NULL;
    setenv("TMPDIR", "/nonexistent/npu-doctor-test", 1);
    struct nd_backlog *b = nd_backlog_new(64);
    assert_int_equal(nd_backlog_push(b, 1, 1, 0, 0, "0123456789012345678901234567890\n", 32), 0);
    assert_true(nd_backlog_push(b, 1, 2, 0, 0, "0123456789012345678901234567890123456789012345678901234567890\n", 62) < 0);
    assert_int_equal(nd_backlog_dropped_bytes(b), 62);
    struct nd_backlog_block blk;
    assert_true(nd_backlog_peek(b, &blk));
    assert_int_equal(blk.first_lineno, 1);
    nd_backlog_pop(b);
    assert_true(nd_backlog_empty(b));
    nd_backlog_free(b);
    if (keep) {
        setenv("TMPDIR", keep, 1);
        free(keep);
    } else {
        unsetenv("TMPDIR");
    }
}

/* ---- repeat cache ---- */

static void test_linecache(void **state)
{
    (void)state;
    struct nd_linecache *c = nd_linecache_new(16);
    const char *a = "Warning: Device do not support double dtype now, dtype cast repalce with float.";
    assert_null(nd_linecache_get(c, a, strlen(a)));
    const char *ids[] = {"ascend.double-dtype", "other.rule"};
    nd_linecache_put(c, a, strlen(a), ids, 2, NULL, 0, 5u);
    const struct nd_linecache_entry *e = nd_linecache_get(c, a, strlen(a));
    assert_non_null(e);
    assert_int_equal(e->nids, 2);
    assert_string_equal(e->ids[0], "ascend.double-dtype");
    assert_string_equal(e->ids[1], "other.rule");
    assert_int_equal(e->flags, 5u);
    /* The text decides, not a prefix or the length alone. */
    assert_null(nd_linecache_get(c, a, strlen(a) - 1));
    char b[128];
    snprintf(b, sizeof b, "%s", a);
    b[3] = 'N';
    assert_null(nd_linecache_get(c, b, strlen(b)));
    /* A line that produced nothing is remembered as such. */
    nd_linecache_put(c, "step 1", 6, NULL, 0, NULL, 0, 0);
    e = nd_linecache_get(c, "step 1", 6);
    assert_non_null(e);
    assert_int_equal(e->nids, 0);
    assert_int_equal(nd_linecache_hits(c), 2);
    /* Over-long lines and too many ids are not kept. */
    char *big = malloc(ND_LINECACHE_TEXT_MAX + 1);
    memset(big, 'x', ND_LINECACHE_TEXT_MAX + 1);
    nd_linecache_put(c, big, ND_LINECACHE_TEXT_MAX + 1, ids, 1, NULL, 0, 0);
    assert_null(nd_linecache_get(c, big, ND_LINECACHE_TEXT_MAX + 1));
    free(big);
    const char *many[ND_LINECACHE_IDS + 1];
    for (size_t i = 0; i <= ND_LINECACHE_IDS; i++)
        many[i] = "x";
    nd_linecache_put(c, "many", 4, many, ND_LINECACHE_IDS + 1, NULL, 0, 0);
    assert_null(nd_linecache_get(c, "many", 4));
    /* Many distinct lines: each either answers with its own ids or not at all. */
    for (int i = 0; i < 1000; i++) {
        char l[32], id[32];
        snprintf(l, sizeof l, "line %d", i);
        snprintf(id, sizeof id, "id.%d", i);
        const char *one[] = {id};
        nd_linecache_put(c, l, strlen(l), one, 1, NULL, 0, 0);
    }
    for (int i = 0; i < 1000; i++) {
        char l[32], id[32];
        snprintf(l, sizeof l, "line %d", i);
        snprintf(id, sizeof id, "id.%d", i);
        e = nd_linecache_get(c, l, strlen(l));
        if (e)
            assert_string_equal(e->ids[0], id);
    }
    nd_linecache_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_lines),
        cmocka_unit_test(test_block_logical_lines),
        cmocka_unit_test(test_live_within_counts_output_lines),
        cmocka_unit_test(test_backlog_order_and_spill),
        cmocka_unit_test(test_backlog_tail_in_place),
        cmocka_unit_test(test_backlog_held_in_pipes),
        cmocka_unit_test(test_backlog_no_tmpdir),
        cmocka_unit_test(test_linecache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
