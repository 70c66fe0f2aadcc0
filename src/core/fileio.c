/* Capped whole-file reads, atomic writes and tiny text helpers. */
#include "core/fileio.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/strbuf.h"

static int nd_read_impl(const char *path, size_t max, bool truncate, char **buf, size_t *len,
                        struct nd_error *err)
{
    *buf = NULL;
    if (len)
        *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return nd_error_set(err, -errno, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        return nd_error_set(err, -EISDIR, "%s: is a directory", path);
    }
    /* Blocking reads from here on (O_NONBLOCK only guarded the open of a FIFO). */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_grow(&sb, 4096);
    for (;;) {
        if (sb.len >= max) {
            char probe;
            ssize_t extra = truncate ? 0 : read(fd, &probe, 1);
            if (extra > 0) {
                nd_strbuf_free(&sb);
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
            int e = errno;
            nd_strbuf_free(&sb);
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

int nd_write_file_atomic(const char *path, const void *data, size_t len, struct nd_error *err)
{
    char *tmp = nd_xasprintf("%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return nd_error_set(err, -e, "%s: cannot write: %s", path, strerror(e));
    }
    const char *p = data;
    size_t left = len;
    while (left) {
        ssize_t n = write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            unlink(tmp);
            free(tmp);
            return nd_error_set(err, -e, "%s: write failed: %s", path, strerror(e));
        }
        p += n;
        left -= (size_t)n;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        free(tmp);
        return nd_error_set(err, -e, "%s: cannot replace: %s", path, strerror(e));
    }
    free(tmp);
    return 0;
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
    case 'K': mul = 1024.0; end++; break;
    case 'M': mul = 1024.0 * 1024; end++; break;
    case 'G': mul = 1024.0 * 1024 * 1024; end++; break;
    case 'T': mul = 1024.0 * 1024 * 1024 * 1024; end++; break;
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
    while (v >= 1024 && u + 1 < sizeof units / sizeof *units) {
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
