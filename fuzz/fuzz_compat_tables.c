/* Fuzz target: the compatibility tables of compat_stack.c (cann_driver.tsv,
 * torch_wheels.tsv), the CUDA toolkit and ROCm version files, and the
 * judgements fed with versions cut from the input, and the scanner of
 * versions printed in log lines (any bytes, any length). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "probe/compat_log.h"
#include "probe/compat_stack.h"
#include "probe/toolkit_version.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    struct nd_cann_driver dt;
    struct nd_torch_wheels wt;
    nd_cann_driver_parse(buf, size, &dt);
    nd_torch_wheels_parse(buf, size, &wt);
    char out[32];
    nd_cuda_toolkit_parse(buf, size, out, sizeof out);
    nd_rocm_version_parse(buf, size, out, sizeof out);

    /* Up to ten NUL-separated strings as the versions of one node. */
    char *copy = nd_xstrndup(buf, size);
    const char *v[10] = {NULL};
    size_t n = 0;
    for (char *p = copy; n < 10 && p < copy + size; p += strlen(p) + 1)
        v[n++] = p;
    struct nd_version_set s = {.torch = v[0],
                               .torch_npu = v[1],
                               .torch_cuda = v[2],
                               .python = v[3],
                               .cann = v[4],
                               .npu_driver = v[5],
                               .nvidia_driver = v[6],
                               .driver_cuda = v[7],
                               .cuda_toolkit = v[8],
                               .rocm = v[9],
                               .ascend_torch = size % 2 == 0};
    struct nd_findings f = ND_FINDINGS_INIT;
    nd_compat_judge_set(&s, &f);
    nd_compat_judge_cann_driver(&dt, v[4], v[5], &f);
    nd_compat_judge_torch_python(&wt, v[0], v[3], &f);
    nd_compat_judge_rocm(&wt, v[0], v[9], &f);
    nd_compat_list_best(v[2], v[6], out, sizeof out);
    nd_compat_local_cuda(v[1], out, sizeof out);
    /* The log-line version scanner on the raw bytes (embedded NULs, no terminator). */
    struct nd_logver lv;
    memset(&lv, 0, sizeof lv);
    nd_logver_scan(buf, size, &lv);
    nd_findings_release(&f);
    free(copy);
    nd_cann_driver_release(&dt);
    nd_torch_wheels_release(&wt);
    return 0;
}
