/* Unit tests for the secret forms found by a second hostile pass: Slack
 * token families, .netrc lines, curl -u, sshpass -p, tokens as URL user
 * names, presigned-URL signatures, "Authorization=Bearer" in OTEL header
 * variables, key bodies printed line by line; the text around a secret
 * that must stay (the host after a URL's user name, what follows a PEM
 * footer); and look-alikes that must come out unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/redact.h"

struct nd_shape_case {
    const char *text;
    const char *secret; /* must not appear in the redacted text */
};

static const struct nd_shape_case nd_shape_cases[] = {
    {"slack xoxs-1234567890-abcdefghijABCDEFGHIJ", "abcdefghijABCDEFGHIJ"},
    {"slack xoxr-1234567890-abcdefghijRefresh", "abcdefghijRefresh"},
    {"slack xoxe-1-abcdefghijRotatedX", "abcdefghijRotatedX"},
    {"slack app xapp-1-A0123456789-0123456789-abcdefabcdef", "abcdefabcdef"},
    {"machine api.wandb.ai login user password NetrcPlanted1", "NetrcPlanted1"},
    {"default login anonymous password NetrcPlanted2", "NetrcPlanted2"},
    {"  password NetrcPlanted3", "NetrcPlanted3"},
    {"curl -u alice:CurlPlanted4 https://example.com/x", "CurlPlanted4"},
    {"curl --user alice:CurlPlanted5 https://example.com/x", "CurlPlanted5"},
    {"curl --proxy-user=bob:CurlPlanted6 https://example.com", "CurlPlanted6"},
    {"sshpass -p SshpassPlanted7 ssh node2", "SshpassPlanted7"},
    {"git clone https://ghTokenPlanted8abcdef0123456789@github.com/org/repo.git", "ghTokenPlanted8abcdef0123456789"},
    {"GET https://bucket.s3.amazonaws.com/k?X-Amz-Signature=SigPlanted9abc&X-Amz-Date=1", "SigPlanted9abc"},
    {"https://acct.blob.core.windows.net/c/b?sv=2020-08-04&sig=AzureSigPlanted10", "AzureSigPlanted10"},
    {"OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer OtelPlanted11abcdef", "OtelPlanted11abcdef"},
    {"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcw"},
    {"[rank0]: b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
     "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"},
};

/* Redacted, and what must stay around the secret stays. */
struct nd_context_case {
    const char *text;
    const char *secret;
    const char *kept;
};

static const struct nd_context_case nd_context_cases[] = {
    {"git clone https://x-access-token:ghs_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789@github.com/o/r",
     "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "@github.com/o/r"},
    {"\"private_key\": \"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B\n-----END PRIVATE KEY-----\n\", "
     "\"client_email\": \"trainer@proj.iam.gserviceaccount.com\"",
     "MIIEvQIBADANBgkqhkiG9w0B", "\"client_email\": \"trainer@proj.iam.gserviceaccount.com\""},
    {"-----BEGIN RSA PRIVATE KEY-----KeyBodyPlanted-----END RSA PRIVATE KEY----- loaded from /etc/ssl/k.pem",
     "KeyBodyPlanted", "-----END RSA PRIVATE KEY----- loaded from /etc/ssl/k.pem"},
    {"curl -u alice:CurlPlanted4 https://example.com/x", "CurlPlanted4", "-u alice:"},
};

static const char *const nd_shape_keep[] = {
    "docker run -u 1000:1000 image",
    "python -u train.py --epochs 3",
    "ssh -p 2222 node2",
    "the password is wrong",
    "check password policy: min length 12",
    "git clone https://git@github.com/org/repo.git",
    "push to ssh://git@gitlab.example.com:2222/x.git",
    "/home/user/models/Llama2/7b/checkpoint-00001/pytorch_model.bin",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b",
    "SIGNATURE_VERSION=4",
    "saved /data/ImageNet2012/train/n01440764/n01440764_10026.JPEG",
};

static void test_shapes_redacted(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof nd_shape_cases / sizeof *nd_shape_cases; i++) {
        char *r = nd_redact_text(nd_shape_cases[i].text);
        if (strstr(r, nd_shape_cases[i].secret) || !strstr(r, "<redacted:"))
            fail_msg("case %zu: '%s' -> '%s'", i, nd_shape_cases[i].text, r);
        char *again = nd_redact_text(r);
        assert_string_equal(again, r); /* idempotent */
        free(again);
        free(r);
    }
}

static void test_context_kept(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof nd_context_cases / sizeof *nd_context_cases; i++) {
        char *r = nd_redact_text(nd_context_cases[i].text);
        if (strstr(r, nd_context_cases[i].secret))
            fail_msg("case %zu leaked: '%s'", i, r);
        if (!strstr(r, nd_context_cases[i].kept))
            fail_msg("case %zu lost '%s': '%s'", i, nd_context_cases[i].kept, r);
        free(r);
    }
}

static void test_shape_lookalikes_kept(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof nd_shape_keep / sizeof *nd_shape_keep; i++) {
        char *r = nd_redact_text(nd_shape_keep[i]);
        if (strcmp(r, nd_shape_keep[i]) != 0)
            fail_msg("over-redacted: '%s' -> '%s'", nd_shape_keep[i], r);
        free(r);
    }
}

/* A variable whose name says nothing still has its value scrubbed as text. */
static void test_value_of_plain_name(void **state)
{
    (void)state;
    char *r = nd_redact_value("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer OtelPlanted12abcdef,x-team=ml");
    assert_null(strstr(r, "OtelPlanted12"));
    assert_non_null(strstr(r, "x-team=ml"));
    free(r);
    r = nd_redact_value("LAUNCH_CMD", "torchrun train.py --hf-token hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789");
    assert_null(strstr(r, "AbCdEfGhIjKlMnOpQrStUvWxYz"));
    assert_non_null(strstr(r, "torchrun train.py --hf-token <redacted:"));
    free(r);
    r = nd_redact_value("NCCL_SOCKET_IFNAME", "eth0,ib0");
    assert_string_equal(r, "eth0,ib0");
    free(r);
}

int main(void)
{
    setenv("NPU_DOCTOR_REDACT_KEY", "unit-test-key", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes_redacted),
        cmocka_unit_test(test_context_kept),
        cmocka_unit_test(test_shape_lookalikes_kept),
        cmocka_unit_test(test_value_of_plain_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
