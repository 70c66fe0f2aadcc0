/* A simulated librocm_smi64.so for tests: the real ROCm SMI symbols with the
 * real signatures, answering from the [rocm] sections of the state file
 * (sim_common.h). Behaves as ROCm SMI does where tests can tell: calls
 * before rsmi_init return INIT_ERROR, a device index out of range
 * INVALID_ARGS, a short name buffer INSUFFICIENT_SIZE with the name cut, and
 * the process list reports the needed count when the array is too small.
 * Keys (beyond sim_common.h's fail/hang/crash, per device in
 * [rocm.device.N]):
 *   [rocm]
 *   devices = 8                 ; no devices key: rsmi_init returns 8 (INIT_ERROR)
 *   name = AMD Instinct MI300X  ; or a Hygon DCU name ("K100_AI")
 *   driver_version = 6.8.5
 *   busy_pct = 0
 *   vram_total_mb = 196592
 *   vram_used_mb = 0
 *   proc = 4242 0 1024          ; pid device mem_mb (a pid may repeat on several devices) */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sim_common.h"

#define RSMI_STATUS_SUCCESS 0
#define RSMI_STATUS_INVALID_ARGS 1
#define RSMI_STATUS_INIT_ERROR 8
#define RSMI_STATUS_NOT_FOUND 10
#define RSMI_STATUS_INSUFFICIENT_SIZE 11
#define RSMI_MEM_TYPE_VRAM 0

#define SIM_RSMI_MAX_DEVICES 64
#define SIM_RSMI_MAX_PROCS 1024

typedef struct {
    uint32_t process_id;
    uint32_t pasid;
    uint64_t vram_usage;
    uint64_t sdma_usage;
    uint32_t cu_occupancy;
} rsmi_process_info_t;

static int sim_init_count;
static const char *const S = "rocm";

static int sim_ndevices(void)
{
    long long n = sim_get_ll(S, -1, "devices", 0);
    if (n < 0)
        n = 0;
    return n > SIM_RSMI_MAX_DEVICES ? SIM_RSMI_MAX_DEVICES : (int)n;
}

/* Fault injection first (as the header promises), then the init state,
 * then the device index when the call takes one (dev >= 0). */
static int sim_enter(const char *func, long long dev, bool need_init)
{
    long long code = 0;
    if (sim_inject(S, dev < SIM_RSMI_MAX_DEVICES ? (int)dev : -1, func, &code))
        return (int)code;
    if (need_init && sim_init_count <= 0)
        return RSMI_STATUS_INIT_ERROR;
    if (dev >= 0 && dev >= sim_ndevices())
        return RSMI_STATUS_INVALID_ARGS;
    return RSMI_STATUS_SUCCESS;
}

SIM_VISIBLE int rsmi_init(uint64_t flags)
{
    (void)flags;
    int rc = sim_enter("rsmi_init", -1, false);
    if (rc != RSMI_STATUS_SUCCESS)
        return rc;
    /* No state, or no [rocm] devices key: no amdgpu driver loaded. */
    if (!sim_have_state() || !sim_get(S, -1, "devices"))
        return RSMI_STATUS_INIT_ERROR;
    sim_init_count++;
    return RSMI_STATUS_SUCCESS;
}

SIM_VISIBLE int rsmi_shut_down(void)
{
    int rc = sim_enter("rsmi_shut_down", -1, true);
    if (rc != RSMI_STATUS_SUCCESS)
        return rc;
    sim_init_count--;
    return RSMI_STATUS_SUCCESS;
}

SIM_VISIBLE int rsmi_status_string(int status, const char **text)
{
    if (!text)
        return RSMI_STATUS_INVALID_ARGS;
    switch (status) {
    case 0: *text = "RSMI_STATUS_SUCCESS: The function has been executed successfully."; break;
    case 8: *text = "RSMI_STATUS_INIT_ERROR: An error occurred during initialization"; break;
    default: *text = "An unknown error occurred"; break;
    }
    return RSMI_STATUS_SUCCESS;
}

SIM_VISIBLE int rsmi_num_monitor_devices(uint32_t *n)
{
    int rc = sim_enter("rsmi_num_monitor_devices", -1, true);
    if (rc != RSMI_STATUS_SUCCESS)
        return rc;
    if (!n)
        return RSMI_STATUS_INVALID_ARGS;
    *n = (uint32_t)sim_ndevices();
    return RSMI_STATUS_SUCCESS;
}

SIM_VISIBLE int rsmi_version_str_get(int component, char *buf, uint32_t len)
{
    int rc = sim_enter("rsmi_version_str_get", -1, true);
    if (rc != RSMI_STATUS_SUCCESS)
        return rc;
    if (component != 0 || !buf || len == 0)
        return RSMI_STATUS_INVALID_ARGS;
    char v[96];
    sim_get_str(S, -1, "driver_version", "6.8.5", v, sizeof v);
    if (strlen(v) + 1 > len)
        return RSMI_STATUS_INSUFFICIENT_SIZE;
    memcpy(buf, v, strlen(v) + 1);
    return RSMI_STATUS_SUCCESS;
}

SIM_VISIBLE int rsmi_dev_name_get(uint32_t dv_ind, char *name, size_t len)
{
    int rc = sim_enter("rsmi_dev_name_get", dv_ind, true);
    if (rc != RSMI_STATUS_SUCCESS)
        return rc;
    if (!name || len == 0)
        return RSMI_STATUS_INVALID_ARGS;
    char v[256];
    sim_get_str(S, (int)dv_ind, "name", "AMD Instinct MI300X", v, sizeof v);
    snprintf(name, len, "%s", v);
    return strlen(v) + 1 > len ? RSMI_STATUS_INSUFFICIENT_SIZE : RSMI_STATUS_SUCCESS;
}

SIM_VISIBLE int rsmi_dev_busy_percent_get(uint32_t dv_ind, uint32_t *busy)
{
    int rc = sim_enter("rsmi_dev_busy_percent_get", dv_ind, true);
    if (rc != RSMI_STATUS_SUCCESS)
        return rc;
    if (!busy)
        return RSMI_STATUS_INVALID_ARGS;
    *busy = (uint32_t)sim_get_ll(S, (int)dv_ind, "busy_pct", 0);
    return RSMI_STATUS_SUCCESS;
}

static int sim_mem(const char *func, uint32_t dv_ind, int type, const char *key, long long def_mb, uint64_t *out)
{
    int rc = sim_enter(func, dv_ind, true);
    if (rc != RSMI_STATUS_SUCCESS)
        return rc;
    if (!out || type != RSMI_MEM_TYPE_VRAM)
        return RSMI_STATUS_INVALID_ARGS;
    *out = (uint64_t)sim_get_ll(S, (int)dv_ind, key, def_mb) * 1024 * 1024;
    return RSMI_STATUS_SUCCESS;
}

SIM_VISIBLE int rsmi_dev_memory_total_get(uint32_t dv_ind, int type, uint64_t *total)
{
    return sim_mem("rsmi_dev_memory_total_get", dv_ind, type, "vram_total_mb", 196592, total);
}

SIM_VISIBLE int rsmi_dev_memory_usage_get(uint32_t dv_ind, int type, uint64_t *used)
{
    return sim_mem("rsmi_dev_memory_usage_get", dv_ind, type, "vram_used_mb", 0, used);
}

/* The distinct pids of the proc lines, in file order, with their total VRAM. */
static size_t sim_pids(uint32_t *pids, uint64_t *vram, size_t max)
{
    static struct sim_proc procs[SIM_RSMI_MAX_PROCS];
    size_t n = sim_procs(S, procs, SIM_RSMI_MAX_PROCS), np = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < np && pids[k] != (uint32_t)procs[i].pid)
            k++;
        if (k == np) {
            if (np == max)
                continue;
            pids[np] = (uint32_t)procs[i].pid;
            vram[np++] = 0;
        }
        vram[k] += (uint64_t)procs[i].mem_mb * 1024 * 1024;
    }
    return np;
}

SIM_VISIBLE int rsmi_compute_process_info_get(rsmi_process_info_t *procs, uint32_t *num_items)
{
    int rc = sim_enter("rsmi_compute_process_info_get", -1, true);
    if (rc != RSMI_STATUS_SUCCESS)
        return rc;
    if (!num_items)
        return RSMI_STATUS_INVALID_ARGS;
    static uint32_t pids[SIM_RSMI_MAX_PROCS];
    static uint64_t vram[SIM_RSMI_MAX_PROCS];
    size_t np = sim_pids(pids, vram, SIM_RSMI_MAX_PROCS);
    if (!procs) {
        *num_items = (uint32_t)np;
        return RSMI_STATUS_SUCCESS;
    }
    uint32_t cap = *num_items;
    for (uint32_t i = 0; i < cap && i < np; i++) {
        memset(&procs[i], 0, sizeof procs[i]);
        procs[i].process_id = pids[i];
        procs[i].vram_usage = vram[i];
    }
    *num_items = np < cap ? (uint32_t)np : cap;
    return np > cap ? RSMI_STATUS_INSUFFICIENT_SIZE : RSMI_STATUS_SUCCESS;
}

SIM_VISIBLE int rsmi_compute_process_info_by_pid_get(uint32_t pid, rsmi_process_info_t *proc)
{
    int rc = sim_enter("rsmi_compute_process_info_by_pid_get", -1, true);
    if (rc != RSMI_STATUS_SUCCESS)
        return rc;
    if (!proc)
        return RSMI_STATUS_INVALID_ARGS;
    static uint32_t pids[SIM_RSMI_MAX_PROCS];
    static uint64_t vram[SIM_RSMI_MAX_PROCS];
    size_t np = sim_pids(pids, vram, SIM_RSMI_MAX_PROCS);
    for (size_t i = 0; i < np; i++)
        if (pids[i] == pid) {
            memset(proc, 0, sizeof *proc);
            proc->process_id = pid;
            proc->vram_usage = vram[i];
            return RSMI_STATUS_SUCCESS;
        }
    return RSMI_STATUS_NOT_FOUND;
}

SIM_VISIBLE int rsmi_compute_process_gpus_get(uint32_t pid, uint32_t *dv_indices, uint32_t *num_devices)
{
    int rc = sim_enter("rsmi_compute_process_gpus_get", -1, true);
    if (rc != RSMI_STATUS_SUCCESS)
        return rc;
    if (!num_devices)
        return RSMI_STATUS_INVALID_ARGS;
    static struct sim_proc procs[SIM_RSMI_MAX_PROCS];
    size_t n = sim_procs(S, procs, SIM_RSMI_MAX_PROCS);
    uint32_t found = 0, cap = dv_indices ? *num_devices : 0;
    for (size_t i = 0; i < n; i++)
        if ((uint32_t)procs[i].pid == pid) {
            if (found < cap)
                dv_indices[found] = (uint32_t)procs[i].device;
            found++;
        }
    if (!found)
        return RSMI_STATUS_NOT_FOUND;
    *num_devices = found < cap || !dv_indices ? found : cap;
    return dv_indices && found > cap ? RSMI_STATUS_INSUFFICIENT_SIZE : RSMI_STATUS_SUCCESS;
}

SIM_VISIBLE int rsmi_compute_process_info_by_device_get(uint32_t pid, uint32_t dv_ind, rsmi_process_info_t *proc)
{
    int rc = sim_enter("rsmi_compute_process_info_by_device_get", dv_ind, true);
    if (rc != RSMI_STATUS_SUCCESS)
        return rc;
    if (!proc)
        return RSMI_STATUS_INVALID_ARGS;
    static struct sim_proc procs[SIM_RSMI_MAX_PROCS];
    size_t n = sim_procs(S, procs, SIM_RSMI_MAX_PROCS);
    for (size_t i = 0; i < n; i++)
        if ((uint32_t)procs[i].pid == pid && (uint32_t)procs[i].device == dv_ind) {
            memset(proc, 0, sizeof *proc);
            proc->process_id = pid;
            proc->vram_usage = (uint64_t)procs[i].mem_mb * 1024 * 1024;
            return RSMI_STATUS_SUCCESS;
        }
    return RSMI_STATUS_NOT_FOUND;
}
