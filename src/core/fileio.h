/* Reading whole files with a size cap, for live paths (/proc) and for
 * anything a user names on the command line. Install paths go through
 * rootfs.h instead. */
#ifndef ND_CORE_FILEIO_H
#define ND_CORE_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/error.h"

/* Opens an input a user named (a log, a snapshot) so that nothing blocks:
 * a directory is -EISDIR; a character or block device is refused (-ENODEV:
 * /dev/zero never ends, a tty waits for a person); a FIFO or socket must
 * deliver its first byte (or its end) within ND_INPUT_WAIT_MS, else
 * -ETIMEDOUT, and is then read blocking; a regular file stays non-blocking,
 * so a kernel stream that looks like one (/proc/kmsg) reads what is there
 * and then returns EAGAIN instead of waiting. err: "<path>: <reason>". */
#define ND_INPUT_WAIT_MS 5000
int nd_open_input(const char *path, int *fd, struct nd_error *err);

/* Reads up to max bytes of path into a NUL-terminated malloc'd buffer.
 * Returns 0, or -errno (-EISDIR for a directory, -EFBIG when the file is
 * larger than max and truncate is off) with err filled as "<path>: <reason>". */
int nd_read_file(const char *path, size_t max, char **buf, size_t *len, struct nd_error *err);
/* Same, but a file longer than max is truncated to max bytes (for /proc). */
int nd_read_file_prefix(const char *path, size_t max, char **buf, size_t *len, struct nd_error *err);
/* Output files: the one way every writer (snapshot -o, --report,
 * --metrics-file, --json-summary=FILE, the kb cache) creates a file, because
 * the tool runs as root in shared places. "-" means stdout. Anything at the
 * path that is not a regular file (a symlink, a device, a FIFO, a directory),
 * a file of another user, a file with other hard links, or a path through
 * another user's link in /tmp (nd_output_path_trusted) is refused, never
 * replaced or written through, also when it is put there while the file is
 * written. As root, so is a folder that another user could rearrange under
 * the file: one of another user's, or one others may write in without the
 * sticky bit (as --report DIR is judged; /tmp is fine). A regular file is
 * replaced atomically, with its permissions but not its set-id bits. The
 * new file has no name until commit (O_TMPFILE, so a kill leaves nothing), else
 * a fresh temp file in the same folder (O_EXCL|O_NOFOLLOW, so a planted name
 * cannot redirect it); see nd_outfile_place in fileio.c. The folder is
 * opened once, one component at a time, and every later step happens in
 * that descriptor (openat, linkat, renameat2), so a folder swapped for a
 * link while the file is written cannot take it elsewhere. Errors read
 * "<path>: <reason>"; commands exit ND_EXIT_CANTCREAT (73) on them. */
#define ND_OUTPUT_STDOUT "-"
struct nd_outfile;
/* Opens path for writing (nothing is visible at path until commit). */
int nd_outfile_open(const char *path, struct nd_outfile **out, struct nd_error *err);
FILE *nd_outfile_stream(struct nd_outfile *o);
/* Flushes, checks for write errors and renames into place; frees o. */
int nd_outfile_commit(struct nd_outfile *o, struct nd_error *err);
/* Drops the temp file; frees o. NULL is fine. */
void nd_outfile_discard(struct nd_outfile *o);
/* Refuses (-EPERM, err filled) a path that leads through a symbolic link
 * that another user put in a sticky, world-writable folder such as /tmp
 * (the link's owner neither us nor the folder's): the rule of the kernel's
 * fs.protected_symlinks, kept also where it is off; as root, also a link of
 * any user but root anywhere (in a folder of their own the kernel lets root
 * follow it, and they choose where it leads). Every output path is
 * checked so; --report folders before they are made. */
int nd_output_path_trusted(const char *path, struct nd_error *err);
/* Whether path could be written: absent or a regular file of ours with no
 * other hard link, in a writable folder. Creates nothing. */
int nd_output_check(const char *path, struct nd_error *err);
/* open + write + commit in one call. */
int nd_write_file_atomic(const char *path, const void *data, size_t len, struct nd_error *err);

/* A folder that several outputs go in (--report DIR), opened for writing in
 * it: walked one component at a time as output folders are (no link of
 * another user followed as root), each missing component made with
 * mkdirat in its opened parent and then opened O_NOFOLLOW|O_DIRECTORY and
 * checked, so a link swapped in between cannot take the writes elsewhere.
 * The folder must belong to us or root; as root, also not be writable by
 * others without the sticky bit. Returns a descriptor to pass to the *_at
 * functions below (close it), or a negative errno with err filled as
 * "<dir>: <reason>". */
int nd_output_dir_make(const char *dir, struct nd_error *err);
/* nd_output_check, nd_outfile_open and nd_write_file_atomic for the plain
 * name inside the folder dirfd from nd_output_dir_make (dir names it in
 * messages); every step happens in that descriptor. */
int nd_output_check_at(int dirfd, const char *dir, const char *name, struct nd_error *err);
int nd_outfile_openat(int dirfd, const char *dir, const char *name, struct nd_outfile **out, struct nd_error *err);
int nd_write_file_at(int dirfd, const char *dir, const char *name, const void *data, size_t len, struct nd_error *err);

/* Trims ASCII whitespace at both ends, in place; returns s. */
char *nd_trim(char *s);
/* True if buf[0..len) looks binary: NUL bytes or mostly non-text. */
bool nd_looks_binary(const char *buf, size_t len);
/* Parses a byte size like "64M", "1.5G", "65536k" (binary units). -1 on error. */
long long nd_parse_size(const char *s);
/* Formats bytes as "1.5 GiB", "64 MiB", "512 B". */
void nd_format_bytes(unsigned long long bytes, char *buf, size_t size);

#endif
