/* The ROCm backend of the device vtable (device/device.h): ROCm SMI
 * (librocm_smi64.so) opened with dlopen, its symbols declared here from
 * docs/vendor-apis.md. It serves AMD Instinct GPUs and Hygon DCUs, whose DTK
 * ships the same library. Runs inside the guarded child of nd_device_query /
 * the device session, never in the tool's own process. */
#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "device/device.h"

/* ROCm SMI's own types, as published (rocm_smi.h). rsmi_status_t and the
 * enums are ints; a process entry has this layout in every release that
 * reports vram_usage. */
struct rsmi_process_info {
    uint32_t process_id;
    uint32_t pasid;
    uint64_t vram_usage;
    uint64_t sdma_usage;
    uint32_t cu_occupancy;
};

#define RSMI_STATUS_SUCCESS 0
#define RSMI_STATUS_NOT_SUPPORTED 2
#define RSMI_STATUS_NOT_FOUND 10
#define RSMI_STATUS_INSUFFICIENT_SIZE 11
#define RSMI_MEM_TYPE_VRAM 0
#define RSMI_SW_COMP_DRIVER 0

typedef int (*rsmi_init_fn)(uint64_t flags);
typedef int (*rsmi_void_fn)(void);
typedef int (*rsmi_count_fn)(uint32_t *n);
typedef int (*rsmi_name_fn)(uint32_t dev, char *buf, size_t len);
typedef int (*rsmi_busy_fn)(uint32_t dev, uint32_t *pct);
typedef int (*rsmi_mem_fn)(uint32_t dev, int type, uint64_t *bytes);
typedef int (*rsmi_version_fn)(int component, char *buf, uint32_t len);
typedef int (*rsmi_status_string_fn)(int status, const char **text);
typedef int (*rsmi_procs_fn)(struct rsmi_process_info *procs, uint32_t *n);
typedef int (*rsmi_proc_gpus_fn)(uint32_t pid, uint32_t *devs, uint32_t *n);
typedef int (*rsmi_proc_by_pid_fn)(uint32_t pid, struct rsmi_process_info *proc);
typedef int (*rsmi_proc_by_dev_fn)(uint32_t pid, uint32_t dev, struct rsmi_process_info *proc);

/* The vtable's opaque context; struct nd_vendor_ctx is only ever a cast of it. */
struct nd_rsmi_ctx {
    void *lib;
    rsmi_init_fn init;
    rsmi_void_fn shutdown;
    rsmi_count_fn count;
    rsmi_name_fn name;
    rsmi_busy_fn busy;
    rsmi_mem_fn mem_total, mem_used;
    rsmi_version_fn version;
    rsmi_status_string_fn status_string;
    rsmi_procs_fn procs;
    rsmi_proc_gpus_fn proc_gpus;
    rsmi_proc_by_pid_fn proc_by_pid;
    rsmi_proc_by_dev_fn proc_by_dev;
    bool initialised;
    uint32_t ndev;
};

/* ROCm installs are versioned folders (/opt/rocm-6.2.0, with /opt/rocm a
 * link to one); Hygon's DTK uses /opt/dtk-<version>. The list is filled once
 * per process from these patterns, then the distribution's folders. */
static const char *const nd_rsmi_patterns[] = {
    "/opt/rocm/lib", "/opt/rocm/lib64", "/opt/rocm-*/lib", "/opt/dtk/lib", "/opt/dtk-*/lib", "/opt/hyhal/lib", NULL};
static const char *const nd_rsmi_std_dirs[] = {
    "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/lib64", "/lib", NULL};

#define ND_RSMI_MAX_DIRS 40
static char nd_rsmi_dir_buf[ND_RSMI_MAX_DIRS][256];
static const char *nd_rsmi_dirs[ND_RSMI_MAX_DIRS + 1];

static const char *const *nd_rsmi_search_dirs(void)
{
    if (nd_rsmi_dirs[0])
        return nd_rsmi_dirs;
    size_t n = 0;
    for (size_t p = 0; nd_rsmi_patterns[p]; p++) {
        glob_t g;
        if (glob(nd_rsmi_patterns[p], GLOB_NOSORT | GLOB_ONLYDIR, NULL, &g) != 0)
            continue;
        for (size_t i = 0; i < g.gl_pathc && n < ND_RSMI_MAX_DIRS - 6; i++) {
            snprintf(nd_rsmi_dir_buf[n], sizeof nd_rsmi_dir_buf[n], "%s", g.gl_pathv[i]);
            nd_rsmi_dirs[n] = nd_rsmi_dir_buf[n];
            n++;
        }
        globfree(&g);
    }
    for (size_t i = 0; nd_rsmi_std_dirs[i] && n < ND_RSMI_MAX_DIRS; i++)
        nd_rsmi_dirs[n++] = nd_rsmi_std_dirs[i];
    nd_rsmi_dirs[n] = NULL;
    return nd_rsmi_dirs;
}

const char *nd_rsmi_strerror(int code)
{
    switch (code) {
    case 0: return "success";
    case 1: return "invalid arguments";
    case 2: return "not supported on this device or system";
    case 3: return "a sysfs/debugfs file could not be read (kernel driver missing or too old)";
    case 4: return "permission denied: the user cannot read the device files";
    case 5: return "out of memory or another resource";
    case 6: return "an internal exception in ROCm SMI";
    case 7: return "input out of bounds";
    case 8: return "initialisation failed: no amdgpu kernel driver loaded, or /dev/kfd unusable";
    case 9: return "not implemented for this device";
    case 10: return "not found";
    case 11: return "insufficient size";
    case 12: return "interrupted";
    case 13: return "unexpected amount of data";
    case 14: return "no data";
    case 15: return "unexpected data";
    case 16: return "busy: another process holds the resource";
    case 17: return "reference count overflow";
    case 18: return "setting unavailable on this device";
    case 19: return "the amdgpu driver could not be restarted";
    case -1: return "unknown ROCm SMI error";
    default: return "unrecognised ROCm SMI error";
    }
}

static const char *nd_rsmi_meaning(const struct nd_rsmi_ctx *c, int code)
{
    const char *meaning = nd_rsmi_strerror(code);
    if (c && c->status_string && strncmp(meaning, "unrecognised", 12) == 0) {
        const char *lib = NULL;
        if (c->status_string(code, &lib) == RSMI_STATUS_SUCCESS && lib && *lib)
            return lib;
    }
    return meaning;
}

static int nd_rsmi_fail(const struct nd_rsmi_ctx *c, struct nd_device_state *st, struct nd_error *err, const char *call,
                        int code)
{
    nd_device_state_fail(st, -EIO, call, code, nd_rsmi_meaning(c, code));
    return nd_error_set(err, st->status, "%s", st->error);
}

/* A failure on one device: the others still count (the first one wins). */
static void nd_rsmi_warn(const struct nd_rsmi_ctx *c, struct nd_device_state *st, const char *call, int code, uint32_t dev)
{
    if (!st->warning[0])
        snprintf(st->warning, sizeof st->warning, "%s returned %d for device %u: %s", call, code, dev,
                 nd_rsmi_meaning(c, code));
}

static int nd_rsmi_locate(struct nd_device_state *st)
{
    snprintf(st->vendor, sizeof st->vendor, "%s", nd_vendor_rocm.name);
    int rc = nd_device_find_library(nd_vendor_rocm.lib_soname, nd_vendor_rocm.lib_override_env, nd_rsmi_search_dirs(),
                                    st->lib_path, sizeof st->lib_path);
    st->lib_found = rc == 0;
    if (rc == 0)
        return 0;
    st->status = -ENOENT;
    snprintf(st->failed_call, sizeof st->failed_call, "dlopen");
    const char *override = getenv(nd_vendor_rocm.lib_override_env);
    if (override && *override)
        snprintf(st->error, sizeof st->error, "%s=%.300s: no such library", nd_vendor_rocm.lib_override_env, override);
    else
        snprintf(st->error, sizeof st->error, "%s not found: no ROCm or DTK installed, or it is not visible here",
                 nd_vendor_rocm.lib_soname);
    return st->status;
}

static void nd_rsmi_ctx_free(struct nd_rsmi_ctx *c)
{
    if (!c)
        return;
    if (c->initialised && c->shutdown) {
        nd_device_progress("rsmi_shut_down");
        c->shutdown();
    }
    if (c->lib)
        dlclose(c->lib);
    free(c);
}

static int nd_rsmi_resolve(struct nd_rsmi_ctx *c, struct nd_device_state *st, struct nd_error *err)
{
    c->init = (rsmi_init_fn)dlsym(c->lib, "rsmi_init");
    c->shutdown = (rsmi_void_fn)dlsym(c->lib, "rsmi_shut_down");
    c->count = (rsmi_count_fn)dlsym(c->lib, "rsmi_num_monitor_devices");
    c->name = (rsmi_name_fn)dlsym(c->lib, "rsmi_dev_name_get");
    c->busy = (rsmi_busy_fn)dlsym(c->lib, "rsmi_dev_busy_percent_get");
    c->mem_total = (rsmi_mem_fn)dlsym(c->lib, "rsmi_dev_memory_total_get");
    c->mem_used = (rsmi_mem_fn)dlsym(c->lib, "rsmi_dev_memory_usage_get");
    c->version = (rsmi_version_fn)dlsym(c->lib, "rsmi_version_str_get");
    c->status_string = (rsmi_status_string_fn)dlsym(c->lib, "rsmi_status_string");
    c->procs = (rsmi_procs_fn)dlsym(c->lib, "rsmi_compute_process_info_get");
    c->proc_gpus = (rsmi_proc_gpus_fn)dlsym(c->lib, "rsmi_compute_process_gpus_get");
    c->proc_by_pid = (rsmi_proc_by_pid_fn)dlsym(c->lib, "rsmi_compute_process_info_by_pid_get");
    c->proc_by_dev = (rsmi_proc_by_dev_fn)dlsym(c->lib, "rsmi_compute_process_info_by_device_get");
    const char *missing = !c->init       ? "rsmi_init"
                          : !c->shutdown ? "rsmi_shut_down"
                          : !c->count    ? "rsmi_num_monitor_devices"
                                         : NULL;
    if (!missing)
        return 0;
    st->status = -ENOSYS;
    snprintf(st->failed_call, sizeof st->failed_call, "dlsym");
    st->vendor_code = 0;
    snprintf(st->error, sizeof st->error, "%.300s does not export %s: not a usable ROCm SMI library", st->lib_path,
             missing);
    return nd_error_set(err, -ENOSYS, "%s", st->error);
}

static int nd_rsmi_open(struct nd_vendor_ctx **ctx, struct nd_device_state *st, struct nd_error *err)
{
    *ctx = NULL;
    if (nd_rsmi_locate(st) < 0)
        return nd_error_set(err, -ENOENT, "%s", st->error);
    struct nd_rsmi_ctx *c = nd_xcalloc(1, sizeof *c);
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
    int rc = nd_rsmi_resolve(c, st, err);
    if (rc == 0) {
        nd_device_progress("rsmi_init");
        int code = c->init(0);
        if (code != RSMI_STATUS_SUCCESS)
            rc = nd_rsmi_fail(c, st, err, "rsmi_init", code);
        else
            c->initialised = true;
    }
    if (rc != 0) {
        nd_rsmi_ctx_free(c);
        return rc;
    }
    *ctx = (struct nd_vendor_ctx *)c;
    return 0;
}

static int nd_rsmi_devices(struct nd_vendor_ctx *vctx, struct nd_device_state *st, struct nd_error *err)
{
    struct nd_rsmi_ctx *c = (struct nd_rsmi_ctx *)vctx;
    if (c->version) {
        char buf[80] = "";
        nd_device_progress("rsmi_version_str_get");
        if (c->version(RSMI_SW_COMP_DRIVER, buf, sizeof buf) == RSMI_STATUS_SUCCESS) {
            buf[sizeof buf - 1] = '\0';
            snprintf(st->driver_version, sizeof st->driver_version, "%s", buf);
            st->driver_version_valid = st->driver_version[0] != '\0';
        }
    }
    uint32_t n = 0;
    nd_device_progress("rsmi_num_monitor_devices");
    int code = c->count(&n);
    if (code != RSMI_STATUS_SUCCESS)
        return nd_rsmi_fail(c, st, err, "rsmi_num_monitor_devices", code);
    if (n > ND_MAX_DEVICES)
        n = ND_MAX_DEVICES;
    c->ndev = n;
    st->ndevices = n;
    for (uint32_t i = 0; i < n; i++) {
        struct nd_device *d = &st->devices[i];
        memset(d, 0, sizeof *d);
        d->index = (int)i;
        d->card_id = d->chip_id = -1;
        if (!c->name)
            continue;
        char buf[sizeof d->name] = "";
        nd_device_progress("rsmi_dev_name_get");
        code = c->name(i, buf, sizeof buf);
        /* A long marketing name comes back cut to the buffer: still a name. */
        if (code == RSMI_STATUS_SUCCESS || code == RSMI_STATUS_INSUFFICIENT_SIZE) {
            buf[sizeof buf - 1] = '\0';
            snprintf(d->name, sizeof d->name, "%s", buf);
        } else if (code != RSMI_STATUS_NOT_SUPPORTED) {
            nd_rsmi_warn(c, st, "rsmi_dev_name_get", code, i);
        }
    }
    return 0;
}

static int nd_rsmi_sample(struct nd_vendor_ctx *vctx, struct nd_device_state *st, struct nd_error *err)
{
    (void)err;
    struct nd_rsmi_ctx *c = (struct nd_rsmi_ctx *)vctx;
    for (uint32_t i = 0; i < c->ndev && i < st->ndevices; i++) {
        struct nd_device *d = &st->devices[i];
        d->util_valid = d->mem_valid = false;
        if (c->busy) {
            uint32_t pct = 0;
            nd_device_progress("rsmi_dev_busy_percent_get");
            int code = c->busy(i, &pct);
            if (code == RSMI_STATUS_SUCCESS) {
                d->util_valid = true;
                d->util_pct = pct > 100 ? 100 : pct;
            } else if (code != RSMI_STATUS_NOT_SUPPORTED) {
                nd_rsmi_warn(c, st, "rsmi_dev_busy_percent_get", code, i);
            }
        }
        if (c->mem_total && c->mem_used) {
            uint64_t total = 0, used = 0;
            nd_device_progress("rsmi_dev_memory_total_get");
            int code = c->mem_total(i, RSMI_MEM_TYPE_VRAM, &total);
            const char *call = "rsmi_dev_memory_total_get";
            if (code == RSMI_STATUS_SUCCESS) {
                nd_device_progress("rsmi_dev_memory_usage_get");
                code = c->mem_used(i, RSMI_MEM_TYPE_VRAM, &used);
                call = "rsmi_dev_memory_usage_get";
            }
            if (code == RSMI_STATUS_SUCCESS) {
                d->mem_valid = true;
                d->mem_total_bytes = total;
                d->mem_used_bytes = used;
            } else if (code != RSMI_STATUS_NOT_SUPPORTED) {
                nd_rsmi_warn(c, st, call, code, i);
            }
        }
    }
    return 0;
}

static void nd_rsmi_add_proc(struct nd_device_state *st, uint32_t pid, uint32_t dev, bool mem_valid, uint64_t mem)
{
    if (st->nprocs >= ND_MAX_DEVICE_PROCS)
        return;
    struct nd_device_proc *p = &st->procs[st->nprocs++];
    p->pid = (pid_t)pid;
    p->device_index = (int)dev;
    p->mem_valid = mem_valid;
    p->mem_bytes = mem_valid ? mem : 0;
}

/* The devices one process uses, with its VRAM on each: per device where the
 * library has the call, else the process total when it uses one device. */
static int nd_rsmi_proc_devices(struct nd_rsmi_ctx *c, const struct rsmi_process_info *info, struct nd_device_state *st)
{
    uint32_t devs[ND_MAX_DEVICES];
    uint32_t n = ND_MAX_DEVICES;
    nd_device_progress("rsmi_compute_process_gpus_get");
    int code = c->proc_gpus(info->process_id, devs, &n);
    if (code == RSMI_STATUS_NOT_FOUND)
        return RSMI_STATUS_SUCCESS; /* it exited between the two calls */
    if (code != RSMI_STATUS_SUCCESS && code != RSMI_STATUS_INSUFFICIENT_SIZE)
        return code;
    if (n > ND_MAX_DEVICES)
        n = ND_MAX_DEVICES;
    for (uint32_t k = 0; k < n; k++) {
        bool mem_valid = false;
        uint64_t mem = 0;
        if (c->proc_by_dev) {
            struct rsmi_process_info one;
            memset(&one, 0, sizeof one);
            nd_device_progress("rsmi_compute_process_info_by_device_get");
            if (c->proc_by_dev(info->process_id, devs[k], &one) == RSMI_STATUS_SUCCESS) {
                mem_valid = true;
                mem = one.vram_usage;
            }
        } else if (n == 1) {
            mem_valid = true;
            mem = info->vram_usage;
        }
        nd_rsmi_add_proc(st, info->process_id, devs[k], mem_valid, mem);
    }
    return RSMI_STATUS_SUCCESS;
}

static int nd_rsmi_processes(struct nd_vendor_ctx *vctx, struct nd_device_state *st, struct nd_error *err)
{
    struct nd_rsmi_ctx *c = (struct nd_rsmi_ctx *)vctx;
    st->nprocs = 0;
    st->procs_valid = false;
    if (!c->procs || !c->proc_gpus)
        return 0; /* an old library: the list is unknown, which is no error */
    /* The count first, then the list; it can grow in between, so retry. */
    uint32_t cap = 0;
    nd_device_progress("rsmi_compute_process_info_get");
    int code = c->procs(NULL, &cap);
    struct rsmi_process_info *v = NULL;
    uint32_t count = 0;
    for (int attempt = 0; code == RSMI_STATUS_SUCCESS && attempt < 4; attempt++) {
        cap = cap > 65536 - 8 ? 65536 : cap + 8;
        free(v);
        v = nd_xcalloc(cap, sizeof *v);
        count = cap;
        nd_device_progress("rsmi_compute_process_info_get");
        code = c->procs(v, &count);
        if (code != RSMI_STATUS_INSUFFICIENT_SIZE)
            break;
        cap = count > cap ? count : cap * 2;
        code = RSMI_STATUS_SUCCESS;
    }
    if (code == RSMI_STATUS_SUCCESS) {
        for (uint32_t i = 0; i < count && i < cap && code == RSMI_STATUS_SUCCESS; i++)
            code = nd_rsmi_proc_devices(c, &v[i], st);
    }
    free(v);
    if (code == RSMI_STATUS_SUCCESS) {
        st->procs_valid = true;
        return 0;
    }
    if (code == RSMI_STATUS_NOT_SUPPORTED)
        return 0;
    nd_device_state_fail(st, -EIO, "rsmi_compute_process_info_get", code, nd_rsmi_meaning(c, code));
    return nd_error_set(err, -EIO, "%s", st->error);
}

static void nd_rsmi_close(struct nd_vendor_ctx *vctx)
{
    nd_rsmi_ctx_free((struct nd_rsmi_ctx *)vctx);
}

/* ROCm picks devices with HIP_VISIBLE_DEVICES (HIP), ROCR_VISIBLE_DEVICES
 * (the runtime below it) and, for CUDA-ported code, CUDA_VISIBLE_DEVICES. */
static const char *const nd_rocm_visible_env[] = {"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES",
                                                  NULL};
static const char *const nd_rocm_ctl_nodes[] = {"/dev/kfd", NULL};

const struct nd_vendor nd_vendor_rocm = {
    .name = "rocm",
    .label = "ROCm",
    .device_word = "gpu",
    .device_noun = "GPU",
    .device_phrase = "ROCm GPU",
    .visible_env = nd_rocm_visible_env,
    /* Render nodes start at 128; they count only beside /dev/kfd, so an
     * ordinary graphics card without ROCm is not taken for one. */
    .dev_node_prefix = "/dev/dri/renderD",
    .dev_node_base = 128,
    .dev_node_needs = "/dev/kfd",
    .ctl_nodes = nd_rocm_ctl_nodes,
    .dev_node_glob = "/dev/kfd, /dev/dri/renderD*",
    .smi_tool = "rocm-smi (hy-smi on Hygon)",
    .install_fix = "install ROCm (or Hygon DTK), or pass /dev/kfd and /dev/dri into the container and mount "
                   "/opt/rocm",
    .bandwidth_fix = "check the link: rocm-smi --showbus, lspci -vv (LnkSta)",
    .frameworks = ND_FW_TORCH_HIP | ND_FW_HIP | ND_FW_RCCL,
    .torch_backend = ND_FW_TORCH_HIP,
    .frameworks_text = "torch built for ROCm (libtorch_hip, libamdhip64)",
    .torch_backend_text = "libtorch_hip",
    .torch_device = "cuda",
    .torch_check = "python3 -c 'import torch; print(torch.version.hip, torch.cuda.is_available())'",
    .set_device_fix = "give every rank the same environment (HIP_VISIBLE_DEVICES), and "
                      "torch.cuda.set_device(LOCAL_RANK) before building the model",
    .collective_fix = "NCCL_DEBUG=INFO (RCCL reads the same variables); device logs: dmesg | grep -i amdgpu",
    .smoke = NULL,
    .env_findings = nd_env_hints_rocm,
    .lib_soname = "librocm_smi64.so",
    .lib_override_env = "NPU_DOCTOR_RSMI_LIB",
    .lib_dirs = nd_rsmi_std_dirs,
    .locate = nd_rsmi_locate,
    .open = nd_rsmi_open,
    .devices = nd_rsmi_devices,
    .sample = nd_rsmi_sample,
    .processes = nd_rsmi_processes,
    .close = nd_rsmi_close,
};
