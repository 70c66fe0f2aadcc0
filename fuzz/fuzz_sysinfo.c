/* Fuzz target: the collect_env parsers of the host facts (os-release,
 * /proc/cpuinfo on x86 and aarch64, Python's patchlevel.h). */
#include <stdint.h>
#include <stdlib.h>

#include "probe/sysinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    struct nd_sysinfo s;
    nd_sysinfo_parse_os_release(buf, size, &s);
    nd_sysinfo_parse_cpuinfo(buf, size, &s);
    char v[32], tiny[3];
    nd_sysinfo_parse_patchlevel(buf, size, v, sizeof v);
    nd_sysinfo_parse_patchlevel(buf, size, tiny, sizeof tiny);
    return 0;
}
