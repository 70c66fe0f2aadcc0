/* Unit tests for the third round of secret forms: tool option spellings
 * (mysql -pX, sshpass -pX, redis-cli -a X, curl -uU:X, smbclient -U U%X,
 * openssl -passin pass:X), Ruby/Perl hash pairs, table rows of env dumps,
 * YAML/JSON pairs, exported variables (setenv, a Dockerfile's ENV, a
 * Kubernetes env list), URL query secrets, Azure connection
 * strings, base64 of a PEM key or a registry login, and secrets longer
 * than any cap (a JWT cut short, a long key). Look-alikes stay as they are. */
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
    {"mysql -pPlantMy1 db", "PlantMy1"},
    {"mysql -u root -pS3cretPlant -h db", "S3cretPlant"},
    {"/usr/bin/mysqldump -uroot -p'quoted my pw' db", "quoted my pw"},
    {"mariadb -h db -pMariaPlant2", "MariaPlant2"},
    {"sshpass -p SshPlant3 ssh host", "SshPlant3"},
    {"sshpass -pSshPlant4 ssh host", "SshPlant4"},
    {"redis-cli -a RedisPlant5 ping", "RedisPlant5"},
    {"redis-cli -h h -p 6379 -a RedisPlant6 info", "RedisPlant6"},
    {"redis-cli --user u --pass RedisPlant7", "RedisPlant7"},
    {"curl -u user:CurlPlant8 https://x", "CurlPlant8"},
    {"curl -uuser:CurlPlant9 https://x", "CurlPlant9"},
    {"smbclient //h/s -U bob%SmbPlant10", "SmbPlant10"},
    {"openssl rsa -passin pass:OsslPlant11 -in k.pem", "OsslPlant11"},
    {"{ password => \"RubyPlant12\" }", "RubyPlant12"},
    {"{ :token => 'RubyPlant13' }", "RubyPlant13"},
    {"my %h = ( 'password' => 'PerlPlant14' );", "PerlPlant14"},
    {"{:api_key=>\"RubyPlant15\"}", "RubyPlant15"},
    {"PASSWORD\tTabPlant16", "TabPlant16"},
    {"DB_PASSWORD    SpacePlant17", "SpacePlant17"},
    {"[rank0]: MYSQL_ROOT_PASSWORD\tTabPlant18", "TabPlant18"},
    {"NAME\tVALUE\nHF_TOKEN\tTabPlant19\nPATH\t/usr/bin", "TabPlant19"},
    {"data:\n  password: cGxhbnRQbGFudDIw\n", "cGxhbnRQbGFudDIw"},
    {"password: YamlPlant21", "YamlPlant21"},
    {"\"api_key\": \"JsonPlant22\"", "JsonPlant22"},
    {"+ export TOKEN=ExportPlant23", "ExportPlant23"},
    {"export HUGGING_FACE_HUB_TOKEN=\"ExportPlant24\"", "ExportPlant24"},
    {"HF_TOKEN=notHfShapedPlant25", "notHfShapedPlant25"},
    {"https://h/p?token=QueryPlant26&x=1", "QueryPlant26"},
    {"https://h/p?sv=2020&sp=r&sig=QueryPlant27%3D", "QueryPlant27"},
    {"https://b.s3.amazonaws.com/o?X-Amz-Algorithm=A&X-Amz-Signature=QueryPlant28", "QueryPlant28"},
    {"DefaultEndpointsProtocol=https;AccountName=a;AccountKey=AzurePlant29==;EndpointSuffix=x", "AzurePlant29"},
    {"BlobEndpoint=https://x;SharedAccessSignature=sv=2020&sig=AzurePlant30", "AzurePlant30"},
    {"  tls.key: LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUV2UGxhbnQzMQ==", "CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUV2"},
    {"  .dockerconfigjson: eyJhdXRocyI6eyJyZWcuZXhhbXBsZSI6e319fQ==", "eyJyZWcuZXhhbXBsZSI6e319fQ"},
    {"setenv DB_PASSWORD CshPlant33", "CshPlant33"},
    {"ENV HF_TOKEN DockerPlant34", "DockerPlant34"},
    {"env:\n  - name: API_KEY\n    value: K8sPlant35\n  - name: MODEL\n    value: llama", "K8sPlant35"},
    /* Cut by a length cap and marked so ("..."): what is left goes. */
    {"connecting to https://trainer:CutPlantPw12...", "CutPlantPw12"},
    {"login hf_CutPlantTok...", "CutPlantTok"},
    {"x = CutPlant0123456789abcdef...", "CutPlant0123456789abcdef"},
    /* A JWT whose signature a length cap cut off: header and claims go. */
    {"auth eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJQbGFudDMyIiwibmFtZSI6", "eyJzdWIiOiJQbGFudDMyIiwibmFtZSI6"},
};

static const char *const nd_keep[] = {
    "token_acc=0.93 loss_scale=1024 tokens_per_sec=8000",
    "mkdir -p /tmp/x && python -pdb x",
    "python train.py -p 8 -a adam",
    "docker run -u 1000:1000 img",
    "ssh -p 2222 host",
    "x = {'lr' => 0.1, 'steps' => 10}",
    "if a >= b and c <= d: pass",
    "step  loss  token_acc\n10    1.23  0.91",
    "token    12",
    "LOSS\t0.5\nSTEP\t10",
    "eyJhbGciOiJIUzI1NiJ9 header only",
    "Loading checkpoint shards...",
    "env:\n  - name: MODEL\n    value: llama",
    "setenv PATH /usr/bin",
    "ENV LANG C.UTF-8",
    "saving to /data/Run2024/ckpt/Step0001/model...",
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

/* The hash arrow's '=' was read as an assignment of ">" before: the value
 * came out whole and a marker stood where the arrow's '>' was. */
static void test_hash_arrow_shape(void **state)
{
    (void)state;
    char *r = nd_redact_text("{ password => \"x1Plant\" }");
    assert_non_null(strstr(r, "password => \"<redacted:"));
    free(r);
}

/* Secrets far longer than any line cap come out as one marker each, with
 * no piece of them left over. */
static void test_long_secrets(void **state)
{
    (void)state;
    enum { N = 20000 };
    static char text[N + 256];
    static const char body[] = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj";
    strcpy(text, "-----BEGIN PRIVATE KEY-----");
    size_t n = strlen(text);
    for (size_t i = 0; n < N; i++)
        text[n++] = body[i % (sizeof body - 1)];
    strcpy(text + n, "-----END PRIVATE KEY-----");
    char *r = nd_redact_text(text);
    assert_null(strstr(r, "AoIBAQC7VJTUt9Us8cKj"));
    assert_true(strlen(r) < 100);
    free(r);

    strcpy(text, "Authorization: eyJhbGciOiJIUzI1NiJ9.eyJ");
    n = strlen(text);
    for (; n < N; n++)
        text[n] = "zdWIiOiIxMjM0NTY3ODkw"[n % 21];
    text[n] = '\0';
    r = nd_redact_text(text);
    assert_null(strstr(r, "IxMjM0NTY3ODkw"));
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms_redacted),
        cmocka_unit_test(test_lookalikes_kept),
        cmocka_unit_test(test_hash_arrow_shape),
        cmocka_unit_test(test_long_secrets),
    };
    setenv(ND_REDACT_KEY_ENV, "unit", 1);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
