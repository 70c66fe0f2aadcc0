/* KEY=VALUE files as Ascend and CANN write them (version.info, install.info,
 * version.cfg, ascend_cann_install.info). The parser takes a buffer so it can
 * be fuzzed, and remembers line numbers for evidence. */
#ifndef ND_PROBE_KVFILE_H
#define ND_PROBE_KVFILE_H

#include <stddef.h>

#include "core/error.h"

struct nd_kv {
    char *key;
    char *value; /* trimmed, quotes removed */
    long line;   /* 1-based */
};

struct nd_kvfile {
    struct nd_kv *v;
    size_t n;
};

/* Parses "key=value" lines ("key: value" too); blank lines, comments (#)
 * and lines without a separator are skipped. Returns -EINVAL (err filled)
 * when the buffer is binary; out is then empty. At most 4096 entries are kept
 * and a value is cut at 4 KiB: these files are small, anything larger is garbage. */
int nd_kvfile_parse(const char *buf, size_t len, struct nd_kvfile *out, struct nd_error *err);
/* The first value for key (case-insensitive), or NULL; *line (if non-NULL) gets its line. */
const char *nd_kvfile_get(const struct nd_kvfile *kv, const char *key, long *line);
void nd_kvfile_release(struct nd_kvfile *kv);
/* Reads an in-root file (through core/rootfs.h, at most 1 MiB) and parses it.
 * -ENOENT/-EACCES/-EFBIG/-EINVAL with err filled as "<path>: <reason>". */
int nd_kvfile_load(const char *abs, struct nd_kvfile *out, struct nd_error *err);

#endif
