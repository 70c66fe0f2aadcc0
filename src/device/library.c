/* Finding a vendor library the way the job's dlopen would: the override
 * variable, LD_LIBRARY_PATH, the vendor's standard folders, then the ld cache
 * (read straight from /etc/ld.so.cache: no ldconfig child to wait for). The
 * search is about this machine's dynamic loader, so it is not root-prefixed. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fileio.h"
#include "device/device.h"
#include "device/device_internal.h"

const char *const nd_ascend_dcmi_dirs[] = {
    "/usr/local/Ascend/driver/lib64/driver",
    "/usr/local/dcmi",
    "/usr/local/Ascend/driver/lib64",
    "/usr/local/Ascend/driver/lib64/common",
    NULL,
};

const char *const nd_ascend_acl_dirs[] = {
    "/usr/local/Ascend/ascend-toolkit/latest/lib64",
    "/usr/local/Ascend/cann/lib64",
    "/usr/local/Ascend/latest/lib64",
    "/usr/local/Ascend/nnrt/latest/lib64",
    NULL,
};

static bool nd_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int nd_try_dir(const char *dir, size_t dirlen, const char *soname, char *out, size_t size)
{
    if (dirlen == 0) /* an empty LD_LIBRARY_PATH entry means the current folder */
        dir = ".", dirlen = 1;
    char path[4096];
    int n = snprintf(path, sizeof path, "%.*s/%s", (int)dirlen, dir, soname);
    if (n < 0 || (size_t)n >= sizeof path || !nd_is_file(path))
        return -ENOENT;
    if ((size_t)n >= size)
        return -ENAMETOOLONG;
    memcpy(out, path, (size_t)n + 1);
    return 0;
}

/* ---- /etc/ld.so.cache ------------------------------------------------ */

#define ND_LDC_NEW_MAGIC "glibc-ld.so.cache1.1"
#define ND_LDC_OLD_MAGIC "ld.so-1.7.0"
#define ND_LDC_NEW_HDR 48u   /* magic+version 20, nlibs 4, len_strings 4, flags 1+3, ext 4, unused 12 */
#define ND_LDC_NEW_ENTRY 24u /* flags 4, key 4, value 4, osversion 4, hwcap 8 */
#define ND_LDC_OLD_HDR 16u   /* magic 11 + pad 1, nlibs 4 */
#define ND_LDC_OLD_ENTRY 12u /* flags, key, value */

static uint32_t nd_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The ELF-libc6 flags ldconfig writes for libraries of this architecture;
 * 0 accepts any. */
static int32_t nd_ldc_arch_flags(void)
{
#if defined(__x86_64__)
    return 0x0303;
#elif defined(__aarch64__)
    return 0x0a03;
#else
    return 0;
#endif
}

/* A NUL-terminated string at off inside [base, base+len), or NULL. */
static const char *nd_ldc_str(const unsigned char *base, size_t len, uint32_t off)
{
    if (off >= len)
        return NULL;
    const void *nul = memchr(base + off, '\0', len - off);
    return nul ? (const char *)base + off : NULL;
}

int nd_ldcache_lookup(const void *buf, size_t len, const char *soname, char *out, size_t size)
{
    const unsigned char *b = buf;
    size_t start = 0;
    if (len >= ND_LDC_OLD_HDR && memcmp(b, ND_LDC_OLD_MAGIC, strlen(ND_LDC_OLD_MAGIC)) == 0) {
        /* Old table first; the new one follows it, 8-byte aligned. */
        uint64_t nold = nd_le32(b + 12);
        uint64_t after = ND_LDC_OLD_HDR + nold * ND_LDC_OLD_ENTRY;
        after = (after + 7) & ~(uint64_t)7;
        if (after > len)
            return -EINVAL;
        start = (size_t)after;
    }
    if (len - start < ND_LDC_NEW_HDR || memcmp(b + start, ND_LDC_NEW_MAGIC, strlen(ND_LDC_NEW_MAGIC)) != 0)
        return -EINVAL;
    const unsigned char *base = b + start; /* string offsets count from the new header */
    size_t blen = len - start;
    uint64_t nlibs = nd_le32(base + 20);
    if (nlibs > (blen - ND_LDC_NEW_HDR) / ND_LDC_NEW_ENTRY)
        return -EINVAL;
    int32_t want = nd_ldc_arch_flags();
    for (uint64_t i = 0; i < nlibs; i++) {
        const unsigned char *e = base + ND_LDC_NEW_HDR + i * ND_LDC_NEW_ENTRY;
        int32_t flags = (int32_t)nd_le32(e);
        if (want && flags != want)
            continue;
        const char *key = nd_ldc_str(base, blen, nd_le32(e + 4));
        const char *val = nd_ldc_str(base, blen, nd_le32(e + 8));
        if (!key || !val || strcmp(key, soname) != 0)
            continue;
        size_t n = strlen(val);
        if (n >= size)
            return -ENAMETOOLONG;
        memcpy(out, val, n + 1);
        return 0;
    }
    return -ENOENT;
}

static int nd_try_ldcache(const char *soname, char *out, size_t size)
{
    char *buf = NULL;
    size_t len = 0;
    struct nd_error err;
    if (nd_read_file("/etc/ld.so.cache", 64u << 20, &buf, &len, &err) != 0)
        return -ENOENT;
    char path[4096];
    int rc = nd_ldcache_lookup(buf, len, soname, path, sizeof path);
    free(buf);
    if (rc != 0 || !nd_is_file(path))
        return -ENOENT;
    if (strlen(path) >= size)
        return -ENAMETOOLONG;
    snprintf(out, size, "%s", path);
    return 0;
}

int nd_device_find_library(const char *soname, const char *override_env, const char *const *std_dirs, char *out,
                           size_t size)
{
    if (!soname || !*soname || !out || size == 0)
        return -EINVAL;
    out[0] = '\0';
    const char *ov = override_env ? getenv(override_env) : NULL;
    if (ov && *ov) {
        /* An explicit override is taken as is: no silent fallback to
         * another copy that the user did not ask for. */
        if (!nd_is_file(ov))
            return -ENOENT;
        if (strlen(ov) >= size)
            return -ENAMETOOLONG;
        snprintf(out, size, "%s", ov);
        return 0;
    }
    const char *ld = getenv("LD_LIBRARY_PATH");
    if (ld && *ld) {
        const char *p = ld;
        for (;;) {
            const char *c = strchr(p, ':');
            size_t n = c ? (size_t)(c - p) : strlen(p);
            int rc = nd_try_dir(p, n, soname, out, size);
            if (rc != -ENOENT)
                return rc;
            if (!c)
                break;
            p = c + 1;
        }
    }
    for (size_t i = 0; std_dirs && std_dirs[i]; i++) {
        int rc = nd_try_dir(std_dirs[i], strlen(std_dirs[i]), soname, out, size);
        if (rc != -ENOENT)
            return rc;
    }
    int rc = nd_try_ldcache(soname, out, size);
    if (rc != -ENOENT)
        return rc;
    out[0] = '\0';
    return -ENOENT;
}
