/* The system facts people paste into bug reports (what
 * `python -m torch.utils.collect_env` prints): OS and distribution, kernel,
 * glibc, CPU model. The parsers take buffers (fuzz/fuzz_sysinfo.c). */
#ifndef ND_PROBE_SYSINFO_H
#define ND_PROBE_SYSINFO_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "probe/python.h"

struct nd_sysinfo {
    char os_name[128];   /* PRETTY_NAME: "openEuler 22.03 (LTS-SP1)"; "" unknown */
    char os_id[64];      /* ID: "openEuler", "ubuntu" */
    char os_version[64]; /* VERSION_ID: "22.03" */
    char kernel[128];    /* uname -r of the running kernel */
    char machine[32];    /* uname -m: "aarch64", "x86_64" */
    char glibc[32];      /* gnu_get_libc_version(); "" when not glibc or --root */
    char cpu_model[160]; /* "Intel(R) Xeon(R) ...", "HiSilicon Kunpeng-920" */
    char cpu_id[32];     /* aarch64: "0x48/0xd01" (implementer/part); else "" */
};

/* Reads /etc/os-release (or /usr/lib/os-release) and /proc/cpuinfo through
 * the root prefix, the kernel through uname(2), glibc from this process
 * (only when the root is "/": a container's glibc is not ours). */
void nd_sysinfo_probe(struct nd_sysinfo *s);
json_t *nd_sysinfo_facts_json(const struct nd_sysinfo *s);

/* os-release: PRETTY_NAME (or NAME VERSION), ID and VERSION_ID, quotes
 * removed. Returns 0 when a name was found, else -EINVAL. */
int nd_sysinfo_parse_os_release(const char *buf, size_t len, struct nd_sysinfo *s);
/* /proc/cpuinfo: "model name" (x86, some arm64 kernels), else the first
 * "CPU implementer" / "CPU part" pair named from a small table (0x48/0xd01 is
 * HiSilicon Kunpeng-920). Returns 0 when a model was named, else -EINVAL. */
int nd_sysinfo_parse_cpuinfo(const char *buf, size_t len, struct nd_sysinfo *s);
/* The name of an Arm implementer/part pair, or NULL when not in the table;
 * *vendor gets the implementer's name (or NULL). */
const char *nd_sysinfo_arm_part(unsigned implementer, unsigned part, const char **vendor);

/* The interpreter's full version ("3.11.7") without running it: pyenv's
 * version name, a venv's pyvenv.cfg, or the prefix's patchlevel.h. Returns
 * 0, or -ENOENT when none of them says (level 2 learns it from the probe). */
int nd_sysinfo_python_version(const struct nd_python *py, char *out, size_t size);
/* PY_VERSION from patchlevel.h ("#define PY_VERSION "3.11.7""). 0 or -EINVAL. */
int nd_sysinfo_parse_patchlevel(const char *buf, size_t len, char *out, size_t size);

#endif
