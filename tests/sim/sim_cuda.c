/* A simulated libcuda.so.1 for tests: the CUDA driver API calls the smoke
 * test makes, with the real signatures, answering from the [cuda] section of
 * the state file and falling back to [nvidia] (devices, name, mem_total_mb,
 * mem_used_mb; per device [cuda.device.N] then [nvidia.device.N]). Extra
 * [cuda] keys: bandwidth_gbps (copies take at least size/bandwidth),
 * corrupt = 1 (device->host copies flip bytes). Like the real driver it
 * needs cuInit first, a current context for memory calls, honours
 * CUDA_VISIBLE_DEVICES, and refuses allocations beyond the free memory.
 * Memory comes from mmap, never the heap (see sim_common.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sim_common.h"

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define CUDA_ERROR_NOT_INITIALIZED 3
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_INVALID_DEVICE 101
#define CUDA_ERROR_INVALID_CONTEXT 201

#define SIM_CUDA_MAX_DEVICES 64
#define SIM_CUDA_MAX_ALLOCS 256

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;

struct CUctx_st {
    int ordinal; /* the visible ordinal this primary context belongs to */
    int refs;
};

struct sim_alloc {
    void *p;
    size_t size;
    int ordinal; /* -1 for pinned host memory */
};

static struct CUctx_st sim_ctx[SIM_CUDA_MAX_DEVICES];
static struct sim_alloc sim_allocs[SIM_CUDA_MAX_ALLOCS];
static bool sim_inited;
static __thread CUcontext sim_current;

static const char *sim_val(int dev, const char *key)
{
    const char *v = sim_get("cuda", dev, key);
    return v ? v : sim_get("nvidia", dev, key);
}

static long long sim_val_ll(int dev, const char *key, long long def)
{
    const char *v = sim_val(dev, key);
    if (!v)
        return def;
    char *end;
    long long x = strtoll(v, &end, 0);
    return end == v ? def : x;
}

static int sim_physical_count(void)
{
    long long n = sim_val_ll(-1, "devices", 0);
    if (n < 0)
        n = 0;
    return n > SIM_CUDA_MAX_DEVICES ? SIM_CUDA_MAX_DEVICES : (int)n;
}

/* Maps visible ordinals to physical devices the way CUDA_VISIBLE_DEVICES
 * does: a comma list of indices or GPU-UUID prefixes, cut at the first entry
 * that names no device; an empty value hides every GPU. */
static int sim_visible(int *map, int max)
{
    int phys = sim_physical_count();
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    if (!cvd) {
        for (int i = 0; i < phys && i < max; i++)
            map[i] = i;
        return phys < max ? phys : max;
    }
    int n = 0;
    const char *p = cvd;
    while (*p && n < max) {
        char tok[128];
        size_t len = strcspn(p, ",");
        if (len >= sizeof tok)
            break;
        memcpy(tok, p, len);
        tok[len] = '\0';
        int found = -1;
        if (strncmp(tok, "GPU-", 4) == 0) {
            for (int i = 0; i < phys && found < 0; i++) {
                const char *u = sim_get("nvidia", i, "uuid");
                if (u && strncmp(u, tok, len) == 0)
                    found = i;
            }
        } else {
            char *end;
            long v = strtol(tok, &end, 10);
            if (end != tok && *end == '\0' && v >= 0 && v < phys)
                found = (int)v;
        }
        if (found < 0)
            break;
        map[n++] = found;
        p += len;
        if (*p == ',')
            p++;
    }
    return n;
}

/* The physical device behind a visible ordinal, or -1. */
static int sim_physical(int ordinal)
{
    int map[SIM_CUDA_MAX_DEVICES];
    int n = sim_visible(map, SIM_CUDA_MAX_DEVICES);
    return ordinal >= 0 && ordinal < n ? map[ordinal] : -1;
}

/* Fault injection first, then the init check. dev is the physical device or -1. */
static CUresult sim_enter(const char *func, int dev, bool need_init)
{
    long long code = 0;
    if (sim_inject("cuda", dev, func, &code))
        return (CUresult)code;
    if (need_init && !sim_inited)
        return CUDA_ERROR_NOT_INITIALIZED;
    return CUDA_SUCCESS;
}

/* For calls that need a current context: the context's physical device. */
static CUresult sim_enter_ctx(const char *func, int *dev)
{
    *dev = sim_current ? sim_physical(sim_current->ordinal) : -1;
    CUresult rc = sim_enter(func, *dev, true);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_current || sim_current->refs <= 0 || *dev < 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    return CUDA_SUCCESS;
}

SIM_VISIBLE CUresult cuInit(unsigned int Flags)
{
    CUresult rc = sim_enter("cuInit", -1, false);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (Flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    int map[SIM_CUDA_MAX_DEVICES];
    if (!sim_have_state() || sim_visible(map, SIM_CUDA_MAX_DEVICES) == 0)
        return CUDA_ERROR_NO_DEVICE;
    sim_inited = true;
    return CUDA_SUCCESS;
}

/* Works before cuInit, as the real one does. */
SIM_VISIBLE CUresult cuDriverGetVersion(int *driverVersion)
{
    CUresult rc = sim_enter("cuDriverGetVersion", -1, false);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!driverVersion)
        return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = (int)sim_val_ll(-1, "cuda_driver_version", 12040);
    return CUDA_SUCCESS;
}

SIM_VISIBLE CUresult cuDeviceGetCount(int *count)
{
    CUresult rc = sim_enter("cuDeviceGetCount", -1, true);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    int map[SIM_CUDA_MAX_DEVICES];
    *count = sim_visible(map, SIM_CUDA_MAX_DEVICES);
    return CUDA_SUCCESS;
}

SIM_VISIBLE CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    int phys = sim_physical(ordinal);
    CUresult rc = sim_enter("cuDeviceGet", phys, true);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    if (phys < 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

SIM_VISIBLE CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    int phys = sim_physical(dev);
    CUresult rc = sim_enter("cuDeviceGetName", phys, true);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!name || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (phys < 0)
        return CUDA_ERROR_INVALID_DEVICE;
    const char *v = sim_val(phys, "name");
    snprintf(name, (size_t)len, "%s", v ? v : "NVIDIA H200");
    return CUDA_SUCCESS;
}

SIM_VISIBLE CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    int phys = sim_physical(dev);
    CUresult rc = sim_enter("cuDevicePrimaryCtxRetain", phys, true);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    if (phys < 0)
        return CUDA_ERROR_INVALID_DEVICE;
    sim_ctx[dev].ordinal = dev;
    sim_ctx[dev].refs++;
    *pctx = &sim_ctx[dev];
    return CUDA_SUCCESS;
}

static CUresult sim_release(const char *func, CUdevice dev)
{
    int phys = sim_physical(dev);
    CUresult rc = sim_enter(func, phys, true);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (phys < 0)
        return CUDA_ERROR_INVALID_DEVICE;
    if (sim_ctx[dev].refs <= 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    sim_ctx[dev].refs--;
    if (sim_ctx[dev].refs == 0) {
        /* The primary context is destroyed with its memory, as in CUDA. */
        for (int i = 0; i < SIM_CUDA_MAX_ALLOCS; i++)
            if (sim_allocs[i].p && sim_allocs[i].ordinal == dev) {
                munmap(sim_allocs[i].p, sim_allocs[i].size);
                sim_allocs[i].p = NULL;
            }
        if (sim_current == &sim_ctx[dev])
            sim_current = NULL;
    }
    return CUDA_SUCCESS;
}

SIM_VISIBLE CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    return sim_release("cuDevicePrimaryCtxRelease_v2", dev);
}

SIM_VISIBLE CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
    return sim_release("cuDevicePrimaryCtxRelease", dev);
}

SIM_VISIBLE CUresult cuCtxSetCurrent(CUcontext ctx)
{
    int dev = ctx && ctx >= &sim_ctx[0] && ctx < &sim_ctx[SIM_CUDA_MAX_DEVICES] ? sim_physical(ctx->ordinal) : -1;
    CUresult rc = sim_enter("cuCtxSetCurrent", dev, true);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (ctx && (dev < 0 || ctx->refs <= 0))
        return CUDA_ERROR_INVALID_CONTEXT;
    sim_current = ctx;
    return CUDA_SUCCESS;
}

SIM_VISIBLE CUresult cuCtxSynchronize(void)
{
    int dev;
    return sim_enter_ctx("cuCtxSynchronize", &dev);
}

/* Bytes this process holds on an ordinal's device. */
static size_t sim_allocated(int ordinal)
{
    size_t sum = 0;
    for (int i = 0; i < SIM_CUDA_MAX_ALLOCS; i++)
        if (sim_allocs[i].p && sim_allocs[i].ordinal == ordinal)
            sum += sim_allocs[i].size;
    return sum;
}

static void sim_mem_info(int phys, int ordinal, size_t *free_b, size_t *total_b)
{
    long long total = sim_val_ll(phys, "mem_total_mb", 143771);
    long long used = sim_val_ll(phys, "mem_used_mb", 0);
    if (total < 0)
        total = 0;
    if (used < 0)
        used = 0;
    size_t t = (size_t)total << 20, u = (size_t)used << 20;
    u += sim_allocated(ordinal);
    *total_b = t;
    *free_b = u >= t ? 0 : t - u;
}

SIM_VISIBLE CUresult cuMemGetInfo_v2(size_t *free, size_t *total)
{
    int dev;
    CUresult rc = sim_enter_ctx("cuMemGetInfo_v2", &dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!free || !total)
        return CUDA_ERROR_INVALID_VALUE;
    sim_mem_info(dev, sim_current->ordinal, free, total);
    return CUDA_SUCCESS;
}

static void *sim_map(size_t size, int ordinal)
{
    for (int i = 0; i < SIM_CUDA_MAX_ALLOCS; i++)
        if (!sim_allocs[i].p) {
            void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (p == MAP_FAILED)
                return NULL;
            sim_allocs[i] = (struct sim_alloc){p, size, ordinal};
            return p;
        }
    return NULL;
}

static struct sim_alloc *sim_find(const void *p)
{
    for (int i = 0; i < SIM_CUDA_MAX_ALLOCS; i++)
        if (sim_allocs[i].p && sim_allocs[i].p == p)
            return &sim_allocs[i];
    return NULL;
}

/* The device allocation that holds [ptr, ptr+size) on the current context, or NULL. */
static struct sim_alloc *sim_find_range(CUdeviceptr ptr, size_t size)
{
    for (int i = 0; i < SIM_CUDA_MAX_ALLOCS; i++) {
        struct sim_alloc *a = &sim_allocs[i];
        uintptr_t base = (uintptr_t)a->p;
        if (a->p && a->ordinal >= 0 && ptr >= base && size <= a->size && ptr - base <= a->size - size)
            return a;
    }
    return NULL;
}

SIM_VISIBLE CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    int dev;
    CUresult rc = sim_enter_ctx("cuMemAlloc_v2", &dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!dptr || bytesize == 0)
        return CUDA_ERROR_INVALID_VALUE;
    size_t free_b, total_b;
    sim_mem_info(dev, sim_current->ordinal, &free_b, &total_b);
    if (bytesize > free_b)
        return CUDA_ERROR_OUT_OF_MEMORY;
    void *p = sim_map(bytesize, sim_current->ordinal);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *dptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

SIM_VISIBLE CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    int dev;
    CUresult rc = sim_enter_ctx("cuMemFree_v2", &dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    struct sim_alloc *a = sim_find((void *)(uintptr_t)dptr);
    if (!a || a->ordinal < 0)
        return CUDA_ERROR_INVALID_VALUE;
    munmap(a->p, a->size);
    a->p = NULL;
    return CUDA_SUCCESS;
}

SIM_VISIBLE CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    CUresult rc = sim_enter("cuMemHostAlloc", -1, true);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pp || bytesize == 0 || Flags > 0x0f)
        return CUDA_ERROR_INVALID_VALUE;
    if (!sim_current)
        return CUDA_ERROR_INVALID_CONTEXT;
    void *p = sim_map(bytesize, -1);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *pp = p;
    return CUDA_SUCCESS;
}

SIM_VISIBLE CUresult cuMemFreeHost(void *p)
{
    CUresult rc = sim_enter("cuMemFreeHost", -1, true);
    if (rc != CUDA_SUCCESS)
        return rc;
    struct sim_alloc *a = sim_find(p);
    if (!a || a->ordinal >= 0)
        return CUDA_ERROR_INVALID_VALUE;
    munmap(a->p, a->size);
    a->p = NULL;
    return CUDA_SUCCESS;
}

/* Copies take at least size/bandwidth when [cuda] bandwidth_gbps is set. */
static void sim_transfer_time(int dev, size_t size)
{
    const char *v = sim_val(dev, "bandwidth_gbps");
    double bw = v ? strtod(v, NULL) : 0;
    if (bw > 0)
        sim_sleep((double)size / (bw * 1e9));
}

SIM_VISIBLE CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    int dev;
    CUresult rc = sim_enter_ctx("cuMemcpyHtoD_v2", &dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!srcHost || !sim_find_range(dstDevice, ByteCount))
        return CUDA_ERROR_INVALID_VALUE;
    memcpy((void *)(uintptr_t)dstDevice, srcHost, ByteCount);
    sim_transfer_time(dev, ByteCount);
    return CUDA_SUCCESS;
}

SIM_VISIBLE CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    int dev;
    CUresult rc = sim_enter_ctx("cuMemcpyDtoH_v2", &dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!dstHost || !sim_find_range(srcDevice, ByteCount))
        return CUDA_ERROR_INVALID_VALUE;
    memcpy(dstHost, (const void *)(uintptr_t)srcDevice, ByteCount);
    if (sim_val_ll(dev, "corrupt", 0) && ByteCount)
        ((unsigned char *)dstHost)[ByteCount / 2] ^= 0x5a;
    sim_transfer_time(dev, ByteCount);
    return CUDA_SUCCESS;
}

static const char *sim_cu_name(CUresult e)
{
    switch (e) {
    case 0: return "CUDA_SUCCESS";
    case 1: return "CUDA_ERROR_INVALID_VALUE";
    case 2: return "CUDA_ERROR_OUT_OF_MEMORY";
    case 3: return "CUDA_ERROR_NOT_INITIALIZED";
    case 4: return "CUDA_ERROR_DEINITIALIZED";
    case 34: return "CUDA_ERROR_STUB_LIBRARY";
    case 46: return "CUDA_ERROR_DEVICE_UNAVAILABLE";
    case 100: return "CUDA_ERROR_NO_DEVICE";
    case 101: return "CUDA_ERROR_INVALID_DEVICE";
    case 201: return "CUDA_ERROR_INVALID_CONTEXT";
    case 802: return "CUDA_ERROR_SYSTEM_NOT_READY";
    case 803: return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
    case 999: return "CUDA_ERROR_UNKNOWN";
    default: return NULL;
    }
}

/* Unknown codes: CUDA_ERROR_INVALID_VALUE and a NULL string, as documented. */
SIM_VISIBLE CUresult cuGetErrorName(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    *pStr = sim_cu_name(error);
    return *pStr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_VISIBLE CUresult cuGetErrorString(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    switch (error) {
    case 0: *pStr = "no error"; break;
    case 2: *pStr = "out of memory"; break;
    case 3: *pStr = "initialization error"; break;
    case 100: *pStr = "no CUDA-capable device is detected"; break;
    case 101: *pStr = "invalid device ordinal"; break;
    case 802: *pStr = "system not yet initialized"; break;
    case 803: *pStr = "system has unsupported display driver / cuda driver combination"; break;
    case 999: *pStr = "unknown error"; break;
    default: *pStr = NULL; return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}
