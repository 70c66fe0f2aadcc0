/* Unit tests for the fallback classifier (kb_classify.c): how it splits
 * words, how `word` (prefix) and `token` (whole word) entries count, that
 * nothing known means config, and that the sorted lookup finds what a plain
 * scan of the vocabulary finds. */
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

static const char *base_rules = "[t.known]\ncategory = device-oom\npattern = HBMGONE\ntitle = t\nfix = f\n"
                                "example = HBMGONE\n";

static struct nd_kb *kb_with(const char *vocab)
{
    char *text = nd_xasprintf("%s%s", base_rules, vocab);
    struct nd_kb *kb = nd_test_kb(text);
    free(text);
    return kb;
}

static const char *classify(const struct nd_kb *kb, const char *text, int *score)
{
    return nd_kb_fb_classify(&kb->rules, text, score);
}

static void test_no_words_is_config(void **state)
{
    (void)state;
    struct nd_kb *kb = kb_with("[vocab.device-oom]\nword = 3 memory\n[vocab.numerics]\ntoken = 5 nan\n");
    int score = -1;
    assert_string_equal(classify(kb, "ValueError: the answer was 42 at 0x7f3a", &score), "config");
    assert_int_equal(score, 0);
    /* Through explain: the unexplained line is a low-confidence config. */
    struct nd_kb_scan *s = nd_kb_scan_new(kb);
    const char *log = "step 1\nValueError: the answer was 42\n";
    assert_int_equal(nd_kb_scan_buffer(s, "a.log", log, strlen(log)), 0);
    struct nd_findings out = ND_FINDINGS_INIT;
    nd_kb_scan_finish(s, &out, false);
    nd_kb_scan_free(s);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->id, "generic.unexplained-error");
    assert_string_equal(out.v[0]->category, "config");
    assert_int_equal(out.v[0]->confidence, ND_CONF_LOW);
    assert_non_null(strstr(out.v[0]->cause, "do not point to a known cause"));
    nd_findings_release(&out);
    nd_kb_free(kb);
}

static void test_learned_outranks_weak_hand_word(void **state)
{
    (void)state;
    struct nd_kb *kb = kb_with("[vocab.numerics]\nword = 1 tensor\n"
                               "[vocab.unsupported-op]\ntoken = 4 nonzero\n");
    int score = 0;
    const char *line = "RuntimeError: nonzero is not available for this tensor";
    assert_string_equal(classify(kb, line, &score), "unsupported-op");
    assert_int_equal(score, 4);
    /* Without the learned word, the weak hand word decides. */
    nd_kb_free(kb);
    kb = kb_with("[vocab.numerics]\nword = 1 tensor\n");
    assert_string_equal(classify(kb, line, &score), "numerics");
    assert_int_equal(score, 1);
    nd_kb_free(kb);
}

static void test_token_is_whole_word_word_is_prefix(void **state)
{
    (void)state;
    struct nd_kb *kb = kb_with("[vocab.host-oom]\ntoken = 5 alloc\n[vocab.device-oom]\nword = 2 alloc\n");
    int score = 0;
    /* "allocation" begins with alloc: only the prefix entry counts. */
    assert_string_equal(classify(kb, "allocation refused", &score), "device-oom");
    assert_int_equal(score, 2);
    /* The word itself: both count, the larger sum wins. */
    assert_string_equal(classify(kb, "alloc refused", &score), "host-oom");
    assert_int_equal(score, 5);
    nd_kb_free(kb);
}

static void test_parts_of_words(void **state)
{
    (void)state;
    struct nd_kb *kb = kb_with("[vocab.unsupported-op]\ntoken = 3 implemented\n"
                               "[vocab.distributed]\ntoken = 2 http\n"
                               "[vocab.env-not-loaded]\ntoken = 4 env\n"
                               "[vocab.device-fault]\ntoken = 3 err\n");
    int score = 0;
    /* CamelCase: NotImplementedError gives not, implemented, error. */
    assert_string_equal(classify(kb, "NotImplementedError: aten::foo", &score), "unsupported-op");
    assert_int_equal(score, 3);
    /* A capital run before a word: HTTPError gives http and error. */
    assert_string_equal(classify(kb, "HTTPError: 503", &score), "distributed");
    /* snake_case: set_env gives set and env. */
    assert_string_equal(classify(kb, "please run set_env first", &score), "env-not-loaded");
    /* A code: ERR01002 gives err; the digits are no word. */
    assert_string_equal(classify(kb, "failed with ERR01002", &score), "device-fault");
    assert_int_equal(score, 3);
    /* A word that does not split is not looked at in pieces. */
    assert_string_equal(classify(kb, "unimplementedness", &score), "config");
    assert_int_equal(score, 0);
    nd_kb_free(kb);
}

static void test_run_specific_tokens_dropped(void **state)
{
    (void)state;
    /* Numbers, hex and mostly-digit codes are not words, even when a
     * vocabulary lists them. */
    struct nd_kb *kb = kb_with("[vocab.numerics]\ntoken = 9 507015 0x7f deadbeef12345 fp16\n");
    int score = 0;
    assert_string_equal(classify(kb, "code 507015 at 0x7f in deadbeef12345", &score), "config");
    assert_int_equal(score, 0);
    /* A word with a digit or two is a word (a dtype). */
    assert_string_equal(classify(kb, "fp16 overflowed", &score), "numerics");
    nd_kb_free(kb);
}

static void test_rank_prefix_is_not_read(void **state)
{
    (void)state;
    /* A launcher's [rank3]: tag is stripped before the line is classified:
     * it says which rank printed the line, not what failed. */
    struct nd_kb *kb = kb_with("[vocab.distributed]\nword = 9 rank\n[vocab.input-bound]\ntoken = 2 dataset\n");
    struct nd_kb_scan *s = nd_kb_scan_new(kb);
    const char *log = "[rank3]: ValueError: dataset shard is empty\n";
    assert_int_equal(nd_kb_scan_buffer(s, "a.log", log, strlen(log)), 0);
    struct nd_findings out = ND_FINDINGS_INIT;
    nd_kb_scan_finish(s, &out, false);
    nd_kb_scan_free(s);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->id, "generic.unexplained-error");
    assert_string_equal(out.v[0]->category, "input-bound");
    nd_findings_release(&out);
    nd_kb_free(kb);
}

static void test_prior_of_config(void **state)
{
    (void)state;
    struct nd_kb *kb = kb_with("[vocab.config]\nprior = 5\nword = 1 option\n"
                               "[vocab.numerics]\ntoken = 2 nan loss\n");
    int score = -1;
    /* Two numerics words (4) do not displace config's prior (5)... */
    assert_string_equal(classify(kb, "nan loss", &score), "config");
    assert_int_equal(score, 0);
    /* ...three (6) do; the score is that of the words. */
    assert_string_equal(classify(kb, "nan loss nan", &score), "numerics");
    assert_int_equal(score, 6);
    /* Config's own words add to its prior; the score says only them. */
    assert_string_equal(classify(kb, "nan loss nan option options", &score), "config");
    assert_int_equal(score, 2);
    nd_kb_free(kb);
}

static void test_ties_go_by_category_order(void **state)
{
    (void)state;
    struct nd_kb *kb = kb_with("[vocab.numerics]\ntoken = 2 alpha\n[vocab.version-mismatch]\ntoken = 2 beta\n");
    int score = 0;
    /* version-mismatch comes before numerics in the list of categories,
     * whichever word comes first in the line. */
    assert_string_equal(classify(kb, "alpha beta", &score), "version-mismatch");
    assert_string_equal(classify(kb, "beta alpha", &score), "version-mismatch");
    nd_kb_free(kb);
}

static void test_ties_go_to_hand_words(void **state)
{
    (void)state;
    struct nd_kb *kb = kb_with("[vocab.numerics]\ntoken = 2 alpha\n[vocab.version-mismatch]\ntoken = 2 beta\n"
                               "[vocab.device-fault]\nword = 1 stre\ntoken = 1 gamma\n"
                               "[vocab.config]\nprior = 1\n");
    int score = 0;
    /* Two learned words (version-mismatch, first in the design order)
     * against a hand word and a learned one of the same sum: the hand word
     * breaks the tie. */
    assert_string_equal(classify(kb, "beta stream gamma", &score), "device-fault");
    assert_int_equal(score, 2);
    assert_string_equal(classify(kb, "gamma beta stream", &score), "device-fault");
    /* Learned words alone: the design order. */
    assert_string_equal(classify(kb, "alpha beta", &score), "version-mismatch");
    /* Config, the default, is displaced only by a larger sum, hand words
     * or not. */
    assert_string_equal(classify(kb, "stream", &score), "config");
    assert_int_equal(score, 0);
    nd_kb_free(kb);
}

static void test_chinese_words_count_as_substrings(void **state)
{
    (void)state;
    struct nd_kb *kb = kb_with("[vocab.unsupported-op]\nword = 3 不支持\nword = 2 算子\n"
                               "[vocab.device-oom]\nword = 3 显存\n[vocab.config]\nprior = 4\nword = 2 配置\n");
    int score = 0;
    /* No spaces between the words: each counts where it occurs, once per
     * occurrence, with the English words of the line. */
    assert_string_equal(classify(kb, "RuntimeError: 当前算子不支持该数据类型", &score), "unsupported-op");
    assert_int_equal(score, 5);
    assert_string_equal(classify(kb, "显存不足 显存", &score), "device-oom");
    assert_int_equal(score, 6);
    /* One word is not enough to displace config's prior. */
    assert_string_equal(classify(kb, "申请显存失败", &score), "config");
    /* Frames count half and never for config. */
    assert_string_equal(nd_kb_fb_classify_frames(&kb->rules, "FooError: x", "显存 显存 显存 配置", &score),
                        "device-oom");
    nd_kb_free(kb);
}

/* A plain scan of the vocabulary, as the classifier once did it. */
static void naive(const struct nd_kb_ruleset *set, const char *tok, int *sums, int *hand, const char *const *cats,
                  size_t ncat)
{
    size_t n = strlen(tok);
    for (size_t i = 0; i < set->vocab_word.n; i++) {
        const char *v = set->vocab_word.v[i];
        size_t vn = strlen(v);
        if (vn > n || strncmp(tok, v, vn) != 0 || (set->vocab_whole[i] && vn != n))
            continue;
        for (size_t c = 0; c < ncat; c++)
            if (strcmp(cats[c], set->vocab_cat.v[i]) == 0) {
                sums[c] += set->vocab_weight[i];
                if (!set->vocab_whole[i])
                    hand[c] += set->vocab_weight[i];
            }
    }
}

static void test_sorted_lookup_matches_plain_scan(void **state)
{
    (void)state;
    static const char *const cats[] = {"device-oom", "numerics", "distributed"};
    /* 2,000 entries over a small alphabet, so that many are prefixes of one
     * another and share words across categories. */
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    unsigned seed = 12345;
    for (size_t c = 0; c < 3; c++) {
        nd_strbuf_addf(&sb, "[vocab.%s]\n", cats[c]);
        for (int line = 0; line < 67; line++) {
            seed = seed * 1103515245u + 12345u;
            nd_strbuf_addf(&sb, "%s = %u", (seed >> 16) % 2 ? "word" : "token", 1 + (seed >> 20) % 9);
            for (int k = 0; k < 10; k++) {
                char w[8];
                seed = seed * 1103515245u + 12345u;
                size_t len = 2 + (seed >> 16) % 4;
                for (size_t j = 0; j < len; j++) {
                    seed = seed * 1103515245u + 12345u;
                    w[j] = (char)('a' + (seed >> 16) % 3);
                }
                w[len] = '\0';
                nd_strbuf_addf(&sb, " %s", w);
            }
            nd_strbuf_addc(&sb, '\n');
        }
    }
    struct nd_kb *kb = kb_with(sb.buf);
    nd_strbuf_release(&sb);
    assert_true(kb->rules.vocab_word.n >= 2000);
    for (int trial = 0; trial < 300; trial++) {
        char tok[12];
        seed = seed * 1103515245u + 12345u;
        size_t len = 2 + (seed >> 16) % 8;
        for (size_t j = 0; j < len; j++) {
            seed = seed * 1103515245u + 12345u;
            tok[j] = (char)('a' + (seed >> 16) % 3);
        }
        tok[len] = '\0';
        int sums[3] = {0, 0, 0}, hand[3] = {0, 0, 0};
        naive(&kb->rules, tok, sums, hand, cats, 3);
        /* The design order of these three: device-oom, distributed, numerics. */
        static const size_t order[] = {0, 2, 1};
        const char *want = "config";
        int best = 0, best_h = 0;
        for (size_t o = 0; o < 3; o++) {
            int w = sums[order[o]], h = hand[order[o]];
            if (w > best || (w == best && best > 0 && h > best_h)) {
                best = w;
                best_h = h;
                want = cats[order[o]];
            }
        }
        int score = -1;
        const char *got = classify(kb, tok, &score);
        assert_string_equal(got, want);
        assert_int_equal(score, best);
    }
    nd_kb_free(kb);
}

static void test_vocab_keys_parse(void **state)
{
    (void)state;
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    const char *text = "[vocab.numerics]\ntoken = 3 nan inf\nword = 2 overflow\nwords = 1 x\ntoken = 0 y\n"
                       "[vocab.nonsense]\ntoken = 1 z\n[vocab.config]\nprior = 7\nprior = 100\n";
    nd_kb_parse_rules(&set, "v.rules", text, strlen(text), false, &problems);
    assert_int_equal(set.vocab_word.n, 4);
    assert_true(set.vocab_whole[0]);
    assert_true(set.vocab_whole[1]);
    assert_false(set.vocab_whole[2]);
    /* A prior is an entry without a word. */
    assert_string_equal(set.vocab_word.v[3], "");
    assert_int_equal(set.vocab_weight[3], 7);
    assert_int_equal(problems.n, 4);
    assert_non_null(strstr(problems.v[0], "only 'word', 'token' and 'prior'"));
    assert_non_null(strstr(problems.v[1], "token must be 'WEIGHT(1-9) WORD...'"));
    assert_non_null(strstr(problems.v[2], "not a known category"));
    assert_non_null(strstr(problems.v[3], "prior must be a number from 0 to 99"));
    nd_strv_release(&problems);
    nd_kb_ruleset_release(&set);
}

/* Frame words count half: two frame words of weight 1 tie one exception
 * word of weight 1, and the path is split into its parts. */
static void test_frames_count_half(void **state)
{
    (void)state;
    struct nd_kb *kb = kb_with("[vocab.device-oom]\nword = 1 memory\n[vocab.numerics]\ntoken = 1 nan\n"
                               "[vocab.config]\nword = 5 config\n");
    int score = -1;
    /* One frame word alone: half a weight, reported as 1. */
    assert_string_equal(nd_kb_fb_classify_frames(&kb->rules, "FooError: x", "torch_npu/npu/memory", &score),
                        "device-oom");
    assert_int_equal(score, 1);
    /* One frame word against one exception word: the exception wins. */
    assert_string_equal(nd_kb_fb_classify_frames(&kb->rules, "FooError: nan", "npu/memory", &score), "numerics");
    assert_int_equal(score, 1);
    /* Three frame words outweigh one exception word. */
    assert_string_equal(nd_kb_fb_classify_frames(&kb->rules, "FooError: nan", "memory\nnpu/memory free_memory", &score),
                        "device-oom");
    assert_int_equal(score, 2);
    /* Frames never vote for the config default. */
    assert_string_equal(nd_kb_fb_classify_frames(&kb->rules, "FooError: x", "load_config config", &score), "config");
    assert_int_equal(score, 0);
    /* NULL frames: the plain classifier. */
    assert_string_equal(nd_kb_fb_classify_frames(&kb->rules, "FooError: nan", NULL, &score), "numerics");
    assert_int_equal(score, 1);
    nd_kb_free(kb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_words_is_config),
        cmocka_unit_test(test_learned_outranks_weak_hand_word),
        cmocka_unit_test(test_token_is_whole_word_word_is_prefix),
        cmocka_unit_test(test_parts_of_words),
        cmocka_unit_test(test_run_specific_tokens_dropped),
        cmocka_unit_test(test_rank_prefix_is_not_read),
        cmocka_unit_test(test_prior_of_config),
        cmocka_unit_test(test_ties_go_by_category_order),
        cmocka_unit_test(test_ties_go_to_hand_words),
        cmocka_unit_test(test_chinese_words_count_as_substrings),
        cmocka_unit_test(test_sorted_lookup_matches_plain_scan),
        cmocka_unit_test(test_vocab_keys_parse),
        cmocka_unit_test(test_frames_count_half),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
