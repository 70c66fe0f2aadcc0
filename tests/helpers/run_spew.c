/* Test helper for `npu-doctor run` passthrough: writes MIB mebibytes of
 * deterministic mixed output, interleaving stdout and stderr in chunks of
 * random size (text lines, long lines, binary bytes, NULs), so a test can
 * compare per-stream checksums with and without npu-doctor in between.
 * usage: run_spew MIB [SEED] */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: run_spew MIB [SEED]\n");
        return 2;
    }
    uint64_t total = strtoull(argv[1], NULL, 10) << 20;
    if (argc > 2)
        rng ^= strtoull(argv[2], NULL, 10) * 0x9E3779B97F4A7C15ULL;
    static char buf[1 << 17];
    while (total) {
        size_t n = 1 + next() % sizeof buf;
        if (n > total)
            n = (size_t)total;
        int kind = (int)(next() % 10);
        for (size_t i = 0; i < n; i++) {
            uint64_t r = next();
            if (kind == 0)
                buf[i] = (char)(r & 0xff); /* binary, NULs included */
            else if (kind == 1 && i % 7000 != 6999)
                buf[i] = (char)('a' + r % 26); /* very long lines */
            else
                buf[i] = r % 61 == 0 ? '\n' : (char)(' ' + r % 95);
        }
        if (write_all(next() % 2 ? 1 : 2, buf, n) < 0)
            return 1;
        total -= n;
    }
    return 0;
}
