/* Reads the CUDA toolkit and ROCm version files (see toolkit_version.h). The
 * toolkit matters apart from the driver: extensions (apex, flash-attn,
 * DeepSpeed ops) are compiled with it, so it must fit both the driver and
 * the CUDA torch was built for. */
#include "probe/toolkit_version.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/array.h"
#include "core/rootfs.h"
#include "probe/pathfmt.h"

/* Copies the dotted number at p ("12.4.131") into out; false when none. */
static bool nd_copy_dotted(const char *p, const char *end, char *out, size_t size)
{
    size_t n = 0;
    while (p + n < end && (isdigit((unsigned char)p[n]) || (p[n] == '.' && n > 0)))
        n++;
    while (n > 0 && p[n - 1] == '.')
        n--;
    if (n == 0 || !memchr(p, '.', n) || n >= size)
        return false;
    memcpy(out, p, n);
    out[n] = '\0';
    return true;
}

int nd_cuda_toolkit_parse(const char *buf, size_t len, char *out, size_t size)
{
    if (size)
        out[0] = '\0';
    if (!buf || !len || !size)
        return -EINVAL;
    json_error_t jerr;
    json_t *doc = json_loadb(buf, len, 0, &jerr);
    if (doc) {
        const char *v = json_string_value(json_object_get(json_object_get(doc, "cuda"), "version"));
        bool ok = v && nd_copy_dotted(v, v + strlen(v), out, size);
        json_decref(doc);
        return ok ? 0 : -EINVAL;
    }
    static const char mark[] = "CUDA Version ";
    const char *end = buf + len;
    for (const char *p = buf; p + sizeof mark - 1 <= end; p++)
        if (memcmp(p, mark, sizeof mark - 1) == 0)
            return nd_copy_dotted(p + sizeof mark - 1, end, out, size) ? 0 : -EINVAL;
    return -EINVAL;
}

int nd_rocm_version_parse(const char *buf, size_t len, char *out, size_t size)
{
    if (size)
        out[0] = '\0';
    if (!buf || !size)
        return -EINVAL;
    const char *p = buf, *end = buf + len;
    while (p < end && isspace((unsigned char)*p))
        p++;
    return nd_copy_dotted(p, end, out, size) ? 0 : -EINVAL;
}

static bool nd_probe_file(const char *path, int (*parse)(const char *, size_t, char *, size_t), char *out, size_t size)
{
    char *buf;
    size_t len;
    if (nd_rootfs_read(path, 64 * 1024, &buf, &len, NULL) != 0)
        return false;
    bool ok = parse(buf, len, out, size) == 0;
    free(buf);
    return ok;
}

void nd_cuda_toolkit_probe(char *out, size_t size, char *file, size_t file_size)
{
    static const char *const files[] = {"/usr/local/cuda/version.json", "/usr/local/cuda/version.txt"};
    nd_pfmt(out, size, "%s", "");
    nd_pfmt(file, file_size, "%s", "");
    for (size_t i = 0; i < ND_ARRAY_SIZE(files); i++)
        if (nd_probe_file(files[i], nd_cuda_toolkit_parse, out, size)) {
            nd_pfmt(file, file_size, "%s", files[i]);
            return;
        }
}

void nd_rocm_probe(char *out, size_t size)
{
    nd_pfmt(out, size, "%s", "");
    nd_probe_file("/opt/rocm/.info/version", nd_rocm_version_parse, out, size);
}
