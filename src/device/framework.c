/* Which mapped library means which framework bit (framework.h). One table,
 * so a new vendor's runtime is one row here plus its bits in the descriptor. */
#include "device/framework.h"

#include <stdbool.h>
#include <string.h>

static bool nd_has_prefix(const char *s, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(s, prefix, n) == 0;
}

/* "libfoo" followed by the end, '.' or '-': keeps libcuda from matching
 * libcudart or libcudnn. */
static bool nd_lib_is(const char *base, size_t len, const char *lib)
{
    size_t n = strlen(lib);
    if (len < n || memcmp(base, lib, n) != 0)
        return false;
    return len == n || base[n] == '.' || base[n] == '-';
}

/* The torch backends: libtorch_<suffix>*, on top of ND_FW_TORCH. */
static const struct {
    const char *prefix;
    unsigned bit;
} nd_torch_backends[] = {
    {"libtorch_cpu", ND_FW_TORCH_CPU},
    {"libtorch_npu", ND_FW_TORCH_NPU},
    {"libtorch_cuda", ND_FW_TORCH_CUDA},
    {"libtorch_hip", ND_FW_TORCH_HIP},
};

/* Runtimes matched by their whole library name. */
static const struct {
    const char *lib;
    unsigned bit;
} nd_runtimes[] = {
    {"libascendcl", ND_FW_ASCENDCL}, {"libhccl", ND_FW_HCCL},    {"libcuda", ND_FW_CUDA}, {"libcudart", ND_FW_CUDART},
    {"libnccl", ND_FW_NCCL},         {"libamdhip64", ND_FW_HIP}, {"librccl", ND_FW_RCCL},
};

static const struct {
    unsigned bit;
    const char *name;
} nd_fw_names[] = {
    {ND_FW_TORCH, "torch"},         {ND_FW_TORCH_CPU, "torch_cpu"},
    {ND_FW_TORCH_NPU, "torch_npu"}, {ND_FW_TORCH_CUDA, "torch_cuda"},
    {ND_FW_ASCENDCL, "ascendcl"},   {ND_FW_HCCL, "hccl"},
    {ND_FW_CUDA, "cuda"},           {ND_FW_CUDART, "cudart"},
    {ND_FW_NCCL, "nccl"},           {ND_FW_PYTHON, "python"},
    {ND_FW_TORCH_HIP, "torch_hip"}, {ND_FW_HIP, "hip"},
    {ND_FW_RCCL, "rccl"},
};

unsigned nd_framework_of_file(const char *base, size_t len)
{
    if (nd_has_prefix(base, len, "python"))
        return ND_FW_PYTHON; /* the interpreter itself (Debian links libpython statically) */
    if (!nd_has_prefix(base, len, "lib"))
        return 0;
    if (nd_has_prefix(base, len, "libtorch")) {
        if (!(len == 8 || base[8] == '.' || base[8] == '_' || base[8] == '-'))
            return 0; /* libtorchaudio, libtorchvision: not torch itself */
        unsigned fw = ND_FW_TORCH;
        for (size_t i = 0; i < sizeof nd_torch_backends / sizeof *nd_torch_backends; i++)
            if (nd_has_prefix(base, len, nd_torch_backends[i].prefix)) {
                fw |= nd_torch_backends[i].bit;
                break;
            }
        return fw;
    }
    for (size_t i = 0; i < sizeof nd_runtimes / sizeof *nd_runtimes; i++)
        if (nd_lib_is(base, len, nd_runtimes[i].lib))
            return nd_runtimes[i].bit;
    if (nd_has_prefix(base, len, "libpython"))
        return ND_FW_PYTHON;
    return 0;
}

const char *nd_framework_name(unsigned bit)
{
    for (size_t i = 0; i < sizeof nd_fw_names / sizeof *nd_fw_names; i++)
        if (nd_fw_names[i].bit == bit)
            return nd_fw_names[i].name;
    return NULL;
}
