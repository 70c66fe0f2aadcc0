/* Unit tests for key-space-value secret forms that the review found
 * slipping through: a secret name, one blank and its value in log text
 * and argv ("HF_TOKEN hf_...", "password: x", "token = x"), login options
 * of registries (docker login -p / --password / --password=), --api-key,
 * and bare token shapes. Each secret holds the needle "Qz", which no
 * marker can hold. Look-alikes stay as they are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/redact.h"
#include "redact_table.h"

static const struct nd_case nd_cases[] = {
    {"HF_TOKEN hf_Qz01abcdefghijklmnopqrstuvwxyz0123", "Qz01"},
    {"HF_TOKEN Qz02short", "Qz02"},
    {"export HF_TOKEN Qz03abc", "Qz03"},
    {"password: Qz04", "Qz04"},
    {"token = Qz05abc", "Qz05"},
    {"Authorization: Bearer Qz06abcdef", "Qz06"},
    {"mysql -u root -p Qz07pw db", "Qz07"},
    {"--password=Qz08", "Qz08"},
    {"--password Qz09", "Qz09"},
    {"--api-key Qz10abc", "Qz10"},
    {"--api-key=Qz11abc", "Qz11"},
    {"--apikey Qz12abc", "Qz12"},
    {"https://user:Qz13pw@host/x", "Qz13"},
    {"AWS_SECRET_ACCESS_KEY=Qz14abcdefghijklmnopqrstuvwxyz0123456789", "Qz14"},
    {"aws_secret_access_key = Qz15abcdefghijklmnopqrstuvwxyz012345678", "Qz15"},
    {"AWS_SECRET_ACCESS_KEY Qz16abcdefghijklmnopqrstuvwxyz012345678", "Qz16"},
    {"sk-Qz17abcdefghijklmnopqrstuvwxyz0123456789", "Qz17"},
    {"ghp_Qz18abcdefghijklmnopqrstuvwxyz0123456789", "Qz18"},
    {"xoxb-1234567890-Qz19abcdefghijkl", "Qz19"},
    {"hf_Qz20abcdefghijklmnopqrstuvwxyz0123", "Qz20"},
    {"docker login -p Qz21 reg.io", "Qz21"},
    {"docker login --password Qz22 reg.io", "Qz22"},
    {"docker login --password=Qz23 reg.io", "Qz23"},
    {"docker login -u me --password Qz24 reg.io", "Qz24"},
    {"HF_TOKEN\tQz25abc", "Qz25"},
    {"hf_token Qz26abc", "Qz26"},
    {"OPENAI_API_KEY Qz27abc", "Qz27"},
    {"GITHUB_TOKEN Qz28", "Qz28"},
    {"using HF_TOKEN Qz29xyz for download", "Qz29"},
    {"passwd: Qz30", "Qz30"},
    {"secret = Qz31", "Qz31"},
    {"api_key: Qz32", "Qz32"},
    {"Authorization: Basic Qz33abc=", "Qz33"},
    {"Authorization: token Qz34abc", "Qz34"},
    {"PGPASSWORD Qz35", "Qz35"},
    {"mysql --password Qz36 db", "Qz36"},
    {"mysql -pQz37 db", "Qz37"},
    {"psql postgresql://u:Qz38@db/x", "Qz38"},
    {"AKIAQZ39ABCDEFGHIJKL", "QZ39"},
    {"--hf-token Qz40", "Qz40"},
    {"--hf_token Qz41", "Qz41"},
    {"--token=Qz42", "Qz42"},
    {"-H 'Authorization: Bearer Qz43abc'", "Qz43"},
    {"X-Api-Key: Qz44", "Qz44"},
    {"HF_TOKEN: Qz45", "Qz45"},
    {"HF_TOKEN := Qz46", "Qz46"},
    {"HF_TOKEN -> Qz47abc", "Qz47"},
    {"docker login --username me --password Qz49 --x", "Qz49"},
    {"aws_secret_access_key Qz50abcdefghijklmnopqrstuvwxyz01234567", "Qz50"},
    {"sk-proj-Qz51abcdefghijklmnopqrstuvwxyz0123456789", "Qz51"},
    {"xoxp-123-456-Qz52abc", "Qz52"},
    {"ghs_Qz53abcdefghijklmnopqrstuvwxyz0123456789", "Qz53"},
    {"HF_TOKEN hf_Qz54", "Qz54"},
};

static const char *const nd_keep[] = {
    "HF_TOKEN not set, using anonymous access",
    "API_KEY missing: set it in the environment",
    "token ids 101 2023 102",
    "password is wrong",
    "ssh -p 2222 host",
    "HF_TOKEN HF_HOME and TRANSFORMERS_CACHE",
    "MAX_TOKENS 4096",
    "TOKEN_COUNT 12",
    "KEY_TYPE rsa2048",
    "hf_token is None",
    "token 12",
    "password -> see the vault",
    "HF_TOKEN := unset",
};

static void test_spaced_redacted(void **state)
{
    (void)state;
    nd_check_redacted(nd_cases, sizeof nd_cases / sizeof *nd_cases);
}

static void test_lookalikes_kept(void **state)
{
    (void)state;
    nd_check_kept(nd_keep, sizeof nd_keep / sizeof *nd_keep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spaced_redacted),
        cmocka_unit_test(test_lookalikes_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
