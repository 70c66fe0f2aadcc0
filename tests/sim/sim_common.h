/* Shared state for the simulated vendor libraries (libdcmi.so, libascendcl.so,
 * libnvidia-ml.so.1, libcuda.so.1, librocm_smi64.so): each reads one INI-like state file and
 * answers from it, so tests run the real dlopen/dlsym paths without hardware.
 *
 * The file is named by the environment variable ND_SIM_STATE. It is re-read
 * whenever its inode, size or mtime changes, so a test can change the state
 * over time (write a new file and rename() it over the old one to be sure the
 * change is seen). Missing variable or file: a machine with no devices (each
 * simulator returns its API's own "no device / driver not loaded" code).
 *
 * Format: "[section]" lines, "key = value" lines, ';' or '#' start a comment
 * (also after a value). Keys may repeat (proc, fail). Sections and keys:
 *
 *   [ascend]                    libdcmi.so
 *   driver_version = 24.1.rc1
 *   devices = 8                 ; N devices: logic ids 0..N-1, card = id, chip 0
 *   chip_type = Ascend          ; optional, default "Ascend"
 *   chip_name = 910B3
 *   aicore_util = 0             ; percent (input_type 2); other input types: util_<type>
 *   hbm_total_mb = 65536        ; 0: no HBM (310 series): dcmi_get_device_hbm_info returns -8255
 *   hbm_used_mb = 0
 *   ddr_total_mb = 21527        ; optional: what memory_info_v3 reports (default: the HBM values)
 *   ddr_used_mb = 1527
 *   health = 0                  ; 0 OK, 1 warning, 2 alarm, 3 critical
 *   temperature = 40            ; Celsius
 *   power_w = 90.5              ; watts (reported in 0.1 W units)
 *   proc = 4242 0 31747         ; pid device mem_mb       (repeatable)
 *   fail = dcmi_init -8005      ; function code            (repeatable; any exported function)
 *   hang = dcmi_get_device_utilization_rate   ; sleeps forever in that call
 *   crash = dcmi_init           ; raises SIGSEGV in that call
 *   (devices = 0 or no [ascend] section: dcmi_init returns -8008, no device;
 *    any call before dcmi_init returns -8005; a card id out of range -8007)
 *   [ascend.device.3]           ; per-device overrides of the keys above
 *   aicore_util = 85            ; (fail/hang/crash too: only for that device)
 *
 *   [acl]                       libascendcl.so (the smoke-test runtime)
 *   devices = 8                 ; default: [ascend] devices
 *   soc_name = Ascend910B3
 *   bandwidth_gbps = 20         ; optional: each memcpy takes at least size/bandwidth
 *   corrupt = 1                 ; optional: device->host copies return flipped bytes
 *   fail = aclrtMalloc 207001   ; fail/hang/crash as above; [acl.device.N] overrides
 *                               ; (per device: keyed by the current aclrtSetDevice id)
 *   No devices: aclrtGetDeviceCount returns 207004. A failed call leaves
 *   "EZ9999: Inner Error! ..." for aclGetRecentErrMsg. Device memory lives in
 *   its own mappings: a copy whose kind does not match its pointers fails
 *   with 100000, as does freeing a pointer the runtime did not hand out.
 *
 *   [nvidia]                    libnvidia-ml.so.1 (sim_nvml.c)
 *   driver_version = 580.159.03
 *   cuda_driver_version = 12040
 *   devices = 1
 *   name = NVIDIA H200
 *   gpu_util = 0
 *   mem_total_mb = 143771
 *   mem_used_mb = 0
 *   proc = 4242 0 1024          ; pid device mem_mb
 *   fail = nvmlInit_v2 18
 *   [nvidia.device.0]
 *   uuid = GPU-00000000-0000-0000-0000-000000000000
 *   [cuda]                      libcuda.so.1 (sim_cuda.c)
 *   fail = cuMemAlloc_v2 2
 *   [rocm]                      librocm_smi64.so (sim_rocm_smi.c; its keys are listed there)
 *   devices = 8
 *   proc = 4242 0 1024          ; pid device mem_mb
 *
 * The simulators allocate nothing on the heap (they are loaded into
 * sanitizer-instrumented processes and must not show up as leaks). */
#ifndef ND_SIM_COMMON_H
#define ND_SIM_COMMON_H

#include <stdbool.h>
#include <stddef.h>

#define SIM_VISIBLE __attribute__((visibility("default")))

/* The helpers stay private to each simulator library, so two simulators
 * loaded into one process never bind to each other's copy. */
#pragma GCC visibility push(hidden)

/* True when a state file was found and parsed. */
bool sim_have_state(void);

/* The value of key: in [section.device.N] first when device >= 0, then in
 * [section]. The first occurrence wins. NULL when absent. The pointer stays
 * valid until the next sim_* call that re-reads the file. */
const char *sim_get(const char *section, int device, const char *key);
long long sim_get_ll(const char *section, int device, const char *key, long long def);
double sim_get_double(const char *section, int device, const char *key, double def);
/* Copies the value (or def) into buf. */
void sim_get_str(const char *section, int device, const char *key, const char *def, char *buf, size_t size);

/* Every value of a repeatable key in [section] (not per device), in file
 * order. Returns how many were found (may exceed max; only max are stored). */
size_t sim_get_all(const char *section, const char *key, const char **vals, size_t max);

/* Fault injection, called first thing in every exported function: looks for
 * "fail = FUNC CODE", "hang = FUNC", "crash = FUNC" in [section.device.N]
 * (device >= 0) then [section]. A hang never returns; a crash raises SIGSEGV.
 * Returns true and sets *code when the call must fail with that code. */
bool sim_inject(const char *section, int device, const char *func, long long *code);

/* A "proc = pid device mem_mb" line, parsed. */
struct sim_proc {
    long long pid;
    int device;
    long long mem_mb;
};
/* Parses every proc line of [section]; returns the count stored (<= max). */
size_t sim_procs(const char *section, struct sim_proc *out, size_t max);

/* Sleeps for s seconds (used to emulate bandwidth). */
void sim_sleep(double s);

#pragma GCC visibility pop

#endif
