/* Root-prefixed access to installation and device paths:
 * every read of /usr, /etc, /opt, /dev, /sys, /var/log and /proc/driver goes
 * through here, so tests can point the probes at a fixture tree (--root DIR)
 * and an operator can inspect a container's filesystem from outside.
 * Live process files (/proc/PID/...) do NOT go through here. */
#ifndef ND_CORE_ROOTFS_H
#define ND_CORE_ROOTFS_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "core/error.h"

/* Sets the root ("/" by default). Returns -ENOENT/-ENOTDIR with err filled
 * when dir is not an existing directory (the command maps that to exit 66). */
int nd_rootfs_set(const char *dir, struct nd_error *err);
/* The root without a trailing slash; "" for "/". */
const char *nd_rootfs_prefix(void);
bool nd_rootfs_is_default(void);

/* Host path for an absolute in-root path: prefix + abs. Returns 0 or
 * -ENAMETOOLONG. */
int nd_rootfs_path(const char *abs, char *out, size_t size);
/* Reverse: an on-host path inside the root mapped back to its in-root form
 * ("/tmp/fx/dev/davinci0" -> "/dev/davinci0"). Returns false when outside. */
bool nd_rootfs_unmap(const char *host_path, char *out, size_t size);

int nd_rootfs_stat(const char *abs, struct stat *st); /* follows links inside the root */
int nd_rootfs_lstat(const char *abs, struct stat *st);
bool nd_rootfs_exists(const char *abs);
bool nd_rootfs_is_dir(const char *abs);
bool nd_rootfs_is_file(const char *abs);
int nd_rootfs_access(const char *abs, int mode);
DIR *nd_rootfs_opendir(const char *abs);
/* Reads a whole in-root file, capped (see nd_read_file). */
int nd_rootfs_read(const char *abs, size_t max, char **buf, size_t *len, struct nd_error *err);
/* Resolves symlinks inside the root: absolute link targets are taken
 * relative to the root, never the host. out is an in-root absolute path.
 * Returns 0, or -ENOENT/-ELOOP. */
int nd_rootfs_realpath(const char *abs, char *out, size_t size);

#endif
