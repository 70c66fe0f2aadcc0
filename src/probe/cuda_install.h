/* What of the NVIDIA stack is installed (through the root prefix): the kernel
 * driver version, /dev/nvidia* files, and whether libcuda and libnvidia-ml
 * can be found the way the job would find them. */
#ifndef ND_PROBE_CUDA_INSTALL_H
#define ND_PROBE_CUDA_INSTALL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "core/finding.h"
#include "core/environ.h"

#define ND_NVIDIA_MAX_DEVFILES 64

struct nd_cuda_install {
    bool driver_present;     /* /proc/driver/nvidia/version readable */
    char driver_version[64]; /* "580.159.03" */
    size_t ngpu_files;
    int gpu_files[ND_NVIDIA_MAX_DEVFILES];
    bool nvidiactl, nvidia_uvm;
    char libcuda[PATH_MAX]; /* "" when not found */
    bool libcuda_is_stub;   /* only a link-time stub (…/stubs/libcuda.so) was found */
    char libnvml[PATH_MAX];
    char cuda_toolkit[32]; /* /usr/local/cuda's version ("12.4.1"); "" when none */
    char cuda_toolkit_file[PATH_MAX];
};

/* Gathers the facts; env supplies LD_LIBRARY_PATH (may be NULL). */
void nd_cuda_probe(const struct nd_environ *env, struct nd_cuda_install *c);
void nd_cuda_judge(const struct nd_cuda_install *c, struct nd_findings *out);
bool nd_cuda_any(const struct nd_cuda_install *c);
json_t *nd_cuda_facts_json(const struct nd_cuda_install *c);

/* Parses /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX x86_64 Kernel
 * Module  580.159.03  Sun …"). Returns 0 with the version or -EINVAL. */
int nd_nvidia_parse_version(const char *buf, size_t len, char *out, size_t size);

/* Finds a library by file name in the job's LD_LIBRARY_PATH (env may be NULL),
 * the folders listed in /etc/ld.so.conf.d/ *.conf, and the standard library
 * folders, all inside the root. Returns true with the in-root path. */
bool nd_find_lib_in_root(const struct nd_environ *env, const char *name, char *out, size_t size);

#endif
