/* Fuzz target: the simulators' state-file parser (tests/sim/sim_common.c),
 * compiled in directly so its static parser and lookups can be driven from
 * a buffer. Fault injection is not exercised here (a "hang" line would
 * block, by design). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../tests/sim/sim_common.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n = size > SIM_MAX_FILE ? SIM_MAX_FILE : size;
    memcpy(sim_buf, data, n);
    sim_parse(n);
    static const char *const sections[] = {"ascend", "ascend.device.3", "acl", "nvidia", "cuda", ""};
    static const char *const keys[] = {"devices", "proc", "fail", "chip_name", "hang", ""};
    for (size_t s = 0; s < sizeof sections / sizeof sections[0]; s++)
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            const char *v = sim_lookup(sections[s], keys[k]);
            const char *rest;
            if (v)
                (void)sim_names(v, "dcmi_init", &rest);
        }
    sim_nentries = 0;
    return 0;
}
