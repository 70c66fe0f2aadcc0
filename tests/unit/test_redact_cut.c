/* Evidence cut to a length (nd_redact_cut, and nd_kb_trim_line that every
 * knowledge-base evidence line goes through): a secret across the cut
 * leaves no piece of itself, whatever the offset; the cut keeps UTF-8
 * whole and markers whole; control bytes and bytes that are not UTF-8
 * come out printable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/redact.h"
#include "core/termsafe.h"
#include "kb/kb_internal.h"

/* A secret in its context: what stands before the value, the value, what after. */
struct nd_cut_case {
    const char *before, *value, *after;
};

static const struct nd_cut_case nd_cut_cases[] = {
    {"Authorization: Bearer ", "Qm9vYmllc1BsYW50ZWRCZWFyZXI0Mg", " next"},
    {"curl https://alice:", "Pl4ntedUrlPassw0rdQx", "@example.com/x"},
    {"HF_TOKEN=", "Pl4ntedHfValueZq81x", " python"},
    {"train.py --password ", "Pl4ntedPwValWq77x", " --epochs 3"},
    {"token ", "ghp_Pl4ntedGithubTokenValue0123456789ab", " end"},
    {"jwt ", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJQbDRudGVkIn0.Pl4ntedJwtSignatureValueXyz", " end"},
    {"AWS_SECRET_ACCESS_KEY=", "wJalrXUtnFEMIPl4ntedK7MDENGbPxRfiCY", ""},
    {"aws key ", "AKIAPL4NTEDAWSKEYID7", " used"},
};

/* True when out holds 6 or more bytes of value in a row. */
static bool nd_piece_of(const char *out, const char *value)
{
    size_t n = strlen(value);
    for (size_t i = 0; i + 6 <= n; i++) {
        char piece[7];
        memcpy(piece, value + i, 6);
        piece[6] = '\0';
        if (strstr(out, piece))
            return true;
    }
    return false;
}

/* line: pad bytes of 'a', then before + value + after; the value starts at pad + strlen(before). */
static char *nd_line(size_t pad, const struct nd_cut_case *c)
{
    size_t n = pad + strlen(c->before) + strlen(c->value) + strlen(c->after) + 1;
    char *s = malloc(n);
    assert_non_null(s);
    memset(s, 'a', pad);
    if (pad)
        s[pad - 1] = ' ';
    snprintf(s + pad, n - pad, "%s%s%s", c->before, c->value, c->after);
    return s;
}

static void nd_check_straddle(size_t max, bool trim)
{
    for (size_t k = 0; k < sizeof nd_cut_cases / sizeof *nd_cut_cases; k++) {
        const struct nd_cut_case *c = &nd_cut_cases[k];
        size_t vlen = strlen(c->value), blen = strlen(c->before);
        /* Every offset that puts the cut before the context, inside it or
         * inside the value. */
        for (size_t off = 1; off < blen + vlen && off < max; off++) {
            size_t pad = max - off; /* the cap falls off bytes into before + value */
            char *line = nd_line(pad, c);
            char *out = trim ? nd_kb_trim_line(line, strlen(line)) : nd_redact_cut(line, strlen(line), max);
            if (nd_piece_of(out, c->value))
                fail_msg("a piece of '%s' escaped at cut %zu, offset %zu: ...%s", c->value, max, off,
                         out + (strlen(out) > 80 ? strlen(out) - 80 : 0));
            assert_true(strlen(out) <= max + 3);
            free(out);
            free(line);
        }
    }
}

static void test_straddle_evidence_cut(void **state)
{
    (void)state;
    nd_check_straddle(240, false);
    nd_check_straddle(64, false);
}

static void test_straddle_trim_line(void **state)
{
    (void)state;
    nd_check_straddle(ND_KB_TEXT_MAX, true);
}

static void test_utf8_boundary(void **state)
{
    (void)state;
    /* Two-byte and three-byte characters: an even cap falls inside one. */
    static const char *const chars[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x94\xa5"};
    for (size_t c = 0; c < 3; c++) {
        for (size_t max = 236; max <= 243; max++) {
            char line[2048] = "";
            for (int i = 0; i < 200; i++)
                strcat(line, chars[c]);
            char *out = nd_redact_cut(line, strlen(line), max);
            size_t n = strlen(out);
            assert_true(n >= 3 && strcmp(out + n - 3, "...") == 0);
            assert_true(n - 3 <= max);
            assert_true(n - 3 + strlen(chars[c]) > max); /* as much as fits */
            assert_int_equal(nd_term_is_printable(out), 1);
            for (size_t i = 0; i < n - 3;) {
                size_t q = nd_utf8_valid_seq((const unsigned char *)out + i, n - 3 - i);
                assert_int_equal(q, strlen(chars[c]));
                i += q;
            }
            free(out);
        }
    }
}

static void test_marker_whole(void **state)
{
    (void)state;
    /* The marker of HF_TOKEN's value would end past the cap at each of these. */
    for (size_t pad = 220; pad < 245; pad++) {
        char line[512];
        memset(line, 'b', pad);
        line[pad - 1] = ' ';
        snprintf(line + pad, sizeof line - pad, "HF_TOKEN=Pl4ntedHfValueZq81x tail");
        char *out = nd_redact_cut(line, strlen(line), 240);
        const char *m = strstr(out, "<redacted");
        if (m)
            assert_true(nd_redact_is_marker(m));
        else
            assert_null(strchr(out, '<'));
        assert_null(strstr(out, "Pl4nted"));
        free(out);
    }
}

static void test_printable(void **state)
{
    (void)state;
    static const char raw[] = "\x1b[31mred\x1b[0m\x07"
                              "bell\ttab\rcr\x7f del \xff\xfe bad \xc3 cut\0nul after";
    char *out = nd_redact_cut(raw, sizeof raw - 1, 240);
    for (const unsigned char *p = (const unsigned char *)out; *p; p++)
        assert_true(*p >= 0x20 && *p != 0x7f);
    assert_int_equal(nd_term_is_printable(out), 1);
    assert_non_null(strstr(out, "bell tab cr"));
    assert_non_null(strstr(out, "nul after")); /* a NUL does not end the text */
    assert_null(strstr(out, "..."));           /* nothing was cut */
    free(out);
    /* The knowledge-base line: the same, and its ends trimmed. */
    static const char trimmed[] = "  \tRuntimeError:\tboom\x1b[0m \r\n";
    char *t = nd_kb_trim_line(trimmed, strlen(trimmed));
    assert_string_equal(t, "RuntimeError: boom?[0m");
    free(t);
}

/* Longer than what is redacted at all: still no piece of a secret at the far end. */
static void test_huge_line(void **state)
{
    (void)state;
    size_t n = 1 << 20;
    char *line = malloc(n + 64);
    assert_non_null(line);
    memset(line, 'c', n);
    line[100] = ' ';
    static const char planted[] = "--password Pl4ntedPwValWq77x ";
    memcpy(line + 101, planted, sizeof planted - 1);
    line[n] = '\0';
    char *out = nd_redact_cut(line, n, 240);
    assert_null(strstr(out, "Pl4nted"));
    assert_true(strlen(out) <= 243);
    free(out);
    free(line);
}

int main(void)
{
    setenv(ND_REDACT_KEY_ENV, "test-key", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_straddle_evidence_cut),
        cmocka_unit_test(test_straddle_trim_line),
        cmocka_unit_test(test_utf8_boundary),
        cmocka_unit_test(test_marker_whole),
        cmocka_unit_test(test_printable),
        cmocka_unit_test(test_huge_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
