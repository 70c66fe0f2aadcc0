/* Fuzz target: the toolkit version parsers (nvcc --version output, CUDA's
 * version.json / version.txt, cuDNN's header and soname, ROCm's .info/version). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe/toolkits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    char v[32], tiny[2];
    nd_tk_parse_nvcc(buf, size, v, sizeof v);
    nd_tk_parse_nvcc(buf, size, tiny, sizeof tiny);
    nd_tk_parse_cuda_version(buf, size, v, sizeof v);
    nd_tk_parse_cudnn_header(buf, size, v, sizeof v);
    nd_tk_parse_cudnn_header(buf, size, tiny, sizeof tiny);
    nd_tk_parse_rocm_version(buf, size, v, sizeof v);
    char *name = malloc(size + 1);
    if (!name)
        return 0;
    memcpy(name, data, size);
    name[size] = '\0';
    nd_tk_parse_cudnn_soname(name, v, sizeof v);
    free(name);
    return 0;
}
