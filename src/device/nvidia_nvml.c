/* The NVIDIA backend of the device vtable: NVML
 * (libnvidia-ml.so.1) opened with dlopen, its symbols declared here from
 * docs/vendor-apis.md. Runs inside the guarded child of
 * nd_device_query / the device session, never in the tool's own process. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "device/device.h"

/* NVML's own types, as published (nvml.h). nvmlReturn_t is an int enum. */
typedef void *nvml_device_t;

struct nvml_memory {
    unsigned long long total, free, used;
};

struct nvml_utilization {
    unsigned gpu, memory;
};

/* nvmlProcessInfo_v1_t: what the unversioned call fills. */
struct nvml_process_info_v1 {
    unsigned pid;
    unsigned long long used_gpu_memory;
};

/* nvmlProcessInfo_v2_t / nvmlProcessInfo_t: what _v2 and _v3 fill. */
struct nvml_process_info_v2 {
    unsigned pid;
    unsigned long long used_gpu_memory;
    unsigned gpu_instance_id, compute_instance_id;
};

#define NVML_SUCCESS 0
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_FUNCTION_NOT_FOUND 13
/* usedGpuMemory when the driver cannot tell (e.g. without permission). */
#define NVML_VALUE_NOT_AVAILABLE ULLONG_MAX
#define NVML_DRIVER_VERSION_LEN 80

typedef int (*nvml_void_fn)(void);
typedef const char *(*nvml_errstr_fn)(int);
typedef int (*nvml_buf_fn)(char *buf, unsigned len);
typedef int (*nvml_int_fn)(int *v);
typedef int (*nvml_count_fn)(unsigned *n);
typedef int (*nvml_handle_fn)(unsigned i, nvml_device_t *dev);
typedef int (*nvml_dev_buf_fn)(nvml_device_t dev, char *buf, unsigned len);
typedef int (*nvml_mem_fn)(nvml_device_t dev, struct nvml_memory *m);
typedef int (*nvml_util_fn)(nvml_device_t dev, struct nvml_utilization *u);
typedef int (*nvml_procs_v2_fn)(nvml_device_t dev, unsigned *count, struct nvml_process_info_v2 *infos);
typedef int (*nvml_procs_v1_fn)(nvml_device_t dev, unsigned *count, struct nvml_process_info_v1 *infos);

/* The vtable's opaque context; struct nd_vendor_ctx is only ever a cast of it. */
struct nd_nvml_ctx {
    void *lib;
    nvml_void_fn init, shutdown;
    const char *init_name, *count_name, *handle_name;
    nvml_errstr_fn error_string;
    nvml_buf_fn driver_version;
    nvml_int_fn cuda_version;
    nvml_count_fn count;
    nvml_handle_fn handle;
    nvml_dev_buf_fn name, uuid;
    nvml_mem_fn memory;
    nvml_util_fn utilization;
    nvml_procs_v2_fn procs_v3, procs_v2;
    nvml_procs_v1_fn procs_v1;
    bool initialised;
    unsigned ndev;
    nvml_device_t handles[ND_MAX_DEVICES];
    bool have_handle[ND_MAX_DEVICES];
};

static const char *const nd_nvml_std_dirs[] = {
    "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64",       "/usr/lib", "/lib64", "/lib",
    "/usr/local/nvidia/lib64",   "/usr/local/nvidia/lib",      "/usr/lib/wsl/lib", NULL};

const char *nd_nvml_strerror(int code)
{
    switch (code) {
    case 0: return "success";
    case 1: return "NVML was not initialised";
    case 2: return "invalid argument";
    case 3: return "not supported on this device";
    case 4: return "no permission to access the device";
    case 5: return "already initialised";
    case 6: return "not found";
    case 7: return "insufficient size";
    case 8: return "a power cable is not attached";
    case 9: return "the NVIDIA kernel driver is not loaded";
    case 10: return "timed out";
    case 11: return "interrupt request issue";
    case 12: return "the NVML shared library was not found";
    case 13: return "function not found in the NVML library (driver older than the caller)";
    case 14: return "corrupted infoROM";
    case 15: return "the GPU has fallen off the bus or is otherwise lost";
    case 16: return "the GPU needs a reset";
    case 17: return "the operating system refused the call";
    case 18: return "library/driver version mismatch: the NVIDIA driver was upgraded without a reboot";
    case 19: return "the device is in use";
    case 20: return "out of memory";
    case 21: return "no data";
    case 999: return "unknown NVML error";
    default: return "unrecognised NVML error";
    }
}

/* The meaning of code: our table, or the library's own words for codes the
 * table does not know. */
static const char *nd_nvml_meaning(const struct nd_nvml_ctx *c, int code)
{
    const char *meaning = nd_nvml_strerror(code);
    if (c && c->error_string && strncmp(meaning, "unrecognised", 12) == 0) {
        const char *lib = c->error_string(code);
        if (lib && *lib)
            return lib;
    }
    return meaning;
}

/* A fatal failure: the query cannot go on ("nvmlInit_v2 returned 18: ..."). */
static int nd_nvml_fail(const struct nd_nvml_ctx *c, struct nd_device_state *st, struct nd_error *err, const char *call,
                        int code)
{
    nd_device_state_fail(st, -EIO, call, code, nd_nvml_meaning(c, code));
    return nd_error_set(err, st->status, "%s", st->error);
}

/* A failure on one GPU: the others still count, so it is a warning (the first one wins). */
static void nd_nvml_warn(const struct nd_nvml_ctx *c, struct nd_device_state *st, const char *call, int code, unsigned gpu)
{
    if (!st->warning[0])
        snprintf(st->warning, sizeof st->warning, "%s returned %d for GPU %u: %s", call, code, gpu,
                 nd_nvml_meaning(c, code));
}

static void *nd_nvml_sym(void *lib, const char *name)
{
    return dlsym(lib, name);
}

/* Resolves the first of the given names the library exports. */
static void *nd_nvml_sym_first(void *lib, const char *const *names, const char **found)
{
    for (; *names; names++) {
        void *p = dlsym(lib, *names);
        if (p) {
            if (found)
                *found = *names;
            return p;
        }
    }
    return NULL;
}

/* Resolves every symbol we use. Only init, shutdown, count and handle are
 * required; the rest leave their facts unknown when an old driver lacks them. */
static int nd_nvml_resolve(struct nd_nvml_ctx *c, struct nd_device_state *st, struct nd_error *err)
{
    static const char *const init_names[] = {"nvmlInit_v2", "nvmlInit", NULL};
    static const char *const count_names[] = {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount", NULL};
    static const char *const handle_names[] = {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex", NULL};
    static const char *const cuda_names[] = {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion", NULL};
    c->init = (nvml_void_fn)nd_nvml_sym_first(c->lib, init_names, &c->init_name);
    c->shutdown = (nvml_void_fn)nd_nvml_sym(c->lib, "nvmlShutdown");
    c->count = (nvml_count_fn)nd_nvml_sym_first(c->lib, count_names, &c->count_name);
    c->handle = (nvml_handle_fn)nd_nvml_sym_first(c->lib, handle_names, &c->handle_name);
    c->error_string = (nvml_errstr_fn)nd_nvml_sym(c->lib, "nvmlErrorString");
    c->driver_version = (nvml_buf_fn)nd_nvml_sym(c->lib, "nvmlSystemGetDriverVersion");
    c->cuda_version = (nvml_int_fn)nd_nvml_sym_first(c->lib, cuda_names, NULL);
    c->name = (nvml_dev_buf_fn)nd_nvml_sym(c->lib, "nvmlDeviceGetName");
    c->uuid = (nvml_dev_buf_fn)nd_nvml_sym(c->lib, "nvmlDeviceGetUUID");
    c->memory = (nvml_mem_fn)nd_nvml_sym(c->lib, "nvmlDeviceGetMemoryInfo");
    c->utilization = (nvml_util_fn)nd_nvml_sym(c->lib, "nvmlDeviceGetUtilizationRates");
    c->procs_v3 = (nvml_procs_v2_fn)nd_nvml_sym(c->lib, "nvmlDeviceGetComputeRunningProcesses_v3");
    c->procs_v2 = (nvml_procs_v2_fn)nd_nvml_sym(c->lib, "nvmlDeviceGetComputeRunningProcesses_v2");
    c->procs_v1 = (nvml_procs_v1_fn)nd_nvml_sym(c->lib, "nvmlDeviceGetComputeRunningProcesses");

    const char *missing = !c->init       ? "nvmlInit_v2"
                          : !c->shutdown ? "nvmlShutdown"
                          : !c->count    ? "nvmlDeviceGetCount_v2"
                          : !c->handle   ? "nvmlDeviceGetHandleByIndex_v2"
                                         : NULL;
    if (!missing)
        return 0;
    st->status = -ENOSYS;
    snprintf(st->failed_call, sizeof st->failed_call, "dlsym");
    st->vendor_code = 0;
    snprintf(st->error, sizeof st->error, "%.300s does not export %s: not a usable NVML library", st->lib_path, missing);
    return nd_error_set(err, -ENOSYS, "%s", st->error);
}

/* The search covers every folder the job's loader would look in for the
 * soname (LD_LIBRARY_PATH, the ld cache, the default folders), so what it
 * does not find the job could not load either. */
static int nd_nvml_locate(struct nd_device_state *st)
{
    snprintf(st->vendor, sizeof st->vendor, "nvidia");
    int rc = nd_device_find_library(nd_vendor_nvidia.lib_soname, nd_vendor_nvidia.lib_override_env,
                                    nd_vendor_nvidia.lib_dirs, st->lib_path, sizeof st->lib_path);
    st->lib_found = rc == 0;
    if (rc == 0)
        return 0;
    st->status = -ENOENT;
    snprintf(st->failed_call, sizeof st->failed_call, "dlopen");
    const char *override = getenv(nd_vendor_nvidia.lib_override_env);
    if (override && *override)
        snprintf(st->error, sizeof st->error, "%s=%.300s: no such library", nd_vendor_nvidia.lib_override_env, override);
    else
        snprintf(st->error, sizeof st->error, "%s not found: no NVIDIA driver installed, or it is not visible here",
                 nd_vendor_nvidia.lib_soname);
    return st->status;
}

static void nd_nvml_ctx_free(struct nd_nvml_ctx *c)
{
    if (!c)
        return;
    if (c->initialised && c->shutdown) {
        nd_device_progress("nvmlShutdown");
        c->shutdown();
    }
    if (c->lib)
        dlclose(c->lib);
    free(c);
}

static int nd_nvml_open(struct nd_vendor_ctx **ctx, struct nd_device_state *st, struct nd_error *err)
{
    *ctx = NULL;
    if (nd_nvml_locate(st) < 0)
        return nd_error_set(err, -ENOENT, "%s", st->error);
    struct nd_nvml_ctx *c = nd_xcalloc(1, sizeof *c);
    nd_device_progress("dlopen");
    dlerror();
    c->lib = dlopen(st->lib_path, RTLD_NOW | RTLD_LOCAL);
    if (!c->lib) {
        const char *why = dlerror();
        st->status = -ELIBBAD;
        snprintf(st->failed_call, sizeof st->failed_call, "dlopen");
        snprintf(st->error, sizeof st->error, "cannot load %.300s: %.180s", st->lib_path, why ? why : "unknown reason");
        free(c);
        return nd_error_set(err, -ELIBBAD, "%s", st->error);
    }
    int rc = nd_nvml_resolve(c, st, err);
    if (rc == 0) {
        nd_device_progress(c->init_name);
        int code = c->init();
        if (code != NVML_SUCCESS)
            rc = nd_nvml_fail(c, st, err, c->init_name, code);
        else
            c->initialised = true;
    }
    if (rc != 0) {
        nd_nvml_ctx_free(c);
        return rc;
    }
    *ctx = (struct nd_vendor_ctx *)c;
    return 0;
}

/* Copies a string NVML filled into a fixed buffer of ours, always terminated. */
static void nd_nvml_take_str(char *dst, size_t size, char *src, size_t srcsize)
{
    src[srcsize - 1] = '\0';
    snprintf(dst, size, "%s", src);
}

static int nd_nvml_devices(struct nd_vendor_ctx *vctx, struct nd_device_state *st, struct nd_error *err)
{
    struct nd_nvml_ctx *c = (struct nd_nvml_ctx *)vctx;
    if (c->driver_version) {
        char buf[NVML_DRIVER_VERSION_LEN] = "";
        nd_device_progress("nvmlSystemGetDriverVersion");
        if (c->driver_version(buf, sizeof buf) == NVML_SUCCESS) {
            nd_nvml_take_str(st->driver_version, sizeof st->driver_version, buf, sizeof buf);
            st->driver_version_valid = st->driver_version[0] != '\0';
        }
    }
    int v = 0;
    nd_device_progress("nvmlSystemGetCudaDriverVersion_v2");
    if (c->cuda_version && c->cuda_version(&v) == NVML_SUCCESS && v > 0)
        st->cuda_driver_version = v;

    unsigned n = 0;
    nd_device_progress(c->count_name);
    int code = c->count(&n);
    if (code != NVML_SUCCESS)
        return nd_nvml_fail(c, st, err, c->count_name, code);
    if (n > ND_MAX_DEVICES)
        n = ND_MAX_DEVICES;
    c->ndev = n;
    st->ndevices = n;
    for (unsigned i = 0; i < n; i++) {
        struct nd_device *d = &st->devices[i];
        memset(d, 0, sizeof *d);
        d->index = (int)i;
        d->card_id = d->chip_id = -1;
        nd_device_progress(c->handle_name);
        code = c->handle(i, &c->handles[i]);
        if (code != NVML_SUCCESS) {
            /* One lost GPU must not hide the others. */
            nd_nvml_warn(c, st, c->handle_name, code, i);
            continue;
        }
        c->have_handle[i] = true;
        if (c->name) {
            char buf[sizeof d->name] = "";
            nd_device_progress("nvmlDeviceGetName");
            if (c->name(c->handles[i], buf, sizeof buf) == NVML_SUCCESS)
                nd_nvml_take_str(d->name, sizeof d->name, buf, sizeof buf);
        }
        if (c->uuid) {
            char buf[sizeof d->uuid] = "";
            nd_device_progress("nvmlDeviceGetUUID");
            if (c->uuid(c->handles[i], buf, sizeof buf) == NVML_SUCCESS)
                nd_nvml_take_str(d->uuid, sizeof d->uuid, buf, sizeof buf);
        }
    }
    return 0;
}

/* "Not supported" is an answer (the fact stays unknown); anything else is worth a warning. */
static bool nd_nvml_is_failure(int code)
{
    return code != NVML_SUCCESS && code != NVML_ERROR_NOT_SUPPORTED;
}

static int nd_nvml_sample(struct nd_vendor_ctx *vctx, struct nd_device_state *st, struct nd_error *err)
{
    (void)err;
    struct nd_nvml_ctx *c = (struct nd_nvml_ctx *)vctx;
    for (unsigned i = 0; i < c->ndev && i < st->ndevices; i++) {
        struct nd_device *d = &st->devices[i];
        d->util_valid = d->mem_valid = false;
        if (!c->have_handle[i])
            continue;
        if (c->utilization) {
            struct nvml_utilization u = {0, 0};
            nd_device_progress("nvmlDeviceGetUtilizationRates");
            int code = c->utilization(c->handles[i], &u);
            if (code == NVML_SUCCESS) {
                d->util_valid = true;
                d->util_pct = u.gpu > 100 ? 100 : u.gpu;
            } else if (nd_nvml_is_failure(code)) {
                nd_nvml_warn(c, st, "nvmlDeviceGetUtilizationRates", code, i);
            }
        }
        if (c->memory) {
            struct nvml_memory m = {0, 0, 0};
            nd_device_progress("nvmlDeviceGetMemoryInfo");
            int code = c->memory(c->handles[i], &m);
            if (code == NVML_SUCCESS) {
                d->mem_valid = true;
                d->mem_total_bytes = m.total;
                d->mem_used_bytes = m.used;
            } else if (nd_nvml_is_failure(code)) {
                nd_nvml_warn(c, st, "nvmlDeviceGetMemoryInfo", code, i);
            }
        }
    }
    return 0;
}

static void nd_nvml_add_proc(struct nd_device_state *st, unsigned pid, unsigned long long mem, unsigned dev)
{
    if (st->nprocs >= ND_MAX_DEVICE_PROCS)
        return;
    struct nd_device_proc *p = &st->procs[st->nprocs++];
    p->pid = (pid_t)pid;
    p->device_index = (int)dev;
    p->mem_valid = mem != NVML_VALUE_NOT_AVAILABLE;
    p->mem_bytes = p->mem_valid ? mem : 0;
}

static const char *const nd_nvml_procs_names[4] = {NULL, "nvmlDeviceGetComputeRunningProcesses",
                                                   "nvmlDeviceGetComputeRunningProcesses_v2",
                                                   "nvmlDeviceGetComputeRunningProcesses_v3"};

/* One device's process list through one API generation. The list can grow
 * between NVML's answer and our retry, so retry with the count NVML returns
 * (plus headroom) a few times. Returns the NVML code of the last call. */
static int nd_nvml_list_procs(struct nd_nvml_ctx *c, int gen, unsigned dev, struct nd_device_state *st)
{
    unsigned cap = 32;
    for (int attempt = 0; attempt < 4; attempt++) {
        unsigned count = cap;
        int code;
        nd_device_progress(nd_nvml_procs_names[gen]);
        if (gen == 1) {
            struct nvml_process_info_v1 *v = nd_xcalloc(cap, sizeof *v);
            code = c->procs_v1(c->handles[dev], &count, v);
            for (unsigned k = 0; code == NVML_SUCCESS && k < count && k < cap; k++)
                nd_nvml_add_proc(st, v[k].pid, v[k].used_gpu_memory, dev);
            free(v);
        } else {
            struct nvml_process_info_v2 *v = nd_xcalloc(cap, sizeof *v);
            code = (gen == 3 ? c->procs_v3 : c->procs_v2)(c->handles[dev], &count, v);
            for (unsigned k = 0; code == NVML_SUCCESS && k < count && k < cap; k++)
                nd_nvml_add_proc(st, v[k].pid, v[k].used_gpu_memory, dev);
            free(v);
        }
        if (code != NVML_ERROR_INSUFFICIENT_SIZE)
            return code;
        /* count now holds what the driver needs: never shrink, never run away. */
        unsigned need = count > cap ? count : cap * 2;
        cap = need > 65536 - 8 ? 65536 : need + 8;
    }
    return NVML_ERROR_INSUFFICIENT_SIZE;
}

static int nd_nvml_processes(struct nd_vendor_ctx *vctx, struct nd_device_state *st, struct nd_error *err)
{
    struct nd_nvml_ctx *c = (struct nd_nvml_ctx *)vctx;
    st->nprocs = 0;
    st->procs_valid = false;
    bool complete = true;
    int rc = 0;
    for (unsigned i = 0; i < c->ndev; i++) {
        if (!c->have_handle[i]) {
            complete = false;
            continue;
        }
        /* Newest generation first. An old driver lacks the symbol or answers
         * FUNCTION_NOT_FOUND; then the next one down is tried. */
        int code = NVML_ERROR_FUNCTION_NOT_FOUND, gen_used = 3;
        for (int gen = 3; gen >= 1 && code == NVML_ERROR_FUNCTION_NOT_FOUND; gen--) {
            void *fn = gen == 3 ? (void *)c->procs_v3 : gen == 2 ? (void *)c->procs_v2 : (void *)c->procs_v1;
            if (!fn)
                continue;
            gen_used = gen;
            code = nd_nvml_list_procs(c, gen, i, st);
        }
        if (code == NVML_SUCCESS)
            continue;
        complete = false;
        /* Not supported (MIG, vGPU): the list is unknown, which is no error. */
        if (code != NVML_ERROR_NOT_SUPPORTED && rc == 0) {
            char what[64];
            snprintf(what, sizeof what, "%s (GPU %u)", nd_nvml_meaning(c, code), i);
            nd_device_state_fail(st, -EIO, nd_nvml_procs_names[gen_used], code, what);
            rc = nd_error_set(err, -EIO, "%s", st->error);
        }
    }
    st->procs_valid = complete;
    return rc;
}

static void nd_nvml_close(struct nd_vendor_ctx *vctx)
{
    nd_nvml_ctx_free((struct nd_nvml_ctx *)vctx);
}

static const char *const nd_nvidia_visible_env[] = {"CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", NULL};
static const char *const nd_nvidia_ctl_nodes[] = {"/dev/nvidiactl",      "/dev/nvidia-uvm",   "/dev/nvidia-uvm-tools",
                                                  "/dev/nvidia-modeset", "/dev/nvidia-caps/", NULL};

const struct nd_vendor nd_vendor_nvidia = {
    .name = "nvidia",
    .label = "NVIDIA",
    .device_word = "gpu",
    .device_noun = "GPU",
    .device_phrase = "NVIDIA GPU",
    .visible_env = nd_nvidia_visible_env,
    .dev_node_prefix = "/dev/nvidia",
    .ctl_nodes = nd_nvidia_ctl_nodes,
    .dev_node_glob = "/dev/nvidia*",
    .smi_tool = "nvidia-smi",
    .install_fix = "install the NVIDIA driver, or run the container with the NVIDIA runtime",
    .bandwidth_fix = "check the link: nvidia-smi -q -d PCIE, lspci -vv (LnkSta)",
    .frameworks = ND_FW_TORCH_CUDA | ND_FW_CUDA | ND_FW_CUDART | ND_FW_NCCL,
    .torch_backend = ND_FW_TORCH_CUDA,
    .frameworks_text = "torch with CUDA (libtorch_cuda, libcudart)",
    .torch_backend_text = "libtorch_cuda",
    .torch_device = "cuda",
    .torch_check = "python3 -c 'import torch; print(torch.cuda.is_available())'",
    .set_device_fix = "give every rank the same environment, and torch.cuda.set_device(LOCAL_RANK) before "
                      "building the model",
    .collective_fix = "NCCL_DEBUG=INFO and TORCH_NCCL_BLOCKING_WAIT=1; device logs: dmesg | grep -i xid",
    .smoke = nd_smoke_cuda,
    .env_findings = nd_env_hints_nvidia,
    .lib_soname = "libnvidia-ml.so.1",
    .lib_override_env = "NPU_DOCTOR_NVML_LIB",
    .lib_dirs = nd_nvml_std_dirs,
    .locate = nd_nvml_locate,
    .open = nd_nvml_open,
    .devices = nd_nvml_devices,
    .sample = nd_nvml_sample,
    .processes = nd_nvml_processes,
    .close = nd_nvml_close,
};
