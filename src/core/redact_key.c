/* The key of redaction markers. A marker is HMAC-SHA-256(key, secret), cut
 * to 8 hex digits: equal secrets give equal markers under one key (so diff
 * still sees "changed" or "same"), and without the key a marker cannot be
 * checked against a dictionary of weak passwords, as a bare hash could.
 *
 * The key is NPU_DOCTOR_REDACT_KEY when set (one value for a whole cluster's
 * snapshot run, e.g. the Slurm job id, so nodes compare), else a random key
 * made once per host and user and kept with the cache (redact.key, mode 0600),
 * else, with no usable cache, a random key for this run only. A fingerprint
 * of the key goes into snapshots, so diff can tell "different values" from
 * "redacted under different keys". */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/cachedir.h"
#include "core/redact.h"
#include "core/sha256.h"
#include "core/strbuf.h"

static pthread_mutex_t nd_key_lock = PTHREAD_MUTEX_INITIALIZER;
static bool nd_key_ready;
static uint8_t nd_key[32];
static const char *nd_key_src;
static char nd_key_fp[17];

static void nd_random_bytes(uint8_t *out, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom(out + got, n - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (got < n) {
        /* No getrandom (old kernel): still unpredictable enough for a run-only key. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint8_t seed[64];
        snprintf((char *)seed, sizeof seed, "%ld.%ld.%d.%p", (long)ts.tv_sec, ts.tv_nsec, (int)getpid(), (void *)out);
        uint8_t d[32];
        nd_sha256(seed, strlen((char *)seed), d);
        for (size_t i = got; i < n; i++)
            out[i] = d[i % 32];
    }
}

static bool nd_hex_decode(const char *s, uint8_t out[32])
{
    for (int i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1)
            return false;
        out[i] = (uint8_t)v;
    }
    return true;
}

/* Reads redact.key in the cache folder dfd when it is a regular file of
 * ours that nobody else can read (another user who could read it could test
 * guesses). */
static bool nd_key_read(int dfd, uint8_t out[32])
{
    int fd = nd_cache_file_open(dfd, "redact.key");
    if (fd < 0)
        return false;
    struct stat st;
    char buf[80] = "";
    bool ok = fstat(fd, &st) == 0 && (st.st_mode & 077) == 0 && read(fd, buf, 64) == 64 && nd_hex_decode(buf, out);
    close(fd);
    return ok;
}

/* Creates redact.key in the cache folder dfd; when another process made it
 * first, theirs wins. */
static bool nd_key_create(int dfd, uint8_t out[32])
{
    uint8_t k[32];
    nd_random_bytes(k, sizeof k);
    char hex[66];
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", k[i]);
    hex[64] = '\n';
    char *tmp = nd_xasprintf("redact.key.%ld.tmp", (long)getpid());
    int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    bool ok = fd >= 0 && write(fd, hex, 65) == 65;
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    /* link() fails when the key exists: two first runs agree on one key. */
    if (ok && linkat(dfd, tmp, dfd, "redact.key", 0) != 0 && errno != EEXIST)
        ok = false;
    if (fd >= 0)
        unlinkat(dfd, tmp, 0);
    free(tmp);
    return ok && nd_key_read(dfd, out);
}

/* The key of the cache folder dir, read or made there, all in the folder
 * opened once (nd_cache_dir_open). */
static bool nd_key_from_cache(const char *dir, uint8_t out[32])
{
    int dfd = nd_cache_dir_open(dir);
    if (dfd < 0 && nd_cache_dir_make(dir) == 0)
        dfd = nd_cache_dir_open(dir);
    if (dfd < 0)
        return false;
    bool ok = nd_key_read(dfd, out) || nd_key_create(dfd, out);
    close(dfd);
    return ok;
}

static void nd_key_load_locked(void)
{
    if (__atomic_load_n(&nd_key_ready, __ATOMIC_ACQUIRE))
        return;
    const char *env = getenv(ND_REDACT_KEY_ENV);
    char *dir = NULL;
    if (env && *env) {
        nd_sha256(env, strlen(env), nd_key);
        nd_key_src = "env";
    } else if ((dir = nd_cache_dir()) != NULL && nd_key_from_cache(dir, nd_key)) {
        nd_key_src = "host";
    } else {
        nd_random_bytes(nd_key, sizeof nd_key);
        nd_key_src = "run";
    }
    free(dir);
    static const char label[] = "npu-doctor redaction key fingerprint";
    uint8_t d[32];
    nd_hmac_sha256(nd_key, sizeof nd_key, label, sizeof label - 1, d);
    for (int i = 0; i < 8; i++)
        snprintf(nd_key_fp + 2 * i, 3, "%02x", d[i]);
    __atomic_store_n(&nd_key_ready, true, __ATOMIC_RELEASE);
}

/* The lock guards only the first load; after it the key is read-only, so
 * markers are made without it (threads of ps, a child forked meanwhile). */
static void nd_key_load(void)
{
    if (__atomic_load_n(&nd_key_ready, __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&nd_key_lock);
    nd_key_load_locked();
    pthread_mutex_unlock(&nd_key_lock);
}

char *nd_redact_marker(const char *value)
{
    uint8_t d[32];
    nd_key_load();
    nd_hmac_sha256(nd_key, sizeof nd_key, value, strlen(value), d);
    return nd_xasprintf("<redacted:%02x%02x%02x%02x>", d[0], d[1], d[2], d[3]);
}

const char *nd_redact_key_source(void)
{
    nd_key_load();
    return nd_key_src;
}

const char *nd_redact_key_fingerprint(void)
{
    nd_key_load();
    return nd_key_fp;
}

void nd_redact_key_reset(void)
{
    pthread_mutex_lock(&nd_key_lock);
    __atomic_store_n(&nd_key_ready, false, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&nd_key_lock);
}
