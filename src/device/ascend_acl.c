/* The Ascend runtime smoke test (check --level 2/3) through ACL,
 * libascendcl.so, opened with dlopen: the same runtime a training job uses,
 * without Python. aclInit, device count, then per device set, 64 MiB
 * allocation, host->device->host copy and compare, free, reset; level 3 also
 * times the copies. Runs in a guarded child; signatures from
 * docs/vendor-apis.md (ACL runtime) (plus the pinned-host pair
 * aclrtMallocHost/aclrtFreeHost, optional). */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/spawn.h"
#include "device/device.h"
#include "device/device_internal.h"

typedef int aclError;
typedef aclError (*aclInit_fn)(const char *configPath);
typedef aclError (*aclFinalize_fn)(void);
typedef aclError (*aclrtGetDeviceCount_fn)(uint32_t *count);
typedef aclError (*aclrtSetDevice_fn)(int32_t deviceId);
typedef aclError (*aclrtResetDevice_fn)(int32_t deviceId);
typedef aclError (*aclrtMalloc_fn)(void **devPtr, size_t size, int policy);
typedef aclError (*aclrtFree_fn)(void *devPtr);
typedef aclError (*aclrtMallocHost_fn)(void **hostPtr, size_t size);
typedef aclError (*aclrtFreeHost_fn)(void *hostPtr);
typedef aclError (*aclrtMemcpy_fn)(void *dst, size_t destMax, const void *src, size_t count, int kind);
typedef const char *(*aclGetRecentErrMsg_fn)(void);

#define ND_ACL_MEM_MALLOC_HUGE_FIRST 0
#define ND_ACL_MEMCPY_HOST_TO_DEVICE 1
#define ND_ACL_MEMCPY_DEVICE_TO_HOST 2
#define ND_ACL_SMOKE_BYTES ((size_t)64 << 20)
#define ND_ACL_BW_ROUNDS 4
#define ND_ACL_COMPARE_FAILED (-1) /* our own code: the copy came back different */

const char *nd_acl_strerror(int code)
{
    switch (code) {
    case 0: return "success";
    case ND_ACL_COMPARE_FAILED: return "the data read back differs from the data written";
    /* ACL */
    case 100000: return "invalid parameter";
    case 100001: return "ACL is not initialised";
    case 100002: return "ACL was initialised twice";
    case 200000: return "bad allocation";
    case 200002: return "invalid device";
    case 500001: return "internal failure, often the CANN environment or the tbe Python package";
    /* runtime */
    case 107001: return "invalid device id";
    case 107002: return "null context (no device set)";
    case 207001: return "device memory allocation failed";
    case 207004: return "no device";
    case 507014: return "AI Core timeout";
    case 507015: return "AI Core exception";
    case 507035: return "vector core exception";
    case 507053: return "device memory error";
    case 507899: return "driver internal error";
    default: return "unknown ACL error";
    }
}

/* The likely fix for a failed step. */
static const char *nd_acl_fix(const char *call, int code)
{
    if (strcmp(call, "aclInit") == 0 || code == 500001 || code == 100001)
        return "load the CANN environment in the job's shell: source /usr/local/Ascend/ascend-toolkit/set_env.sh "
               "(append to PYTHONPATH, never overwrite it)";
    switch (code) {
    case 207004:
        return "check the driver with npu-smi info; in a container mount /dev/davinciN, /dev/davinci_manager, "
               "/dev/devmm_svm, /dev/hisi_hdc and /usr/local/Ascend/driver";
    case 107001:
    case 200002: return "make ASCEND_RT_VISIBLE_DEVICES list only devices this process can see (npu-smi info)";
    case 207001:
    case 200000: return "free device memory: npu-smi info shows the processes holding it";
    case 507014:
    case 507015:
    case 507035:
    case 507053:
    case 507899:
    case ND_ACL_COMPARE_FAILED:
        return "check the device: npu-smi info -t health -i N; reset or reboot, and report it to the operator "
               "if it persists";
    default: break;
    }
    if (strcmp(call, "aclrtGetDeviceCount") == 0)
        return "check the driver with npu-smi info and the device files /dev/davinci*";
    if (strcmp(call, "dlopen") == 0 || strcmp(call, "dlsym") == 0)
        return "install CANN, then source /usr/local/Ascend/ascend-toolkit/set_env.sh";
    return "read the error message above and the plog under $HOME/ascend/log";
}

struct nd_acl_api {
    void *lib;
    aclInit_fn init;
    aclFinalize_fn finalize;
    aclrtGetDeviceCount_fn count;
    aclrtSetDevice_fn set;
    aclrtResetDevice_fn reset;
    aclrtMalloc_fn malloc_dev;
    aclrtFree_fn free_dev;
    aclrtMallocHost_fn malloc_host;
    aclrtFreeHost_fn free_host;
    aclrtMemcpy_fn memcpy_;
    aclGetRecentErrMsg_fn recent;
};

struct nd_acl_page {
    struct nd_smoke_result r;
    char call[ND_CALL_MAX];
    volatile int device; /* the device being tested, -1 before */
    volatile int done;
};

/* Records the first failure (later devices still run). */
static void nd_acl_failed(struct nd_smoke_result *r, const struct nd_acl_api *api, const char *call, int device, int code)
{
    if (r->status < 0)
        return;
    r->status = -EIO;
    snprintf(r->failed_call, sizeof r->failed_call, "%s", call);
    r->code = code;
    snprintf(r->meaning, sizeof r->meaning, "%s", nd_acl_strerror(code));
    snprintf(r->fix, sizeof r->fix, "%s", nd_acl_fix(call, code));
    /* The runtime's own message, first line only, when it has one. */
    char msg[160] = "";
    const char *recent = api && api->recent ? api->recent() : NULL;
    if (recent && *recent) {
        size_t n = strcspn(recent, "\r\n");
        snprintf(msg, sizeof msg, " (%.*s)", (int)(n > 150 ? 150 : n), recent);
    }
    if (device >= 0)
        snprintf(r->error, sizeof r->error, "%s returned %d on device %d: %s%s", call, code, device, r->meaning, msg);
    else
        snprintf(r->error, sizeof r->error, "%s returned %d: %s%s", call, code, r->meaning, msg);
}

static void *nd_acl_host_alloc(const struct nd_acl_api *api, size_t size, bool *pinned)
{
    void *p = NULL;
    *pinned = false;
    if (api->malloc_host && api->free_host) {
        nd_device_progress("aclrtMallocHost");
        if (api->malloc_host(&p, size) == 0 && p) {
            *pinned = true;
            return p;
        }
    }
    return malloc(size);
}

static void nd_acl_host_free(const struct nd_acl_api *api, void *p, bool pinned)
{
    if (!p)
        return;
    if (pinned) {
        nd_device_progress("aclrtFreeHost");
        api->free_host(p);
    } else {
        free(p);
    }
}

/* Times rounds copies in one direction; GB/s, or -1 on a failed copy. */
static double nd_acl_time_copies(const struct nd_acl_api *api, void *dst, const void *src, size_t n, int kind)
{
    double t0 = nd_monotonic_now();
    for (int i = 0; i < ND_ACL_BW_ROUNDS; i++)
        if (api->memcpy_(dst, n, src, n, kind) != 0)
            return -1;
    double dt = nd_monotonic_now() - t0;
    return dt > 0 ? (double)n * ND_ACL_BW_ROUNDS / dt / 1e9 : 0;
}

static void nd_acl_test_device(const struct nd_acl_api *api, struct nd_acl_page *pg, int dev, int level)
{
    struct nd_smoke_result *r = &pg->r;
    struct nd_smoke_device *sd = &r->devices[r->ndevices];
    memset(sd, 0, sizeof *sd);
    sd->index = dev;
    r->ndevices++;
    pg->device = dev;
    const size_t n = ND_ACL_SMOKE_BYTES;
    nd_device_progress("aclrtSetDevice");
    int rc = api->set(dev);
    if (rc != 0) {
        nd_acl_failed(r, api, "aclrtSetDevice", dev, rc);
        return;
    }
    /* Pinned host buffers belong to the current device's context, so they
     * are taken after aclrtSetDevice and given back before the reset. */
    bool hp1, hp2;
    unsigned char *h_src = nd_acl_host_alloc(api, n, &hp1);
    unsigned char *h_dst = nd_acl_host_alloc(api, n, &hp2);
    void *d = NULL;
    if (!h_src || !h_dst) {
        nd_acl_failed(r, api, "malloc", dev, 0);
        snprintf(r->meaning, sizeof r->meaning, "out of host memory");
        goto out;
    }
    nd_device_progress("aclrtMalloc");
    rc = api->malloc_dev(&d, n, ND_ACL_MEM_MALLOC_HUGE_FIRST);
    if (rc != 0 || !d) {
        nd_acl_failed(r, api, "aclrtMalloc", dev, rc ? rc : 207001);
        d = NULL;
        goto out;
    }
    bool ok = true;
    for (size_t i = 0; i < n; i++)
        h_src[i] = (unsigned char)((i * 131u + (unsigned)dev * 7u) ^ (i >> 12));
    memset(h_dst, 0, n);
    nd_device_progress("aclrtMemcpy");
    rc = api->memcpy_(d, n, h_src, n, ND_ACL_MEMCPY_HOST_TO_DEVICE);
    if (rc == 0)
        rc = api->memcpy_(h_dst, n, d, n, ND_ACL_MEMCPY_DEVICE_TO_HOST);
    if (rc != 0) {
        nd_acl_failed(r, api, "aclrtMemcpy", dev, rc);
        ok = false;
    } else if (memcmp(h_src, h_dst, n) != 0) {
        nd_acl_failed(r, api, "compare", dev, ND_ACL_COMPARE_FAILED);
        ok = false;
    }
    if (ok && level >= 3) {
        double h2d = nd_acl_time_copies(api, d, h_src, n, ND_ACL_MEMCPY_HOST_TO_DEVICE);
        double d2h = h2d < 0 ? -1 : nd_acl_time_copies(api, h_dst, d, n, ND_ACL_MEMCPY_DEVICE_TO_HOST);
        if (h2d > 0 && d2h > 0) {
            sd->h2d_gbps = h2d;
            sd->d2h_gbps = d2h;
            sd->bandwidth_valid = true;
        }
    }
    nd_device_progress("aclrtFree");
    rc = api->free_dev(d);
    if (rc != 0 && ok) {
        nd_acl_failed(r, api, "aclrtFree", dev, rc);
        ok = false;
    }
    nd_acl_host_free(api, h_src, hp1);
    nd_acl_host_free(api, h_dst, hp2);
    nd_device_progress("aclrtResetDevice");
    rc = api->reset(dev);
    if (rc != 0 && ok) {
        nd_acl_failed(r, api, "aclrtResetDevice", dev, rc);
        ok = false;
    }
    sd->ok = ok;
    return;
out:
    nd_acl_host_free(api, h_src, hp1);
    nd_acl_host_free(api, h_dst, hp2);
    nd_device_progress("aclrtResetDevice");
    api->reset(dev);
}

struct nd_acl_arg {
    int level;
    struct nd_acl_page *pg;
};

static int nd_acl_child(void *arg, int out_fd)
{
    (void)out_fd;
    const struct nd_acl_arg *a = arg;
    int level = a->level;
    struct nd_acl_page *pg = a->pg;
    struct nd_smoke_result *r = &pg->r;
    nd_device_progress_attach(pg->call);
    struct nd_acl_api api;
    memset(&api, 0, sizeof api);
    nd_device_progress("dlopen");
    api.lib = dlopen(r->lib_path, RTLD_NOW | RTLD_LOCAL);
    if (!api.lib) {
        const char *why = dlerror();
        nd_acl_failed(r, NULL, "dlopen", -1, 0);
        snprintf(r->meaning, sizeof r->meaning, "the library cannot be loaded");
        snprintf(r->error, sizeof r->error, "cannot load %.300s: %.150s", r->lib_path, why ? why : "unknown reason");
        pg->done = 1;
        return 0;
    }
    struct {
        void **slot;
        const char *name;
        bool required;
    } syms[] = {
        {(void **)&api.init, "aclInit", true},
        {(void **)&api.finalize, "aclFinalize", true},
        {(void **)&api.count, "aclrtGetDeviceCount", true},
        {(void **)&api.set, "aclrtSetDevice", true},
        {(void **)&api.reset, "aclrtResetDevice", true},
        {(void **)&api.malloc_dev, "aclrtMalloc", true},
        {(void **)&api.free_dev, "aclrtFree", true},
        {(void **)&api.memcpy_, "aclrtMemcpy", true},
        {(void **)&api.malloc_host, "aclrtMallocHost", false},
        {(void **)&api.free_host, "aclrtFreeHost", false},
        {(void **)&api.recent, "aclGetRecentErrMsg", false},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        *syms[i].slot = dlsym(api.lib, syms[i].name);
        if (!*syms[i].slot && syms[i].required) {
            nd_acl_failed(r, NULL, "dlsym", -1, 0);
            snprintf(r->meaning, sizeof r->meaning, "the library lacks %s", syms[i].name);
            snprintf(r->error, sizeof r->error, "%.300s lacks %s: a link-time stub (devlib) or not ACL", r->lib_path,
                     syms[i].name);
            pg->done = 1;
            return 0; /* no dlclose: the child ends here */
        }
    }
    nd_device_progress("aclInit");
    int rc = api.init(NULL);
    if (rc != 0) {
        nd_acl_failed(r, &api, "aclInit", -1, rc);
        pg->done = 1;
        return 0;
    }
    uint32_t count = 0;
    nd_device_progress("aclrtGetDeviceCount");
    rc = api.count(&count);
    if (rc != 0 || count == 0) {
        nd_acl_failed(r, &api, "aclrtGetDeviceCount", -1, rc ? rc : 207004);
    } else {
        for (uint32_t dev = 0; dev < count && dev < ND_MAX_DEVICES; dev++)
            nd_acl_test_device(&api, pg, (int)dev, level);
    }
    pg->device = -1;
    nd_device_progress("aclFinalize");
    rc = api.finalize();
    if (rc != 0)
        nd_acl_failed(r, &api, "aclFinalize", -1, rc);
    nd_device_progress("");
    pg->done = 1;
    return 0;
}

int nd_smoke_ascend(int level, double timeout_s, struct nd_smoke_result *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->vendor, sizeof out->vendor, "ascend");
    if (timeout_s <= 0)
        timeout_s = ND_DEVICE_DEFAULT_TIMEOUT * 6;
    if (nd_device_find_library("libascendcl.so", "NPU_DOCTOR_ACL_LIB", nd_ascend_acl_dirs, out->lib_path,
                               sizeof out->lib_path) != 0) {
        out->status = -ENOENT;
        snprintf(out->failed_call, sizeof out->failed_call, "dlopen");
        snprintf(out->meaning, sizeof out->meaning, "libascendcl.so not found");
        snprintf(out->fix, sizeof out->fix, "%s", nd_acl_fix("dlopen", 0));
        snprintf(out->error, sizeof out->error,
                 "libascendcl.so not found on LD_LIBRARY_PATH, in /usr/local/Ascend or the ld cache: "
                 "CANN is not installed or its environment is not loaded");
        return out->status;
    }
    out->lib_found = true;
    struct nd_acl_page *pg = nd_shared_alloc(sizeof *pg);
    if (!pg) {
        out->status = -ENOMEM;
        snprintf(out->error, sizeof out->error, "cannot map shared memory: %s", strerror(errno));
        return out->status;
    }
    pg->r = *out;
    pg->device = -1;
    struct nd_acl_arg arg = {level, pg};
    struct nd_spawn_result res;
    struct nd_error err = {0, ""};
    int rc = nd_guard_call(nd_acl_child, &arg, timeout_s, 64 * 1024, &res, &err);
    if (rc < 0) {
        out->status = rc;
        snprintf(out->error, sizeof out->error, "%s", err.msg);
    } else if (nd_spawn_ok(&res) && pg->done) {
        *out = pg->r;
        if (level >= 3)
            nd_smoke_flag_slow(out);
    } else {
        char call[ND_CALL_MAX];
        memcpy(call, pg->call, sizeof call);
        call[sizeof call - 1] = '\0';
        *out = pg->r; /* the devices done so far stay */
        out->status = res.timed_out ? -ETIMEDOUT : -ECHILD;
        snprintf(out->failed_call, sizeof out->failed_call, "%s", call);
        out->code = 0;
        char how[256];
        nd_guard_describe(&res, timeout_s, call, how, sizeof how);
        if (pg->device >= 0)
            snprintf(out->error, sizeof out->error, "%s on device %d", how, pg->device);
        else
            snprintf(out->error, sizeof out->error, "%s", how);
        snprintf(out->meaning, sizeof out->meaning, "%s", res.timed_out ? "the runtime hung" : "the runtime crashed");
        snprintf(out->fix, sizeof out->fix,
                 "check the device and driver: npu-smi info; look at the plog under $HOME/ascend/log and "
                 "/var/log/npu/slog");
    }
    if (rc == 0)
        nd_spawn_result_release(&res);
    nd_shared_free(pg, sizeof *pg);
    return out->status;
}
