/* Fuzz target for the catalogue-table parser (kb_catalog.c): any bytes as a
 * .tsv catalogue, parsed alone and over a set it may override; never a crash
 * or leak, every problem names the file and a line. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kb/kb_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(struct nd_kb_ruleset *set, struct nd_strv *problems)
{
    nd_kb_check_rules(set, NULL, problems);
    for (size_t i = 0; i < problems->n; i++)
        if (strncmp(problems->v[i], "fuzz.tsv:", 9) != 0 && strncmp(problems->v[i], "base.tsv:", 9) != 0)
            __builtin_trap();
    for (size_t i = 0; i < set->n; i++)
        if (!set->v[i].id || !set->v[i].title || set->v[i].patterns.n == 0)
            __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    nd_kb_parse_catalog(&set, "fuzz.tsv", text, size, false, &problems);
    check(&set, &problems);
    nd_kb_ruleset_release(&set);
    nd_strv_release(&problems);
    /* The same bytes over a set of their own: replacement by id in place. */
    nd_kb_parse_catalog(&set, "base.tsv", text, size, false, &problems);
    nd_kb_parse_catalog(&set, "fuzz.tsv", text, size, true, &problems);
    check(&set, &problems);
    nd_kb_ruleset_release(&set);
    nd_strv_release(&problems);
    free(text);
    return 0;
}
