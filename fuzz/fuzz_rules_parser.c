/* Fuzz target for the rule-file parser and checker (kb_rules.c): any bytes
 * as a rule file, never a crash or leak; every problem has file:line. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kb/kb_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The parser takes text with an explicit length; keep a NUL after it as
     * the embedded files have. */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    nd_kb_parse_rules(&set, "fuzz.rules", text, size, false, &problems);
    nd_kb_check_rules(&set, NULL, &problems);
    for (size_t i = 0; i < problems.n; i++)
        if (strncmp(problems.v[i], "fuzz.rules:", 11) != 0)
            __builtin_trap();
    for (size_t i = 0; i < set.n; i++) {
        char *t = nd_kb_expand(&set.v[i], set.v[i].title, text);
        free(t);
    }
    nd_kb_ruleset_release(&set);
    nd_strv_release(&problems);
    free(text);
    return 0;
}
