/* Fuzz target for the free-text redaction scanner (nd_redact_text, used on
 * log lines, argv and every string of a JSON report) and nd_redact_value:
 * any bytes, never a crash; redacting redacted text changes nothing, so
 * snapshots read back and redacted again still compare equal. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/redact.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *once = nd_redact_text(text);
    char *twice = nd_redact_text(once);
    if (strcmp(once, twice) != 0)
        __builtin_trap();
    char *v1 = nd_redact_value("MASTER_URL", text);
    char *v2 = nd_redact_value("MASTER_URL", v1);
    if (strcmp(v1, v2) != 0)
        __builtin_trap();
    char *s1 = nd_redact_value("HF_TOKEN", text);
    if (!nd_redact_is_marker(s1))
        __builtin_trap();
    free(once);
    free(twice);
    free(v1);
    free(v2);
    free(s1);
    free(text);
    return 0;
}
