/* Reading whole files with a size cap, for live paths (/proc) and for
 * anything a user names on the command line. Install paths go through
 * rootfs.h instead. */
#ifndef ND_CORE_FILEIO_H
#define ND_CORE_FILEIO_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

/* Reads up to max bytes of path into a NUL-terminated malloc'd buffer.
 * Returns 0, or -errno (-EISDIR for a directory, -EFBIG when the file is
 * larger than max and truncate is off) with err filled as "<path>: <reason>". */
int nd_read_file(const char *path, size_t max, char **buf, size_t *len, struct nd_error *err);
/* Same, but a file longer than max is truncated to max bytes (for /proc). */
int nd_read_file_prefix(const char *path, size_t max, char **buf, size_t *len, struct nd_error *err);
/* Writes data to path atomically (temp file in the same folder, then rename). */
int nd_write_file_atomic(const char *path, const void *data, size_t len, struct nd_error *err);

/* Trims ASCII whitespace at both ends, in place; returns s. */
char *nd_trim(char *s);
/* True if buf[0..len) looks binary: NUL bytes or mostly non-text. */
bool nd_looks_binary(const char *buf, size_t len);
/* Parses a byte size like "64M", "1.5G", "65536k" (binary units). -1 on error. */
long long nd_parse_size(const char *s);
/* Formats bytes as "1.5 GiB", "64 MiB", "512 B". */
void nd_format_bytes(unsigned long long bytes, char *buf, size_t size);

#endif
