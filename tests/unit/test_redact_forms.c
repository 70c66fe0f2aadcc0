/* Unit tests for redaction: a table of secret forms that must not survive
 * (argv words, dict/JSON pairs, prose, known token shapes, JWTs, PEM
 * bodies), a table of look-alikes that must survive untouched, the name
 * classifier both ways, argv arrays in JSON, and the keyed marker scheme
 * (NPU_DOCTOR_REDACT_KEY, the per-host key file, fingerprints). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/redact.h"
#include "core/sha256.h"

struct nd_secret_case {
    const char *text;
    const char *secret; /* must not appear in the redacted text */
};

static const struct nd_secret_case nd_secret_cases[] = {
    {"python train.py --password Hunter2Secret", "Hunter2Secret"},
    {"python train.py --api-key AbcPlantedApiKey99", "AbcPlantedApiKey99"},
    {"train --token tkPlanted12345 --epochs 3", "tkPlanted12345"},
    {"train -token tkSingleDash777", "tkSingleDash777"},
    {"train --db-password 'quoted secret here'", "quoted secret here"},
    {"train --client-secret=csPlanted42", "csPlanted42"},
    {"{'password': 'DictPw0rd!', 'user': 'bob'}", "DictPw0rd!"},
    {"{\"api_key\": \"JsonApiKey123\", \"n\": 1}", "JsonApiKey123"},
    {"config: password: lowerPw123", "lowerPw123"},
    {"password = spacedPw456", "spacedPw456"},
    {"aws_secret_access_key: wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY"},
    {"AWS_SECRET_ACCESS_KEY = abcAwsSecret", "abcAwsSecret"},
    {"DB_PASS=dbPassPlanted", "dbPassPlanted"},
    {"MYSQL_PWD=mysqlPwdPlanted", "mysqlPwdPlanted"},
    {"key sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD used", "abcdefghijklmnopqrstuvwxyz0123456789ABCD"},
    {"OPENAI sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz_0123456789-abc", "AbCdEfGhIjKlMnOpQrStUvWxYz_0123456789"},
    {"auth eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"},
    {"jwt=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlc2lnbmF0dXJl", "c2lnbmF0dXJlc2lnbmF0dXJl"},
    {"cookie: session=eyJhbGciOiJIUzI1NiJ9.eyJ1aWQiOjQyfQ.sigsigsigsigsigsig", "sigsigsigsigsigsig"},
    {"-----BEGIN RSA PRIVATE KEY-----MIIEpAIBAAKCAQEA7plantedkeybody-----END RSA PRIVATE KEY-----",
     "MIIEpAIBAAKCAQEA7plantedkeybody"},
    {"-----BEGIN PRIVATE KEY----- MIIEvQIBADANBgkqhkiG9w0BAQEFplanted", "MIIEvQIBADANBgkqhkiG9w0BAQEFplanted"},
    {"Authorization: Basic dXNlcjpwbGFudGVkcGFzcw==", "dXNlcjpwbGFudGVkcGFzcw=="},
    {"HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz0123456789"},
    {"url https://user:UrlPw123@example.com/x", "UrlPw123"},
    {"apiKey: camelCasePlanted", "camelCasePlanted"},
};

/* Values people need to read: they must come out exactly as they went in. */
static const char *const nd_keep_cases[] = {
    "TOKENIZERS_PARALLELISM=false",
    "MAX_TOKENS=4096",
    "KEYBOARD=us",
    "AUTH_MODE=kerberos",
    "generate(max_tokens=8192, temperature=0.7)",
    "token_count=123456",
    "{'loss': 1.2, 'token_acc': 0.9595, 'grad_norm': 0.3}",
    "tokenizer=/models/llama/tokenizer.model",
    "--max-tokens 100 --tokenizer /models/tok",
    "KeyError: 'model.layers.0.weight'",
    "key: layer.0",
    "bos_token: <s>",
    "PWD=/home/user/project",
    "OLDPWD=/home/user",
    "if token == expected:",
    "SSH_AUTH_SOCK=/tmp/ssh-agent.sock",
    "HF_TOKEN_PATH=/root/.cache/huggingface/token",
    "task-abcdefghijklmnopqrstuvwxyz0123",
    "--num-tokens 12",
};

static void test_secret_forms_redacted(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof nd_secret_cases / sizeof *nd_secret_cases; i++) {
        char *r = nd_redact_text(nd_secret_cases[i].text);
        if (strstr(r, nd_secret_cases[i].secret) || !strstr(r, "<redacted:"))
            fail_msg("case %zu: '%s' -> '%s'", i, nd_secret_cases[i].text, r);
        char *again = nd_redact_text(r);
        assert_string_equal(again, r); /* idempotent */
        free(again);
        free(r);
    }
}

static void test_lookalikes_kept(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof nd_keep_cases / sizeof *nd_keep_cases; i++) {
        char *r = nd_redact_text(nd_keep_cases[i]);
        if (strcmp(r, nd_keep_cases[i]) != 0)
            fail_msg("over-redacted: '%s' -> '%s'", nd_keep_cases[i], r);
        free(r);
    }
}

static void test_name_classifier(void **state)
{
    (void)state;
    static const char *const secret[] = {"HF_TOKEN",
                                         "GITHUB_TOKEN",
                                         "API_KEY",
                                         "apiKey",
                                         "DB_PASS",
                                         "MYSQL_PWD",
                                         "AWS_SECRET_ACCESS_KEY",
                                         "WANDB_API_KEY",
                                         "client_secret",
                                         "PASSWORD",
                                         "SECRET_KEY_BASE",
                                         "HFTOKEN",
                                         "COOKIE",
                                         "AUTHORIZATION",
                                         "PRIVATE_KEY"};
    static const char *const plain[] = {"TOKENIZERS_PARALLELISM",
                                        "MAX_TOKENS",
                                        "KEYBOARD",
                                        "AUTH_MODE",
                                        "TOKEN_COUNT",
                                        "token_acc",
                                        "TOKEN_LOSS",
                                        "TOKENIZER",
                                        "PWD",
                                        "OLDPWD",
                                        "KEY_FILE",
                                        "SSH_AUTH_SOCK",
                                        "BOS_TOKEN",
                                        "PAD_TOKEN_ID",
                                        "KeyError",
                                        "PATH",
                                        "HOSTNAME"};
    for (size_t i = 0; i < sizeof secret / sizeof *secret; i++)
        if (!nd_redact_name_is_secret(secret[i]))
            fail_msg("%s should be a secret name", secret[i]);
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
        if (nd_redact_name_is_secret(plain[i]))
            fail_msg("%s should not be a secret name", plain[i]);
}

static void test_json_argv_words(void **state)
{
    (void)state;
    json_t *doc = json_pack("{s:[s,s,s,s,s,s]}", "argv", "python", "train.py", "--password", "ArgvPw77", "--lr", "0.1");
    nd_redact_json(doc);
    char *text = json_dumps(doc, 0);
    assert_null(strstr(text, "ArgvPw77"));
    assert_non_null(strstr(text, "\"--password\""));
    assert_non_null(strstr(text, "\"0.1\""));
    free(text);
    json_decref(doc);
}

static void test_keyed_markers(void **state)
{
    (void)state;
    setenv(ND_REDACT_KEY_ENV, "slurm-job-4711", 1);
    nd_redact_key_reset();
    char *a = nd_redact_marker("hunter2");
    char fpa[17];
    snprintf(fpa, sizeof fpa, "%s", nd_redact_key_fingerprint());
    assert_string_equal(nd_redact_key_source(), "env");
    /* Not the bare hash a dictionary could confirm. */
    char bare[9];
    nd_sha256_hex_prefix("hunter2", 7, bare, 8);
    assert_null(strstr(a, bare));
    /* The same key (another node of the same run) gives the same marker. */
    nd_redact_key_reset();
    char *a2 = nd_redact_marker("hunter2");
    assert_string_equal(a, a2);
    setenv(ND_REDACT_KEY_ENV, "slurm-job-4712", 1);
    nd_redact_key_reset();
    char *b = nd_redact_marker("hunter2");
    assert_string_not_equal(a, b);
    assert_string_not_equal(fpa, nd_redact_key_fingerprint());
    assert_true(nd_redact_is_marker(a) && nd_redact_is_marker(b));
    free(a);
    free(a2);
    free(b);
    unsetenv(ND_REDACT_KEY_ENV);
}

static void test_host_key_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/nd-redact-key.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cache[256], keyfile[300];
    snprintf(cache, sizeof cache, "%s/cache", dir);
    snprintf(keyfile, sizeof keyfile, "%s/redact.key", cache);
    const char *old = getenv("NPU_DOCTOR_CACHE_DIR");
    char *saved = old ? strdup(old) : NULL;
    setenv("NPU_DOCTOR_CACHE_DIR", cache, 1);
    unsetenv(ND_REDACT_KEY_ENV);
    nd_redact_key_reset();
    char *m1 = nd_redact_marker("hunter2");
    assert_string_equal(nd_redact_key_source(), "host");
    struct stat st;
    assert_int_equal(stat(keyfile, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    nd_redact_key_reset(); /* a later run on the same host */
    char *m2 = nd_redact_marker("hunter2");
    assert_string_equal(m1, m2);
    /* A key file others can read is not trusted: this run's own key instead. */
    chmod(keyfile, 0644);
    nd_redact_key_reset();
    char *m3 = nd_redact_marker("hunter2");
    assert_string_equal(nd_redact_key_source(), "run");
    assert_string_not_equal(m1, m3);
    free(m1);
    free(m2);
    free(m3);
    unlink(keyfile);
    rmdir(cache);
    rmdir(dir);
    if (saved)
        setenv("NPU_DOCTOR_CACHE_DIR", saved, 1);
    else
        unsetenv("NPU_DOCTOR_CACHE_DIR");
    free(saved);
    nd_redact_key_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_secret_forms_redacted), cmocka_unit_test(test_lookalikes_kept),
        cmocka_unit_test(test_name_classifier),       cmocka_unit_test(test_json_argv_words),
        cmocka_unit_test(test_keyed_markers),         cmocka_unit_test(test_host_key_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
