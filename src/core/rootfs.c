/* Root-prefixed file access. With the default root "/" every call is a
 * plain system call; with --root, symlinks are resolved by hand so that an
 * absolute link target stays inside the root. */
#include "core/rootfs.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/fileio.h"

static char nd_root[PATH_MAX] = "";

int nd_rootfs_set(const char *dir, struct nd_error *err)
{
    if (!dir || !*dir)
        return nd_error_set(err, -EINVAL, "--root: empty path");
    char real[PATH_MAX];
    if (!realpath(dir, real))
        return nd_error_set(err, -errno, "--root %s: %s", dir, strerror(errno));
    struct stat st;
    if (stat(real, &st) != 0 || !S_ISDIR(st.st_mode))
        return nd_error_set(err, -ENOTDIR, "--root %s: not a directory", dir);
    if (strcmp(real, "/") == 0)
        nd_root[0] = '\0';
    else
        snprintf(nd_root, sizeof nd_root, "%s", real);
    return 0;
}

const char *nd_rootfs_prefix(void)
{
    return nd_root;
}

bool nd_rootfs_is_default(void)
{
    return nd_root[0] == '\0';
}

static int nd_join(const char *abs, char *out, size_t size)
{
    int n = snprintf(out, size, "%s%s%s", nd_root, abs[0] == '/' ? "" : "/", abs);
    return (n < 0 || (size_t)n >= size) ? -ENAMETOOLONG : 0;
}

int nd_rootfs_path(const char *abs, char *out, size_t size)
{
    return nd_join(abs, out, size);
}

bool nd_rootfs_unmap(const char *host_path, char *out, size_t size)
{
    size_t n = strlen(nd_root);
    if (n == 0) {
        snprintf(out, size, "%s", host_path);
        return true;
    }
    if (strncmp(host_path, nd_root, n) != 0 || (host_path[n] != '/' && host_path[n] != '\0'))
        return false;
    snprintf(out, size, "%s", host_path[n] ? host_path + n : "/");
    return true;
}

int nd_rootfs_realpath(const char *abs, char *out, size_t size)
{
    /* Walk component by component, restarting on each link; "rest" holds what is left. */
    char rest[PATH_MAX * 2];
    char done[PATH_MAX] = "";
    int links = 0;
    if (snprintf(rest, sizeof rest, "%s", abs) >= (int)sizeof rest)
        return -ENAMETOOLONG;
    char *p = rest;
    while (*p) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        char *end = strchr(p, '/');
        size_t clen = end ? (size_t)(end - p) : strlen(p);
        char comp[NAME_MAX + 1];
        if (clen > NAME_MAX)
            return -ENAMETOOLONG;
        memcpy(comp, p, clen);
        comp[clen] = '\0';
        p += clen;
        if (strcmp(comp, ".") == 0)
            continue;
        if (strcmp(comp, "..") == 0) {
            char *slash = strrchr(done, '/');
            if (slash)
                *slash = '\0';
            continue;
        }
        char candidate[PATH_MAX];
        if (snprintf(candidate, sizeof candidate, "%s/%s", done, comp) >= (int)sizeof candidate)
            return -ENAMETOOLONG;
        char host[PATH_MAX];
        if (nd_join(candidate, host, sizeof host) != 0)
            return -ENAMETOOLONG;
        struct stat st;
        if (lstat(host, &st) != 0)
            return -errno;
        if (S_ISLNK(st.st_mode)) {
            if (++links > 40)
                return -ELOOP;
            char target[PATH_MAX];
            ssize_t n = readlink(host, target, sizeof target - 1);
            if (n < 0)
                return -errno;
            target[n] = '\0';
            char next[PATH_MAX * 2];
            if (snprintf(next, sizeof next, "%s%s%s", target, *p ? "/" : "", p) >= (int)sizeof next)
                return -ENAMETOOLONG;
            if (target[0] == '/')
                done[0] = '\0';
            memcpy(rest, next, strlen(next) + 1);
            p = rest;
            continue;
        }
        memcpy(done, candidate, strlen(candidate) + 1);
    }
    if (snprintf(out, size, "%s", done[0] ? done : "/") >= (int)size)
        return -ENAMETOOLONG;
    return 0;
}

/* The host path to use for a syscall that follows links. */
static int nd_resolve(const char *abs, char *host, size_t size)
{
    if (nd_root[0] == '\0')
        return snprintf(host, size, "%s", abs) >= (int)size ? -ENAMETOOLONG : 0;
    char in_root[PATH_MAX];
    int rc = nd_rootfs_realpath(abs, in_root, sizeof in_root);
    if (rc < 0)
        return rc;
    return nd_join(in_root, host, size);
}

int nd_rootfs_stat(const char *abs, struct stat *st)
{
    char host[PATH_MAX];
    int rc = nd_resolve(abs, host, sizeof host);
    if (rc < 0)
        return rc;
    return stat(host, st) == 0 ? 0 : -errno;
}

int nd_rootfs_lstat(const char *abs, struct stat *st)
{
    char host[PATH_MAX];
    if (nd_join(abs, host, sizeof host) != 0)
        return -ENAMETOOLONG;
    return lstat(host, st) == 0 ? 0 : -errno;
}

bool nd_rootfs_exists(const char *abs)
{
    struct stat st;
    return nd_rootfs_stat(abs, &st) == 0;
}

bool nd_rootfs_is_dir(const char *abs)
{
    struct stat st;
    return nd_rootfs_stat(abs, &st) == 0 && S_ISDIR(st.st_mode);
}

bool nd_rootfs_is_file(const char *abs)
{
    struct stat st;
    return nd_rootfs_stat(abs, &st) == 0 && S_ISREG(st.st_mode);
}

int nd_rootfs_access(const char *abs, int mode)
{
    char host[PATH_MAX];
    int rc = nd_resolve(abs, host, sizeof host);
    if (rc < 0)
        return rc;
    return access(host, mode) == 0 ? 0 : -errno;
}

DIR *nd_rootfs_opendir(const char *abs)
{
    char host[PATH_MAX];
    if (nd_resolve(abs, host, sizeof host) < 0)
        return NULL;
    return opendir(host);
}

int nd_rootfs_read(const char *abs, size_t max, char **buf, size_t *len, struct nd_error *err)
{
    char host[PATH_MAX];
    int rc = nd_resolve(abs, host, sizeof host);
    if (rc < 0) {
        *buf = NULL;
        return nd_error_set(err, rc, "%s: %s", abs, strerror(-rc));
    }
    rc = nd_read_file(host, max, buf, len, err);
    if (rc < 0 && err)
        /* Name the in-root path: that is what the user knows. */
        nd_error_set(err, rc, "%s: %s", abs, strerror(-rc));
    return rc;
}
