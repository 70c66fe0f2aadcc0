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

int nd_cache_dir_make(const char *dir)
{
    char *parent = nd_xstrdup(dir);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = '\0';
        mkdir(parent, 0700);
    }
    free(parent);
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return -errno;
    return nd_cache_dir_check(dir);
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
