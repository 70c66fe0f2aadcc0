/* The Ascend backend (nd_vendor_ascend) through DCMI, libdcmi.so, opened with
 * dlopen. Signatures and struct layouts are declared here from
 * docs/vendor-apis.md (DCMI); the library is never a link dependency.
 * Runs inside a guarded child (query.c): every call is named first with
 * nd_device_progress so that a hang or crash can be attributed. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device.h"
#include "device/device_internal.h"

/* ---- DCMI, as published -------------------------------------------- */

struct dcmi_chip_info {
    unsigned char chip_type[32];
    unsigned char chip_name[32];
    unsigned char chip_ver[32];
    unsigned int aicore_cnt;
};

/* The header comment says KB, but nputop and nvtop read memory_size and
 * memory_usage as MB, and the values real drivers return only make sense
 * as MB (65536 for a 64 GB 910B): we treat them as MB. */
struct dcmi_hbm_info {
    unsigned long long memory_size; /* MB */
    unsigned int freq;
    unsigned long long memory_usage; /* MB */
    int temp;
    unsigned int bandwith_util_rate;
};

struct dcmi_get_memory_info_stru {
    unsigned long long memory_size;      /* MB */
    unsigned long long memory_available; /* MB */
    unsigned int freq;
    unsigned long hugepagesize; /* KB */
    unsigned long hugepages_total;
    unsigned long hugepages_free;
    unsigned int utilize;
    unsigned char reserve[60];
};

struct dcmi_proc_mem_info {
    int proc_id;
    unsigned long proc_mem_usage; /* bytes */
};

#define ND_DCMI_MAX_CARDS 64
#define ND_DCMI_AICORE 2       /* input_type: AI Core utilisation */
#define ND_DCMI_MAX_PROCS 1024 /* room we give the process list */

typedef int (*dcmi_init_fn)(void);
typedef int (*dcmi_get_driver_version_fn)(char *driver_ver, unsigned int len);
typedef int (*dcmi_get_card_list_fn)(int *card_num, int *card_list, int list_len);
typedef int (*dcmi_get_device_num_in_card_fn)(int card_id, int *device_num);
typedef int (*dcmi_get_device_logic_id_fn)(int *logic_id, int card_id, int device_id);
typedef int (*dcmi_get_device_chip_info_fn)(int card_id, int device_id, struct dcmi_chip_info *out);
typedef int (*dcmi_get_device_health_fn)(int card_id, int device_id, unsigned int *health);
typedef int (*dcmi_get_device_utilization_rate_fn)(int card_id, int device_id, int input_type, unsigned int *rate);
typedef int (*dcmi_get_device_memory_info_v3_fn)(int card_id, int device_id, struct dcmi_get_memory_info_stru *out);
typedef int (*dcmi_get_device_hbm_info_fn)(int card_id, int device_id, struct dcmi_hbm_info *out);
typedef int (*dcmi_get_device_resource_info_fn)(int card_id, int device_id, struct dcmi_proc_mem_info *procs,
                                                int *proc_num);
typedef int (*dcmi_get_device_temperature_fn)(int card_id, int device_id, int *celsius);
typedef int (*dcmi_get_device_power_info_fn)(int card_id, int device_id, int *power);

struct nd_vendor_ctx {
    void *lib;
    dcmi_init_fn init;
    dcmi_get_driver_version_fn driver_version;
    dcmi_get_card_list_fn card_list;
    dcmi_get_device_num_in_card_fn device_num_in_card;
    dcmi_get_device_logic_id_fn logic_id;
    dcmi_get_device_chip_info_fn chip_info;
    dcmi_get_device_health_fn health;
    dcmi_get_device_utilization_rate_fn util;
    dcmi_get_device_memory_info_v3_fn mem_v3;
    dcmi_get_device_hbm_info_fn hbm;
    dcmi_get_device_resource_info_fn resource;
    dcmi_get_device_temperature_fn temperature;
    dcmi_get_device_power_info_fn power;
};

/* ---- return codes ---------------------------------------------------- */

const char *nd_dcmi_strerror(int code)
{
    switch (code) {
    case 0: return "success";
    case -8001: return "bad parameter";
    case -8002: return "permission denied: this user may not access the device";
    case -8005:
        return "internal error: the driver was often upgraded without a reboot, "
               "or this user may not access the device";
    case -8006: return "timeout";
    case -8007: return "invalid device id";
    case -8008: return "the device does not exist";
    case -8012: return "the device is not ready";
    case -8013: return "not supported in a container";
    case -8020: return "the resource is occupied";
    case -8255: return "not supported";
    default: return "unknown DCMI error";
    }
}

/* ---- helpers --------------------------------------------------------- */

static void nd_dcmi_warn(struct nd_device_state *st, const char *call, int card, int chip, int code)
{
    if (st->warning[0])
        return;
    snprintf(st->warning, sizeof st->warning, "%s(card %d, chip %d) returned %d: %s", call, card, chip, code,
             nd_dcmi_strerror(code));
}

/* Marks the call (for a hang or crash) and returns the function pointer. */
#define ND_CALL(ctx, field, name) (nd_device_progress(name), (ctx)->field)

static int nd_dcmi_fail(struct nd_device_state *st, struct nd_error *err, const char *call, int code)
{
    int status = code == -8002 ? -EACCES : -EIO;
    nd_device_state_fail(st, status, call, code, nd_dcmi_strerror(code));
    return nd_error_set(err, status, "%s", st->error);
}

static void nd_dcmi_close(struct nd_vendor_ctx *ctx)
{
    if (!ctx)
        return;
    /* DCMI has no de-init; unloading the library is all there is. */
    if (ctx->lib)
        dlclose(ctx->lib);
    free(ctx);
}

static int nd_dcmi_locate(struct nd_device_state *st)
{
    int rc = nd_device_find_library(nd_vendor_ascend.lib_soname, nd_vendor_ascend.lib_override_env,
                                    nd_vendor_ascend.lib_dirs, st->lib_path, sizeof st->lib_path);
    st->lib_found = rc == 0;
    if (rc == 0)
        return 0;
    st->status = -ENOENT;
    snprintf(st->failed_call, sizeof st->failed_call, "dlopen");
    const char *ov = getenv(nd_vendor_ascend.lib_override_env);
    if (ov && *ov)
        snprintf(st->error, sizeof st->error, "libdcmi.so not found at %s (set by %s)", ov,
                 nd_vendor_ascend.lib_override_env);
    else
        snprintf(st->error, sizeof st->error,
                 "libdcmi.so not found (LD_LIBRARY_PATH, /usr/local/Ascend/driver/lib64/driver, "
                 "/usr/local/dcmi, ld cache): the Ascend driver is not installed or not mounted");
    return st->status;
}

static int nd_dcmi_open(struct nd_vendor_ctx **ctxp, struct nd_device_state *st, struct nd_error *err)
{
    *ctxp = NULL;
    if (nd_dcmi_locate(st) < 0)
        return nd_error_set(err, -ENOENT, "%s", st->error);
    struct nd_vendor_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return nd_error_set(err, -ENOMEM, "out of memory");
    nd_device_progress("dlopen");
    ctx->lib = dlopen(st->lib_path, RTLD_NOW | RTLD_LOCAL);
    if (!ctx->lib) {
        const char *why = dlerror();
        st->status = -ELIBBAD;
        snprintf(st->failed_call, sizeof st->failed_call, "dlopen");
        snprintf(st->error, sizeof st->error, "cannot load %.300s: %.150s", st->lib_path, why ? why : "unknown reason");
        free(ctx);
        return nd_error_set(err, -ELIBBAD, "%s", st->error);
    }
    /* The symbols every DCMI has; the rest are optional (older drivers). */
    struct {
        void **slot;
        const char *name;
        bool required;
    } syms[] = {
        {(void **)&ctx->init, "dcmi_init", true},
        {(void **)&ctx->card_list, "dcmi_get_card_list", true},
        {(void **)&ctx->device_num_in_card, "dcmi_get_device_num_in_card", true},
        {(void **)&ctx->logic_id, "dcmi_get_device_logic_id", false},
        {(void **)&ctx->driver_version, "dcmi_get_driver_version", false},
        {(void **)&ctx->chip_info, "dcmi_get_device_chip_info", false},
        {(void **)&ctx->health, "dcmi_get_device_health", false},
        {(void **)&ctx->util, "dcmi_get_device_utilization_rate", false},
        {(void **)&ctx->mem_v3, "dcmi_get_device_memory_info_v3", false},
        {(void **)&ctx->hbm, "dcmi_get_device_hbm_info", false},
        {(void **)&ctx->resource, "dcmi_get_device_resource_info", false},
        {(void **)&ctx->temperature, "dcmi_get_device_temperature", false},
        {(void **)&ctx->power, "dcmi_get_device_power_info", false},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        *syms[i].slot = dlsym(ctx->lib, syms[i].name);
        if (!*syms[i].slot && syms[i].required) {
            st->status = -ELIBBAD;
            snprintf(st->failed_call, sizeof st->failed_call, "dlsym");
            snprintf(st->error, sizeof st->error, "%.300s lacks %s: not a DCMI library, or a very old driver",
                     st->lib_path, syms[i].name);
            nd_dcmi_close(ctx);
            return nd_error_set(err, -ELIBBAD, "%s", st->error);
        }
    }
    int rc = ND_CALL(ctx, init, "dcmi_init")();
    if (rc != 0) {
        nd_dcmi_fail(st, err, "dcmi_init", rc);
        nd_dcmi_close(ctx);
        return st->status;
    }
    if (ctx->driver_version) {
        char ver[sizeof st->driver_version];
        memset(ver, 0, sizeof ver);
        if (ND_CALL(ctx, driver_version, "dcmi_get_driver_version")(ver, sizeof ver - 1) == 0 && ver[0]) {
            memcpy(st->driver_version, ver, sizeof ver);
            st->driver_version_valid = true;
        }
    }
    *ctxp = ctx;
    return 0;
}

static void nd_copy_chip_str(char *dst, size_t size, const unsigned char *src, size_t srclen)
{
    size_t n = strnlen((const char *)src, srclen);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int nd_dcmi_cmp_index(const void *a, const void *b)
{
    const struct nd_device *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

static int nd_dcmi_devices(struct nd_vendor_ctx *ctx, struct nd_device_state *st, struct nd_error *err)
{
    int cards[ND_DCMI_MAX_CARDS];
    int ncards = 0;
    int rc = ND_CALL(ctx, card_list, "dcmi_get_card_list")(&ncards, cards, ND_DCMI_MAX_CARDS);
    if (rc != 0)
        return nd_dcmi_fail(st, err, "dcmi_get_card_list", rc);
    if (ncards < 0 || ncards > ND_DCMI_MAX_CARDS)
        ncards = ncards < 0 ? 0 : ND_DCMI_MAX_CARDS;
    st->ndevices = 0;
    for (int c = 0; c < ncards; c++) {
        int nchips = 0;
        rc = ND_CALL(ctx, device_num_in_card, "dcmi_get_device_num_in_card")(cards[c], &nchips);
        if (rc != 0)
            return nd_dcmi_fail(st, err, "dcmi_get_device_num_in_card", rc);
        for (int chip = 0; chip < nchips && st->ndevices < ND_MAX_DEVICES; chip++) {
            struct nd_device d;
            memset(&d, 0, sizeof d);
            d.card_id = cards[c];
            d.chip_id = chip;
            d.index = (int)st->ndevices; /* without logic ids: enumeration order */
            if (ctx->logic_id) {
                int logic = -1;
                rc = ND_CALL(ctx, logic_id, "dcmi_get_device_logic_id")(&logic, cards[c], chip);
                if (rc != 0)
                    return nd_dcmi_fail(st, err, "dcmi_get_device_logic_id", rc);
                d.index = logic;
            }
            if (ctx->chip_info) {
                struct dcmi_chip_info ci;
                memset(&ci, 0, sizeof ci);
                rc = ND_CALL(ctx, chip_info, "dcmi_get_device_chip_info")(cards[c], chip, &ci);
                if (rc == 0)
                    nd_copy_chip_str(d.name, sizeof d.name, ci.chip_name, sizeof ci.chip_name);
                else
                    nd_dcmi_warn(st, "dcmi_get_device_chip_info", cards[c], chip, rc);
            }
            st->devices[st->ndevices++] = d;
        }
    }
    qsort(st->devices, st->ndevices, sizeof st->devices[0], nd_dcmi_cmp_index);
    return 0;
}

/* Memory: HBM where the chip has it (910 series), otherwise the v3 memory
 * info (310 series DDR). Both report MB. */
static void nd_dcmi_memory(struct nd_vendor_ctx *ctx, struct nd_device_state *st, struct nd_device *d)
{
    d->mem_valid = false;
    int rc = -8255;
    if (ctx->hbm) {
        struct dcmi_hbm_info h;
        memset(&h, 0, sizeof h);
        rc = ND_CALL(ctx, hbm, "dcmi_get_device_hbm_info")(d->card_id, d->chip_id, &h);
        if (rc == 0 && h.memory_size > 0) {
            d->mem_total_bytes = (uint64_t)h.memory_size << 20;
            d->mem_used_bytes = (uint64_t)h.memory_usage << 20;
            d->mem_valid = true;
            return;
        }
    }
    if (ctx->mem_v3) {
        struct dcmi_get_memory_info_stru m;
        memset(&m, 0, sizeof m);
        rc = ND_CALL(ctx, mem_v3, "dcmi_get_device_memory_info_v3")(d->card_id, d->chip_id, &m);
        if (rc == 0 && m.memory_size > 0) {
            uint64_t avail = m.memory_available < m.memory_size ? m.memory_available : m.memory_size;
            d->mem_total_bytes = (uint64_t)m.memory_size << 20;
            d->mem_used_bytes = (uint64_t)(m.memory_size - avail) << 20;
            d->mem_valid = true;
            return;
        }
        if (rc != 0 && rc != -8255)
            nd_dcmi_warn(st, "dcmi_get_device_memory_info_v3", d->card_id, d->chip_id, rc);
    }
}

static int nd_dcmi_sample(struct nd_vendor_ctx *ctx, struct nd_device_state *st, struct nd_error *err)
{
    (void)err;
    for (size_t i = 0; i < st->ndevices; i++) {
        struct nd_device *d = &st->devices[i];
        int rc;
        d->health_valid = d->util_valid = d->temp_valid = d->power_valid = false;
        if (ctx->health) {
            unsigned h = 0;
            rc = ND_CALL(ctx, health, "dcmi_get_device_health")(d->card_id, d->chip_id, &h);
            if (rc == 0 && h <= 3) {
                d->health = h;
                d->health_valid = true;
            } else if (rc != 0) {
                nd_dcmi_warn(st, "dcmi_get_device_health", d->card_id, d->chip_id, rc);
            }
        }
        if (ctx->util) {
            unsigned u = 0;
            rc = ND_CALL(ctx, util, "dcmi_get_device_utilization_rate")(d->card_id, d->chip_id, ND_DCMI_AICORE, &u);
            if (rc == 0 && u <= 100) {
                d->util_pct = u;
                d->util_valid = true;
            } else if (rc != 0) {
                nd_dcmi_warn(st, "dcmi_get_device_utilization_rate", d->card_id, d->chip_id, rc);
            }
        }
        nd_dcmi_memory(ctx, st, d);
        if (ctx->temperature) {
            int t = 0;
            rc = ND_CALL(ctx, temperature, "dcmi_get_device_temperature")(d->card_id, d->chip_id, &t);
            if (rc == 0) {
                d->temp_c = t;
                d->temp_valid = true;
            }
        }
        if (ctx->power) {
            int p = 0;
            rc = ND_CALL(ctx, power, "dcmi_get_device_power_info")(d->card_id, d->chip_id, &p);
            if (rc == 0 && p >= 0) {
                d->power_w = p / 10.0; /* DCMI reports 0.1 W units */
                d->power_valid = true;
            }
        }
    }
    nd_device_progress("");
    return 0;
}

static int nd_dcmi_processes(struct nd_vendor_ctx *ctx, struct nd_device_state *st, struct nd_error *err)
{
    st->procs_valid = false;
    st->nprocs = 0;
    if (!ctx->resource)
        return nd_error_set(err, -ENOSYS, "this DCMI has no dcmi_get_device_resource_info");
    struct dcmi_proc_mem_info *buf = calloc(ND_DCMI_MAX_PROCS, sizeof *buf);
    if (!buf)
        return nd_error_set(err, -ENOMEM, "out of memory");
    for (size_t i = 0; i < st->ndevices; i++) {
        const struct nd_device *d = &st->devices[i];
        int n = ND_DCMI_MAX_PROCS; /* some drivers read it as the capacity */
        int rc = ND_CALL(ctx, resource, "dcmi_get_device_resource_info")(d->card_id, d->chip_id, buf, &n);
        if (rc != 0) {
            free(buf);
            st->nprocs = 0;
            nd_dcmi_fail(st, err, "dcmi_get_device_resource_info", rc);
            return st->status;
        }
        if (n < 0)
            n = 0;
        if (n > ND_DCMI_MAX_PROCS)
            n = ND_DCMI_MAX_PROCS;
        for (int k = 0; k < n && st->nprocs < ND_MAX_DEVICE_PROCS; k++) {
            struct nd_device_proc *p = &st->procs[st->nprocs++];
            p->pid = (pid_t)buf[k].proc_id;
            p->device_index = d->index;
            p->mem_valid = true;
            p->mem_bytes = (uint64_t)buf[k].proc_mem_usage;
        }
    }
    free(buf);
    nd_device_progress("");
    st->procs_valid = true;
    return 0;
}

static const char *const nd_ascend_visible_env[] = {"ASCEND_RT_VISIBLE_DEVICES", "ASCEND_VISIBLE_DEVICES", NULL};
static const char *const nd_ascend_ctl_nodes[] = {"/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc", NULL};

const struct nd_vendor nd_vendor_ascend = {
    .name = "ascend",
    .label = "Ascend",
    .device_word = "npu",
    .device_noun = "NPU",
    .device_phrase = "Ascend NPU",
    .visible_env = nd_ascend_visible_env,
    .dev_node_prefix = "/dev/davinci",
    .ctl_nodes = nd_ascend_ctl_nodes,
    .dev_node_glob = "/dev/davinci*",
    .smi_tool = "npu-smi info",
    .install_fix = "install the Ascend driver, or mount /usr/local/Ascend/driver into the container",
    .bandwidth_fix = "check the link: npu-smi info -t pcie-info -i N, lspci -vv (LnkSta)",
    .frameworks = ND_FW_TORCH_NPU | ND_FW_ASCENDCL | ND_FW_HCCL,
    .torch_backend = ND_FW_TORCH_NPU,
    .frameworks_text = "torch_npu or the CANN runtime (libascendcl)",
    .torch_backend_text = "torch_npu",
    .torch_device = "npu",
    .torch_check = "python3 -c 'import torch, torch_npu; print(torch.npu.is_available())'",
    .set_device_fix = "give every rank the same environment (source set_env.sh in the launcher, not in one "
                      "rank's shell), and torch.npu.set_device(LOCAL_RANK) before building the model",
    .collective_fix = "HCCL_CONNECT_TIMEOUT and HCCL_EXEC_TIMEOUT decide how long a collective waits; "
                      "device logs: ~/ascend/log/debug/plog/, npu-smi info",
    .smoke = nd_smoke_ascend,
    .env_findings = nd_env_hints_ascend,
    .lib_soname = "libdcmi.so",
    .lib_override_env = "NPU_DOCTOR_DCMI_LIB",
    .lib_dirs = nd_ascend_dcmi_dirs,
    .locate = nd_dcmi_locate,
    .open = nd_dcmi_open,
    .devices = nd_dcmi_devices,
    .sample = nd_dcmi_sample,
    .processes = nd_dcmi_processes,
    .close = nd_dcmi_close,
};
