/* Unit tests for secrets dressed to slip past the scrubbers: invisible
 * characters (zero-width space, word joiner, BOM, soft hyphen) inside a
 * secret's name or value and no-break spaces where a blank belongs; an
 * escaped quote inside a quoted value; tool options in their other
 * spellings (mysql -p X, docker login -pX / -p=X, curl -u "u:p w"); a
 * token as a URL's whole user part; a fine-grained GitHub token; a
 * registry or wandb login's secret as its own argv word in JSON. Each
 * secret holds the needle "Qv", which no marker can hold. Look-alikes stay
 * as they are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/redact.h"
#include "redact_table.h"

static const struct nd_case nd_cases[] = {
    /* U+FEFF, U+200B, U+00AD, U+2060 inside a name; U+00A0 as a blank. */
    {"PASS\xef\xbb\xbfWORD=Qv01valuevalue", "Qv01"},
    {"PASS\xc2\xadWORD=Qv02value", "Qv02"},
    {"pass\xe2\x80\x8bword: Qv03value", "Qv03"},
    {"{\"api\xe2\x80\x8bkey\": \"Qv04value\"}", "Qv04"},
    {"--pass\xe2\x80\x8bword Qv05value", "Qv05"},
    {"--token\xc2\xa0Qv06value", "Qv06"},
    {"Authorization:\302\240Bearer\302\240Qv07valuevalue", "Qv07"},
    {"hf_\xe2\x80\x8bQv08abcdefghijklmnopqrstuvwxyz", "Qv08"},
    {"h\342\201\240f_Qv09abcdefghijklmnopqrstuvwxyz", "Qv09"},
    {"HF\xe2\x81\xa0TOKEN=Qv10valuevalue", "Qv10"},
    {"\xef\xbb\xbfpassword=Qv11value", "Qv11"},
    /* A no-break space inside a secret is part of it: no half is left. */
    {"password=Qv30a\xc2\xa0Qv30b", "Qv30"},
    {"{\"token\": \"Qv31a\xc2\xa0Qv31b\"} --token\xc2\xa0Qv31c", "Qv31"},
    /* An escaped quote inside a quoted tool value. */
    {"sshpass -p \"ab\\\"Qv12cd\" ssh host", "Qv12"},
    {"mysql -p\"ab\\\"Qv13cd\" db", "Qv13"},
    {"wandb login \"ab\\\"Qv14cdefghijklmnop\"", "Qv14"},
    /* Tool options in their other spellings. */
    {"mysql -p Qv15pass -u root", "Qv15"},
    {"mysql -h db -p Qv16pass", "Qv16"},
    {"docker login -pQv17val registry", "Qv17"},
    {"docker login -p=Qv18val", "Qv18"},
    {"curl -u \"user:Qv19 pw\" http://x", "Qv19"},
    {"curl -u 'user:Qv20 pw' http://x", "Qv20"},
    /* A token as a URL's whole user part, however long. */
    {"git clone https://Qv21tokvalue@github.com/x/y", "Qv21"},
    {"https://Qv22tok@huggingface.co/x", "Qv22"},
    {"HTTPS_PROXY=http://Qv23@proxy:3128", "Qv23"},
    {"github_pat_11Qv24abcdefghij_abcdefghijklmnopqrstuvwxyzABCDEF", "Qv24"},
    /* GitHub's token-as-user form, and a spaced pair whose value looks generated. */
    {"https://Qv25tok:x-oauth-basic@github.com/x", "Qv25"},
    {"https://Qv26abcdefghijklmnop0123:x@github.com/x", "Qv26"},
    {"WANDB_API_KEY Qv27valuevaluevalue0123", "Qv27"},
    {"apikey Qv28valuevaluevalue0123", "Qv28"},
    {"mongo -p Qv29pass --username u", "Qv29"},
};

static const char *const nd_keep[] = {
    "ssh -p 2222 host",
    "python train.py -p 8 -a adam",
    "mysql -h db -P 3306 -u root",
    "git clone git@github.com:x/y.git",
    "ssh://git@host/repo",
    "https://git@github.com/x/y",
    "https://x-access-token@github.com/x/y",
    "see https://huggingface.co/meta-llama for access",
    "caf\xc3\xa9 na\xc3\xafve \xe4\xb8\xad\xe6\x96\x87 loss: 0.5",
    "step\302\24010 loss 0.5",
    "HF_TOKEN not set, using anonymous access",
    "token ids 101 2023 102",
    "API_KEY missing: set it in the environment",
};

static void test_evasions_redacted(void **state)
{
    (void)state;
    nd_check_redacted(nd_cases, sizeof nd_cases / sizeof *nd_cases);
}

static void test_lookalikes_kept(void **state)
{
    (void)state;
    nd_check_kept(nd_keep, sizeof nd_keep / sizeof *nd_keep);
}

/* An argv array as the reports hold it: the login command's words are
 * elements of their own, and its secret must go as in a command line. */
static void test_login_argv_json(void **state)
{
    (void)state;
    static const char *const argvs[] = {
        "[\"docker\", \"login\", \"-p\", \"Qv31secret\", \"reg.io\"]",
        "[\"/usr/bin/docker\", \"login\", \"-pQv32secret\"]",
        "[\"podman\", \"login\", \"-u\", \"me\", \"-p\", \"Qv33secret\"]",
        "[\"wandb\", \"login\", \"Qv34secretvaluevalue\"]",
        "[\"wandb\", \"login\", \"--relogin\", \"Qv35secretvaluevalue\"]",
    };
    for (size_t i = 0; i < sizeof argvs / sizeof *argvs; i++) {
        json_t *doc = json_pack("{s:o}", "argv", json_loads(argvs[i], 0, NULL));
        nd_redact_json(doc);
        char *out = json_dumps(doc, JSON_COMPACT);
        if (strstr(out, "Qv") || !strstr(out, "<redacted:"))
            fail_msg("argv %zu: %s -> %s", i, argvs[i], out);
        free(out);
        json_decref(doc);
    }
    /* The words around it stay. */
    json_t *doc = json_pack("{s:o}", "argv",
                            json_loads("[\"docker\", \"login\", \"-p\", \"Qv36\", \"reg.io\"]", 0, NULL));
    nd_redact_json(doc);
    json_t *argv = json_object_get(doc, "argv");
    assert_string_equal(json_string_value(json_array_get(argv, 1)), "login");
    assert_string_equal(json_string_value(json_array_get(argv, 2)), "-p");
    assert_string_equal(json_string_value(json_array_get(argv, 4)), "reg.io");
    json_decref(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_evasions_redacted),
        cmocka_unit_test(test_lookalikes_kept),
        cmocka_unit_test(test_login_argv_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
