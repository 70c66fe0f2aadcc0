/* Choice and creation of the cache folder (see cachedir.h). */
#include "core/cachedir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/strbuf.h"

char *nd_cache_dir(void)
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

/* A folder that the cache may be made in: ours or root's, reached through
 * no link of another user; made (0700) when missing only inside a folder
 * of ours, so root with another user's HOME (sudo keeps it on some
 * systems) makes nothing there and follows no link they put there. The
 * descriptor, or -errno / -EPERM. */
static int nd_cache_parent_open(char *parent)
{
    uid_t me = geteuid();
    struct stat st;
    if (lstat(parent, &st) < 0) {
        if (errno != ENOENT)
            return -errno;
        char *slash = strrchr(parent, '/');
        struct stat gp;
        int rc;
        if (slash && slash != parent) {
            *slash = '\0';
            rc = stat(parent, &gp);
            *slash = '/';
        } else {
            rc = stat(slash ? "/" : ".", &gp);
        }
        if (rc < 0 || gp.st_uid != me)
            return -EPERM;
        if (mkdir(parent, 0700) < 0 && errno != EEXIST)
            return -errno;
    } else if (S_ISLNK(st.st_mode) && st.st_uid != me && st.st_uid != 0) {
        return -EPERM;
    }
    int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) < 0 || (st.st_uid != me && st.st_uid != 0)) {
        close(fd);
        return -EPERM;
    }
    return fd;
}

int nd_cache_dir_make(const char *dir)
{
    if (nd_cache_dir_check(dir) == 0)
        return 0;
    char *parent = nd_xstrdup(dir);
    char *slash = strrchr(parent, '/');
    const char *base = dir;
    int pfd;
    if (slash && slash != parent) {
        *slash = '\0';
        base = dir + (slash - parent) + 1;
        pfd = nd_cache_parent_open(parent);
    } else {
        if (slash)
            base = dir + 1;
        pfd = open(slash ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (pfd < 0)
            pfd = -errno;
    }
    free(parent);
    if (pfd < 0)
        return pfd;
    /* Made in the opened parent: mkdirat never follows a link put at base. */
    int rc = mkdirat(pfd, base, 0700) < 0 && errno != EEXIST ? -errno : 0;
    close(pfd);
    return rc < 0 ? rc : nd_cache_dir_check(dir);
}

int nd_cache_dir_check(const char *dir)
{
    struct stat st;
    if (lstat(dir, &st) < 0)
        return -errno;
    /* Root with another user's HOME (sudo keeps it on some systems) must not
     * load a compiled database or a key that user could have put there. */
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
        return -EPERM;
    return 0;
}

/* The folder's own inode judged (fstat of the open descriptor), so what is
 * read or made in it is in the folder that was judged, whatever a parent
 * folder's owner renames or links meanwhile. */
int nd_cache_dir_open(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
        close(fd);
        return -EPERM;
    }
    return fd;
}

int nd_cache_file_open(int dirfd, const char *name)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022) || st.st_nlink != 1) {
        close(fd);
        return -EPERM;
    }
    return fd;
}
