/* The rule database compiled at build time. Compiling the built-in rules
 * costs seconds of CPU, and a container starts with an empty cache every
 * time, so the build compiles them once for the generic platform of the
 * target architecture (tools/nd_kbc.c) and the binary carries the result.
 * It is used only when its key matches the patterns being loaded: any
 * extra rule, another vectorscan version or another architecture falls
 * back to compiling (and the cache in kb_cache.c). */
#include <string.h>

#include "kb/kb.h"
#include "kb/kb_internal.h"
#include "kb/kb_prebuilt.h"

size_t nd_kb_prebuilt_size(void)
{
    return nd_kb_prebuilt_blob_len > 32 ? nd_kb_prebuilt_blob_len - 32 : 0;
}

hs_database_t *nd_kb_prebuilt_load(const char *const *exprs, const unsigned *flags, size_t n)
{
    if (nd_kb_prebuilt_blob_len <= 32)
        return NULL;
    hs_platform_info_t generic;
    memset(&generic, 0, sizeof generic);
    generic.tune = HS_TUNE_FAMILY_GENERIC;
    char key[33];
    nd_kb_platform_key(&generic, exprs, flags, n, key);
    if (memcmp(key, nd_kb_prebuilt_blob, 32) != 0)
        return NULL;
    hs_database_t *db = NULL;
    if (hs_deserialize_database((const char *)nd_kb_prebuilt_blob + 32, nd_kb_prebuilt_blob_len - 32, &db) != HS_SUCCESS)
        return NULL;
    return db;
}
