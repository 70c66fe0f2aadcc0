/* Unit tests for the fourth round of secret forms, the carriers of cloud
 * and ML tooling: Google, Stripe, Docker Hub, PyPI, GitLab runner and
 * SendGrid token shapes; Huawei Cloud / OBS AK and SK (obs:// query,
 * ModelArts SDK keywords, OBS_SK); SSHPASS for sshpass -e; pretty-printed
 * JSON ("name" : "x") and JSON strings with escaped quotes; Python's
 * os.environ["NAME"] = "x"; percent-encoded pairs; docker login -p X and
 * wandb login KEY. Each case failed before its fix; look-alikes stay. */
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
    {"auth ya29.a0CarPlant01abcdefghijklmnopqrstuvwxyz0123", "CarPlant01"},
    {"client secret GOCSPX-CarPlant02abcdefghijklmnop", "CarPlant02"},
    {"stripe.api_key sk_live_CarPlant03abcdefghijklmnop", "CarPlant03"},
    {"using rk_test_CarPlant04abcdefghijklmnop", "CarPlant04"},
    {"docker login -u bot --password dckr_pat_CarPlant05abcdefghijk", "CarPlant05"},
    {"twine upload -p pypi-AgEIcHlwaS5vcmcCarPlant06abcdefghijklmnopqrstuv dist/*", "CarPlant06"},
    {"gitlab-runner register --token glrt-CarPlant07abcdefghijkl", "CarPlant07"},
    {"trigger glptt-CarPlant08abcdefghijklmn", "CarPlant08"},
    {"mail SG.CarPlant09abcdefghij.klmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQR", "CarPlant09"},
    {"copy obs://bucket/data?ak=CarPlant10&sk=CarPlant11", "CarPlant1"},
    {"mox.file.copy_parallel(src, dst, ak='CarPlant12', sk='CarPlant13')", "CarPlant1"},
    {"export HUAWEICLOUD_SDK_SK=CarPlant14", "CarPlant14"},
    {"OBS_AK=CarPlant15 obsutil ls", "CarPlant15"},
    {"SSHPASS=CarPlant16 sshpass -e ssh host", "CarPlant16"},
    {"{\"secret_access_key\" : \"CarPlant17\"}", "CarPlant17"},
    {"{\"password\":\"Car\\\"Plant18\\\"tail\"}", "Plant18"},
    {"os.environ[\"HF_TOKEN\"] = \"CarPlant19\"", "CarPlant19"},
    {"os.environ['WANDB_API_KEY']='CarPlant20'", "CarPlant20"},
    {"GET /cb?next=%2Flogin%3Fpassword%3DCarPlant21%26u%3Dx", "CarPlant21"},
    {"redirect=token%3ACarPlant22", "CarPlant22"},
    {"docker login -u u -p CarPlant23 swr.cn-north-4.myhuaweicloud.com", "CarPlant23"},
    {"podman login --username u -p CarPlant24 reg", "CarPlant24"},
    {"wandb login CarPlant25a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6", "CarPlant25"},
    {"+ wandb login --relogin --host https://w.corp CarPlant26", "CarPlant26"},
};

static const char *const nd_keep[] = {
    "echo x | docker login -u u --password-stdin ; echo done",
    "docker run -p 8080:80 img",
    "ssh -p 2222 host",
    "KeyError : 'token'",
    "{\"key\" : \"layer.0.weight\"}",
    "x[\"key\"] = 3",
    "cfg['token_count'] = 5",
    "wandb login",
    "wandb: Currently logged in as: alice. Use `wandb login --relogin` to force relogin",
    "task=sk disk=sda1 SG.small",
    "path=%2Fdata%2Fmodel%3Dv2",
    "{\"msg\": \"C:\\\\path\\\\\", \"n\": 1}",
    "ya29. too short",
};

static void test_forms_redacted(void **state)
{
    (void)state;
    nd_check_redacted(nd_cases, sizeof nd_cases / sizeof *nd_cases);
}

static void test_lookalikes_kept(void **state)
{
    (void)state;
    nd_check_kept(nd_keep, sizeof nd_keep / sizeof *nd_keep);
}

/* A JSON string value with an escaped quote is one value: the marker
 * replaces all of it and the string still closes where it did. */
static void test_json_escape_shape(void **state)
{
    (void)state;
    char *r = nd_redact_text("{\"password\":\"a\\\"b\", \"n\": 1}");
    assert_non_null(strstr(r, "{\"password\":\"<redacted:"));
    assert_non_null(strstr(r, ">\", \"n\": 1}"));
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms_redacted),
        cmocka_unit_test(test_lookalikes_kept),
        cmocka_unit_test(test_json_escape_shape),
    };
    setenv(ND_REDACT_KEY_ENV, "unit", 1);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
