/* Simulated libascendcl.so: the ACL runtime calls of npu-doctor's smoke test
 * (docs/vendor-apis.md, ACL runtime, plus aclrtMallocHost/aclrtFreeHost), with
 * device memory kept in separate mappings so a wrong copy direction is caught.
 * State: the [acl] section of ND_SIM_STATE (see sim_common.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "sim_common.h"

typedef int aclError;

#define ACL_SUCCESS 0
#define ACL_ERROR_INVALID_PARAM 100000
#define ACL_ERROR_UNINITIALIZE 100001
#define ACL_ERROR_REPEAT_INITIALIZE 100002
#define ACL_ERROR_RT_INVALID_DEVICEID 107001
#define ACL_ERROR_RT_CONTEXT_NULL 107002
#define ACL_ERROR_RT_MEMORY_ALLOCATION 207001
#define ACL_ERROR_RT_NO_DEVICE 207004

static const char S[] = "acl";
static int sim_inited;
static int sim_cur = -1;
static char sim_errmsg[256];

#define SIM_MAX_ALLOCS 256
struct sim_alloc {
    void *p;
    size_t size;
    int device; /* -1: host (aclrtMallocHost) */
};
static struct sim_alloc sim_allocs[SIM_MAX_ALLOCS];

static aclError sim_fail(aclError code, const char *msg)
{
    snprintf(sim_errmsg, sizeof sim_errmsg, "%s", msg);
    return code;
}

#define SIM_ENTER(func, dev)                                                                                           \
    do {                                                                                                               \
        long long code_;                                                                                               \
        if (sim_inject(S, (dev), (func), &code_))                                                                      \
            return sim_fail((aclError)code_, "EZ9999: Inner Error! (injected by the simulator)");                      \
    } while (0)

static int sim_ndevices(void)
{
    long long n = sim_get_ll(S, -1, "devices", sim_get_ll("ascend", -1, "devices", 0));
    return n < 0 ? 0 : n > 64 ? 64 : (int)n;
}

SIM_VISIBLE aclError aclInit(const char *configPath)
{
    (void)configPath;
    SIM_ENTER("aclInit", -1);
    if (sim_inited)
        return sim_fail(ACL_ERROR_REPEAT_INITIALIZE, "EH9999: repeated initialization");
    sim_inited = 1;
    sim_errmsg[0] = '\0';
    return ACL_SUCCESS;
}

SIM_VISIBLE aclError aclFinalize(void)
{
    SIM_ENTER("aclFinalize", -1);
    if (!sim_inited)
        return sim_fail(ACL_ERROR_UNINITIALIZE, "EH9999: not initialized");
    sim_inited = 0;
    sim_cur = -1;
    return ACL_SUCCESS;
}

SIM_VISIBLE aclError aclrtGetDeviceCount(uint32_t *count)
{
    SIM_ENTER("aclrtGetDeviceCount", -1);
    if (!count)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "EH0001: count is NULL");
    int n = sim_ndevices();
    if (n == 0)
        return sim_fail(ACL_ERROR_RT_NO_DEVICE, "EE1001: no device found");
    *count = (uint32_t)n;
    return ACL_SUCCESS;
}

SIM_VISIBLE aclError aclrtSetDevice(int32_t deviceId)
{
    SIM_ENTER("aclrtSetDevice", deviceId);
    if (!sim_inited)
        return sim_fail(ACL_ERROR_UNINITIALIZE, "EH9999: not initialized");
    int n = sim_ndevices();
    if (deviceId < 0 || deviceId >= n) {
        char m[160];
        snprintf(m, sizeof m,
                 "EE1001: The argument is invalid.Reason: Set device failed, invalid device, set drv device=%d, "
                 "valid device range is [0, %d)",
                 deviceId, n);
        return sim_fail(ACL_ERROR_RT_INVALID_DEVICEID, m);
    }
    sim_cur = deviceId;
    return ACL_SUCCESS;
}

SIM_VISIBLE aclError aclrtResetDevice(int32_t deviceId)
{
    SIM_ENTER("aclrtResetDevice", deviceId);
    if (deviceId < 0 || deviceId >= sim_ndevices())
        return sim_fail(ACL_ERROR_RT_INVALID_DEVICEID, "EE1001: invalid device");
    if (sim_cur == deviceId)
        sim_cur = -1;
    return ACL_SUCCESS;
}

static void *sim_map(size_t size)
{
    void *p = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static aclError sim_track(void *p, size_t size, int device)
{
    for (int i = 0; i < SIM_MAX_ALLOCS; i++)
        if (!sim_allocs[i].p) {
            sim_allocs[i].p = p;
            sim_allocs[i].size = size;
            sim_allocs[i].device = device;
            return ACL_SUCCESS;
        }
    munmap(p, size ? size : 1);
    return sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "EL0004: Failed to allocate memory.");
}

/* The allocation holding [p, p+len), or NULL. */
static struct sim_alloc *sim_find(const void *p, size_t len)
{
    const char *c = p;
    for (int i = 0; i < SIM_MAX_ALLOCS; i++) {
        const char *b = sim_allocs[i].p;
        if (b && c >= b && c + len <= b + sim_allocs[i].size)
            return &sim_allocs[i];
    }
    return NULL;
}

static aclError sim_release(void *p, int want_device)
{
    for (int i = 0; i < SIM_MAX_ALLOCS; i++)
        if (sim_allocs[i].p == p && p &&
            ((want_device && sim_allocs[i].device >= 0) || (!want_device && sim_allocs[i].device < 0))) {
            munmap(p, sim_allocs[i].size ? sim_allocs[i].size : 1);
            sim_allocs[i].p = NULL;
            return ACL_SUCCESS;
        }
    return sim_fail(ACL_ERROR_INVALID_PARAM, "EH0001: pointer was not allocated here");
}

SIM_VISIBLE aclError aclrtMalloc(void **devPtr, size_t size, int policy)
{
    SIM_ENTER("aclrtMalloc", sim_cur);
    if (!devPtr || size == 0 || policy < 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "EH0001: invalid argument");
    if (sim_cur < 0)
        return sim_fail(ACL_ERROR_RT_CONTEXT_NULL, "EE9999: context is NULL, call aclrtSetDevice first");
    void *p = sim_map(size);
    if (!p)
        return sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "EL0004: Failed to allocate memory.");
    aclError rc = sim_track(p, size, sim_cur);
    if (rc == ACL_SUCCESS)
        *devPtr = p;
    return rc;
}

SIM_VISIBLE aclError aclrtFree(void *devPtr)
{
    SIM_ENTER("aclrtFree", sim_cur);
    return sim_release(devPtr, 1);
}

SIM_VISIBLE aclError aclrtMallocHost(void **hostPtr, size_t size)
{
    SIM_ENTER("aclrtMallocHost", sim_cur);
    if (!hostPtr || size == 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "EH0001: invalid argument");
    if (!sim_inited)
        return sim_fail(ACL_ERROR_UNINITIALIZE, "EH9999: not initialized");
    /* Pinned memory belongs to a device context, as in the real runtime. */
    if (sim_cur < 0)
        return sim_fail(ACL_ERROR_RT_CONTEXT_NULL, "EE9999: context is NULL, call aclrtSetDevice first");
    void *p = sim_map(size);
    if (!p)
        return sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "EL0004: Failed to allocate memory.");
    aclError rc = sim_track(p, size, -1);
    if (rc == ACL_SUCCESS)
        *hostPtr = p;
    return rc;
}

SIM_VISIBLE aclError aclrtFreeHost(void *hostPtr)
{
    SIM_ENTER("aclrtFreeHost", sim_cur);
    return sim_release(hostPtr, 0);
}

static double sim_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

SIM_VISIBLE aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, int kind)
{
    SIM_ENTER("aclrtMemcpy", sim_cur);
    if (!dst || !src || count > destMax || kind < 0 || kind > 3)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "EH0001: invalid argument");
    if (kind != 0 && sim_cur < 0)
        return sim_fail(ACL_ERROR_RT_CONTEXT_NULL, "EE9999: context is NULL, call aclrtSetDevice first");
    const struct sim_alloc *d = sim_find(dst, count), *s = sim_find(src, count);
    bool dst_dev = d && d->device >= 0, src_dev = s && s->device >= 0;
    bool ok = (kind == 0 && !dst_dev && !src_dev) || (kind == 1 && dst_dev && !src_dev) ||
              (kind == 2 && !dst_dev && src_dev) || (kind == 3 && dst_dev && src_dev);
    if (!ok)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "EH0001: memcpy kind does not match the pointers");
    double t0 = sim_now();
    memcpy(dst, src, count);
    if (kind == 2 && count && sim_get_ll(S, sim_cur, "corrupt", 0))
        ((unsigned char *)dst)[count / 2] ^= 0x5a;
    double bw = sim_get_double(S, sim_cur, "bandwidth_gbps", 0);
    if (bw > 0 && kind != 0)
        sim_sleep((double)count / (bw * 1e9) - (sim_now() - t0));
    return ACL_SUCCESS;
}

SIM_VISIBLE aclError aclrtGetMemInfo(int attr, size_t *freeSize, size_t *totalSize)
{
    SIM_ENTER("aclrtGetMemInfo", sim_cur);
    if (!freeSize || !totalSize || attr < 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "EH0001: invalid argument");
    if (sim_cur < 0)
        return sim_fail(ACL_ERROR_RT_CONTEXT_NULL, "EE9999: context is NULL, call aclrtSetDevice first");
    long long total = sim_get_ll("ascend", sim_cur, "hbm_total_mb", 65536);
    long long used = sim_get_ll("ascend", sim_cur, "hbm_used_mb", 0);
    *totalSize = (size_t)total << 20;
    *freeSize = (size_t)(total > used ? total - used : 0) << 20;
    return ACL_SUCCESS;
}

SIM_VISIBLE const char *aclrtGetSocName(void)
{
    static char soc[64];
    char chip[32];
    sim_get_str("ascend", -1, "chip_name", "910B3", chip, sizeof chip);
    char def[64];
    snprintf(def, sizeof def, "Ascend%s", chip);
    sim_get_str(S, -1, "soc_name", def, soc, sizeof soc);
    return soc;
}

SIM_VISIBLE const char *aclGetRecentErrMsg(void)
{
    return sim_errmsg[0] ? sim_errmsg : NULL;
}
