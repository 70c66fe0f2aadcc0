/* Fuzz target for the run/watch sampler's cgroup parsers: /proc/PID/cgroup
 * (nd_cgroup_memory_dir) and memory.events / memory.oom_control
 * (nd_cgroup_parse_oom_kill). Any bytes, never a crash; results keep their
 * invariants. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "monitor/sampler.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[512];
    bool v1 = false;
    if (nd_cgroup_memory_dir((const char *)data, size, dir, sizeof dir, &v1)) {
        if (strnlen(dir, sizeof dir) >= sizeof dir || strncmp(dir, "/sys/fs/cgroup", 14) != 0)
            __builtin_trap();
    }
    long long v = nd_cgroup_parse_oom_kill((const char *)data, size);
    if (v < -1)
        __builtin_trap();
    return 0;
}
