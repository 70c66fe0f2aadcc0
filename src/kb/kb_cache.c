/* A cache of the compiled vectorscan database: compiling a few hundred
 * patterns costs ~0.3 s of CPU, loading the serialized form a millisecond.
 * Keyed by SHA-256 of the library version, this CPU's platform and every
 * pattern with its flags, so any rule change or other machine misses; the
 * least recently used beyond a few are removed when a new one is written. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cachedir.h"
#include "core/array.h"
#include "core/fileio.h"
#include "core/sha256.h"
#include "core/strbuf.h"
#include "kb/kb_internal.h"

#define ND_KB_CACHE_MAX (64u << 20)
/* Databases kept: each rule change or upgrade makes a new one, and a few
 * rule sets (--rules folders, versions side by side) are used in turns. */
#define ND_KB_CACHE_KEEP 8

/* The folder is the one every cached thing shares (core/cachedir.h). */
static char *nd_kb_cache_dir(void)
{
    return nd_cache_dir();
}

void nd_kb_cache_key(const char *const *exprs, const unsigned *flags, size_t n, char key[33])
{
    hs_platform_info_t plat;
    memset(&plat, 0, sizeof plat);
    hs_populate_platform(&plat);
    nd_kb_platform_key(&plat, exprs, flags, n, key);
}

void nd_kb_platform_key(const hs_platform_info_t *platform, const char *const *exprs, const unsigned *flags, size_t n,
                        char key[33])
{
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    hs_platform_info_t plat = *platform;
    nd_strbuf_addf(&sb, "%s|%u|%llu|", hs_version(), plat.tune, (unsigned long long)plat.cpu_features);
    for (size_t i = 0; i < n; i++) {
        nd_strbuf_addf(&sb, "%u:", flags[i]);
        nd_strbuf_add(&sb, exprs[i], strlen(exprs[i]) + 1);
    }
    nd_sha256_hex_prefix(sb.buf, sb.len, key, 32);
    nd_strbuf_release(&sb);
}

hs_database_t *nd_kb_cache_load(const char *key)
{
    char *dir = nd_kb_cache_dir();
    if (!dir)
        return NULL;
    /* A database is code for the matcher: only our own, in a folder of ours,
     * judged on the descriptors read (a link or a swapped folder is no hit). */
    int dfd = nd_cache_dir_open(dir);
    free(dir);
    if (dfd < 0)
        return NULL;
    char *name = nd_xasprintf("rules-%s.hsdb", key);
    int fd = nd_cache_file_open(dfd, name);
    free(name);
    close(dfd);
    if (fd < 0)
        return NULL;
    hs_database_t *db = NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) == 0 && st.st_size > 0 && (size_t)st.st_size <= ND_KB_CACHE_MAX) {
        size_t len = (size_t)st.st_size, got = 0;
        buf = nd_xmalloc(len);
        while (got < len) {
            ssize_t r = read(fd, buf + got, len - got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        if (got == len && hs_deserialize_database(buf, len, &db) != HS_SUCCESS)
            db = NULL;
        if (db)
            futimens(fd, NULL); /* used now: the last to be pruned */
    }
    free(buf);
    close(fd);
    return db;
}

struct nd_cache_file {
    char *name;
    struct timespec used;
};

static int nd_cache_file_newer_first(const void *a, const void *b)
{
    const struct nd_cache_file *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec > y->used.tv_sec ? -1 : 1;
    if (x->used.tv_nsec != y->used.tv_nsec)
        return x->used.tv_nsec > y->used.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Removes all but the ND_KB_CACHE_KEEP most recently used databases, in
 * the cache folder judged and opened once (dfd), never in whatever its
 * path leads to by now, and only databases of ours. */
static void nd_kb_cache_prune(int dfd)
{
    int fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    rewinddir(d);
    struct nd_cache_file *files = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "rules-", 6) != 0 || len < 11 || strcmp(e->d_name + len - 5, ".hsdb") != 0)
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
            continue;
        ND_ALLOC_GROW(files, n + 1, cap);
        files[n].name = nd_xstrdup(e->d_name);
        files[n].used = st.st_mtim;
        n++;
    }
    if (n > ND_KB_CACHE_KEEP) {
        qsort(files, n, sizeof *files, nd_cache_file_newer_first);
        for (size_t i = ND_KB_CACHE_KEEP; i < n; i++)
            unlinkat(dirfd(d), files[i].name, 0);
    }
    for (size_t i = 0; i < n; i++)
        free(files[i].name);
    free(files);
    closedir(d);
}

void nd_kb_cache_store(const hs_database_t *db, const char *key)
{
    char *dir = nd_kb_cache_dir();
    if (!dir)
        return;
    /* Best effort: a cache that cannot be written is simply not used. */
    if (nd_cache_dir_make(dir) < 0) {
        free(dir);
        return;
    }
    /* Written and pruned in the folder that was judged ours (fstat of the
     * descriptor), whatever its path leads to meanwhile. */
    int dfd = nd_cache_dir_open(dir);
    char *bytes = NULL;
    size_t len = 0;
    if (dfd >= 0 && hs_serialize_database(db, &bytes, &len) == HS_SUCCESS) {
        char *name = nd_xasprintf("rules-%s.hsdb", key);
        if (nd_write_file_at(dfd, dir, name, bytes, len, NULL) == 0)
            nd_kb_cache_prune(dfd);
        free(name);
        free(bytes);
    }
    if (dfd >= 0)
        close(dfd);
    free(dir);
}
