/* Table-driven redaction checks shared by the unit tests of secret forms:
 * each case must come out redacted (and stay the same when redacted again),
 * each look-alike must come out untouched. Include after cmocka.h. */
#ifndef ND_TEST_REDACT_TABLE_H
#define ND_TEST_REDACT_TABLE_H

#include <stdlib.h>
#include <string.h>

#include "core/redact.h"

struct nd_case {
    const char *text;
    const char *secret; /* must not survive */
};

static inline void nd_check_redacted(const struct nd_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *r = nd_redact_text(cases[i].text);
        if (strstr(r, cases[i].secret) || !strstr(r, "<redacted:"))
            fail_msg("case %zu: '%s' -> '%s'", i, cases[i].text, r);
        char *again = nd_redact_text(r);
        if (strcmp(again, r) != 0)
            fail_msg("case %zu not idempotent: '%s' -> '%s'", i, r, again);
        free(again);
        free(r);
    }
}

static inline void nd_check_kept(const char *const *keep, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *r = nd_redact_text(keep[i]);
        if (strcmp(r, keep[i]) != 0)
            fail_msg("over-redacted: '%s' -> '%s'", keep[i], r);
        free(r);
    }
}

#endif
