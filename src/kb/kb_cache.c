/* A cache of the compiled vectorscan database: compiling a few hundred
 * patterns costs ~0.3 s of CPU, loading the serialized form a millisecond.
 * Keyed by SHA-256 of the library version, this CPU's platform and every
 * pattern with its flags, so any rule change or other machine misses. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/fileio.h"
#include "core/sha256.h"
#include "core/strbuf.h"
#include "kb/kb_internal.h"

#define ND_KB_CACHE_MAX (64u << 20)

/* NPU_DOCTOR_CACHE_DIR (empty: no cache), else $XDG_CACHE_HOME/npu-doctor,
 * else $HOME/.cache/npu-doctor. NULL when there is none. */
static char *nd_kb_cache_dir(void)
{
    const char *d = getenv("NPU_DOCTOR_CACHE_DIR");
    if (d)
        return *d ? nd_xstrdup(d) : NULL;
    const char *x = getenv("XDG_CACHE_HOME");
    if (x && *x == '/')
        return nd_xasprintf("%s/npu-doctor", x);
    const char *h = getenv("HOME");
    if (h && *h == '/')
        return nd_xasprintf("%s/.cache/npu-doctor", h);
    return NULL;
}

void nd_kb_cache_key(const char *const *exprs, const unsigned *flags, size_t n, char key[33])
{
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    hs_platform_info_t plat;
    memset(&plat, 0, sizeof plat);
    hs_populate_platform(&plat);
    nd_strbuf_addf(&sb, "%s|%u|%llu|", hs_version(), plat.tune, (unsigned long long)plat.cpu_features);
    for (size_t i = 0; i < n; i++) {
        nd_strbuf_addf(&sb, "%u:", flags[i]);
        nd_strbuf_add(&sb, exprs[i], strlen(exprs[i]) + 1);
    }
    nd_sha256_hex_prefix(sb.buf, sb.len, key, 32);
    nd_strbuf_free(&sb);
}

hs_database_t *nd_kb_cache_load(const char *key)
{
    char *dir = nd_kb_cache_dir();
    if (!dir)
        return NULL;
    char *path = nd_xasprintf("%s/rules-%s.hsdb", dir, key);
    char *buf = NULL;
    size_t len = 0;
    hs_database_t *db = NULL;
    if (nd_read_file(path, ND_KB_CACHE_MAX, &buf, &len, NULL) == 0 &&
        hs_deserialize_database(buf, len, &db) != HS_SUCCESS)
        db = NULL;
    free(buf);
    free(path);
    free(dir);
    return db;
}

void nd_kb_cache_store(const hs_database_t *db, const char *key)
{
    char *dir = nd_kb_cache_dir();
    if (!dir)
        return;
    /* Best effort: a cache that cannot be written is simply not used. */
    char *parent = nd_xstrdup(dir);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = '\0';
        mkdir(parent, 0700);
    }
    free(parent);
    mkdir(dir, 0700);
    char *bytes = NULL;
    size_t len = 0;
    if (hs_serialize_database(db, &bytes, &len) == HS_SUCCESS) {
        char *path = nd_xasprintf("%s/rules-%s.hsdb", dir, key);
        nd_write_file_atomic(path, bytes, len, NULL);
        free(path);
        free(bytes);
    }
    free(dir);
}
