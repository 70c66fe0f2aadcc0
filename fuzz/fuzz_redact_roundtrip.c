/* Fuzz target: a secret planted in any of the forms redaction knows, with
 * fuzz bytes before and after it (on their own lines), never survives
 * nd_redact_text, and the result is stable when redacted again. The forms
 * are the ones log lines, argv and printed configs use. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/redact.h"
#include "core/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ND_PLANTED "Zq9PlantedSecretXy7Wm"

static const char *const nd_forms[] = {
    "--password " ND_PLANTED,
    "--api-key " ND_PLANTED,
    "-token " ND_PLANTED,
    "--password=" ND_PLANTED,
    "{'password': '" ND_PLANTED "'}",
    "{\"api_key\": \"" ND_PLANTED "\"}",
    "password: " ND_PLANTED,
    "password = " ND_PLANTED,
    "aws_secret_access_key: " ND_PLANTED,
    "DB_PASS=" ND_PLANTED,
    "MYSQL_PWD='" ND_PLANTED "'",
    "HF_TOKEN=" ND_PLANTED,
    "Authorization: Bearer " ND_PLANTED,
    "Authorization: Basic " ND_PLANTED,
    "https://user:" ND_PLANTED "@example.com/",
    "sk-proj-" ND_PLANTED,
    "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0." ND_PLANTED,
    "-----BEGIN PRIVATE KEY-----" ND_PLANTED "-----END PRIVATE KEY-----",
    "mysql -u root -p" ND_PLANTED " db",
    "redis-cli -h cache -a " ND_PLANTED " ping",
    "curl -ualice:" ND_PLANTED " https://example.com",
    "{ password => \"" ND_PLANTED "\" }",
    "{ ':token' => '" ND_PLANTED "' }",
    "PASSWORD\t" ND_PLANTED,
    "DB_PASSWORD    " ND_PLANTED,
    "AccountName=a;AccountKey=" ND_PLANTED ";EndpointSuffix=x",
    "setenv DB_PASSWORD " ND_PLANTED,
    "- name: API_KEY\n  value: " ND_PLANTED,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The first half goes before, the rest after; NULs end a C string, so
     * they are cut out. */
    char *ctx = malloc(size + 1);
    if (!ctx)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < size; i++)
        if (data[i]) /* no 'Z': the context itself can never hold the planted value */
            ctx[n++] = data[i] == 'Z' ? 'z' : (char)data[i];
    ctx[n] = '\0';
    size_t half = n / 2;
    for (size_t f = 0; f < sizeof nd_forms / sizeof *nd_forms; f++) {
        struct nd_strbuf sb = ND_STRBUF_INIT;
        nd_strbuf_init(&sb);
        nd_strbuf_add(&sb, ctx, half);
        nd_strbuf_addc(&sb, '\n');
        nd_strbuf_adds(&sb, nd_forms[f]);
        nd_strbuf_addc(&sb, '\n');
        nd_strbuf_adds(&sb, ctx + half);
        char *once = nd_redact_text(sb.buf);
        if (strstr(once, ND_PLANTED)) {
            fprintf(stderr, "planted secret survived form %zu: %s\n", f, once);
            __builtin_trap();
        }
        char *twice = nd_redact_text(once);
        if (strcmp(once, twice) != 0)
            __builtin_trap();
        free(twice);
        free(once);
        nd_strbuf_release(&sb);
    }
    free(ctx);
    return 0;
}
