/* CUDA toolkit, cuDNN and ROCm versions for check's facts and bug reports. */
#include "probe/toolkits.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "core/array.h"
#include "core/error.h"
#include "core/json_util.h"
#include "core/rootfs.h"
#include "core/spawn.h"
#include "probe/cuda_install.h"
#include "probe/pathfmt.h"

/* Copies a run of [0-9.] starting at s (at most n bytes) into out. */
static int nd_copy_version(const char *s, size_t n, char *out, size_t size)
{
    size_t k = 0;
    while (k < n && (isdigit((unsigned char)s[k]) || s[k] == '.'))
        k++;
    while (k > 0 && s[k - 1] == '.')
        k--;
    if (k == 0 || !isdigit((unsigned char)s[0]))
        return -EINVAL;
    return nd_pfmt(out, size, "%.*s", (int)k, s) < 0 ? -EINVAL : 0;
}

/* memmem for a C string needle in a buffer that may hold NULs. */
static const char *nd_find(const char *buf, size_t len, const char *needle)
{
    size_t nl = strlen(needle);
    for (size_t i = 0; nl <= len && i <= len - nl; i++)
        if (memcmp(buf + i, needle, nl) == 0)
            return buf + i;
    return NULL;
}

int nd_tk_parse_nvcc(const char *buf, size_t len, char *out, size_t size)
{
    const char *r = nd_find(buf, len, "release ");
    if (!r)
        return -EINVAL;
    const char *end = buf + len;
    const char *line_end = memchr(r, '\n', (size_t)(end - r));
    if (!line_end)
        line_end = end;
    const char *v = nd_find(r, (size_t)(line_end - r), ", V");
    if (v && nd_copy_version(v + 3, (size_t)(line_end - v - 3), out, size) == 0)
        return 0;
    return nd_copy_version(r + 8, (size_t)(line_end - r - 8), out, size);
}

int nd_tk_parse_cuda_version(const char *buf, size_t len, char *out, size_t size)
{
    json_error_t je;
    json_t *doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
    if (doc) {
        const char *v = nd_json_get_str(json_object_get(doc, "cuda"), "version");
        int rc = v ? nd_copy_version(v, strlen(v), out, size) : -EINVAL;
        json_decref(doc);
        return rc;
    }
    const char *t = nd_find(buf, len, "CUDA Version ");
    if (!t)
        return -EINVAL;
    return nd_copy_version(t + 13, (size_t)(buf + len - t - 13), out, size);
}

/* The number after "#define NAME" in a header, or -1. */
static long nd_define_value(const char *buf, size_t len, const char *name)
{
    char needle[64];
    snprintf(needle, sizeof needle, "#define %s", name);
    size_t nl = strlen(needle);
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *hit = nd_find(p, (size_t)(end - p), needle);
        if (!hit)
            return -1;
        const char *q = hit + nl;
        p = q;
        if (q < end && *q != ' ' && *q != '\t')
            continue; /* CUDNN_MAJOR_VERSION or the like */
        while (q < end && (*q == ' ' || *q == '\t'))
            q++;
        long v = 0;
        int digits = 0;
        while (q < end && isdigit((unsigned char)*q) && digits < 6) {
            v = v * 10 + (*q++ - '0');
            digits++;
        }
        if (digits)
            return v;
    }
    return -1;
}

int nd_tk_parse_cudnn_header(const char *buf, size_t len, char *out, size_t size)
{
    long ma = nd_define_value(buf, len, "CUDNN_MAJOR");
    long mi = nd_define_value(buf, len, "CUDNN_MINOR");
    long pl = nd_define_value(buf, len, "CUDNN_PATCHLEVEL");
    if (ma < 0)
        return -EINVAL;
    if (mi < 0)
        return nd_pfmt(out, size, "%ld", ma) < 0 ? -EINVAL : 0;
    if (pl < 0)
        return nd_pfmt(out, size, "%ld.%ld", ma, mi) < 0 ? -EINVAL : 0;
    return nd_pfmt(out, size, "%ld.%ld.%ld", ma, mi, pl) < 0 ? -EINVAL : 0;
}

int nd_tk_parse_cudnn_soname(const char *name, char *out, size_t size)
{
    const char *p = strstr(name, "libcudnn.so.");
    if (!p)
        return -EINVAL;
    p += strlen("libcudnn.so.");
    size_t n = strlen(p);
    /* Only digits and dots: "libcudnn.so.8.9.7"; no "libcudnn.so.8.bak". */
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)p[i]) && p[i] != '.')
            return -EINVAL;
    return nd_copy_version(p, n, out, size);
}

int nd_tk_parse_rocm_version(const char *buf, size_t len, char *out, size_t size)
{
    size_t i = 0;
    while (i < len && isspace((unsigned char)buf[i]))
        i++;
    size_t j = i;
    while (j < len && buf[j] != '\n' && buf[j] != '\r' && buf[j] != '\0')
        j++;
    while (j > i && isspace((unsigned char)buf[j - 1]))
        j--;
    if (j == i || !isdigit((unsigned char)buf[i]) || j - i > 31)
        return -EINVAL;
    for (size_t k = i; k < j; k++)
        if (!isalnum((unsigned char)buf[k]) && buf[k] != '.' && buf[k] != '-' && buf[k] != '_')
            return -EINVAL;
    return nd_pfmt(out, size, "%.*s", (int)(j - i), buf + i) < 0 ? -EINVAL : 0;
}

/* Reads an in-root file and applies a parser; true when it gave a value. */
static bool nd_read_parse(const char *abs, int (*parse)(const char *, size_t, char *, size_t), char *out, size_t size)
{
    char *buf;
    size_t len;
    struct nd_error err;
    if (nd_rootfs_read(abs, 1024 * 1024, &buf, &len, &err) < 0)
        return false;
    int rc = parse(buf, len, out, size);
    free(buf);
    return rc == 0;
}

static void nd_probe_cuda_home(const struct nd_environ *env, struct nd_toolkits *t)
{
    const char *homes[4] = {env ? nd_environ_get(env, "CUDA_HOME") : NULL,
                            env ? nd_environ_get(env, "CUDA_PATH") : NULL, "/usr/local/cuda", NULL};
    for (size_t i = 0; i < 3; i++) {
        const char *h = homes[i];
        if (!h || h[0] != '/')
            continue;
        char p[PATH_MAX];
        static const char *const files[] = {"version.json", "version.txt"};
        for (size_t k = 0; k < 2; k++)
            if (nd_pfmt(p, sizeof p, "%s/%s", h, files[k]) >= 0 &&
                nd_read_parse(p, nd_tk_parse_cuda_version, t->cuda_version, sizeof t->cuda_version)) {
                nd_pfmt(t->cuda_home, sizeof t->cuda_home, "%s", h);
                return;
            }
    }
}

/* nvcc on the job's PATH, else in the CUDA home or /usr/local/cuda/bin. */
static bool nd_find_nvcc(const struct nd_environ *env, const struct nd_toolkits *t, char *out, size_t size)
{
    const char *path = env ? nd_environ_get(env, "PATH") : NULL;
    if (path) {
        char **dirs;
        size_t n = nd_path_split(path, &dirs);
        bool found = false;
        for (size_t i = 0; i < n && !found; i++)
            found = dirs[i][0] == '/' && nd_pfmt(out, size, "%s/nvcc", dirs[i]) >= 0 &&
                    nd_rootfs_access(out, X_OK) == 0 && nd_rootfs_is_file(out);
        nd_path_split_free(dirs, n);
        if (found)
            return true;
    }
    const char *home = t->cuda_home[0] ? t->cuda_home : "/usr/local/cuda";
    return nd_pfmt(out, size, "%s/bin/nvcc", home) >= 0 && nd_rootfs_access(out, X_OK) == 0 && nd_rootfs_is_file(out);
}

static void nd_run_nvcc(double timeout_s, struct nd_toolkits *t)
{
    char *argv[] = {t->nvcc_path, "--version", NULL};
    char *envp[] = {"LC_ALL=C", NULL};
    struct nd_spawn_result res;
    struct nd_error err;
    if (nd_spawn_capture(argv, envp, timeout_s, 64 * 1024, &res, &err) < 0) {
        nd_pfmt(t->nvcc_error, sizeof t->nvcc_error, "%s", err.msg);
        return;
    }
    if (!nd_spawn_ok(&res) || nd_tk_parse_nvcc(res.out, res.out_len, t->nvcc_version, sizeof t->nvcc_version) < 0) {
        char d[96];
        nd_spawn_describe(&res, timeout_s, d, sizeof d);
        nd_pfmt(t->nvcc_error, sizeof t->nvcc_error, "%s", nd_spawn_ok(&res) ? "printed no release" : d);
    }
    nd_spawn_result_release(&res);
}

/* The cuDNN header: pip's nvidia-cudnn in the job's sys.path first (that is
 * the one torch loads), then the system include folders. */
static bool nd_probe_cudnn_header(const struct nd_toolkits *t, const char *const *sys_path, size_t nsys,
                                  struct nd_toolkits *out)
{
    char p[PATH_MAX];
    for (size_t i = 0; sys_path && i < nsys; i++)
        if (nd_pfmt(p, sizeof p, "%s/nvidia/cudnn/include/cudnn_version.h", sys_path[i]) >= 0 &&
            nd_read_parse(p, nd_tk_parse_cudnn_header, out->cudnn_version, sizeof out->cudnn_version))
            goto found;
    static const char *const dirs[] = {"/usr/include", "/usr/include/x86_64-linux-gnu",
                                       "/usr/include/aarch64-linux-gnu", "/usr/local/cuda/include"};
    static const char *const names[] = {"cudnn_version.h", "cudnn.h"};
    for (size_t k = 0; k < 2; k++) {
        if (t->cuda_home[0] && nd_pfmt(p, sizeof p, "%s/include/%s", t->cuda_home, names[k]) >= 0 &&
            nd_read_parse(p, nd_tk_parse_cudnn_header, out->cudnn_version, sizeof out->cudnn_version))
            goto found;
        for (size_t i = 0; i < ND_ARRAY_SIZE(dirs); i++)
            if (nd_pfmt(p, sizeof p, "%s/%s", dirs[i], names[k]) >= 0 &&
                nd_read_parse(p, nd_tk_parse_cudnn_header, out->cudnn_version, sizeof out->cudnn_version))
                goto found;
    }
    return false;
found:
    nd_pfmt(out->cudnn_source, sizeof out->cudnn_source, "%s", p);
    return true;
}

static void nd_probe_cudnn_lib(const struct nd_environ *env, struct nd_toolkits *t)
{
    static const char *const names[] = {"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so.7"};
    for (size_t i = 0; i < 3; i++) {
        char p[PATH_MAX], real[PATH_MAX];
        if (!nd_find_lib_in_root(env, names[i], p, sizeof p))
            continue;
        const char *use = nd_rootfs_realpath(p, real, sizeof real) == 0 ? real : p;
        const char *base = strrchr(use, '/');
        if (nd_tk_parse_cudnn_soname(base ? base + 1 : use, t->cudnn_version, sizeof t->cudnn_version) == 0 ||
            nd_tk_parse_cudnn_soname(names[i], t->cudnn_version, sizeof t->cudnn_version) == 0) {
            nd_pfmt(t->cudnn_source, sizeof t->cudnn_source, "%s", use);
            return;
        }
    }
}

static int nd_cmp_rocm(const void *a, const void *b)
{
    return strcmp(((const struct nd_tk_rocm *)a)->path, ((const struct nd_tk_rocm *)b)->path);
}

static void nd_probe_rocm(struct nd_toolkits *t)
{
    DIR *d = nd_rootfs_opendir("/opt");
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && t->nrocm < ND_TK_MAX_ROCM) {
        if (strcmp(de->d_name, "rocm") != 0 && strncmp(de->d_name, "rocm-", 5) != 0)
            continue;
        char p[PATH_MAX];
        if (nd_pfmt(p, sizeof p, "/opt/%s/.info/version", de->d_name) < 0)
            continue;
        char v[32];
        if (!nd_read_parse(p, nd_tk_parse_rocm_version, v, sizeof v))
            continue;
        nd_pfmt(t->rocm[t->nrocm].path, sizeof t->rocm[t->nrocm].path, "/opt/%s", de->d_name);
        nd_pfmt(t->rocm[t->nrocm].version, sizeof t->rocm[t->nrocm].version, "%s", v);
        t->nrocm++;
    }
    closedir(d);
    /* readdir order is the file system's: sort for stable snapshots and diffs. */
    qsort(t->rocm, t->nrocm, sizeof t->rocm[0], nd_cmp_rocm);
}

void nd_toolkits_probe(const struct nd_environ *env, const char *const *sys_path, size_t nsys_path,
                       double nvcc_timeout_s, struct nd_toolkits *t)
{
    memset(t, 0, sizeof *t);
    nd_probe_cuda_home(env, t);
    /* Running a binary of another root would run it against our libraries: only on "/". */
    if (nvcc_timeout_s > 0 && nd_rootfs_is_default() && nd_find_nvcc(env, t, t->nvcc_path, sizeof t->nvcc_path))
        nd_run_nvcc(nvcc_timeout_s, t);
    if (!nd_probe_cudnn_header(t, sys_path, nsys_path, t))
        nd_probe_cudnn_lib(env, t);
    nd_probe_rocm(t);
}

static json_t *nd_s(const char *s)
{
    return s[0] ? nd_json_str(s) : json_null();
}

json_t *nd_toolkits_facts_json(const struct nd_toolkits *t)
{
    json_t *o = json_object();
    json_t *cuda = json_object();
    json_object_set_new(cuda, "version", nd_s(t->cuda_version));
    json_object_set_new(cuda, "home", nd_s(t->cuda_home));
    json_object_set_new(cuda, "nvcc", nd_s(t->nvcc_path));
    json_object_set_new(cuda, "nvcc_version", nd_s(t->nvcc_version));
    if (t->nvcc_error[0])
        json_object_set_new(cuda, "nvcc_error", nd_json_str(t->nvcc_error));
    json_object_set_new(o, "cuda_toolkit", cuda);
    json_t *cudnn = json_object();
    json_object_set_new(cudnn, "version", nd_s(t->cudnn_version));
    json_object_set_new(cudnn, "source", nd_s(t->cudnn_source));
    json_object_set_new(o, "cudnn", cudnn);
    json_t *rocm = json_array();
    for (size_t i = 0; i < t->nrocm; i++)
        json_array_append_new(rocm, json_pack("{s:o,s:o}", "path", nd_json_str(t->rocm[i].path), "version",
                                              nd_json_str(t->rocm[i].version)));
    json_object_set_new(o, "rocm", rocm);
    return o;
}
