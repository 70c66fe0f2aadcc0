/* The name matrix of redaction: secret words (KEY, AUTH, TOKEN...) inside
 * unrelated words must not redact (KEYBOARD_LAYOUT, MONKEY_PATCH, AUTHOR),
 * and the names and forms that hold secrets must (API_KEY, HF_AUTH_TOKEN,
 * --api-key=..., Authorization: Bearer ...). Each name is tried as a bare
 * name and in the forms a log or an argv carries it: NAME=value,
 * "NAME: value", export NAME=value, --name=value, and a JSON pair. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/redact.h"

#define VALUE "Zq7PlantedValue"

/* Names that only look like secret names: the word is part of another word
 * (KEYBOARD, MONKEY, AUTHOR, TURKEY) or the last word describes (LAYOUT). */
static const char *const nd_plain_names[] = {
    "KEYBOARD_LAYOUT", "MONKEY_PATCH",   "AUTHOR",       "AUTHORS",         "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
    "AUTHOR_EMAIL",    "COAUTHOR",       "TURKEY",       "HOCKEY_TEAM",     "DONKEY",          "HOTKEY",
    "KEYMAP",          "MONKEYPATCH",    "KEYCLOAK_URL", "KEYRING_BACKEND", "AUTHORITY",       "AUTHORIZED_USERS",
    "UNAUTHENTICATED", "AUTHENTICATED",  "XAUTHORITY",   "KEYNOTE",         "KEYSTROKE_LOG",   "KEY_BINDINGS",
    "KEY_LAYOUT",      "keyboardLayout", "monkeyPatch",  "authorName",      "KeyboardLayout",  "TOKENIZER",
    "SSH_AUTH_SOCK",   "AUTH_MODE",      "TOKEN_COUNT",  "KEYS_DIR",        "PUBKEY",
};

/* Names that hold secrets. */
static const char *const nd_secret_names[] = {
    "API_KEY",
    "HF_AUTH_TOKEN",
    "AWS_SECRET_ACCESS_KEY",
    "AUTH",
    "KEY",
    "OAUTH_TOKEN",
    "WANDB_API_KEY",
    "OPENAI_API_KEY",
    "AUTH_TOKEN",
    "PRIVATE_KEY",
    "TURKEY_API_KEY",
    "MONKEY_TOKEN",
    "AUTHOR_TOKEN",
    "KEYBOARD_SECRET",
    "NPM_AUTH",
    "MY_AUTH",
    "HF_KEY",
    "SECRET_KEY_BASE",
    "apiKey",
    "authToken",
    "GITHUB_TOKEN",
    "PGPASSWORD",
    "DB_PASS",
    "API_KEYS",
    "TS_AUTHKEY",
    "TAILSCALE_AUTHKEY",
};

static void test_names(void **state)
{
    (void)state;
    assert_true(sizeof nd_plain_names / sizeof *nd_plain_names + sizeof nd_secret_names / sizeof *nd_secret_names >= 40);
    for (size_t i = 0; i < sizeof nd_plain_names / sizeof *nd_plain_names; i++)
        if (nd_redact_name_is_secret(nd_plain_names[i]))
            fail_msg("over-redacted name: %s", nd_plain_names[i]);
    for (size_t i = 0; i < sizeof nd_secret_names / sizeof *nd_secret_names; i++)
        if (!nd_redact_name_is_secret(nd_secret_names[i]))
            fail_msg("secret name not redacted: %s", nd_secret_names[i]);
}

/* name in the forms of free text; %1$s the name, %2$s the value. */
static const char *const nd_forms[] = {
    "%s=%s", "export %s=%s", "%s: %s", "{\"%s\": \"%s\"}", "env %s=%s python train.py",
};

static char *nd_form(const char *fmt, const char *name, const char *value)
{
    size_t n = strlen(fmt) + strlen(name) + strlen(value) + 1;
    char *s = malloc(n);
    assert_non_null(s);
    snprintf(s, n, fmt, name, value);
    return s;
}

static void test_forms(void **state)
{
    (void)state;
    for (size_t f = 0; f < sizeof nd_forms / sizeof *nd_forms; f++) {
        for (size_t i = 0; i < sizeof nd_plain_names / sizeof *nd_plain_names; i++) {
            char *t = nd_form(nd_forms[f], nd_plain_names[i], "us");
            char *r = nd_redact_text(t);
            if (strcmp(r, t) != 0)
                fail_msg("over-redacted: '%s' -> '%s'", t, r);
            free(r);
            free(t);
        }
        for (size_t i = 0; i < sizeof nd_secret_names / sizeof *nd_secret_names; i++) {
            const char *name = nd_secret_names[i];
            /* A lower-case one-word name in prose ("key: x") is not taken for a secret. */
            if (strcmp(name, "KEY") == 0 || strcmp(name, "AUTH") == 0)
                continue;
            char *t = nd_form(nd_forms[f], name, VALUE);
            char *r = nd_redact_text(t);
            if (strstr(r, VALUE))
                fail_msg("secret survived: '%s' -> '%s'", t, r);
            if (!strstr(r, "<redacted:"))
                fail_msg("no marker: '%s' -> '%s'", t, r);
            free(r);
            free(t);
        }
    }
}

/* Options and headers: the value after a secret option or auth scheme goes. */
static void test_options_and_headers(void **state)
{
    (void)state;
    static const char *const secret[] = {
        "--api-key=" VALUE,
        "--api-key " VALUE,
        "--hf-auth-token " VALUE,
        "--auth-token=" VALUE,
        "--apiKey=" VALUE,
        "Authorization: Bearer " VALUE,
        "curl -H 'Authorization: Bearer " VALUE "' https://example.com",
        "Authorization: Basic " VALUE,
        "X-Api-Key: " VALUE,
        "api-key: " VALUE,
        "API_KEY=" VALUE " KEYBOARD_LAYOUT=us",
    };
    for (size_t i = 0; i < sizeof secret / sizeof *secret; i++) {
        char *r = nd_redact_text(secret[i]);
        if (strstr(r, VALUE))
            fail_msg("secret survived: '%s' -> '%s'", secret[i], r);
        free(r);
    }
    static const char *const plain[] = {
        "--keyboard=us",          "--keyboard-layout us", "--author=alice",
        "--monkey-patch=yes",     "Author: alice",        "author: bob",
        "authored by key people", "turkey=gobble",        "hotkey=ctrl",
        "monkey: banana",         "KEYBOARD_LAYOUT: us",  "GIT_AUTHOR_NAME=carol",
        "--keymap de --author x",
    };
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++) {
        char *r = nd_redact_text(plain[i]);
        if (strcmp(r, plain[i]) != 0)
            fail_msg("over-redacted: '%s' -> '%s'", plain[i], r);
        free(r);
    }
    /* Both in one line: the secret goes, its neighbour stays. */
    char *r = nd_redact_text("KEYBOARD_LAYOUT=us API_KEY=" VALUE " AUTHOR=alice");
    assert_null(strstr(r, VALUE));
    assert_non_null(strstr(r, "KEYBOARD_LAYOUT=us"));
    assert_non_null(strstr(r, "AUTHOR=alice"));
    free(r);
}

int main(void)
{
    setenv(ND_REDACT_KEY_ENV, "test-key", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_options_and_headers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
