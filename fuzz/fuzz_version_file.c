/* Fuzz target: the version and install files a probe reads (KEY=VALUE
 * version.info, version.cfg, /proc/driver/nvidia/version, firmware ranges)
 * and the small /proc and cgroup parsers of the host probe. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "probe/ascend_install.h"
#include "probe/compat.h"
#include "probe/cuda_install.h"
#include "probe/envcheck.h"
#include "probe/host.h"
#include "probe/kvfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    struct nd_kvfile kv;
    struct nd_error err;
    if (nd_kvfile_parse(buf, size, &kv, &err) == 0) {
        const char *range = nd_kvfile_get(&kv, "compatible_version_fw", NULL);
        char lo[64], hi[64], v[64];
        if (range && nd_ascend_parse_range(range, lo, sizeof lo, hi, sizeof hi) == 0) {
            const char *fw = nd_kvfile_get(&kv, "Version", NULL);
            if (fw)
                (void)nd_ascend_fw_in_range(fw, lo, hi);
        }
        const char *cfg = nd_kvfile_get(&kv, "runtime_running_version", NULL);
        if (cfg)
            nd_ascend_version_from_cfg(cfg, v, sizeof v);
        const char *req = nd_kvfile_get(&kv, "required_driver_ascendhal_version", NULL);
        if (req)
            (void)nd_ascend_req_hal_min(req, v, sizeof v);
        for (size_t i = 0; i + 1 < kv.n; i++)
            (void)nd_version_cmp(kv.v[i].value, kv.v[i + 1].value);
        nd_kvfile_release(&kv);
    }
    /* The compatibility tables are TSV data; a broken row must be skipped, not crash. */
    struct nd_npu_compat nt;
    struct nd_cuda_compat ct;
    nd_npu_compat_parse(buf, size, &nt);
    nd_npu_compat_release(&nt);
    nd_cuda_compat_parse(buf, size, &ct);
    nd_cuda_compat_release(&ct);
    char ver[64];
    nd_nvidia_parse_version(buf, size, ver, sizeof ver);
    uint64_t a, b;
    double cpus;
    nd_host_parse_meminfo(buf, size, &a, &b);
    nd_host_parse_cgroup_limit(buf, size, &a);
    nd_host_parse_cpu_max(buf, size, &cpus);
    nd_host_cgroup_container(buf, size);
    /* The string-based helpers get a NUL-terminated copy. */
    char *s = nd_xstrndup(buf, size);
    char out[64];
    nd_version_base(s, out, sizeof out);
    nd_version_prefix(s, 2, out, sizeof out);
    nd_ascend_version_from_dirname(s, out, sizeof out);
    int max;
    bool uuid, bad;
    nd_visible_parse(s, &max, &uuid, &bad);
    free(s);
    return 0;
}
