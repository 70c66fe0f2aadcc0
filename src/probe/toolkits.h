/* Accelerator toolkits beside the driver, as collect_env lists them: the
 * CUDA toolkit (nvcc --version, version.json), cuDNN (its version header or
 * the library's file name) and ROCm (/opt/rocm*\/.info/version). Files are
 * read through the root prefix; nvcc runs in a child with a deadline, and
 * only when the root is "/". Parsers take buffers (fuzz/fuzz_toolkits.c). */
#ifndef ND_PROBE_TOOLKITS_H
#define ND_PROBE_TOOLKITS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "core/environ.h"

#define ND_TK_MAX_ROCM 4

struct nd_tk_rocm {
    char path[PATH_MAX]; /* "/opt/rocm-6.1.2" */
    char version[32];    /* "6.1.2-119" */
};

struct nd_toolkits {
    char cuda_version[32];       /* "12.4.1" from version.json / version.txt; "" unknown */
    char cuda_home[PATH_MAX];    /* the folder it was read from */
    char nvcc_path[PATH_MAX];    /* the nvcc run, "" when none */
    char nvcc_version[32];       /* "12.4.131" from nvcc --version */
    char nvcc_error[128];        /* "timed out after 5s", ... */
    char cudnn_version[32];      /* "9.1.0", or "8" from a soname alone */
    char cudnn_source[PATH_MAX]; /* the header or library it came from */
    size_t nrocm;
    struct nd_tk_rocm rocm[ND_TK_MAX_ROCM];
};

/* env: the job's (CUDA_HOME, CUDA_PATH, PATH, LD_LIBRARY_PATH); sys_path:
 * the job's Python folders, where pip's nvidia-cudnn keeps its header (may
 * be NULL). nvcc_timeout_s <= 0 skips running nvcc. */
void nd_toolkits_probe(const struct nd_environ *env, const char *const *sys_path, size_t nsys_path,
                       double nvcc_timeout_s, struct nd_toolkits *t);
json_t *nd_toolkits_facts_json(const struct nd_toolkits *t);

/* "Cuda compilation tools, release 12.4, V12.4.131" -> "12.4.131" (the V
 * part; the release when there is none). 0 or -EINVAL. */
int nd_tk_parse_nvcc(const char *buf, size_t len, char *out, size_t size);
/* version.json {"cuda": {"version": "12.4.1"}} or version.txt
 * "CUDA Version 11.0.207". 0 or -EINVAL. */
int nd_tk_parse_cuda_version(const char *buf, size_t len, char *out, size_t size);
/* cudnn_version.h / cudnn.h: CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL
 * defines -> "9.1.0". 0 or -EINVAL. */
int nd_tk_parse_cudnn_header(const char *buf, size_t len, char *out, size_t size);
/* A library file name "libcudnn.so.8.9.7" -> "8.9.7" ("libcudnn.so.9" -> "9"). */
int nd_tk_parse_cudnn_soname(const char *name, char *out, size_t size);
/* .info/version: the first line, trimmed ("6.1.2-119"). 0 or -EINVAL. */
int nd_tk_parse_rocm_version(const char *buf, size_t len, char *out, size_t size);

#endif
