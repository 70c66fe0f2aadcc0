/* Unit tests for the redaction that snapshot, diff and every report rely on
 * beyond NAME=value: printed dicts and JSON ("'HF_TOKEN': '...'"), header
 * style "NAME: value", bearer tokens, and that ordinary log text survives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/redact.h"

/* Redacts text; asserts secret is gone and every keep string is still there. */
static void check(const char *text, const char *secret, const char *const *keep)
{
    char *r = nd_redact_text(text);
    if (secret && strstr(r, secret))
        fail_msg("'%s' still in '%s'", secret, r);
    for (; keep && *keep; keep++)
        if (!strstr(r, *keep))
            fail_msg("'%s' lost from '%s'", *keep, r);
    /* Idempotent. */
    char *again = nd_redact_text(r);
    assert_string_equal(r, again);
    free(again);
    free(r);
}

static void test_printed_dicts(void **state)
{
    (void)state;
    const char *keep1[] = {"environ({'HOME': '/root', 'HF_TOKEN': '<redacted:", "'RANK': '3'", NULL};
    check("environ({'HOME': '/root', 'HF_TOKEN': 'abc-planted-1', 'RANK': '3'})", "abc-planted-1", keep1);
    const char *keep2[] = {"\"WANDB_API_KEY\": \"<redacted:", "\"x\": 1", NULL};
    check("{\"WANDB_API_KEY\": \"wk planted 2\", \"x\": 1}", "wk planted 2", keep2);
    const char *keep3[] = {"AWS_SECRET_ACCESS_KEY: <redacted:", NULL};
    check("AWS_SECRET_ACCESS_KEY: awsplanted3", "awsplanted3", keep3);
}

static void test_bearer(void **state)
{
    (void)state;
    const char *keep[] = {"Authorization: Bearer <redacted:", " sent", NULL};
    check("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.planted4 sent", "eyJhbGciOiJIUzI1NiJ9", keep);
    const char *keep2[] = {"bearer short", NULL};
    check("bearer short", NULL, keep2);
}

static void test_token_shapes(void **state)
{
    (void)state;
    const char *keep[] = {"token <redacted:", " and ", NULL};
    check("token hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 and more", "hf_AbCdEf", keep);
    check("AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", NULL);
    /* Python names that start like tokens are code, not secrets. */
    const char *keep2[] = {"hf_hub_download_with_retries_and_backoff(", "AKIAIOSFODNN7EXAMPLEX", NULL};
    check("File x.py in hf_hub_download_with_retries_and_backoff( AKIAIOSFODNN7EXAMPLEX", NULL, keep2);
}

static void test_ordinary_text_kept(void **state)
{
    (void)state;
    const char *keep[] = {"KeyError: 'model.layers.0'",       "12:30:45",
                          "EI0006: Getting socket times out", "http://host:8080/x",
                          "ERROR: no module named 'tbe'",     NULL};
    check("KeyError: 'model.layers.0' at 12:30:45 EI0006: Getting socket times out http://host:8080/x "
          "ERROR: no module named 'tbe'",
          NULL, keep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_printed_dicts),
        cmocka_unit_test(test_bearer),
        cmocka_unit_test(test_token_shapes),
        cmocka_unit_test(test_ordinary_text_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
