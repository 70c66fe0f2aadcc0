/* Capped whole-file reads, atomic writes and tiny text helpers. */
#include "core/fileio.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/array.h"
#include "core/strbuf.h"

int nd_open_input(const char *path, int *fdp, struct nd_error *err)
{
    *fdp = -1;
    /* O_NONBLOCK: opening a FIFO with no writer must not hang either. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return nd_error_set(err, -errno, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return nd_error_set(err, -e, "%s: %s", path, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return nd_error_set(err, -EISDIR, "%s: is a directory", path);
    }
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
        close(fd);
        return nd_error_set(err, -ENODEV, "%s: is a device, not a file; not read", path);
    }
    if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
        struct pollfd pf = {fd, POLLIN, 0};
        int r;
        do
            r = poll(&pf, 1, ND_INPUT_WAIT_MS);
        while (r < 0 && errno == EINTR);
        if (r == 0) {
            close(fd);
            return nd_error_set(err, -ETIMEDOUT, "%s: a FIFO that delivered nothing within %d s; not read", path,
                                ND_INPUT_WAIT_MS / 1000);
        }
        /* It delivers: blocking reads from here on, as from a pipe. */
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    }
    *fdp = fd;
    return 0;
}

static int nd_read_impl(const char *path, size_t max, bool truncate, char **buf, size_t *len, struct nd_error *err)
{
    *buf = NULL;
    if (len)
        *len = 0;
    int fd;
    int rc = nd_open_input(path, &fd, err);
    if (rc < 0)
        return rc;
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_grow(&sb, 4096);
    for (;;) {
        if (sb.len >= max) {
            char probe;
            ssize_t extra = truncate ? 0 : read(fd, &probe, 1);
            if (extra > 0) {
                nd_strbuf_release(&sb);
                close(fd);
                return nd_error_set(err, -EFBIG, "%s: larger than %zu bytes", path, max);
            }
            break;
        }
        size_t want = max - sb.len < 65536 ? max - sb.len : 65536;
        nd_strbuf_grow(&sb, want);
        ssize_t n = read(fd, sb.buf + sb.len, want);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN && sb.len > 0)
                break; /* a kernel stream: what was there is the content */
            if (errno == EAGAIN) {
                nd_strbuf_release(&sb);
                close(fd);
                return nd_error_set(err, -EAGAIN, "%s: would wait for data (a kernel or device stream?); not read", path);
            }
            int e = errno;
            nd_strbuf_release(&sb);
            close(fd);
            return nd_error_set(err, -e, "%s: %s", path, strerror(e));
        }
        if (n == 0)
            break;
        sb.len += (size_t)n;
        sb.buf[sb.len] = '\0';
    }
    close(fd);
    *buf = nd_strbuf_detach(&sb, len);
    return 0;
}

int nd_read_file(const char *path, size_t max, char **buf, size_t *len, struct nd_error *err)
{
    return nd_read_impl(path, max, false, buf, len, err);
}

int nd_read_file_prefix(const char *path, size_t max, char **buf, size_t *len, struct nd_error *err)
{
    return nd_read_impl(path, max, true, buf, len, err);
}

struct nd_outfile {
    char *path;
    char *tmp;    /* the temp file's name in dirfd, NULL for stdout and while unnamed */
    char *base;   /* path's last component, the name written in dirfd */
    int dirfd;    /* the folder of path, opened once (O_PATH): every step happens in it */
    int fd;       /* -1 for stdout */
    bool unnamed; /* O_TMPFILE: no name at all until commit */
    FILE *fp;
};

/* A link that someone other than us or root made: where it leads is theirs
 * to choose, so root does not follow it (a folder of their own is not
 * sticky, and the kernel's protected_symlinks rule lets root through). */
static bool nd_link_untrusted(const struct stat *link)
{
    return geteuid() == 0 && link->st_uid != 0;
}

int nd_output_path_trusted(const char *path, struct nd_error *err)
{
    size_t len = strlen(path);
    char *buf = nd_xstrdup(path);
    int rc = 0;
    for (size_t i = 1; i <= len && rc == 0; i++) {
        if (i < len && buf[i] != '/')
            continue;
        if (buf[i - 1] == '/')
            continue;
        char saved = buf[i];
        buf[i] = '\0';
        struct stat link;
        if (lstat(buf, &link) == 0 && S_ISLNK(link.st_mode) && link.st_uid != geteuid()) {
            /* The folder holding the link: the kernel's protected_symlinks
             * rule, which a container's host may have turned off. */
            char *slash = strrchr(buf, '/');
            char *dir = slash ? (slash == buf ? nd_xstrdup("/") : nd_xstrndup(buf, (size_t)(slash - buf)))
                              : nd_xstrdup(".");
            struct stat d;
            if (stat(dir, &d) == 0 && (d.st_mode & S_ISVTX) && (d.st_mode & S_IWOTH) && link.st_uid != d.st_uid)
                rc = nd_error_set(err, -EPERM,
                                  "%s: %s is a symbolic link of another user (uid %u) in the shared folder %s; not "
                                  "followed",
                                  path, buf, (unsigned)link.st_uid, dir);
            else if (nd_link_untrusted(&link))
                rc = nd_error_set(err, -EPERM, "%s: %s is a symbolic link of another user (uid %u); not followed as root",
                                  path, buf, (unsigned)link.st_uid);
            free(dir);
        }
        buf[i] = saved;
    }
    free(buf);
    return rc;
}

/* Makes the folder comp in the folder fd (mkdirat, never through a path)
 * and opens what is there now with O_NOFOLLOW|O_DIRECTORY: a link or a
 * folder of someone else swapped in between the two is refused, so what
 * is written in is the folder made. Returns the descriptor; *rc < 0 with
 * err filled on a refusal. */
static int nd_output_dir_made_at(int fd, const char *comp, const char *path, int *rc, struct nd_error *err)
{
    *rc = 0;
    if (mkdirat(fd, comp, 0755) < 0 && errno != EEXIST) {
        *rc = nd_error_set(err, -errno, "%s: cannot create the directory: %s", path, strerror(errno));
        return -1;
    }
    int nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (nfd < 0 || fstat(nfd, &st) < 0) {
        int e = errno == ELOOP ? ENOTDIR : errno;
        *rc = nd_error_set(err, -e, "%s: cannot create the directory: %s is %s", path, comp,
                           e == ENOTDIR ? "not a directory (changed while made)" : strerror(e));
        if (nfd >= 0)
            close(nfd);
        return -1;
    }
    if (st.st_uid != geteuid() && st.st_uid != 0) {
        close(nfd);
        *rc = nd_error_set(err, -EPERM, "%s: %s belongs to another user (uid %u); not written in", path, comp,
                           (unsigned)st.st_uid);
        return -1;
    }
    return nfd;
}

/* Opens the folder dir (O_PATH) one component at a time without following
 * any link blindly: a link is read and its target walked the same way, and
 * one of another user is refused as nd_output_path_trusted refuses it. So
 * the folder written in is the folder judged, even when a component is
 * swapped for a link between a look and a write. Returns the descriptor or
 * a negative errno with err filled ("<path>: ..."). */
static int nd_output_dir_open(const char *path, const char *dir, bool make, struct nd_error *err)
{
    struct nd_strbuf rest = ND_STRBUF_INIT;
    nd_strbuf_adds(&rest, dir);
    int fd = open(dir[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        nd_strbuf_release(&rest);
        return nd_error_set(err, -errno, "%s: cannot write: %s: %s", path, dir, strerror(errno));
    }
    int links = 0, rc = 0;
    size_t at = 0;
    while (rc == 0) {
        while (rest.buf[at] == '/')
            at++;
        if (!rest.buf[at])
            break;
        size_t n = strcspn(rest.buf + at, "/");
        char *comp = nd_xstrndup(rest.buf + at, n);
        at += n;
        if (strcmp(comp, ".") == 0) {
            free(comp);
            continue;
        }
        int nfd = openat(fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (nfd < 0 && errno == ENOENT && make) {
            nfd = nd_output_dir_made_at(fd, comp, path, &rc, err);
            free(comp);
            if (rc < 0)
                break;
            close(fd);
            fd = nfd;
            continue;
        }
        if (nfd < 0 || fstat(nfd, &st) < 0) {
            rc = nd_error_set(err, -errno, "%s: cannot write: %s: %s", path, dir, strerror(errno));
        } else if (S_ISLNK(st.st_mode)) {
            char tgt[4096];
            ssize_t tl = -1;
            if (st.st_uid != geteuid() && nd_link_untrusted(&st))
                rc = nd_error_set(err, -EPERM, "%s: %s is a symbolic link of another user (uid %u); not followed as root",
                                  path, comp, (unsigned)st.st_uid);
            else if (++links > 40)
                rc = nd_error_set(err, -ELOOP, "%s: cannot write: %s: %s", path, dir, strerror(ELOOP));
            else if ((tl = readlinkat(nfd, "", tgt, sizeof tgt - 1)) <= 0)
                rc = nd_error_set(err, tl == 0 ? -ENOENT : -errno, "%s: cannot write: %s: %s", path, dir,
                                  strerror(tl == 0 ? ENOENT : errno));
            if (rc == 0) {
                /* The link's target takes its place in what is left to walk. */
                tgt[tl] = '\0';
                struct nd_strbuf next = ND_STRBUF_INIT;
                nd_strbuf_adds(&next, tgt);
                nd_strbuf_addc(&next, '/');
                nd_strbuf_adds(&next, rest.buf + at);
                nd_strbuf_release(&rest);
                rest = next;
                at = 0;
                if (tgt[0] == '/') {
                    close(fd);
                    fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
                    if (fd < 0)
                        rc = nd_error_set(err, -errno, "%s: cannot write: /: %s", path, strerror(errno));
                }
            }
            close(nfd);
        } else if (!S_ISDIR(st.st_mode)) {
            close(nfd);
            rc = nd_error_set(err, -ENOTDIR, "%s: cannot write: %s is not a directory", path, dir);
        } else {
            close(fd);
            fd = nfd;
        }
        free(comp);
    }
    nd_strbuf_release(&rest);
    if (rc < 0) {
        if (fd >= 0)
            close(fd);
        return rc;
    }
    return fd;
}

/* The folder outputs go in: who owns it and who else may write in it. As
 * root, a folder of another user, or one that others may write in without
 * the sticky bit, is theirs to rearrange under the files root writes (they
 * may rename root's file away and put theirs, or a link, in its place); a
 * folder of several outputs (--report DIR, file NULL) is refused so for
 * anyone when another user (but root) owns it. file names the output in
 * messages when the folder is that of a single file (-o, --metrics-file,
 * --json-summary=FILE). */
static int nd_output_dir_vet(int fd, const char *dir, const char *file, struct nd_error *err)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return nd_error_set(err, -errno, "%s: %s", file ? file : dir, strerror(errno));
    uid_t me = geteuid();
    if (file && me != 0)
        return 0;
    /* "DIR: belongs ..." for a folder of outputs, "FILE: its folder DIR
     * belongs ..." for a file's. */
    char *who = file ? nd_xasprintf("%s: its folder %s", file, dir) : nd_xasprintf("%s:", dir);
    char *where = file ? nd_xasprintf("%s: others may write in its folder %s", file, dir)
                       : nd_xasprintf("%s: others may write in it", dir);
    int rc = 0;
    if (st.st_uid != me && st.st_uid != 0)
        rc = nd_error_set(err, -EPERM,
                          "%s belongs to another user (uid %u); refusing to write in it%s (name a folder of your own)",
                          who, (unsigned)st.st_uid, me == 0 ? " as root" : "");
    else if (me == 0 && (st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
        rc = nd_error_set(err, -EPERM,
                          "%s (mode %04o, no sticky bit); refusing to write in it as root (chmod go-w it or name a "
                          "folder of your own)",
                          where, (unsigned)(st.st_mode & 07777));
    free(where);
    free(who);
    return rc;
}

/* What is at name in the folder dirfd now: 0 when absent or a regular file
 * (*mode its permissions, or 0), else the refusal with err filled. */
static int nd_output_target_at(int dirfd, const char *name, const char *path, mode_t *mode, struct nd_error *err)
{
    *mode = 0;
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        if (errno == ENOENT)
            return 0;
        return nd_error_set(err, -errno, "%s: cannot write: %s", path, strerror(errno));
    }
    if (S_ISREG(st.st_mode)) {
        /* Root replacing another user's file (planted in /tmp under the name
         * root will use), or one more name of a file that lives elsewhere,
         * would replace what it did not create. */
        if (st.st_uid != geteuid())
            return nd_error_set(err, -EEXIST,
                                "%s: belongs to another user (uid %u); refusing to replace it (remove it or name a new "
                                "path)",
                                path, (unsigned)st.st_uid);
        if (st.st_nlink > 1)
            return nd_error_set(err, -EEXIST,
                                "%s: has other hard links; refusing to replace it (remove it or name a new path)", path);
        /* Its permissions, but never set-id bits on a file we write. */
        *mode = st.st_mode & 0777;
        return 0;
    }
    const char *what = S_ISLNK(st.st_mode)                          ? "a symbolic link"
                       : S_ISDIR(st.st_mode)                        ? "a directory"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                       : S_ISFIFO(st.st_mode)                       ? "a FIFO"
                                                                    : "not a regular file";
    return nd_error_set(err, -EEXIST, "%s: is %s; refusing to replace it (name a regular file or a new path)", path,
                        what);
}

static char *nd_output_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return nd_xstrdup(".");
    if (slash == path)
        return nd_xstrdup("/");
    return nd_xstrndup(path, (size_t)(slash - path));
}

/* The folder of path opened (nd_output_dir_open) and what is at its last
 * component judged: the descriptor (>= 0), *base the component, *mode the
 * permissions of the file it replaces (or 0); or a refusal. */
static int nd_output_open_target(const char *path, char **base, mode_t *mode, struct nd_error *err)
{
    *base = NULL;
    *mode = 0;
    if (!path || !*path)
        return nd_error_set(err, -EINVAL, "empty output path");
    int rc = nd_output_path_trusted(path, err);
    if (rc < 0)
        return rc;
    const char *slash = strrchr(path, '/');
    const char *b = slash ? slash + 1 : path;
    if (!*b || strcmp(b, ".") == 0 || strcmp(b, "..") == 0)
        return nd_error_set(err, -EISDIR,
                            "%s: is a directory; refusing to replace it (name a regular file or a new path)", path);
    char *dir = nd_output_dir(path);
    int dirfd = nd_output_dir_open(path, dir, false, err);
    if (dirfd < 0) {
        free(dir);
        return dirfd;
    }
    /* The folder opened is the one judged, and every later step happens in
     * it: as root, one that others may rearrange is refused. */
    rc = nd_output_dir_vet(dirfd, dir, path, err);
    free(dir);
    if (rc == 0)
        rc = nd_output_target_at(dirfd, b, path, mode, err);
    if (rc < 0) {
        close(dirfd);
        return rc;
    }
    *base = nd_xstrdup(b);
    return dirfd;
}

int nd_output_check(const char *path, struct nd_error *err)
{
    if (path && strcmp(path, ND_OUTPUT_STDOUT) == 0)
        return 0;
    mode_t mode;
    char *base;
    int dirfd = nd_output_open_target(path, &base, &mode, err);
    if (dirfd < 0)
        return dirfd;
    int rc = 0;
    if (faccessat(dirfd, ".", W_OK | X_OK, 0) < 0) {
        char *dir = nd_output_dir(path);
        rc = nd_error_set(err, -errno, "%s: cannot write: %s: %s", path, dir, strerror(errno));
        free(dir);
    }
    free(base);
    close(dirfd);
    return rc;
}

/* A temp name nobody can predict, beside base (a name in the same folder). */
static char *nd_output_tmp_name(const char *base, int attempt)
{
    uint32_t r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
        r = (uint32_t)getpid() * 2654435761u ^ (uint32_t)time(NULL) ^ (uint32_t)attempt * 40503u;
    return nd_xasprintf(".%s.tmp-%08x", base, (unsigned)r);
}

static int nd_outfile_open_in(int dirfd, char *base, mode_t mode, const char *path, struct nd_outfile **out,
                              struct nd_error *err);

int nd_outfile_open(const char *path, struct nd_outfile **out, struct nd_error *err)
{
    *out = NULL;
    if (path && strcmp(path, ND_OUTPUT_STDOUT) == 0) {
        struct nd_outfile *o = nd_xcalloc(1, sizeof *o);
        o->path = nd_xstrdup("stdout");
        o->fd = -1;
        o->dirfd = -1;
        o->fp = stdout;
        *out = o;
        return 0;
    }
    mode_t mode;
    char *base;
    int dirfd = nd_output_open_target(path, &base, &mode, err);
    if (dirfd < 0)
        return dirfd;
    return nd_outfile_open_in(dirfd, base, mode, path, out, err);
}

/* The file base in the folder dirfd (both taken over), mode the permissions
 * of the file it replaces (or 0). */
static int nd_outfile_open_in(int dirfd, char *base, mode_t mode, const char *path, struct nd_outfile **out,
                              struct nd_error *err)
{
    /* An unnamed file first: a job or npu-doctor killed mid-write leaves
     * nothing behind. Where the filesystem has no O_TMPFILE, a named temp
     * file created exclusively: a symlink planted at a guessed name cannot
     * make root write through it. */
    char *tmp = NULL;
    bool unnamed = true;
    int fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode ? mode : 0644);
    int e = errno;
    if (fd < 0 && (e == EOPNOTSUPP || e == EISDIR || e == EINVAL || e == ENOENT)) {
        unnamed = false;
        for (int attempt = 0; attempt < 32 && fd < 0; attempt++) {
            free(tmp);
            tmp = nd_output_tmp_name(base, attempt);
            fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, mode ? mode : 0644);
            e = errno;
            if (fd < 0 && e != EEXIST)
                break;
        }
    }
    if (fd < 0) {
        free(tmp);
        free(base);
        close(dirfd);
        return nd_error_set(err, -e, "%s: cannot write: %s", path, strerror(e));
    }
    if (mode)
        fchmod(fd, mode); /* the replaced file's permissions, not the umask's */
    FILE *fp = fdopen(fd, "w");
    if (!fp) {
        e = errno;
        close(fd);
        if (tmp)
            unlinkat(dirfd, tmp, 0);
        free(tmp);
        free(base);
        close(dirfd);
        return nd_error_set(err, -e, "%s: cannot write: %s", path, strerror(e));
    }
    struct nd_outfile *o = nd_xcalloc(1, sizeof *o);
    o->path = nd_xstrdup(path);
    o->tmp = tmp;
    o->base = base;
    o->dirfd = dirfd;
    o->fd = fd;
    o->unnamed = unnamed;
    o->fp = fp;
    *out = o;
    return 0;
}

FILE *nd_outfile_stream(struct nd_outfile *o)
{
    return o ? o->fp : NULL;
}

static void nd_outfile_free(struct nd_outfile *o)
{
    if (o->dirfd >= 0)
        close(o->dirfd);
    free(o->path);
    free(o->tmp);
    free(o->base);
    free(o);
}

void nd_outfile_discard(struct nd_outfile *o)
{
    if (!o)
        return;
    if (o->fd >= 0) {
        fclose(o->fp); /* an unnamed file vanishes with its descriptor */
        if (o->tmp)
            unlinkat(o->dirfd, o->tmp, 0);
    } else {
        fflush(o->fp);
    }
    nd_outfile_free(o);
}

/* Gives the unnamed file a temp name beside path (o->tmp). */
static int nd_outfile_name(struct nd_outfile *o, struct nd_error *err)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->fd);
    for (int attempt = 0; attempt < 32; attempt++) {
        char *tmp = nd_output_tmp_name(o->base, attempt);
        int rc = linkat(AT_FDCWD, proc, o->dirfd, tmp, AT_SYMLINK_FOLLOW);
        if (rc != 0 && errno == ENOENT) /* no /proc: root may link the descriptor itself */
            rc = linkat(o->fd, "", o->dirfd, tmp, AT_EMPTY_PATH);
        if (rc == 0) {
            o->tmp = tmp;
            return 0;
        }
        int e = errno;
        free(tmp);
        if (e != EEXIST)
            return nd_error_set(err, -e, "%s: cannot write: %s", o->path, strerror(e));
    }
    return nd_error_set(err, -EEXIST, "%s: cannot write: no free temp name", o->path);
}

/* Moves o->tmp to o->base in the folder without ever replacing what is not
 * a regular file, even if one is put there after the last look: a new path
 * is taken with RENAME_NOREPLACE; a regular file is swapped out with
 * RENAME_EXCHANGE and what came back is checked, and swapped back if it is
 * not a regular file. Filesystems without those flags get the plain rename
 * after a second look. All of it happens in the folder opened once. */
static int nd_outfile_place(struct nd_outfile *o, struct nd_error *err)
{
    mode_t mode;
    int d = o->dirfd;
    for (int attempt = 0; attempt < 4; attempt++) {
        struct stat st;
        int rc = nd_output_target_at(d, o->base, o->path, &mode, err);
        if (rc < 0)
            return rc;
        bool exists = fstatat(d, o->base, &st, AT_SYMLINK_NOFOLLOW) == 0;
        if (!exists) {
            if (renameat2(d, o->tmp, d, o->base, RENAME_NOREPLACE) == 0)
                return 0;
            if (errno == EEXIST)
                continue; /* something appeared: look at it again */
        } else {
            if (renameat2(d, o->tmp, d, o->base, RENAME_EXCHANGE) == 0) {
                struct stat old;
                if (fstatat(d, o->tmp, &old, AT_SYMLINK_NOFOLLOW) == 0 &&
                    (!S_ISREG(old.st_mode) || old.st_uid != geteuid() || old.st_nlink > 1)) {
                    /* Swapped in behind our back: put it back untouched. */
                    renameat2(d, o->tmp, d, o->base, RENAME_EXCHANGE);
                    return nd_output_target_at(d, o->base, o->path, &mode, err) < 0
                               ? -EEXIST
                               : nd_error_set(err, -EEXIST, "%s: changed while written; refusing to replace it", o->path);
                }
                unlinkat(d, o->tmp, 0);
                return 0;
            }
            if (errno == ENOENT)
                continue; /* it went away: look again */
        }
        if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
            return nd_error_set(err, -errno, "%s: cannot replace: %s", o->path, strerror(errno));
        /* No renameat2 flags here (some network filesystems). */
        if (renameat(d, o->tmp, d, o->base) != 0)
            return nd_error_set(err, -errno, "%s: cannot replace: %s", o->path, strerror(errno));
        return 0;
    }
    return nd_error_set(err, -EAGAIN, "%s: keeps changing while written; not replaced", o->path);
}

int nd_outfile_commit(struct nd_outfile *o, struct nd_error *err)
{
    int rc = 0;
    if (o->fd < 0) {
        if (fflush(o->fp) != 0 || ferror(o->fp))
            rc = nd_error_set(err, -EIO, "stdout: write failed: %s", strerror(errno ? errno : EIO));
        nd_outfile_free(o);
        return rc;
    }
    if (fflush(o->fp) != 0 || ferror(o->fp)) {
        int e = errno ? errno : EIO;
        rc = nd_error_set(err, -e, "%s: write failed: %s", o->path, strerror(e));
    }
    /* The unnamed file is named while its descriptor is still open. */
    if (rc == 0 && o->unnamed)
        rc = nd_outfile_name(o, err);
    if (fclose(o->fp) != 0 && rc == 0) {
        int e = errno;
        rc = nd_error_set(err, -e, "%s: write failed: %s", o->path, strerror(e));
    }
    if (rc == 0)
        rc = nd_outfile_place(o, err);
    if (rc < 0 && o->tmp)
        unlinkat(o->dirfd, o->tmp, 0);
    nd_outfile_free(o);
    return rc;
}

int nd_write_file_atomic(const char *path, const void *data, size_t len, struct nd_error *err)
{
    struct nd_outfile *o;
    int rc = nd_outfile_open(path, &o, err);
    if (rc < 0)
        return rc;
    if (len && fwrite(data, 1, len, o->fp) != len) {
        int e = errno ? errno : EIO;
        nd_outfile_discard(o);
        return nd_error_set(err, -e, "%s: write failed: %s", path, strerror(e));
    }
    return nd_outfile_commit(o, err);
}

int nd_output_dir_make(const char *dir, struct nd_error *err)
{
    if (!dir || !*dir)
        return nd_error_set(err, -EINVAL, "empty output directory");
    int rc = nd_output_path_trusted(dir, err);
    if (rc < 0)
        return rc;
    int fd = nd_output_dir_open(dir, dir, true, err);
    if (fd < 0)
        return fd;
    rc = nd_output_dir_vet(fd, dir, NULL, err);
    if (rc == 0 && faccessat(fd, ".", W_OK | X_OK, 0) < 0)
        rc = nd_error_set(err, -errno, "%s: not writable: %s", dir, strerror(errno));
    if (rc < 0) {
        close(fd);
        return rc;
    }
    return fd;
}

/* "dir/name" for messages. */
static char *nd_output_join(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    return nd_xasprintf("%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
}

int nd_output_check_at(int dirfd, const char *dir, const char *name, struct nd_error *err)
{
    char *path = nd_output_join(dir, name);
    mode_t mode;
    int rc = nd_output_target_at(dirfd, name, path, &mode, err);
    free(path);
    return rc;
}

int nd_outfile_openat(int dirfd, const char *dir, const char *name, struct nd_outfile **out, struct nd_error *err)
{
    *out = NULL;
    char *path = nd_output_join(dir, name);
    int rc = 0;
    mode_t mode;
    int fd = -1;
    if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        rc = nd_error_set(err, -EINVAL, "%s: not a plain file name", path);
    else if ((fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0)) < 0)
        rc = nd_error_set(err, -errno, "%s: cannot write: %s", path, strerror(errno));
    else if ((rc = nd_output_target_at(fd, name, path, &mode, err)) == 0)
        rc = nd_outfile_open_in(fd, nd_xstrdup(name), mode, path, out, err);
    else
        close(fd);
    free(path);
    return rc;
}

int nd_write_file_at(int dirfd, const char *dir, const char *name, const void *data, size_t len, struct nd_error *err)
{
    struct nd_outfile *o;
    int rc = nd_outfile_openat(dirfd, dir, name, &o, err);
    if (rc < 0)
        return rc;
    if (len && fwrite(data, 1, len, o->fp) != len) {
        int e = errno ? errno : EIO;
        rc = nd_error_set(err, -e, "%s: write failed: %s", o->path, strerror(e));
        nd_outfile_discard(o);
        return rc;
    }
    return nd_outfile_commit(o, err);
}

char *nd_trim(char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

bool nd_looks_binary(const char *buf, size_t len)
{
    size_t check = len < 8192 ? len : 8192;
    size_t odd = 0;
    for (size_t i = 0; i < check; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (c == 0)
            return true;
        if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != 0x1b && c != '\b')
            odd++;
    }
    return check && odd * 10 > check;
}

long long nd_parse_size(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || v < 0)
        return -1;
    while (*end == ' ')
        end++;
    double mul = 1;
    switch (toupper((unsigned char)*end)) {
    case 'K':
        mul = 1024.0;
        end++;
        break;
    case 'M':
        mul = 1024.0 * 1024;
        end++;
        break;
    case 'G':
        mul = 1024.0 * 1024 * 1024;
        end++;
        break;
    case 'T':
        mul = 1024.0 * 1024 * 1024 * 1024;
        end++;
        break;
    default: break;
    }
    if (*end == 'i' || *end == 'I')
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end != '\0')
        return -1;
    double r = v * mul;
    if (r > 9.0e18)
        return -1;
    return (long long)r;
}

void nd_format_bytes(unsigned long long bytes, char *buf, size_t size)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)bytes;
    size_t u = 0;
    while (v >= 1024 && u + 1 < ND_ARRAY_SIZE(units)) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, size, "%llu B", bytes);
    else if (v >= 100 || v == (double)(long long)v)
        snprintf(buf, size, "%.0f %s", v, units[u]);
    else
        snprintf(buf, size, "%.1f %s", v, units[u]);
}
