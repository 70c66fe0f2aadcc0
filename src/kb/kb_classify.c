/* The fallback classifier: names the likeliest category of a failure no rule
 * knows from the words of its lines. The vocabulary is rule data: the hand
 * words of rules/classifier.rules (`word`: also the words an entry begins)
 * and the whole words learned from the rules' own examples
 * (rules/classifier-learned.rules, `token`). scripts/dev/learn-vocab.py
 * tokenises exactly as nd_kb_fb_tokens does; keep the two in step. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "kb/kb_internal.h"

/* Design order: it breaks ties, so a score never depends on which word of a
 * line came first. */
static const char *const nd_fb_cats[] = {
    ND_CAT_ENV_NOT_LOADED, ND_CAT_VERSION_MISMATCH, ND_CAT_NO_DEVICE,   ND_CAT_UNSUPPORTED_OP,
    ND_CAT_DEVICE_OOM,     ND_CAT_HOST_OOM,         ND_CAT_DISTRIBUTED, ND_CAT_NUMERICS,
    ND_CAT_DEVICE_FAULT,   ND_CAT_CPU_FALLBACK,     ND_CAT_INPUT_BOUND, ND_CAT_HANG,
    ND_CAT_CONFIG,
};
#define ND_FB_NCAT (sizeof nd_fb_cats / sizeof nd_fb_cats[0])
#define ND_FB_TOK 64

/* One vocabulary entry, in an array sorted by word for binary search. */
struct nd_fb_entry {
    const char *word;
    size_t len;
    unsigned cat;
    int weight;
    bool whole;
};

struct nd_fb_index {
    struct nd_fb_entry *v;
    size_t n;
    struct nd_fb_entry *sub; /* words with a byte past ASCII: looked for as substrings */
    size_t nsub;
    unsigned long long prefix_lens; /* bit L: a `word` entry of length L exists */
    int mult;                       /* half-weights per weight of the text being read */
    bool frames;                    /* reading traceback frames */
    int sums[ND_FB_NCAT];           /* in half-weights */
    int hand[ND_FB_NCAT];           /* the part of sums that `word` entries gave */
};

static int nd_fb_cmp(const void *a, const void *b)
{
    const struct nd_fb_entry *x = a, *y = b;
    int c = strcmp(x->word, y->word);
    return c ? c : (x->cat > y->cat) - (x->cat < y->cat);
}

/* The first entry whose word is >= key (length n, not NUL-terminated). */
static size_t nd_fb_lower(const struct nd_fb_index *ix, const char *key, size_t n)
{
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct nd_fb_entry *e = &ix->v[mid];
        int c = strncmp(e->word, key, n);
        if (c < 0 || (c == 0 && e->len < n))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Adds the weights of the entries whose word is key[0..n); a proper prefix
 * of the token (n < toklen) counts only for `word` entries. */
static void nd_fb_add(struct nd_fb_index *ix, const char *key, size_t n, bool whole_token)
{
    for (size_t i = nd_fb_lower(ix, key, n); i < ix->n; i++) {
        const struct nd_fb_entry *e = &ix->v[i];
        if (e->len != n || strncmp(e->word, key, n) != 0)
            break;
        if ((whole_token || !e->whole) && !(ix->frames && e->cat == ND_FB_NCAT - 1)) {
            ix->sums[e->cat] += e->weight * ix->mult;
            if (!e->whole)
                ix->hand[e->cat] += e->weight * ix->mult;
        }
    }
}

static void nd_fb_lookup(struct nd_fb_index *ix, const char *tok, size_t n)
{
    nd_fb_add(ix, tok, n, true);
    for (size_t l = 1; l < n && l < 64; l++)
        if (ix->prefix_lens & (1ull << l))
            nd_fb_add(ix, tok, l, false);
}

/* Numbers, hex and codes that are mostly digits differ between runs. */
static bool nd_fb_keep(const char *t, size_t n)
{
    if (n < 2 || n >= ND_FB_TOK)
        return false;
    size_t digits = 0, unders = 0;
    for (size_t i = 0; i < n; i++) {
        digits += isdigit((unsigned char)t[i]) != 0;
        unders += t[i] == '_';
    }
    if (!digits)
        return true;
    if (n - digits - unders < 2 || digits > 2)
        return false;
    return !(t[0] == '0' && t[1] == 'x');
}

static void nd_fb_emit(struct nd_fb_index *ix, const char *w, size_t n, bool check)
{
    char tok[ND_FB_TOK];
    for (size_t i = 0; i < n; i++)
        tok[i] = (char)tolower((unsigned char)w[i]);
    tok[n] = '\0';
    if (check && !nd_fb_keep(tok, n))
        return;
    nd_fb_lookup(ix, tok, n);
}

/* Where a raw token splits into parts: CamelCase (NotImplementedError),
 * a capital run before a word (HTTPError), letters and digits (ERR01002),
 * and '_' (set_env). */
static bool nd_fb_break(const char *w, size_t i, size_t n)
{
    unsigned char p = (unsigned char)w[i - 1], c = (unsigned char)w[i];
    unsigned char nx = i + 1 < n ? (unsigned char)w[i + 1] : 0;
    if (islower(p) && isupper(c))
        return true;
    if ((isalpha(p) != 0) != (isalpha(c) != 0))
        return true;
    return isupper(p) && isupper(c) && nx && islower(nx);
}

/* Each raw token (a letter or digit, then letters, digits, '_'), and, when
 * it splits, each of its alphabetic parts of two letters or more. */
static void nd_fb_tokens(struct nd_fb_index *ix, const char *text)
{
    for (const char *p = text; *p;) {
        while (*p && !isalnum((unsigned char)*p))
            p++;
        const char *w = p;
        while (*p && (isalnum((unsigned char)*p) || *p == '_'))
            p++;
        size_t n = (size_t)(p - w);
        if (n == 0 || n >= ND_FB_TOK)
            continue;
        nd_fb_emit(ix, w, n, true);
        /* The parts: only when there are two or more. */
        size_t start = 0, nparts = 0;
        size_t ps[ND_FB_TOK], pe[ND_FB_TOK];
        for (size_t i = 0; i <= n; i++) {
            bool end = i == n || w[i] == '_' || (i > start && w[i - 1] != '_' && nd_fb_break(w, i, n));
            if (!end)
                continue;
            if (i > start) {
                ps[nparts] = start;
                pe[nparts++] = i;
            }
            start = i < n && w[i] == '_' ? i + 1 : i;
        }
        if (nparts < 2)
            continue;
        for (size_t k = 0; k < nparts; k++)
            if (pe[k] - ps[k] >= 2 && isalpha((unsigned char)w[ps[k]]))
                nd_fb_emit(ix, w + ps[k], pe[k] - ps[k], false);
    }
}

/* Chinese (any word with a byte past ASCII) is written without spaces
 * between words, so such a vocabulary word counts wherever it occurs in the
 * text, once per occurrence; the tokeniser never gives one. */
static void nd_fb_substrings(struct nd_fb_index *ix, const char *text)
{
    for (size_t i = 0; i < ix->nsub; i++) {
        const struct nd_fb_entry *e = &ix->sub[i];
        if (ix->frames && e->cat == ND_FB_NCAT - 1)
            continue;
        for (const char *p = strstr(text, e->word); p; p = strstr(p + e->len, e->word)) {
            ix->sums[e->cat] += e->weight * ix->mult;
            if (!e->whole)
                ix->hand[e->cat] += e->weight * ix->mult;
        }
    }
}

static bool nd_fb_ascii(const char *w)
{
    for (; *w; w++)
        if ((unsigned char)*w >= 0x80)
            return false;
    return true;
}

static unsigned nd_fb_cat(const char *name)
{
    for (unsigned c = 0; c < ND_FB_NCAT; c++)
        if (strcmp(nd_fb_cats[c], name) == 0)
            return c;
    return (unsigned)ND_FB_NCAT - 1;
}

const char *nd_kb_fb_classify(const struct nd_kb_ruleset *set, const char *text, int *score)
{
    return nd_kb_fb_classify_frames(set, text, NULL, score);
}

/* Sums are kept in half-weights: a word of the failure's own lines counts
 * twice what the same word counts in a traceback frame above it, because
 * frames also carry the words of the code every job runs through. Frames
 * never vote for config (the last category, the default): its words
 * (file, value, argument, config) are in the code of any frame, and a
 * frame's words should only move a guess away from the default. */
const char *nd_kb_fb_classify_frames(const struct nd_kb_ruleset *set, const char *text, const char *frames, int *score)
{
    /* Sorted once per call: the classifier runs once per unexplained
     * failure, and a sorted copy keeps a lookup logarithmic in the size of
     * the vocabulary. */
    struct nd_fb_index ix = {0};
    int prior[ND_FB_NCAT] = {0};
    size_t nv = set->vocab_word.n;
    ix.v = nd_xcalloc(nv ? nv : 1, sizeof *ix.v);
    ix.sub = nd_xcalloc(nv ? nv : 1, sizeof *ix.sub);
    for (size_t i = 0; i < nv; i++) {
        struct nd_fb_entry *e = &ix.v[ix.n];
        e->word = set->vocab_word.v[i];
        e->len = strlen(e->word);
        e->cat = nd_fb_cat(set->vocab_cat.v[i]);
        e->weight = set->vocab_weight[i];
        if (e->len == 0) {
            /* A prior (`prior = N`): the last one of a category holds. */
            prior[e->cat] = e->weight;
            continue;
        }
        if (e->len >= ND_FB_TOK)
            continue;
        e->whole = set->vocab_whole && set->vocab_whole[i];
        if (!nd_fb_ascii(e->word)) {
            ix.sub[ix.nsub++] = *e;
            continue;
        }
        if (!e->whole)
            ix.prefix_lens |= 1ull << e->len;
        ix.n++;
    }
    qsort(ix.v, ix.n, sizeof *ix.v, nd_fb_cmp);
    ix.mult = 2;
    nd_fb_tokens(&ix, text);
    nd_fb_substrings(&ix, text);
    if (frames) {
        ix.mult = 1;
        ix.frames = true;
        nd_fb_tokens(&ix, frames);
        nd_fb_substrings(&ix, frames);
    }
    free(ix.v);
    free(ix.sub);
    /* A prior says how much word evidence it takes to displace a category
     * (config: most failures no rule knows are settings); the score
     * reported is that of the words alone. A tie between two other
     * categories goes to the one more of whose weight came from `word`
     * entries (chosen by hand, where `token` entries are counted from the
     * rules' examples and mostly add up), then to the design order; config,
     * the default, is displaced only by a larger sum. */
    unsigned best = ND_FB_NCAT - 1;
    int best_w = 2 * prior[best] + ix.sums[best];
    for (unsigned c = 0; c + 1 < ND_FB_NCAT; c++) {
        int w = 2 * prior[c] + ix.sums[c];
        if (w > best_w || (w == best_w && best != ND_FB_NCAT - 1 && ix.hand[c] > ix.hand[best])) {
            best_w = w;
            best = c;
        }
    }
    /* Whole weights, a half rounded away from zero: frame words alone
     * still make a score. */
    int h = ix.sums[best];
    *score = h >= 0 ? (h + 1) / 2 : -((1 - h) / 2);
    return nd_fb_cats[best];
}
