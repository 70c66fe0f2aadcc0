/* A simulated libnvidia-ml.so.1 for tests: the real NVML symbols with the
 * real signatures, answering from the [nvidia] sections of the state file
 * (sim_common.h). Behaves as NVML does where tests can tell: calls before
 * nvmlInit return UNINITIALIZED, small buffers INSUFFICIENT_SIZE, the
 * process calls report the needed count when the array is too small. An
 * old driver without _v3 is simulated with "fail = <fn> 13"
 * (NVML_ERROR_FUNCTION_NOT_FOUND, what NVML's loader answers for an entry
 * point the driver lacks); "proc = pid dev -1" reports unknown memory.
 * Keys beyond sim_common.h's list: mem_util (the memory-controller %). */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sim_common.h"

#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define NVML_ERROR_UNKNOWN 999
#define NVML_VALUE_NOT_AVAILABLE ULLONG_MAX

#define SIM_NVML_MAX_DEVICES 64
#define SIM_NVML_MAX_PROCS 1024

typedef struct sim_nvml_device *nvmlDevice_t;

typedef struct {
    unsigned long long total, free, used;
} nvmlMemory_t;

typedef struct {
    unsigned int gpu, memory;
} nvmlUtilization_t;

typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_v2_t;

/* The opaque handle NVML hands out: a pointer we can validate. */
struct sim_nvml_device {
    int index;
};

static struct sim_nvml_device sim_devs[SIM_NVML_MAX_DEVICES];
static int sim_init_count;

static const char *const S = "nvidia";

static int sim_ndevices(void)
{
    long long n = sim_get_ll(S, -1, "devices", 0);
    if (n < 0)
        n = 0;
    return n > SIM_NVML_MAX_DEVICES ? SIM_NVML_MAX_DEVICES : (int)n;
}

/* -1 when the handle is not one we gave out for a device that still exists. */
static int sim_dev_index(nvmlDevice_t dev)
{
    if (!dev || dev < &sim_devs[0] || dev >= &sim_devs[SIM_NVML_MAX_DEVICES])
        return -1;
    int i = (int)(dev - &sim_devs[0]);
    return i < sim_ndevices() ? i : -1;
}

/* The common prologue: fault injection first (as the header promises), then
 * the init state, then the handle. Returns NVML_SUCCESS or the code to return. */
static int sim_enter(const char *func, int dev, bool need_init)
{
    long long code = 0;
    if (sim_inject(S, dev, func, &code))
        return (int)code;
    if (need_init && sim_init_count <= 0)
        return NVML_ERROR_UNINITIALIZED;
    return NVML_SUCCESS;
}

static int sim_enter_dev(const char *func, nvmlDevice_t dev, int *index)
{
    *index = sim_dev_index(dev);
    int rc = sim_enter(func, *index, true);
    if (rc != NVML_SUCCESS)
        return rc;
    return *index < 0 ? NVML_ERROR_INVALID_ARGUMENT : NVML_SUCCESS;
}

static int sim_copy_str(char *buf, unsigned len, const char *value)
{
    if (!buf)
        return NVML_ERROR_INVALID_ARGUMENT;
    size_t n = strlen(value);
    if (len < n + 1)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(buf, value, n + 1);
    return NVML_SUCCESS;
}

static int sim_init(const char *func)
{
    int rc = sim_enter(func, -1, false);
    if (rc != NVML_SUCCESS)
        return rc;
    /* No state, or no [nvidia] devices key: a machine without the NVIDIA driver. */
    if (!sim_have_state() || !sim_get(S, -1, "devices"))
        return NVML_ERROR_DRIVER_NOT_LOADED;
    sim_init_count++;
    return NVML_SUCCESS;
}

SIM_VISIBLE int nvmlInit_v2(void)
{
    return sim_init("nvmlInit_v2");
}

SIM_VISIBLE int nvmlInit(void)
{
    return sim_init("nvmlInit");
}

SIM_VISIBLE int nvmlShutdown(void)
{
    int rc = sim_enter("nvmlShutdown", -1, true);
    if (rc != NVML_SUCCESS)
        return rc;
    sim_init_count--;
    return NVML_SUCCESS;
}

SIM_VISIBLE const char *nvmlErrorString(int result)
{
    switch (result) {
    case 0: return "Success";
    case 1: return "Uninitialized";
    case 2: return "Invalid Argument";
    case 3: return "Not Supported";
    case 4: return "Insufficient Permissions";
    case 6: return "Not Found";
    case 7: return "Insufficient Size";
    case 9: return "Driver Not Loaded";
    case 12: return "NVML Shared Library Not Found";
    case 13: return "Function Not Found";
    case 15: return "GPU is lost";
    case 18: return "Driver/library version mismatch";
    case 999: return "Unknown Error";
    default: return "Unknown Error";
    }
}

SIM_VISIBLE int nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    int rc = sim_enter("nvmlSystemGetDriverVersion", -1, true);
    if (rc != NVML_SUCCESS)
        return rc;
    char v[96];
    sim_get_str(S, -1, "driver_version", "580.159.03", v, sizeof v);
    return sim_copy_str(version, length, v);
}

static int sim_cuda_version(const char *func, int *v)
{
    int rc = sim_enter(func, -1, true);
    if (rc != NVML_SUCCESS)
        return rc;
    if (!v)
        return NVML_ERROR_INVALID_ARGUMENT;
    *v = (int)sim_get_ll(S, -1, "cuda_driver_version", 12040);
    return NVML_SUCCESS;
}

SIM_VISIBLE int nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion)
{
    return sim_cuda_version("nvmlSystemGetCudaDriverVersion_v2", cudaDriverVersion);
}

SIM_VISIBLE int nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion)
{
    return sim_cuda_version("nvmlSystemGetCudaDriverVersion", cudaDriverVersion);
}

static int sim_count(const char *func, unsigned int *n)
{
    int rc = sim_enter(func, -1, true);
    if (rc != NVML_SUCCESS)
        return rc;
    if (!n)
        return NVML_ERROR_INVALID_ARGUMENT;
    *n = (unsigned)sim_ndevices();
    return NVML_SUCCESS;
}

SIM_VISIBLE int nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
    return sim_count("nvmlDeviceGetCount_v2", deviceCount);
}

SIM_VISIBLE int nvmlDeviceGetCount(unsigned int *deviceCount)
{
    return sim_count("nvmlDeviceGetCount", deviceCount);
}

static int sim_handle(const char *func, unsigned int index, nvmlDevice_t *device)
{
    int rc = sim_enter(func, index < SIM_NVML_MAX_DEVICES ? (int)index : -1, true);
    if (rc != NVML_SUCCESS)
        return rc;
    if (!device || index >= (unsigned)sim_ndevices())
        return NVML_ERROR_INVALID_ARGUMENT;
    sim_devs[index].index = (int)index;
    *device = &sim_devs[index];
    return NVML_SUCCESS;
}

SIM_VISIBLE int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    return sim_handle("nvmlDeviceGetHandleByIndex_v2", index, device);
}

SIM_VISIBLE int nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device)
{
    return sim_handle("nvmlDeviceGetHandleByIndex", index, device);
}

SIM_VISIBLE int nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
    int i;
    int rc = sim_enter_dev("nvmlDeviceGetName", device, &i);
    if (rc != NVML_SUCCESS)
        return rc;
    char v[128];
    sim_get_str(S, i, "name", "NVIDIA H200", v, sizeof v);
    return sim_copy_str(name, length, v);
}

SIM_VISIBLE int nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
    int i;
    int rc = sim_enter_dev("nvmlDeviceGetUUID", device, &i);
    if (rc != NVML_SUCCESS)
        return rc;
    char def[64], v[128];
    snprintf(def, sizeof def, "GPU-5a1c0000-0000-4000-8000-%012d", i);
    sim_get_str(S, i, "uuid", def, v, sizeof v);
    return sim_copy_str(uuid, length, v);
}

SIM_VISIBLE int nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
    int i;
    int rc = sim_enter_dev("nvmlDeviceGetMemoryInfo", device, &i);
    if (rc != NVML_SUCCESS)
        return rc;
    if (!memory)
        return NVML_ERROR_INVALID_ARGUMENT;
    unsigned long long mib = 1ull << 20;
    long long total = sim_get_ll(S, i, "mem_total_mb", 143771);
    long long used = sim_get_ll(S, i, "mem_used_mb", 0);
    if (total < 0)
        total = 0;
    if (used < 0)
        used = 0;
    if (used > total)
        used = total;
    memory->total = (unsigned long long)total * mib;
    memory->used = (unsigned long long)used * mib;
    memory->free = memory->total - memory->used;
    return NVML_SUCCESS;
}

SIM_VISIBLE int nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization)
{
    int i;
    int rc = sim_enter_dev("nvmlDeviceGetUtilizationRates", device, &i);
    if (rc != NVML_SUCCESS)
        return rc;
    if (!utilization)
        return NVML_ERROR_INVALID_ARGUMENT;
    utilization->gpu = (unsigned)sim_get_ll(S, i, "gpu_util", 0);
    utilization->memory = (unsigned)sim_get_ll(S, i, "mem_util", 0);
    return NVML_SUCCESS;
}

/* Collects the proc lines of one device. */
static unsigned sim_device_procs(int dev, struct sim_proc *out, size_t max)
{
    static struct sim_proc all[SIM_NVML_MAX_PROCS];
    size_t n = sim_procs(S, all, SIM_NVML_MAX_PROCS);
    unsigned k = 0;
    for (size_t j = 0; j < n && k < max; j++)
        if (all[j].device == dev)
            out[k++] = all[j];
    return k;
}

static unsigned long long sim_proc_mem(const struct sim_proc *p)
{
    return p->mem_mb < 0 ? NVML_VALUE_NOT_AVAILABLE : (unsigned long long)p->mem_mb << 20;
}

/* The shared behaviour of every generation: when *count is too small (a
 * NULL array with *count 0 is the documented way to ask), set *count to what
 * is needed and return INSUFFICIENT_SIZE; otherwise fill and set *count. */
static int sim_procs_call(const char *func, nvmlDevice_t device, unsigned int *count, void *infos, int gen)
{
    int i;
    int rc = sim_enter_dev(func, device, &i);
    if (rc != NVML_SUCCESS)
        return rc;
    if (!count)
        return NVML_ERROR_INVALID_ARGUMENT;
    static struct sim_proc mine[SIM_NVML_MAX_PROCS];
    unsigned n = sim_device_procs(i, mine, SIM_NVML_MAX_PROCS);
    if (*count < n) {
        *count = n;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    if (n && !infos)
        return NVML_ERROR_INVALID_ARGUMENT;
    for (unsigned k = 0; k < n; k++) {
        if (gen == 1) {
            nvmlProcessInfo_v1_t *v = (nvmlProcessInfo_v1_t *)infos + k;
            v->pid = (unsigned)mine[k].pid;
            v->usedGpuMemory = sim_proc_mem(&mine[k]);
        } else {
            nvmlProcessInfo_v2_t *v = (nvmlProcessInfo_v2_t *)infos + k;
            v->pid = (unsigned)mine[k].pid;
            v->usedGpuMemory = sim_proc_mem(&mine[k]);
            /* 0xFFFFFFFF: not in a MIG instance, as NVML reports it. */
            v->gpuInstanceId = 0xFFFFFFFFu;
            v->computeInstanceId = 0xFFFFFFFFu;
        }
    }
    *count = n;
    return NVML_SUCCESS;
}

SIM_VISIBLE int nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                        nvmlProcessInfo_v2_t *infos)
{
    return sim_procs_call("nvmlDeviceGetComputeRunningProcesses_v3", device, infoCount, infos, 3);
}

SIM_VISIBLE int nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount,
                                                        nvmlProcessInfo_v2_t *infos)
{
    return sim_procs_call("nvmlDeviceGetComputeRunningProcesses_v2", device, infoCount, infos, 2);
}

SIM_VISIBLE int nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int *infoCount,
                                                     nvmlProcessInfo_v1_t *infos)
{
    return sim_procs_call("nvmlDeviceGetComputeRunningProcesses", device, infoCount, infos, 1);
}
