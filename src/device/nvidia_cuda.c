/* The NVIDIA runtime smoke test (check --level 2/3): the CUDA driver API
 * (libcuda.so.1, dlopen'd, symbols declared here; see docs/vendor-apis.md)
 * driven through the same steps a job takes: init, primary context, a 64 MiB
 * allocation, a round trip of data; at level 3 also the host<->device
 * bandwidth. The calls run in a guarded child; the child
 * records each step in memory shared with us, so a hang or a crash still
 * names the call it happened in. */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/spawn.h"
#include "device/device.h"
#include "device/device_internal.h"

typedef unsigned long long cu_deviceptr_t; /* CUdeviceptr on 64-bit hosts */
typedef int cu_device_t;                   /* CUdevice */
typedef void *cu_context_t;                /* CUcontext */

struct nd_cuda_api {
    int (*init)(unsigned flags);
    int (*driver_get_version)(int *v);
    int (*device_get_count)(int *n);
    int (*device_get)(cu_device_t *dev, int ordinal);
    int (*device_get_name)(char *name, int len, cu_device_t dev);
    int (*primary_ctx_retain)(cu_context_t *ctx, cu_device_t dev);
    int (*primary_ctx_release)(cu_device_t dev);
    int (*ctx_set_current)(cu_context_t ctx);
    int (*mem_get_info)(size_t *free_bytes, size_t *total_bytes);
    int (*mem_alloc)(cu_deviceptr_t *dptr, size_t size);
    int (*mem_free)(cu_deviceptr_t dptr);
    int (*memcpy_htod)(cu_deviceptr_t dst, const void *src, size_t size);
    int (*memcpy_dtoh)(void *dst, cu_deviceptr_t src, size_t size);
    int (*mem_host_alloc)(void **p, size_t size, unsigned flags);
    int (*mem_free_host)(void *p);
    int (*ctx_synchronize)(void);
    int (*get_error_name)(int code, const char **name);
};

#define ND_CUDA_TEST_BYTES (64u << 20)
#define ND_CUDA_BW_REPS 4

/* Lives in a MAP_SHARED page so the parent sees the child's progress even
 * when the child never returns. */
struct nd_cuda_shared {
    struct nd_smoke_result r;
    char current_call[64]; /* the call in progress; "" between calls */
    int current_device;    /* -1 outside the per-device steps */
};

struct nd_cuda_job {
    int level;
    const char *lib_path;
    struct nd_cuda_shared *sh;
};

static const char *const nd_cuda_std_dirs[] = {
    "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64",       "/usr/lib",
    "/usr/local/nvidia/lib64",   "/usr/local/nvidia/lib",      "/usr/lib/wsl/lib", NULL};

const char *nd_cuda_strerror(int code)
{
    switch (code) {
    case 0: return "success";
    case 1: return "invalid value";
    case 2: return "out of memory";
    case 3: return "not initialised";
    case 4: return "the driver is shutting down";
    case 34: return "the CUDA stub library was loaded instead of the driver's libcuda";
    case 46: return "the device is unavailable (exclusive-process mode, in use by another process)";
    case 100: return "no CUDA-capable device is detected";
    case 101: return "invalid device ordinal";
    case 201: return "invalid context";
    case 304: return "an OS call failed";
    case 802: return "system not ready (on NVSwitch machines: Fabric Manager not running)";
    case 803: return "system driver mismatch: libcuda does not match the loaded kernel driver";
    case 804: return "forward compatibility is not supported on this device";
    case 999: return "unknown CUDA error";
    default: return "unrecognised CUDA error";
    }
}

/* The likely fix for a failing call, by call and code. */
static const char *nd_cuda_fix(const char *call, int code)
{
    switch (code) {
    case 2: return "other processes hold the GPU memory: see `npu-doctor ps` or nvidia-smi, and stop them";
    case 34: return "remove the CUDA toolkit's lib64/stubs directory from LD_LIBRARY_PATH";
    case 46: return "the GPU is in exclusive-process mode and busy: wait for its job or use another GPU";
    case 100:
        return "check CUDA_VISIBLE_DEVICES (an empty value hides every GPU); in a container start it with "
               "--gpus all (NVIDIA Container Toolkit)";
    case 101: return "CUDA_VISIBLE_DEVICES names a GPU that does not exist: list the real ones with nvidia-smi -L";
    case 802:
        return "start Fabric Manager: systemctl enable --now nvidia-fabricmanager (its version must match the "
               "driver)";
    case 803:
        return "a libcuda.so.1 that does not match the kernel driver is loaded: drop a stale cuda-compat or "
               "LD_LIBRARY_PATH entry, or reboot after the driver upgrade";
    case 999:
        if (strcmp(call, "cuInit") == 0)
            return "load the UVM module (modprobe nvidia-uvm, or run nvidia-smi once as root) and check dmesg "
                   "for Xid errors";
        return "check dmesg for Xid errors; the GPU may need a reset";
    default: break;
    }
    if (strcmp(call, "cuInit") == 0)
        return "check that the NVIDIA driver is loaded (nvidia-smi) and that /dev/nvidia* is accessible";
    return "check dmesg for Xid errors and nvidia-smi for the GPU's state";
}

static void nd_cuda_enter(struct nd_cuda_shared *sh, const char *call, int dev)
{
    snprintf(sh->current_call, sizeof sh->current_call, "%s", call);
    sh->current_device = dev;
    __sync_synchronize(); /* the parent may read this after a kill */
}

/* Records a failed step (the first failure wins: later ones are consequences). */
static void nd_cuda_record(struct nd_cuda_shared *sh, const struct nd_cuda_api *api, const char *call, int dev, int code)
{
    struct nd_smoke_result *r = &sh->r;
    if (r->status != 0)
        return;
    r->status = -EIO;
    snprintf(r->failed_call, sizeof r->failed_call, "%s", call);
    r->code = code;
    const char *name = NULL;
    if (api && api->get_error_name && api->get_error_name(code, &name) != 0)
        name = NULL;
    if (name && *name)
        snprintf(r->meaning, sizeof r->meaning, "%s: %s", name, nd_cuda_strerror(code));
    else
        snprintf(r->meaning, sizeof r->meaning, "%s", nd_cuda_strerror(code));
    snprintf(r->fix, sizeof r->fix, "%s", nd_cuda_fix(call, code));
    char where[32] = "";
    if (dev >= 0)
        snprintf(where, sizeof where, " on GPU %d", dev);
    snprintf(r->error, sizeof r->error, "%s returned %d%s (%s)", call, code, where, r->meaning);
}

/* One call: marks it in progress, records a failure. True when it succeeded. */
#define ND_CU(sh, api, dev, call, expr)                                                                                \
    (nd_cuda_enter((sh), (call), (dev)), nd_cuda_ok((sh), (api), (call), (dev), (expr)))

static bool nd_cuda_ok(struct nd_cuda_shared *sh, const struct nd_cuda_api *api, const char *call, int dev, int code)
{
    sh->current_call[0] = '\0';
    if (code == 0)
        return true;
    nd_cuda_record(sh, api, call, dev, code);
    return false;
}

static int nd_cuda_resolve(void *lib, struct nd_cuda_api *a, const char **missing)
{
#define ND_SYM(field, name)                                                                                            \
    do {                                                                                                               \
        *(void **)&a->field = dlsym(lib, name);                                                                        \
    } while (0)
    ND_SYM(init, "cuInit");
    ND_SYM(driver_get_version, "cuDriverGetVersion");
    ND_SYM(device_get_count, "cuDeviceGetCount");
    ND_SYM(device_get, "cuDeviceGet");
    ND_SYM(device_get_name, "cuDeviceGetName");
    ND_SYM(primary_ctx_retain, "cuDevicePrimaryCtxRetain");
    ND_SYM(primary_ctx_release, "cuDevicePrimaryCtxRelease_v2");
    if (!a->primary_ctx_release)
        ND_SYM(primary_ctx_release, "cuDevicePrimaryCtxRelease");
    ND_SYM(ctx_set_current, "cuCtxSetCurrent");
    ND_SYM(mem_get_info, "cuMemGetInfo_v2");
    ND_SYM(mem_alloc, "cuMemAlloc_v2");
    ND_SYM(mem_free, "cuMemFree_v2");
    ND_SYM(memcpy_htod, "cuMemcpyHtoD_v2");
    ND_SYM(memcpy_dtoh, "cuMemcpyDtoH_v2");
    ND_SYM(mem_host_alloc, "cuMemHostAlloc");
    ND_SYM(mem_free_host, "cuMemFreeHost");
    ND_SYM(ctx_synchronize, "cuCtxSynchronize");
    ND_SYM(get_error_name, "cuGetErrorName");
#undef ND_SYM
    struct {
        const void *p;
        const char *name;
    } req[] = {
        {(const void *)a->init, "cuInit"},
        {(const void *)a->driver_get_version, "cuDriverGetVersion"},
        {(const void *)a->device_get_count, "cuDeviceGetCount"},
        {(const void *)a->device_get, "cuDeviceGet"},
        {(const void *)a->device_get_name, "cuDeviceGetName"},
        {(const void *)a->primary_ctx_retain, "cuDevicePrimaryCtxRetain"},
        {(const void *)a->primary_ctx_release, "cuDevicePrimaryCtxRelease_v2"},
        {(const void *)a->ctx_set_current, "cuCtxSetCurrent"},
        {(const void *)a->mem_alloc, "cuMemAlloc_v2"},
        {(const void *)a->mem_free, "cuMemFree_v2"},
        {(const void *)a->memcpy_htod, "cuMemcpyHtoD_v2"},
        {(const void *)a->memcpy_dtoh, "cuMemcpyDtoH_v2"},
    };
    for (size_t i = 0; i < sizeof req / sizeof req[0]; i++)
        if (!req[i].p) {
            *missing = req[i].name;
            return -ENOSYS;
        }
    return 0;
}

static void nd_cuda_fill(unsigned char *p, size_t n, int dev)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)((i * 131u) ^ (i >> 12) ^ (unsigned)(dev * 7 + 1));
}

/* Host buffers for the copies: pinned when the driver offers it (that is what
 * bandwidth means for a training job's DataLoader), else pageable. */
struct nd_cuda_host {
    void *p;
    bool pinned;
};

static bool nd_cuda_host_alloc(struct nd_cuda_shared *sh, const struct nd_cuda_api *a, int dev, size_t size,
                               struct nd_cuda_host *h)
{
    h->p = NULL;
    h->pinned = false;
    if (a->mem_host_alloc && a->mem_free_host) {
        nd_cuda_enter(sh, "cuMemHostAlloc", dev);
        if (a->mem_host_alloc(&h->p, size, 0) == 0 && h->p) {
            h->pinned = true;
            sh->current_call[0] = '\0';
            return true;
        }
        sh->current_call[0] = '\0';
        h->p = NULL;
    }
    h->p = malloc(size);
    return h->p != NULL;
}

static void nd_cuda_host_release(const struct nd_cuda_api *a, struct nd_cuda_host *h)
{
    if (!h->p)
        return;
    if (h->pinned)
        a->mem_free_host(h->p);
    else
        free(h->p);
    h->p = NULL;
}

/* Copies size bytes ND_CUDA_BW_REPS times in one direction; GB/s or < 0. */
static double nd_cuda_bandwidth(struct nd_cuda_shared *sh, const struct nd_cuda_api *a, int dev, bool h2d,
                                cu_deviceptr_t dptr, void *host, size_t size)
{
    const char *call = h2d ? "cuMemcpyHtoD_v2" : "cuMemcpyDtoH_v2";
    double t0 = nd_monotonic_now();
    for (int k = 0; k < ND_CUDA_BW_REPS; k++)
        if (!ND_CU(sh, a, dev, call, h2d ? a->memcpy_htod(dptr, host, size) : a->memcpy_dtoh(host, dptr, size)))
            return -1;
    if (a->ctx_synchronize && !ND_CU(sh, a, dev, "cuCtxSynchronize", a->ctx_synchronize()))
        return -1;
    double dt = nd_monotonic_now() - t0;
    if (dt <= 0)
        dt = 1e-9;
    return (double)size * ND_CUDA_BW_REPS / dt / 1e9;
}

/* The per-device steps with the primary context retained. */
static void nd_cuda_device(struct nd_cuda_shared *sh, const struct nd_cuda_api *a, int level, int ordinal)
{
    struct nd_smoke_device *sd = &sh->r.devices[ordinal];
    sd->index = ordinal;
    cu_device_t dev = 0;
    if (!ND_CU(sh, a, ordinal, "cuDeviceGet", a->device_get(&dev, ordinal)))
        return;
    char name[128] = "";
    if (!ND_CU(sh, a, ordinal, "cuDeviceGetName", a->device_get_name(name, (int)sizeof name - 1, dev)))
        return;
    cu_context_t ctx = NULL;
    if (!ND_CU(sh, a, ordinal, "cuDevicePrimaryCtxRetain", a->primary_ctx_retain(&ctx, dev)))
        return;
    bool ok = false;
    cu_deviceptr_t dptr = 0;
    bool allocated = false;
    struct nd_cuda_host src = {NULL, false}, dst = {NULL, false};
    size_t size = ND_CUDA_TEST_BYTES;
    if (!ND_CU(sh, a, ordinal, "cuCtxSetCurrent", a->ctx_set_current(ctx)))
        goto release;
    if (a->mem_get_info) {
        size_t free_b = 0, total_b = 0;
        if (!ND_CU(sh, a, ordinal, "cuMemGetInfo_v2", a->mem_get_info(&free_b, &total_b)))
            goto release;
        /* Never take more than a quarter of what is free: the card may be in use. */
        if (free_b / 4 < size)
            size = (free_b / 4) & ~(size_t)0xfffff;
        if (size < (1u << 20)) {
            nd_cuda_record(sh, a, "cuMemGetInfo_v2", ordinal, 2);
            snprintf(sh->r.error, sizeof sh->r.error,
                     "GPU %d has only %zu MiB of memory free: too little for even a 1 MiB test", ordinal, free_b >> 20);
            goto release;
        }
    }
    if (!nd_cuda_host_alloc(sh, a, ordinal, size, &src) || !nd_cuda_host_alloc(sh, a, ordinal, size, &dst)) {
        if (sh->r.status == 0) {
            sh->r.status = -ENOMEM;
            snprintf(sh->r.failed_call, sizeof sh->r.failed_call, "malloc");
            snprintf(sh->r.meaning, sizeof sh->r.meaning, "host memory exhausted");
            snprintf(sh->r.fix, sizeof sh->r.fix, "free host memory, or raise the memory limit of this container");
            snprintf(sh->r.error, sizeof sh->r.error, "cannot allocate %zu MiB of host memory for GPU %d", size >> 20,
                     ordinal);
        }
        goto release;
    }
    if (!ND_CU(sh, a, ordinal, "cuMemAlloc_v2", a->mem_alloc(&dptr, size)))
        goto release;
    allocated = true;
    nd_cuda_fill(src.p, size, ordinal);
    memset(dst.p, 0, size);
    if (!ND_CU(sh, a, ordinal, "cuMemcpyHtoD_v2", a->memcpy_htod(dptr, src.p, size)))
        goto release;
    if (!ND_CU(sh, a, ordinal, "cuMemcpyDtoH_v2", a->memcpy_dtoh(dst.p, dptr, size)))
        goto release;
    if (memcmp(src.p, dst.p, size) != 0) {
        struct nd_smoke_result *r = &sh->r;
        if (r->status == 0) {
            r->status = -EIO;
            snprintf(r->failed_call, sizeof r->failed_call, "compare");
            r->code = 0;
            snprintf(r->meaning, sizeof r->meaning, "data read back differs from data written");
            snprintf(r->fix, sizeof r->fix,
                     "suspect faulty GPU memory: check nvidia-smi -q -d ECC,ROW_REMAPPER and dmesg for Xid errors");
            snprintf(r->error, sizeof r->error, "GPU %d returned different bytes after a %zu MiB round trip", ordinal,
                     size >> 20);
        }
        goto release;
    }
    if (level >= 3) {
        double h2d = nd_cuda_bandwidth(sh, a, ordinal, true, dptr, src.p, size);
        double d2h = h2d > 0 ? nd_cuda_bandwidth(sh, a, ordinal, false, dptr, dst.p, size) : -1;
        if (h2d > 0 && d2h > 0) {
            sd->bandwidth_valid = true;
            sd->h2d_gbps = h2d;
            sd->d2h_gbps = d2h;
        } else {
            goto release;
        }
    }
    ok = true;
release:
    if (allocated && !ND_CU(sh, a, ordinal, "cuMemFree_v2", a->mem_free(dptr)))
        ok = false;
    nd_cuda_host_release(a, &src);
    nd_cuda_host_release(a, &dst);
    if (!ND_CU(sh, a, ordinal, "cuDevicePrimaryCtxRelease_v2", a->primary_ctx_release(dev)))
        ok = false;
    sd->ok = ok;
}

/* The guarded child. Writes nothing to out_fd: its record is the shared page. */
static int nd_cuda_child(void *arg, int out_fd)
{
    (void)out_fd;
    struct nd_cuda_job *job = arg;
    struct nd_cuda_shared *sh = job->sh;
    struct nd_smoke_result *r = &sh->r;
    nd_cuda_enter(sh, "dlopen", -1);
    void *lib = dlopen(job->lib_path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        r->status = -ENOENT;
        snprintf(r->failed_call, sizeof r->failed_call, "dlopen");
        snprintf(r->meaning, sizeof r->meaning, "the library cannot be loaded");
        snprintf(r->fix, sizeof r->fix, "reinstall the NVIDIA driver's user-space libraries");
        snprintf(r->error, sizeof r->error, "cannot load %.300s: %.180s", job->lib_path, why ? why : "unknown reason");
        return 1;
    }
    struct nd_cuda_api a;
    memset(&a, 0, sizeof a);
    const char *missing = NULL;
    if (nd_cuda_resolve(lib, &a, &missing) != 0) {
        r->status = -ENOSYS;
        snprintf(r->failed_call, sizeof r->failed_call, "dlsym");
        snprintf(r->meaning, sizeof r->meaning, "symbol %s not exported", missing);
        snprintf(r->fix, sizeof r->fix, "the driver is too old or the library is not NVIDIA's libcuda");
        snprintf(r->error, sizeof r->error, "%.300s does not export %s", job->lib_path, missing);
        return 1;
    }
    int version = 0, n = 0;
    if (!ND_CU(sh, &a, -1, "cuInit", a.init(0)) ||
        !ND_CU(sh, &a, -1, "cuDriverGetVersion", a.driver_get_version(&version)) ||
        !ND_CU(sh, &a, -1, "cuDeviceGetCount", a.device_get_count(&n)))
        return 1;
    if (n <= 0) {
        nd_cuda_record(sh, &a, "cuDeviceGetCount", -1, 100);
        snprintf(r->error, sizeof r->error, "cuDeviceGetCount found no GPU (CUDA driver %d.%d)", version / 1000,
                 version % 1000 / 10);
        return 1;
    }
    if (n > ND_MAX_DEVICES)
        n = ND_MAX_DEVICES;
    r->ndevices = (size_t)n;
    for (int i = 0; i < n; i++)
        nd_cuda_device(sh, &a, job->level, i);
    sh->current_device = -1;
    /* libcuda stays loaded: the child exits right away, and unloading a
     * driver library mid-process has crashed real drivers before. */
    return r->status == 0 ? 0 : 1;
}

/* After the child: a hang or a crash names the call the child was in. */
static void nd_cuda_judge_child(struct nd_smoke_result *out, const struct nd_cuda_shared *sh,
                                const struct nd_spawn_result *res, double timeout_s)
{
    *out = sh->r;
    if (nd_spawn_ok(res) || (res->exited && out->status != 0))
        return;
    const char *call = sh->current_call[0] ? sh->current_call : "the CUDA smoke test";
    char how[192];
    nd_guard_describe(res, timeout_s, sh->current_call, how, sizeof how);
    char where[32] = "";
    if (sh->current_device >= 0)
        snprintf(where, sizeof where, " (GPU %d)", sh->current_device);
    out->status = res->timed_out ? -ETIMEDOUT : -ECHILD;
    snprintf(out->failed_call, sizeof out->failed_call, "%s", call);
    out->code = 0;
    if (res->timed_out) {
        snprintf(out->meaning, sizeof out->meaning, "the call did not return within %g s", timeout_s);
        snprintf(out->fix, sizeof out->fix,
                 "check dmesg for Xid errors and nvidia-smi for a GPU in a bad state; without persistence mode "
                 "(nvidia-smi -pm 1) initialisation can also be slow");
    } else {
        snprintf(out->meaning, sizeof out->meaning, "the driver library crashed the process");
        snprintf(out->fix, sizeof out->fix,
                 "the user-space driver libraries do not match the kernel driver or are damaged: reinstall the "
                 "driver and check dmesg");
    }
    snprintf(out->error, sizeof out->error, "%s%s", how, where);
}

/* status < 0: a step failed (failed_call, code, meaning, fix, error say
 * which). Level 3 also marks GPUs far below their siblings' bandwidth
 * (bandwidth_low, a warning: status stays 0). The deadline covers the whole
 * test; level 3 gets twice timeout_s for its extra copies. */
int nd_smoke_cuda(int level, double timeout_s, struct nd_smoke_result *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->vendor, sizeof out->vendor, "nvidia");
    if (timeout_s <= 0)
        timeout_s = ND_DEVICE_DEFAULT_TIMEOUT;
    char path[sizeof out->lib_path];
    if (nd_device_find_library("libcuda.so.1", "NPU_DOCTOR_CUDA_LIB", nd_cuda_std_dirs, path, sizeof path) != 0) {
        out->status = -ENOENT;
        snprintf(out->failed_call, sizeof out->failed_call, "dlopen");
        snprintf(out->meaning, sizeof out->meaning, "libcuda.so.1 not found");
        snprintf(out->fix, sizeof out->fix,
                 "install the NVIDIA driver; in a container start it with --gpus all (NVIDIA Container Toolkit)");
        snprintf(out->error, sizeof out->error, "libcuda.so.1 not found: no NVIDIA driver is visible here");
        return out->status;
    }
    out->lib_found = true;
    snprintf(out->lib_path, sizeof out->lib_path, "%s", path);

    struct nd_cuda_shared *sh = nd_shared_alloc(sizeof *sh);
    if (!sh) {
        out->status = -errno;
        snprintf(out->failed_call, sizeof out->failed_call, "mmap");
        snprintf(out->error, sizeof out->error, "cannot set up the smoke test: %s", strerror(errno));
        return out->status;
    }
    sh->r = *out;
    sh->current_device = -1;
    struct nd_cuda_job job = {level, path, sh};
    struct nd_spawn_result res;
    struct nd_error err = {0, ""};
    /* Bandwidth adds copies on every device: give level 3 twice the time. */
    double deadline = level >= 3 ? 2 * timeout_s : timeout_s;
    if (nd_guard_call(nd_cuda_child, &job, deadline, 4096, &res, &err) != 0) {
        out->status = err.code ? err.code : -ECHILD;
        snprintf(out->failed_call, sizeof out->failed_call, "fork");
        snprintf(out->error, sizeof out->error, "cannot start the smoke test: %s", err.msg);
        nd_shared_free(sh, sizeof *sh);
        return out->status;
    }
    nd_cuda_judge_child(out, sh, &res, deadline);
    nd_spawn_result_release(&res);
    nd_shared_free(sh, sizeof *sh);
    out->lib_found = true;
    if (level >= 3)
        nd_smoke_flag_slow(out);
    return out->status;
}
