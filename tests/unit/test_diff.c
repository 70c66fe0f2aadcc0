/* Unit tests for the diff engine: classification, pairwise differences
 * (PATH entries, noise), outliers against the majority, array elements,
 * redaction of handmade input, the text and JSON reporters, and the string
 * table underneath. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "diff/diff.h"
#include "core/json_util.h"
#include "core/redact.h"
#include "core/strtab.h"

static json_t *doc(const char *text)
{
    json_error_t jerr;
    json_t *d = json_loads(text, 0, &jerr);
    if (!d)
        fail_msg("bad test JSON: %s", jerr.text);
    return d;
}

static struct nd_diff *diff_of(const char *const *texts, size_t n)
{
    struct nd_diff *d = nd_diff_new(n);
    for (size_t i = 0; i < n; i++) {
        json_t *j = doc(texts[i]);
        char name[32];
        snprintf(name, sizeof name, "f%zu.json", i);
        nd_diff_add(d, i, name, j);
        json_decref(j);
    }
    return d;
}

/* The difference on key (and entry, when non-NULL), or NULL. */
static const struct nd_difference *find(const struct nd_diff *d, const struct nd_diff_result *r, const char *key,
                                        const char *entry)
{
    for (size_t i = 0; i < r->n; i++) {
        const struct nd_diff_key *k = nd_diff_key_at(d, r->v[i].key);
        if (strcmp(k->key, key) != 0)
            continue;
        if ((entry == NULL) != (k->entry == NULL))
            continue;
        if (entry && strcmp(entry, k->entry) != 0)
            continue;
        return &r->v[i];
    }
    return NULL;
}

static char *text_of(const struct nd_diff *d, const struct nd_diff_result *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    nd_diff_print_text(d, r, fp, false);
    fclose(fp);
    return buf;
}

static void test_classification(void **state)
{
    (void)state;
    assert_true(nd_diff_env_is_noise("SHLVL"));
    assert_true(nd_diff_env_is_noise("OLDPWD"));
    assert_true(nd_diff_env_is_noise("_"));
    assert_true(nd_diff_env_is_noise("SSH_CONNECTION"));
    assert_true(nd_diff_env_is_noise("SLURM_PROCID"));
    assert_true(nd_diff_env_is_noise("RANK"));
    assert_false(nd_diff_env_is_noise("MASTER_ADDR"));
    assert_false(nd_diff_env_is_noise("ASCEND_HOME_PATH"));
    assert_true(nd_diff_env_is_vendor("ASCEND_OPP_PATH"));
    assert_true(nd_diff_env_is_vendor("LD_LIBRARY_PATH"));
    assert_true(nd_diff_env_is_vendor("PYTHONPATH"));
    assert_true(nd_diff_env_is_vendor("CUDA_VISIBLE_DEVICES"));
    assert_true(nd_diff_env_is_vendor("HCCL_CONNECT_TIMEOUT"));
    assert_false(nd_diff_env_is_vendor("HOME"));
    assert_true(nd_diff_env_is_pathlike("LD_LIBRARY_PATH", "/a"));
    assert_true(nd_diff_env_is_pathlike("MY_TOOL_PATH", "/a:/b"));
    assert_false(nd_diff_env_is_pathlike("ASCEND_HOME_PATH", "/usr/local/Ascend/ascend-toolkit/latest"));
    assert_false(nd_diff_env_is_pathlike("HOME", "/root"));
    assert_true(nd_diff_fact_is_noise("memory_available_bytes"));
    assert_true(nd_diff_fact_is_noise("disk_free_bytes"));
    assert_true(nd_diff_fact_is_noise("hostname"));
    assert_true(nd_diff_fact_is_noise("time"));
    assert_true(nd_diff_fact_is_noise("rank"));
    assert_true(nd_diff_fact_is_noise("temperature_c"));
    assert_false(nd_diff_fact_is_noise("hccl_connect_timeout"));
    assert_false(nd_diff_fact_is_noise("version"));
    assert_false(nd_diff_fact_is_noise("shm_bytes"));
    assert_false(nd_diff_fact_is_noise("rank_table"));
    assert_true(nd_diff_fact_is_noise("s"));
    assert_true(nd_diff_fact_is_noise("elapsed_s"));
    assert_true(nd_diff_fact_is_noise("import_seconds"));
    assert_false(nd_diff_fact_is_noise("status"));
    assert_string_equal(nd_diff_category_name(ND_DIFF_VENDOR), "vendor");
    assert_string_equal(nd_diff_category_name(ND_DIFF_NOISE), "noise");
}

static const char *const pair_a =
    "{\"schema\":\"npu-doctor/1\",\"command\":\"snapshot\",\"identity\":{\"hostname\":\"n1\",\"time\":\"t1\"},"
    "\"limits\":{\"shm_bytes\":67108864},"
    "\"python\":{\"packages\":{\"torch\":\"2.1.0\",\"numpy\":\"1.26.4\"}},"
    "\"env\":{\"ASCEND_HOME_PATH\":\"/usr/local/Ascend/ascend-toolkit/latest\","
    "\"LD_LIBRARY_PATH\":\"/usr/local/Ascend/driver/lib64:/opt/x/lib\",\"SHLVL\":\"1\",\"HOME\":\"/root\"}}";
static const char *const pair_b =
    "{\"schema\":\"npu-doctor/1\",\"command\":\"snapshot\",\"identity\":{\"hostname\":\"n1\",\"time\":\"t2\"},"
    "\"limits\":{\"shm_bytes\":1073741824},"
    "\"python\":{\"packages\":{\"torch\":\"2.2.0\",\"numpy\":\"1.26.4\"}},"
    "\"env\":{\"CUDA_HOME\":\"/usr/local/cuda\",\"LD_LIBRARY_PATH\":\"/opt/x/lib:/home/me/lib\",\"SHLVL\":\"2\","
    "\"HOME\":\"/root\"}}";

static void test_pairwise(void **state)
{
    (void)state;
    const char *texts[] = {pair_a, pair_b};
    struct nd_diff *d = diff_of(texts, 2);
    struct nd_diff_result r;
    assert_int_equal(nd_diff_compute(d, false, &r), 0);
    /* ASCEND_HOME_PATH, CUDA_HOME, two LD_LIBRARY_PATH entries, torch, /dev/shm. */
    assert_int_equal(r.n, 6);
    /* identity.time and SHLVL are noise. */
    assert_int_equal(r.noise_hidden, 2);
    const struct nd_difference *df = find(d, &r, "env.LD_LIBRARY_PATH", "/usr/local/Ascend/driver/lib64");
    assert_non_null(df);
    const struct nd_diff_key *k = nd_diff_key_at(d, df->key);
    assert_string_equal(nd_diff_value(k, 0), "present");
    assert_null(nd_diff_value(k, 1));
    assert_false(df->has_majority);
    assert_non_null(find(d, &r, "env.LD_LIBRARY_PATH", "/home/me/lib"));
    assert_null(find(d, &r, "env.LD_LIBRARY_PATH", "/opt/x/lib"));
    assert_non_null(find(d, &r, "env.ASCEND_HOME_PATH", NULL));
    assert_null(find(d, &r, "env.HOME", NULL));
    /* Most relevant first: vendor, then Python, then limits; variables by
     * name (CUDA_HOME, only in B, between A's), a variable's entries together. */
    assert_int_equal(nd_diff_key_at(d, r.v[0].key)->category, ND_DIFF_VENDOR);
    assert_string_equal(nd_diff_key_at(d, r.v[0].key)->key, "env.ASCEND_HOME_PATH");
    assert_string_equal(nd_diff_key_at(d, r.v[1].key)->key, "env.CUDA_HOME");
    assert_string_equal(nd_diff_key_at(d, r.v[2].key)->key, "env.LD_LIBRARY_PATH");
    assert_string_equal(nd_diff_key_at(d, r.v[3].key)->key, "env.LD_LIBRARY_PATH");
    assert_string_equal(nd_diff_key_at(d, r.v[4].key)->key, "python.packages.torch");
    assert_string_equal(nd_diff_key_at(d, r.v[5].key)->key, "limits.shm_bytes");

    char *text = text_of(d, &r);
    assert_non_null(strstr(text, "missing: /usr/local/Ascend/driver/lib64"));
    assert_non_null(strstr(text, "added: /home/me/lib"));
    assert_non_null(strstr(text, "ASCEND_HOME_PATH"));
    assert_non_null(strstr(text, "-> (unset)"));
    assert_non_null(strstr(text, "2.1.0 -> 2.2.0"));
    assert_non_null(strstr(text, "2 noise differences hidden"));
    assert_null(strstr(text, "SHLVL"));
    /* The vendor section comes before the Python section. */
    assert_true(strstr(text, "vendor stack") < strstr(text, "Python stack"));
    free(text);
    nd_diff_result_release(&r);

    assert_int_equal(nd_diff_compute(d, true, &r), 0);
    assert_int_equal(r.n, 8);
    assert_int_equal(r.noise_hidden, 0);
    assert_non_null(find(d, &r, "env.SHLVL", NULL));
    nd_diff_result_release(&r);
    nd_diff_free(d);
}

static void test_identical(void **state)
{
    (void)state;
    const char *texts[] = {pair_a, pair_a};
    struct nd_diff *d = diff_of(texts, 2);
    struct nd_diff_result r;
    nd_diff_compute(d, true, &r);
    assert_int_equal(r.n, 0);
    char *text = text_of(d, &r);
    assert_non_null(strstr(text, "no differences"));
    free(text);
    nd_diff_result_release(&r);
    nd_diff_free(d);
}

static void test_outliers(void **state)
{
    (void)state;
    char texts[5][512];
    const char *ptrs[5];
    for (int i = 0; i < 5; i++) {
        snprintf(texts[i], sizeof texts[i],
                 "{\"schema\":\"npu-doctor/1\",\"command\":\"snapshot\","
                 "\"identity\":{\"hostname\":\"node-%d\",\"node_name\":\"node-%d\",\"time\":\"t%d\"},"
                 "\"facts\":{\"ascend\":{\"cann\":{\"version\":\"%s\"}}},"
                 "\"device_files\":[\"/dev/davinci0\"%s],"
                 "\"devices\":[{\"vendor\":\"ascend\",\"index\":0,\"name\":\"910B3\"}%s]}",
                 i, i, i, i == 3 ? "8.0.0" : "8.1.RC1", i == 1 ? "" : ",\"/dev/davinci1\"",
                 i == 1 ? "" : ",{\"vendor\":\"ascend\",\"index\":1,\"name\":\"910B3\"}");
        ptrs[i] = texts[i];
    }
    struct nd_diff *d = diff_of(ptrs, 5);
    assert_string_equal(nd_diff_label(d, 3), "node-3");
    struct nd_diff_result r;
    nd_diff_compute(d, false, &r);
    const struct nd_difference *df = find(d, &r, "facts.ascend.cann.version", NULL);
    assert_non_null(df);
    assert_true(df->has_majority);
    assert_string_equal(df->majority, "8.1.RC1");
    assert_int_equal(df->noutliers, 1);
    assert_int_equal(df->outliers[0], 3);
    df = find(d, &r, "device_files", "/dev/davinci1");
    assert_non_null(df);
    assert_int_equal(df->noutliers, 1);
    assert_int_equal(df->outliers[0], 1);
    /* The missing device is one difference, not one per field. */
    assert_non_null(find(d, &r, "devices", "ascend:1"));
    assert_null(find(d, &r, "devices[ascend:1].name", NULL));
    assert_int_equal(r.n, 3);

    char *text = text_of(d, &r);
    assert_non_null(strstr(text, "node-3: CANN 8.0.0 (others: 8.1.RC1)"));
    assert_non_null(strstr(text, "node-1: missing device file /dev/davinci1 (others have it)"));
    assert_non_null(strstr(text, "2 differ from the majority (node-1, node-3)"));
    assert_null(strstr(text, "node-0"));
    free(text);

    json_t *j = nd_diff_to_json(d, &r);
    assert_string_equal(nd_json_get_str(j, "command"), "diff");
    json_t *first = json_array_get(json_object_get(j, "differences"), 0);
    assert_string_equal(nd_json_get_str(first, "key"), "facts.ascend.cann.version");
    assert_string_equal(nd_json_get_str(first, "majority"), "8.1.RC1");
    assert_string_equal(json_string_value(json_array_get(json_object_get(first, "outliers"), 0)), "f3.json");
    assert_string_equal(nd_json_get_str(json_object_get(first, "values"), "f3.json"), "8.0.0");
    assert_int_equal(json_object_size(json_object_get(first, "values")), 5);
    json_decref(j);
    nd_diff_result_release(&r);
    nd_diff_free(d);
}

static void test_outlier_entry_runs(void **state)
{
    (void)state;
    const char *full = "{\"schema\":\"npu-doctor/1\",\"command\":\"snapshot\",\"identity\":{\"node_name\":\"n%d\"},"
                       "\"env\":{\"LD_LIBRARY_PATH\":\"/a:/b:/c\"}}";
    const char *part = "{\"schema\":\"npu-doctor/1\",\"command\":\"snapshot\",\"identity\":{\"node_name\":\"n%d\"},"
                       "\"env\":{\"LD_LIBRARY_PATH\":\"/c:/x\"}}";
    char texts[4][256];
    const char *ptrs[4];
    for (int i = 0; i < 4; i++) {
        snprintf(texts[i], sizeof texts[i], i == 2 ? part : full, i);
        ptrs[i] = texts[i];
    }
    struct nd_diff *d = diff_of(ptrs, 4);
    struct nd_diff_result r;
    nd_diff_compute(d, false, &r);
    assert_int_equal(r.n, 3);
    char *text = text_of(d, &r);
    /* One line for what n2 lacks, one for what only n2 has. */
    assert_non_null(strstr(text, "  n2: missing LD_LIBRARY_PATH entries /a, /b (others have them)\n"));
    assert_non_null(strstr(text, "  n2: extra LD_LIBRARY_PATH entry /x (others lack it)\n"));
    free(text);
    nd_diff_result_release(&r);
    nd_diff_free(d);
}

static void test_no_majority(void **state)
{
    (void)state;
    const char *t0 =
        "{\"schema\":\"npu-doctor/1\",\"command\":\"snapshot\",\"python\":{\"packages\":{\"torch\":\"1\"}}}";
    const char *t1 =
        "{\"schema\":\"npu-doctor/1\",\"command\":\"snapshot\",\"python\":{\"packages\":{\"torch\":\"2\"}}}";
    const char *texts[] = {t0, t0, t1, t1};
    struct nd_diff *d = diff_of(texts, 4);
    struct nd_diff_result r;
    nd_diff_compute(d, false, &r);
    assert_int_equal(r.n, 1);
    assert_false(r.v[0].has_majority);
    char *text = text_of(d, &r);
    assert_non_null(strstr(text, "no majority"));
    /* No node names in the documents: files name them. */
    assert_non_null(strstr(text, "f0.json, f1.json"));
    free(text);
    json_t *j = nd_diff_to_json(d, &r);
    json_t *first = json_array_get(json_object_get(j, "differences"), 0);
    assert_null(json_object_get(first, "majority"));
    json_decref(j);
    nd_diff_result_release(&r);
    nd_diff_free(d);
}

static void test_no_majority_long(void **state)
{
    (void)state;
    char texts[9][160];
    const char *ptrs[9];
    for (int i = 0; i < 9; i++) {
        snprintf(texts[i], sizeof texts[i],
                 "{\"schema\":\"npu-doctor/1\",\"command\":\"snapshot\",\"limits\":{\"nofile\":%d}}", 1000 + i);
        ptrs[i] = texts[i];
    }
    struct nd_diff *d = diff_of(ptrs, 9);
    struct nd_diff_result r;
    nd_diff_compute(d, false, &r);
    assert_int_equal(r.n, 1);
    char *text = text_of(d, &r);
    /* Six values shown, the other three counted. */
    assert_non_null(strstr(text, "1005 (f5.json); and 3 more values"));
    assert_null(strstr(text, "1006"));
    free(text);
    nd_diff_result_release(&r);
    nd_diff_free(d);
}

static void test_redacts_handmade_input(void **state)
{
    (void)state;
    const char *t0 = "{\"schema\":\"npu-doctor/1\",\"command\":\"snapshot\",\"env\":{\"HF_TOKEN\":\"hf_plain1\","
                     "\"MASTER_URL\":\"http://u:topsecret@h:1/\",\"MY_CORP_ID\":\"corp-42\"}}";
    const char *t1 = "{\"schema\":\"npu-doctor/1\",\"command\":\"snapshot\",\"env\":{\"HF_TOKEN\":\"hf_plain2\","
                     "\"MASTER_URL\":\"http://u:othersecret@h:1/\",\"MY_CORP_ID\":\"corp-43\"}}";
    struct nd_error err;
    assert_int_equal(nd_redact_add_pattern("^MY_CORP", &err), 0);
    const char *texts[] = {t0, t1};
    struct nd_diff *d = diff_of(texts, 2);
    struct nd_diff_result r;
    nd_diff_compute(d, false, &r);
    assert_int_equal(r.n, 3);
    char *text = text_of(d, &r);
    assert_null(strstr(text, "hf_plain"));
    assert_null(strstr(text, "secret@"));
    assert_null(strstr(text, "corp-4"));
    assert_non_null(strstr(text, "<redacted:"));
    json_t *j = nd_diff_to_json(d, &r);
    char *dump = json_dumps(j, 0);
    assert_null(strstr(dump, "hf_plain"));
    assert_null(strstr(dump, "corp-4"));
    free(dump);
    json_decref(j);
    free(text);
    nd_diff_result_release(&r);
    nd_diff_free(d);
    nd_redact_reset();
}

static void test_strtab(void **state)
{
    (void)state;
    struct nd_strtab *t = nd_strtab_new();
    size_t id0, id1, id2;
    const char *a = nd_strtab_intern(t, "alpha", 5, &id0);
    const char *b = nd_strtab_intern(t, "beta", 4, &id1);
    const char *a2 = nd_strtab_intern(t, "alpha", 5, &id2);
    assert_ptr_equal(a, a2);
    assert_ptr_not_equal(a, b);
    assert_int_equal(id0, 0);
    assert_int_equal(id1, 1);
    assert_int_equal(id2, 0);
    char buf[32];
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(buf, sizeof buf, "k%d", i);
        size_t id;
        nd_strtab_intern(t, buf, (size_t)n, &id);
        assert_int_equal(id, (size_t)i + 2);
    }
    assert_int_equal(nd_strtab_count(t), 5002);
    assert_string_equal(nd_strtab_get(t, 4001), "k3999");
    assert_non_null(nd_strtab_find(t, "k4999", 5, NULL));
    assert_null(nd_strtab_find(t, "k5000", 5, NULL));
    /* Length counts: a prefix is another string. */
    assert_null(nd_strtab_find(t, "alph", 4, NULL));
    nd_strtab_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classification),
        cmocka_unit_test(test_pairwise),
        cmocka_unit_test(test_identical),
        cmocka_unit_test(test_outliers),
        cmocka_unit_test(test_outlier_entry_runs),
        cmocka_unit_test(test_no_majority),
        cmocka_unit_test(test_no_majority_long),
        cmocka_unit_test(test_redacts_handmade_input),
        cmocka_unit_test(test_strtab),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
