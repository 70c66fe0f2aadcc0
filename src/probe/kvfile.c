/* KEY=VALUE version and install files: a forgiving line parser that never
 * trusts the input (binary, huge lines, missing newlines). */
#include "probe/kvfile.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/array.h"
#include "core/fileio.h"
#include "core/rootfs.h"
#include "core/strbuf.h"

#define ND_KV_MAX_ENTRIES 4096
#define ND_KV_MAX_VALUE 4096

static size_t nd_kv_trim_len(const char **s, size_t n)
{
    while (n && isspace((unsigned char)**s)) {
        (*s)++;
        n--;
    }
    while (n && isspace((unsigned char)(*s)[n - 1]))
        n--;
    return n;
}

int nd_kvfile_parse(const char *buf, size_t len, struct nd_kvfile *out, struct nd_error *err)
{
    out->v = NULL;
    out->n = 0;
    if (nd_looks_binary(buf, len))
        return nd_error_set(err, -EINVAL, "binary data, not a KEY=VALUE file");
    size_t cap = 0, pos = 0;
    long lineno = 0;
    while (pos < len && out->n < ND_KV_MAX_ENTRIES) {
        const char *line = buf + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - line) : len - pos;
        pos += n + (nl ? 1 : 0);
        lineno++;
        n = strnlen(line, n);
        n = nd_kv_trim_len(&line, n);
        if (n == 0 || line[0] == '#' || line[0] == ';')
            continue;
        /* '=' wins; "Key: value" (PKG-INFO style) only when there is no '='. */
        const char *sep = memchr(line, '=', n);
        if (!sep)
            sep = memchr(line, ':', n);
        if (!sep || sep == line)
            continue;
        const char *k = line;
        size_t kn = nd_kv_trim_len(&k, (size_t)(sep - line));
        const char *v = sep + 1;
        size_t vn = nd_kv_trim_len(&v, n - (size_t)(sep - line) - 1);
        if (kn == 0)
            continue;
        if (vn >= 2 && (v[0] == '"' || v[0] == '\'') && v[vn - 1] == v[0]) {
            v++;
            vn -= 2;
        }
        if (vn > ND_KV_MAX_VALUE)
            vn = ND_KV_MAX_VALUE;
        ND_ALLOC_GROW(out->v, out->n + 1, cap);
        out->v[out->n].key = nd_xstrndup(k, kn);
        out->v[out->n].value = nd_xstrndup(v, vn);
        out->v[out->n].line = lineno;
        out->n++;
    }
    return 0;
}

const char *nd_kvfile_get(const struct nd_kvfile *kv, const char *key, long *line)
{
    for (size_t i = 0; i < kv->n; i++)
        if (strcasecmp(kv->v[i].key, key) == 0) {
            if (line)
                *line = kv->v[i].line;
            return kv->v[i].value;
        }
    return NULL;
}

void nd_kvfile_release(struct nd_kvfile *kv)
{
    for (size_t i = 0; i < kv->n; i++) {
        free(kv->v[i].key);
        free(kv->v[i].value);
    }
    free(kv->v);
    kv->v = NULL;
    kv->n = 0;
}

int nd_kvfile_load(const char *abs, struct nd_kvfile *out, struct nd_error *err)
{
    char *buf;
    size_t len;
    out->v = NULL;
    out->n = 0;
    int rc = nd_rootfs_read(abs, 1u << 20, &buf, &len, err);
    if (rc < 0)
        return rc;
    struct nd_error perr;
    rc = nd_kvfile_parse(buf, len, out, &perr);
    free(buf);
    if (rc < 0)
        return nd_error_set(err, rc, "%s: %s", abs, perr.msg);
    return 0;
}
