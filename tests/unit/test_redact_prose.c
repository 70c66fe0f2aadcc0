/* Unit tests for secrets that log prose hands over after a secret's name
 * ("set HF_TOKEN to x", "HF_TOKEN is x", "token : x") and for short plain
 * lower-case values with no digit after a name as code writes it
 * ("WANDB_API_KEY abcdefghij"), which the shape checks let through. Each
 * secret holds the needle "qz", which no marker can hold (markers are hex).
 * The sentences people write about such names stay as they are. */
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
    {"set HF_TOKEN to hf_qzxx", "hf_qzxx"},
    {"HF_TOKEN is hf_qzxx", "hf_qzxx"},
    {"Please set HF_TOKEN to abcqzdefgh.", "abcqzdefgh"},
    {"HF_TOKEN was set to abcqzdefgh", "abcqzdefgh"},
    {"HF_TOKEN is set to abcqzdefgh", "abcqzdefgh"},
    {"WANDB_API_KEY set to abcqzdefgh", "abcqzdefgh"},
    {"WANDB_API_KEY is now abcqzdefgh", "abcqzdefgh"},
    {"set `HF_TOKEN` to 'qzab'", "qzab"},
    {"HF_TOKEN is \"qz two words\"", "qz two words"},
    {"the token is qz12abcd", "qz12abcd"},
    {"password was Hunterqz2", "Hunterqz2"},
    {"token : abcqzdefgh", "abcqzdefgh"},
    {"token: abcqzdefgh", "abcqzdefgh"},
    {"WANDB_API_KEY abcqzdefgh", "abcqzdefgh"},
    {"export WANDB_API_KEY abcqzdefgh", "abcqzdefgh"},
    {"GITHUB_TOKEN abcqzdefgh used", "abcqzdefgh"},
    {"WANDB_API_KEY=abcqzdefgh", "abcqzdefgh"},
};

static const char *const nd_keep[] = {
    "HF_TOKEN is not set",
    "HF_TOKEN is required to download gated models",
    "HF_TOKEN is missing",
    "HF_TOKEN is deprecated, use HF_HUB_TOKEN",
    "HF_TOKEN is None",
    "HF_TOKEN is empty",
    "HF_TOKEN environment variable not found",
    "set HF_TOKEN to your token",
    "set HF_TOKEN to access gated models",
    "Set HF_TOKEN to authenticate",
    "set HF_TOKEN to a valid token",
    "HF_TOKEN to login",
    "The HF_TOKEN was rejected",
    "WANDB_API_KEY is invalid",
    "WANDB_API_KEY missing",
    "WANDB_API_KEY should be exported",
    "token is expired",
    "password is wrong",
    "tokenizer is slow",
    "tokenizer : fast",
    "max_tokens=512",
    "max_tokens is 512",
    "token ids 101 2023 102",
    "the token is invalid",
    "key : value",
    "key_padding_mask shape torch.Size([8, 512])",
    "key_padding_mask is deprecated",
};

static void test_prose_redacted(void **state)
{
    (void)state;
    nd_check_redacted(nd_cases, sizeof nd_cases / sizeof *nd_cases);
}

static void test_prose_kept(void **state)
{
    (void)state;
    nd_check_kept(nd_keep, sizeof nd_keep / sizeof *nd_keep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prose_redacted),
        cmocka_unit_test(test_prose_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
