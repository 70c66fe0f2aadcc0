/* Unit tests for the snapshot document: rank identity, -o patterns, the
 * redacted environment, device-layer JSON, reading back with schema checks,
 * and whole-document redaction. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "core/json_util.h"
#include "core/redact.h"
#include "snapshot/snapshot.h"
#include "core/environ.h"
#include "snapshot/snapshot_devices.h"
#include "snapshot/snapshot_host.h"

static void test_identity_launchers(void **state)
{
    (void)state;
    struct nd_environ env;
    nd_environ_init(&env, "test");
    nd_environ_set(&env, "RANK", "5");
    nd_environ_set(&env, "LOCAL_RANK", "1");
    nd_environ_set(&env, "WORLD_SIZE", "16");
    nd_environ_set(&env, "SLURM_PROCID", "9");
    nd_environ_set(&env, "SLURM_NODEID", "4");
    nd_environ_set(&env, "SLURM_JOB_ID", "88412");
    nd_environ_set(&env, "OMPI_COMM_WORLD_RANK", "7");
    nd_environ_set(&env, "PMI_RANK", "7");
    nd_environ_set(&env, "POD_NAME", "train-0");
    nd_environ_set(&env, "POD_NAMESPACE", "ml");
    nd_environ_set(&env, "NODE_NAME", "gpu-node-3");
    json_t *id = nd_snapshot_identity(&env, "node-17.cluster.local", 0);
    assert_string_equal(nd_json_get_str(id, "hostname"), "node-17.cluster.local");
    assert_string_equal(nd_json_get_str(id, "time"), "1970-01-01T00:00:00Z");
    /* torchrun's RANK wins: it is the rank the training script sees. */
    assert_int_equal(json_integer_value(json_object_get(id, "rank")), 5);
    assert_string_equal(nd_json_get_str(json_object_get(id, "torchrun"), "WORLD_SIZE"), "16");
    assert_string_equal(nd_json_get_str(json_object_get(id, "slurm"), "SLURM_NODEID"), "4");
    assert_string_equal(nd_json_get_str(json_object_get(id, "slurm"), "SLURM_JOB_ID"), "88412");
    assert_string_equal(nd_json_get_str(json_object_get(id, "mpi"), "OMPI_COMM_WORLD_RANK"), "7");
    assert_string_equal(nd_json_get_str(json_object_get(id, "mpi"), "PMI_RANK"), "7");
    json_t *k8s = json_object_get(id, "kubernetes");
    assert_string_equal(nd_json_get_str(k8s, "pod"), "train-0");
    assert_string_equal(nd_json_get_str(k8s, "namespace"), "ml");
    assert_string_equal(nd_json_get_str(k8s, "node"), "gpu-node-3");
    /* No SLURMD_NODENAME: the Kubernetes node names the node. */
    assert_string_equal(nd_json_get_str(id, "node_name"), "gpu-node-3");
    json_decref(id);
    nd_environ_release(&env);
}

static void test_identity_bare(void **state)
{
    (void)state;
    struct nd_environ env;
    nd_environ_init(&env, "test");
    json_t *id = nd_snapshot_identity(&env, "node-17.cluster.local", 86400);
    assert_string_equal(nd_json_get_str(id, "node_name"), "node-17");
    assert_string_equal(nd_json_get_str(id, "time"), "1970-01-02T00:00:00Z");
    assert_null(json_object_get(id, "rank"));
    assert_null(json_object_get(id, "torchrun"));
    assert_null(json_object_get(id, "slurm"));
    assert_null(json_object_get(id, "mpi"));
    assert_null(json_object_get(id, "kubernetes"));
    json_decref(id);
    nd_environ_release(&env);
}

static void test_rank_sources(void **state)
{
    (void)state;
    struct nd_environ env;
    nd_environ_init(&env, "test");
    long r = -1;
    assert_false(nd_snapshot_rank(&env, &r));
    nd_environ_set(&env, "PMI_RANK", "3");
    assert_true(nd_snapshot_rank(&env, &r));
    assert_int_equal(r, 3);
    nd_environ_set(&env, "SLURM_PROCID", "11");
    assert_true(nd_snapshot_rank(&env, &r));
    assert_int_equal(r, 11);
    /* A garbage RANK is skipped, not read as 0. */
    nd_environ_set(&env, "RANK", "abc");
    assert_true(nd_snapshot_rank(&env, &r));
    assert_int_equal(r, 11);
    nd_environ_release(&env);
}

static void test_expand_output(void **state)
{
    (void)state;
    struct nd_environ env;
    nd_environ_init(&env, "test");
    nd_environ_set(&env, "SLURMD_NODENAME", "node-17");
    nd_environ_set(&env, "SLURM_PROCID", "33");
    nd_environ_set(&env, "SLURM_JOB_ID", "4242");
    struct nd_error err;
    char *out = NULL;
    assert_int_equal(nd_snapshot_expand_output("snap-%n-r%r-j%j.json", &env, "h1.example", &out, &err), 0);
    assert_string_equal(out, "snap-node-17-r33-j4242.json");
    free(out);
    assert_int_equal(nd_snapshot_expand_output("/out/%h/100%%.json", &env, "a/b", &out, &err), 0);
    assert_string_equal(out, "/out/a_b/100%.json");
    free(out);
    assert_int_equal(nd_snapshot_expand_output("plain.json", &env, "h", &out, &err), 0);
    assert_string_equal(out, "plain.json");
    free(out);
    assert_int_equal(nd_snapshot_expand_output("snap-%x.json", &env, "h", &out, &err), -EINVAL);
    assert_non_null(strstr(err.msg, "%x"));
    assert_int_equal(nd_snapshot_expand_output("snap-%", &env, "h", &out, &err), -EINVAL);
    assert_non_null(strstr(err.msg, "trailing"));
    nd_environ_release(&env);

    /* No launcher: rank 0, no job. */
    nd_environ_init(&env, "test");
    assert_int_equal(nd_snapshot_expand_output("%n-%r-%j", &env, "box.lan", &out, &err), 0);
    assert_string_equal(out, "box-0-nojob");
    free(out);
    nd_environ_release(&env);
}

static void test_env_json_redacted(void **state)
{
    (void)state;
    struct nd_environ env;
    nd_environ_init(&env, "test");
    nd_environ_set(&env, "PATH", "/usr/bin:/bin");
    nd_environ_set(&env, "HF_TOKEN", "hf_plantedsecretvalue0001");
    nd_environ_set(&env, "MASTER_URL", "http://user:pass1234@host:29500/x");
    nd_environ_set(&env, "ANOTHER", "plain");
    nd_environ_set(&env, "INTERNAL_ENDPOINT_ID", "zz-internal-4711");
    struct nd_error err;
    assert_int_equal(nd_redact_add_pattern("INTERNAL_ENDPOINT", &err), 0);
    size_t n = 0;
    json_t *o = nd_snapshot_env_json(&env, &n);
    assert_int_equal(n, 3);
    assert_true(nd_redact_is_marker(nd_json_get_str(o, "HF_TOKEN")));
    assert_true(nd_redact_is_marker(nd_json_get_str(o, "INTERNAL_ENDPOINT_ID")));
    assert_null(strstr(nd_json_get_str(o, "MASTER_URL"), "pass1234"));
    assert_non_null(strstr(nd_json_get_str(o, "MASTER_URL"), "@host:29500/x"));
    assert_string_equal(nd_json_get_str(o, "PATH"), "/usr/bin:/bin");
    /* Sorted by name. */
    void *it = json_object_iter(o);
    assert_string_equal(json_object_iter_key(it), "ANOTHER");
    char *dump = json_dumps(o, JSON_PRESERVE_ORDER);
    assert_null(strstr(dump, "plantedsecret"));
    assert_null(strstr(dump, "zz-internal"));
    free(dump);
    json_decref(o);
    nd_redact_reset();
    nd_environ_release(&env);
}

static void test_device_state_json(void **state)
{
    (void)state;
    struct nd_device_state *st = calloc(1, sizeof *st);
    snprintf(st->vendor, sizeof st->vendor, "ascend");
    st->lib_found = true;
    snprintf(st->lib_path, sizeof st->lib_path, "/usr/local/Ascend/driver/lib64/driver/libdcmi.so");
    st->driver_version_valid = true;
    snprintf(st->driver_version, sizeof st->driver_version, "24.1.rc2");
    st->ndevices = 2;
    for (int i = 0; i < 2; i++) {
        struct nd_device *d = &st->devices[i];
        d->index = i;
        d->card_id = i;
        d->chip_id = 0;
        snprintf(d->name, sizeof d->name, "910B3");
        d->mem_valid = true;
        d->mem_total_bytes = 64ull << 30;
        d->mem_used_bytes = 3ull << 30;
        d->util_valid = true;
        d->util_pct = 50;
    }
    json_t *devices = json_array(), *layer = json_array();
    nd_snapshot_add_device_state(devices, layer, st);
    assert_int_equal(json_array_size(devices), 2);
    json_t *d1 = json_array_get(devices, 1);
    assert_string_equal(nd_json_get_str(d1, "vendor"), "ascend");
    assert_int_equal(json_integer_value(json_object_get(d1, "index")), 1);
    assert_string_equal(nd_json_get_str(d1, "name"), "910B3");
    assert_int_equal(json_integer_value(json_object_get(d1, "memory_total_bytes")), 64ll << 30);
    /* The device encoder's object (device/device_json.h): every key, unknown
     * ones null, utilisation as a 0-1 ratio, no "sample" sub-object. */
    assert_true(json_is_null(json_object_get(d1, "uuid")));
    assert_true(json_is_null(json_object_get(d1, "health")));
    assert_null(json_object_get(d1, "sample"));
    assert_int_equal(json_integer_value(json_object_get(d1, "memory_used_bytes")), 3ll << 30);
    assert_float_equal(json_real_value(json_object_get(d1, "utilization_ratio")), 0.5, 1e-9);
    json_t *l = json_array_get(layer, 0);
    assert_string_equal(nd_json_get_str(l, "status"), "ok");
    assert_string_equal(nd_json_get_str(l, "driver_version"), "24.1.rc2");
    assert_int_equal(json_integer_value(json_object_get(l, "device_count")), 2);

    /* A failed query: the error is kept, no devices. */
    memset(st, 0, sizeof *st);
    snprintf(st->vendor, sizeof st->vendor, "nvidia");
    st->status = -ENOENT;
    snprintf(st->failed_call, sizeof st->failed_call, "dlopen");
    snprintf(st->error, sizeof st->error, "libnvidia-ml.so.1 not found");
    nd_snapshot_add_device_state(devices, layer, st);
    assert_int_equal(json_array_size(devices), 2);
    l = json_array_get(layer, 1);
    assert_string_equal(nd_json_get_str(l, "status"), "no-library");
    assert_string_equal(nd_json_get_str(l, "failed_call"), "dlopen");
    assert_string_equal(nd_json_get_str(l, "error"), "libnvidia-ml.so.1 not found");
    assert_true(json_is_null(json_object_get(l, "library")));
    json_decref(devices);
    json_decref(layer);
    free(st);
}

static void test_limits_json(void **state)
{
    (void)state;
    json_t *o = nd_snapshot_limits_json();
    json_t *nofile = json_object_get(o, "nofile");
    assert_true(json_is_integer(nofile) || json_is_string(nofile));
    if (json_is_integer(nofile))
        assert_true(json_integer_value(nofile) > 0);
    assert_non_null(json_object_get(o, "memlock_bytes"));
    json_decref(o);
}

static int parse(const char *text, json_t **doc, struct nd_error *err)
{
    return nd_snapshot_parse(text, strlen(text), "x.json", doc, err);
}

static void test_parse_checks(void **state)
{
    (void)state;
    json_t *doc = NULL;
    struct nd_error err;
    assert_int_equal(parse("{\"schema\":\"npu-doctor/1\",\"command\":\"snapshot\",\"snapshot_version\":1,"
                           "\"env\":{},\"devices\":[]}",
                           &doc, &err),
                     0);
    assert_non_null(doc);
    json_decref(doc);
    /* A handmade snapshot without a version is read as version 1. */
    assert_int_equal(parse("{\"schema\":\"npu-doctor/1\",\"command\":\"snapshot\"}", &doc, &err), 0);
    json_decref(doc);

    assert_int_equal(parse("{\"schema\":\"npu-doctor/1\",\"command\":\"snap", &doc, &err), -EINVAL);
    assert_null(doc);
    assert_non_null(strstr(err.msg, "x.json"));
    assert_non_null(strstr(err.msg, "truncated"));
    assert_int_equal(parse("hello world", &doc, &err), -EINVAL);
    assert_non_null(strstr(err.msg, "x.json"));
    assert_int_equal(nd_snapshot_parse("", 0, "x.json", &doc, &err), -EINVAL);
    assert_non_null(strstr(err.msg, "empty"));
    assert_int_equal(parse("[1,2]", &doc, &err), -EINVAL);
    assert_non_null(strstr(err.msg, "not an object"));
    assert_int_equal(parse("{\"command\":\"snapshot\"}", &doc, &err), -EINVAL);
    assert_non_null(strstr(err.msg, "schema"));
    assert_int_equal(parse("{\"schema\":\"other-tool/3\",\"command\":\"snapshot\"}", &doc, &err), -EINVAL);
    assert_int_equal(parse("{\"schema\":\"npu-doctor/3\",\"command\":\"snapshot\"}", &doc, &err), -EPROTONOSUPPORT);
    assert_non_null(strstr(err.msg, "npu-doctor/3"));
    assert_non_null(strstr(err.msg, "understands (npu-doctor/2)"));
    assert_int_equal(parse("{\"schema\":\"npu-doctor/2\",\"command\":\"snapshot\"}", &doc, &err), 0);
    json_decref(doc);
    assert_int_equal(parse("{\"schema\":\"npu-doctor/1\",\"command\":\"snapshot\",\"snapshot_version\":9}", &doc, &err),
                     -EPROTONOSUPPORT);
    assert_non_null(strstr(err.msg, "version 9"));
    assert_non_null(strstr(err.msg, "(version 1)"));
    assert_int_equal(parse("{\"schema\":\"npu-doctor/1\",\"command\":\"check\"}", &doc, &err), -EINVAL);
    assert_non_null(strstr(err.msg, "not a snapshot"));
    assert_int_equal(parse("{\"schema\":\"npu-doctor/1\",\"command\":\"snapshot\",\"env\":[]}", &doc, &err), -EINVAL);
    assert_non_null(strstr(err.msg, "\"env\" is not an object"));
    assert_int_equal(parse("{\"schema\":\"npu-doctor/1\",\"command\":\"snapshot\",\"devices\":{}}", &doc, &err), -EINVAL);
    assert_int_equal(
        parse("{\"schema\":\"npu-doctor/1\",\"command\":\"snapshot\",\"snapshot_version\":\"1\"}", &doc, &err), -EINVAL);
    /* Duplicate keys are ambiguous: refused. */
    assert_int_equal(
        parse("{\"schema\":\"npu-doctor/1\",\"schema\":\"npu-doctor/1\",\"command\":\"snapshot\"}", &doc, &err), -EINVAL);
}

/* A schema 1 snapshot (written before the units were in the names) is read
 * back in the current names, types and units, so diff can compare it with a
 * new one key by key. */
static void test_parse_upgrades_schema1(void **state)
{
    (void)state;
    json_t *doc = NULL;
    struct nd_error err;
    const char *v1 =
        "{\"schema\":\"npu-doctor/1\",\"command\":\"snapshot\",\"snapshot_version\":1,\"tool_version\":\"0.1.0\","
        "\"devices\":[{\"vendor\":\"ascend\",\"index\":0,\"name\":\"910B3\",\"health\":2,\"memory_total_bytes\":8,"
        "\"sample\":{\"utilization\":0.25,\"memory_used_bytes\":4,\"power_w\":90.5}}],"
        "\"device_layer\":[{\"vendor\":\"ascend\",\"library\":\"/x/libdcmi.so\",\"status\":\"ok\",\"device_count\":1},"
        "{\"vendor\":\"nvidia\",\"library\":null,\"status\":\"failed\",\"error\":\"no such library\"},"
        "{\"vendor\":\"other\",\"library\":\"/y.so\",\"status\":\"failed\",\"error\":\"timed out after 5 s in init\"}],"
        "\"facts\":{\"host\":{\"cpu_quota\":4.5},\"distributed\":{\"hccl_exec_timeout\":1200},"
        "\"devices\":{\"vendors\":[{\"vendor\":\"ascend\",\"status\":0,\"processes\":3,"
        "\"devices\":[{\"index\":0,\"name\":\"910B3\",\"health\":0,\"utilization\":40},"
        "{\"index\":1,\"name\":\"910B3\",\"utilization\":250}]}]}}}";
    assert_int_equal(parse(v1, &doc, &err), 0);
    assert_string_equal(nd_json_get_str(doc, "schema"), "npu-doctor/2");
    assert_string_equal(nd_json_get_str(doc, "version"), "0.1.0");
    assert_null(json_object_get(doc, "tool_version"));
    json_t *d = json_array_get(json_object_get(doc, "devices"), 0);
    assert_null(json_object_get(d, "sample"));
    assert_float_equal(json_real_value(json_object_get(d, "utilization_ratio")), 0.25, 1e-9);
    assert_int_equal(json_integer_value(json_object_get(d, "memory_used_bytes")), 4);
    assert_string_equal(nd_json_get_str(d, "health"), "alarm");
    assert_true(json_is_null(json_object_get(d, "temperature_c")));
    json_t *layer = json_object_get(doc, "device_layer");
    assert_string_equal(nd_json_get_str(json_array_get(layer, 0), "status"), "ok");
    assert_string_equal(nd_json_get_str(json_array_get(layer, 1), "status"), "no-library");
    assert_string_equal(nd_json_get_str(json_array_get(layer, 2), "status"), "timed-out");
    json_t *facts = json_object_get(doc, "facts");
    assert_float_equal(json_real_value(json_object_get(json_object_get(facts, "host"), "cpu_quota_cores")), 4.5, 1e-9);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(facts, "distributed"), "hccl_exec_timeout_s")),
                     1200);
    json_t *cv = json_array_get(json_object_get(json_object_get(facts, "devices"), "vendors"), 0);
    assert_string_equal(nd_json_get_str(cv, "status"), "ok");
    assert_int_equal(json_integer_value(json_object_get(cv, "process_count")), 3);
    json_t *cd = json_array_get(json_object_get(cv, "devices"), 0);
    /* check wrote a percent under schema 1. */
    assert_float_equal(json_real_value(json_object_get(cd, "utilization_ratio")), 0.40, 1e-9);
    assert_string_equal(nd_json_get_str(cd, "health"), "ok");
    /* A percent that was never a reading becomes unknown, not 2.5. */
    cd = json_array_get(json_object_get(cv, "devices"), 1);
    assert_true(json_is_null(json_object_get(cd, "utilization_ratio")));
    assert_true(json_is_null(json_object_get(cd, "health")));
    json_decref(doc);
}

static void test_load_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/nd-snap-XXXXXX";
    assert_non_null(mkdtemp(dir));
    json_t *doc = NULL;
    struct nd_error err;
    assert_int_equal(nd_snapshot_load(dir, &doc, &err), -EISDIR);
    assert_non_null(strstr(err.msg, dir));
    assert_non_null(strstr(err.msg, "directory"));
    char path[256];
    snprintf(path, sizeof path, "%s/missing.json", dir);
    assert_int_equal(nd_snapshot_load(path, &doc, &err), -ENOENT);
    assert_non_null(strstr(err.msg, "missing.json"));
    snprintf(path, sizeof path, "%s/ok.json", dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("{\"schema\":\"npu-doctor/1\",\"command\":\"snapshot\",\"snapshot_version\":1}\n", fp);
    fclose(fp);
    assert_int_equal(nd_snapshot_load(path, &doc, &err), 0);
    json_decref(doc);
    unlink(path);
    rmdir(dir);
}

static void test_redact_json_document(void **state)
{
    (void)state;
    json_error_t jerr;
    json_t *doc = json_loads(
        "{\"env\": {\"HF_TOKEN\": \"hf_abcdefghijklmnopqrstuvwx\", \"MASTER_URL\": \"http://u:pw9@h/\","
        " \"HOME\": \"/root\"},"
        " \"facts\": {\"log\": \"launch WANDB_API_KEY=abc123 now\", \"key\": \"env.HF_TOKEN\","
        " \"tokenizers\": \"0.20.0\", \"pairs\": [{\"name\": \"AWS_SECRET_ACCESS_KEY\", \"value\": \"s3cr3t\"}],"
        " \"shape\": \"token AKIAABCDEFGHIJKLMNOP here\"}}",
        0, &jerr);
    assert_non_null(doc);
    nd_redact_json(doc);
    char *once = json_dumps(doc, JSON_SORT_KEYS);
    assert_null(strstr(once, "hf_abcdef"));
    assert_null(strstr(once, "pw9"));
    assert_null(strstr(once, "abc123"));
    assert_null(strstr(once, "s3cr3t"));
    assert_null(strstr(once, "AKIAABCDEFGHIJKLMNOP"));
    assert_non_null(strstr(once, "/root"));
    /* Our own schema words are not secret names. */
    assert_non_null(strstr(once, "\"key\": \"env.HF_TOKEN\""));
    assert_non_null(strstr(once, "\"tokenizers\": \"0.20.0\""));
    /* Idempotent: a redacted document read back and redacted again is equal. */
    nd_redact_json(doc);
    char *twice = json_dumps(doc, JSON_SORT_KEYS);
    assert_string_equal(once, twice);
    free(once);
    free(twice);
    json_decref(doc);
}

static void test_redact_idempotent_values(void **state)
{
    (void)state;
    char *a = nd_redact_value("MASTER_URL", "https://user:pw@host/x");
    char *b = nd_redact_value("MASTER_URL", a);
    assert_string_equal(a, b);
    char *c = nd_redact_value("HF_TOKEN", "hf_x");
    char *d = nd_redact_value("HF_TOKEN", c);
    assert_string_equal(c, d);
    /* A token shape under an innocent name. */
    char *e = nd_redact_value("MY_SETTING", "ghp_0123456789abcdefghijABCDEFGHIJ");
    assert_true(nd_redact_is_marker(e));
    /* Short look-alikes are left alone. */
    char *f = nd_redact_text("use hf_x and AKIA1 and ghp_short");
    assert_string_equal(f, "use hf_x and AKIA1 and ghp_short");
    free(a);
    free(b);
    free(c);
    free(d);
    free(e);
    free(f);
}

static void test_redact_env_patterns(void **state)
{
    (void)state;
    setenv(ND_REDACT_ENV, "^CORP_|internal_endpoint", 1);
    nd_redact_reset();
    struct nd_error err;
    assert_int_equal(nd_redact_check_env(&err), 0);
    assert_true(nd_redact_name_is_secret("CORP_DB"));
    assert_true(nd_redact_name_is_secret("MY_INTERNAL_ENDPOINT_ID"));
    assert_false(nd_redact_name_is_secret("MY_CORP_DB"));
    char *v = nd_redact_value("CORP_DB", "db-4711");
    assert_true(nd_redact_is_marker(v));
    free(v);
    setenv(ND_REDACT_ENV, "([", 1);
    nd_redact_reset();
    assert_int_equal(nd_redact_check_env(&err), -EINVAL);
    assert_non_null(strstr(err.msg, ND_REDACT_ENV));
    /* An invalid pattern is ignored by the matcher itself. */
    assert_false(nd_redact_name_is_secret("CORP_DB"));
    unsetenv(ND_REDACT_ENV);
    nd_redact_reset();
    assert_int_equal(nd_redact_check_env(&err), 0);
    assert_false(nd_redact_name_is_secret("CORP_DB"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity_launchers),
        cmocka_unit_test(test_identity_bare),
        cmocka_unit_test(test_rank_sources),
        cmocka_unit_test(test_expand_output),
        cmocka_unit_test(test_env_json_redacted),
        cmocka_unit_test(test_device_state_json),
        cmocka_unit_test(test_limits_json),
        cmocka_unit_test(test_parse_checks),
        cmocka_unit_test(test_parse_upgrades_schema1),
        cmocka_unit_test(test_load_files),
        cmocka_unit_test(test_redact_json_document),
        cmocka_unit_test(test_redact_idempotent_values),
        cmocka_unit_test(test_redact_env_patterns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
