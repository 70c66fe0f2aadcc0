/* Judgement of the device layer's results: a failed, hung or crashed query
 * and notable vendor codes become findings, and so does a
 * failed runtime smoke test. Pure functions of the state: no I/O here. */
#include <stdio.h>
#include <string.h>
#include <signal.h>

#include "device/device.h"

static bool nd_is_ascend(const struct nd_device_state *st)
{
    return strcmp(st->vendor, "ascend") == 0;
}

static const char *nd_vendor_label(const char *vendor)
{
    const struct nd_vendor *v = nd_vendor_by_name(vendor);
    return v ? v->label : vendor;
}

/* A descriptor field, or fallback for a vendor name we do not know. */
#define ND_VFIELD(vendor, field, fallback)                                                                             \
    (nd_vendor_by_name(vendor) && nd_vendor_by_name(vendor)->field ? nd_vendor_by_name(vendor)->field : (fallback))

/* Category and fix for a vendor code from a failed call. */
struct nd_code_judgement {
    const char *category;
    const char *suffix; /* id: device.<vendor>.<suffix> */
    const char *fix1;
    const char *fix2;
};

static struct nd_code_judgement nd_judge_dcmi(int code)
{
    struct nd_code_judgement j = {ND_CAT_NO_DEVICE, "driver-error", "check the devices with npu-smi info", NULL};
    switch (code) {
    case -8005:
        j.suffix = "driver-inaccessible";
        j.fix1 = "if the driver was upgraded: reboot the node (the loaded driver is older than its library)";
        j.fix2 = "otherwise run as root, or give this user access (group HwHiAiUser, /dev/davinci* permissions)";
        break;
    case -8002:
        j.suffix = "permission-denied";
        j.fix1 = "run as root, or add this user to the HwHiAiUser group and log in again";
        break;
    case -8007:
    case -8008:
        j.suffix = "no-device";
        j.fix1 = "check that the driver sees the devices: npu-smi info; lspci | grep -i d80";
        j.fix2 = "in a container mount /dev/davinciN, /dev/davinci_manager, /dev/devmm_svm and /dev/hisi_hdc";
        break;
    case -8013:
        j.suffix = "container-unsupported";
        j.fix1 = "run this query on the host, or mount the driver tools the container needs "
                 "(/usr/local/Ascend/driver, /usr/local/dcmi)";
        break;
    case -8006:
    case -8012:
    case -8020:
        j.category = ND_CAT_DEVICE_FAULT;
        j.suffix = "device-busy";
        j.fix1 = "wait and retry; check npu-smi info -t health -i N and the device logs in /var/log/npu/slog";
        break;
    default: break;
    }
    return j;
}

static struct nd_code_judgement nd_judge_rsmi(int code)
{
    struct nd_code_judgement j = {ND_CAT_NO_DEVICE, "driver-error", "check the GPUs with rocm-smi (hy-smi on Hygon)",
                                  NULL};
    switch (code) {
    case 8: /* RSMI_STATUS_INIT_ERROR */
    case 3: /* RSMI_STATUS_FILE_ERROR */
        j.suffix = "driver-not-loaded";
        j.fix1 = "load the amdgpu kernel driver (modprobe amdgpu) and check dmesg | grep -i amdgpu";
        j.fix2 = "in a container pass --device /dev/kfd --device /dev/dri";
        break;
    case 4: /* RSMI_STATUS_PERMISSION */
        j.suffix = "permission-denied";
        j.fix1 = "add this user to the render and video groups (usermod -aG render,video USER), or run as root";
        break;
    case 16: /* RSMI_STATUS_BUSY */
        j.category = ND_CAT_DEVICE_FAULT;
        j.suffix = "device-busy";
        j.fix1 = "wait and retry; check rocm-smi and dmesg | grep -i amdgpu";
        break;
    default: break;
    }
    return j;
}

static struct nd_code_judgement nd_judge_nvml(int code)
{
    struct nd_code_judgement j = {ND_CAT_NO_DEVICE, "driver-error", "check the GPUs with nvidia-smi", NULL};
    switch (code) {
    case 18: /* NVML_ERROR_LIB_RM_VERSION_MISMATCH */
        j.category = ND_CAT_VERSION_MISMATCH;
        j.suffix = "driver-library-mismatch";
        j.fix1 = "the driver was upgraded without a reboot: reboot the node (or reload the nvidia kernel modules)";
        break;
    case 9: /* NVML_ERROR_DRIVER_NOT_LOADED */
        j.suffix = "driver-not-loaded";
        j.fix1 = "load the driver (modprobe nvidia) or install it; in a container use --gpus all / the NVIDIA runtime";
        break;
    case 4: /* NVML_ERROR_NO_PERMISSION */
        j.suffix = "permission-denied";
        j.fix1 = "give this user access to /dev/nvidia* (group video), or run as root";
        break;
    case 6: /* NVML_ERROR_NOT_FOUND */ j.suffix = "no-device"; break;
    case 15: /* NVML_ERROR_GPU_IS_LOST */
        j.category = ND_CAT_DEVICE_FAULT;
        j.suffix = "gpu-lost";
        j.fix1 = "the GPU fell off the bus: check dmesg for Xid errors, then reset or reboot";
        break;
    default: break;
    }
    return j;
}

static void nd_add_common_evidence(struct nd_finding *f, const struct nd_device_state *st, bool with_lib)
{
    if (with_lib && st->lib_found && st->lib_path[0])
        nd_finding_add_evidence(f, NULL, 0, "library: %s", st->lib_path);
    if (st->driver_version_valid)
        nd_finding_add_evidence(f, NULL, 0, "driver version: %s", st->driver_version);
}

static void nd_failed_state_findings(const struct nd_device_state *st, struct nd_findings *out)
{
    const char *label = nd_vendor_label(st->vendor);
    const char *tool = ND_VFIELD(st->vendor, smi_tool, "the vendor's smi tool");
    char id[96];
    struct nd_finding *f;
    if (st->timed_out || st->crashed) {
        snprintf(id, sizeof id, "device.%s.%s", st->vendor, st->timed_out ? "hung" : "crashed");
        f = nd_findings_add(out, id, ND_CAT_DEVICE_FAULT, ND_SEV_ERROR, "%s driver library %s%s%s", label,
                            st->timed_out ? "hung" : "crashed", st->failed_call[0] ? " in " : "", st->failed_call);
        nd_finding_add_evidence(f, NULL, 0, "%s", st->error);
        nd_add_common_evidence(f, st, true);
        if (st->timed_out)
            nd_finding_set_cause(f, "The call into the vendor library never returned; a job that initialises the "
                                    "device the same way will hang too.");
        else
            nd_finding_set_cause(f,
                                 "The vendor library crashed the process%s%s; a job that initialises the device "
                                 "the same way will crash too.",
                                 st->crash_signal ? " with SIG" : "",
                                 st->crash_signal && sigabbrev_np(st->crash_signal) ? sigabbrev_np(st->crash_signal)
                                                                                    : "");
        nd_finding_add_fix(f,
                           "run %s; if it hangs too, the driver is stuck: check dmesg, then reset the device or "
                           "reboot the node",
                           tool);
        f->confidence = ND_CONF_HIGH;
        return;
    }
    if (!st->lib_found) {
        /* Not an error by itself: most machines have one vendor only. The
         * check command raises it when device files say otherwise. */
        snprintf(id, sizeof id, "device.%s.library-missing", st->vendor);
        f = nd_findings_add(out, id, ND_CAT_NO_DEVICE, ND_SEV_INFO, "%s driver library not found", label);
        nd_finding_add_evidence(f, NULL, 0, "%s", st->error[0] ? st->error : "library not found");
        nd_finding_add_fix(f, "%s", ND_VFIELD(st->vendor, install_fix, "install the vendor's driver"));
        f->confidence = ND_CONF_MEDIUM;
        return;
    }
    if (strcmp(st->failed_call, "dlopen") == 0 || strcmp(st->failed_call, "dlsym") == 0) {
        snprintf(id, sizeof id, "device.%s.library-broken", st->vendor);
        f = nd_findings_add(out, id, ND_CAT_NO_DEVICE, ND_SEV_ERROR, "%s driver library cannot be used", label);
        nd_finding_add_evidence(f, NULL, 0, "%s", st->error);
        nd_finding_add_fix(f, "reinstall the driver package, or point %s at the right library",
                           ND_VFIELD(st->vendor, lib_override_env, "the library override variable"));
        f->confidence = ND_CONF_HIGH;
        return;
    }
    struct nd_code_judgement j = nd_is_ascend(st)                  ? nd_judge_dcmi(st->vendor_code)
                                 : strcmp(st->vendor, "rocm") == 0 ? nd_judge_rsmi(st->vendor_code)
                                                                   : nd_judge_nvml(st->vendor_code);
    snprintf(id, sizeof id, "device.%s.%s", st->vendor, j.suffix);
    f = nd_findings_add(out, id, j.category, ND_SEV_ERROR, "%s", st->error[0] ? st->error : "device query failed");
    /* The title already carries the meaning; the evidence is the raw fact. */
    if (st->failed_call[0])
        nd_finding_add_evidence(f, NULL, 0, "%s returned %d (%s)", st->failed_call, st->vendor_code,
                                st->lib_path[0] ? st->lib_path : st->vendor);
    else
        nd_finding_add_evidence(f, NULL, 0, "%s", st->error[0] ? st->error : "device query failed");
    nd_add_common_evidence(f, st, false);
    nd_finding_set_cause(f, "The %s driver library refused the query, so a job cannot use the devices either.", label);
    nd_finding_add_fix(f, "%s", j.fix1);
    if (j.fix2)
        nd_finding_add_fix(f, "%s", j.fix2);
    f->confidence = ND_CONF_HIGH;
}

void nd_device_state_findings(const struct nd_device_state *st, struct nd_findings *out)
{
    if (!st || !out)
        return;
    if (st->status < 0) {
        nd_failed_state_findings(st, out);
        return;
    }
    const char *label = nd_vendor_label(st->vendor);
    char id[96];
    if (st->ndevices == 0) {
        snprintf(id, sizeof id, "device.%s.no-devices", st->vendor);
        struct nd_finding *f = nd_findings_add(out, id, ND_CAT_NO_DEVICE, ND_SEV_ERROR,
                                               "the %s driver reports no devices", label);
        nd_add_common_evidence(f, st, true);
        nd_finding_add_fix(f, "check %s and the device files %s", ND_VFIELD(st->vendor, smi_tool, "the smi tool"),
                           ND_VFIELD(st->vendor, dev_node_glob, "in /dev"));
    }
    /* Ascend health: 1 warning, 2 alarm, 3 critical. */
    for (size_t i = 0; i < st->ndevices; i++) {
        const struct nd_device *d = &st->devices[i];
        if (!d->health_valid || d->health == 0 || !nd_is_ascend(st))
            continue;
        static const char *const names[] = {"OK", "Warning", "Alarm", "Critical"};
        const char *h = d->health < 4 ? names[d->health] : "unknown";
        snprintf(id, sizeof id, "device.%s.health", st->vendor);
        struct nd_finding *f = nd_findings_add(out, id, ND_CAT_DEVICE_FAULT,
                                               d->health >= 2 ? ND_SEV_ERROR : ND_SEV_WARNING,
                                               "NPU %d reports health %s", d->index, h);
        nd_finding_add_evidence(f, NULL, 0, "dcmi_get_device_health(card %d, chip %d) = %u (%s)", d->card_id,
                                d->chip_id, d->health, h);
        nd_finding_add_fix(f, "npu-smi info -t health -i %d shows the alarm codes; see /var/log/npu/slog", d->card_id);
        f->confidence = ND_CONF_HIGH;
    }
    if (st->warning[0]) {
        snprintf(id, sizeof id, "device.%s.partial", st->vendor);
        struct nd_finding *f = nd_findings_add(out, id, ND_CAT_DEVICE_FAULT, ND_SEV_INFO,
                                               "some %s device facts are unavailable", label);
        nd_finding_add_evidence(f, NULL, 0, "%s", st->warning);
        f->confidence = ND_CONF_LOW;
    }
}

size_t nd_smoke_flag_slow(struct nd_smoke_result *r)
{
    double h[ND_MAX_DEVICES], d[ND_MAX_DEVICES];
    size_t n = 0;
    for (size_t i = 0; i < r->ndevices && i < ND_MAX_DEVICES; i++) {
        r->devices[i].bandwidth_low = false;
        if (r->devices[i].bandwidth_valid) {
            h[n] = r->devices[i].h2d_gbps;
            d[n] = r->devices[i].d2h_gbps;
            n++;
        }
    }
    if (n < 2)
        return 0;
    /* Median by insertion sort: at most 64 values. */
    for (size_t i = 1; i < n; i++)
        for (size_t k = i; k > 0 && h[k - 1] > h[k]; k--) {
            double t = h[k];
            h[k] = h[k - 1];
            h[k - 1] = t;
        }
    for (size_t i = 1; i < n; i++)
        for (size_t k = i; k > 0 && d[k - 1] > d[k]; k--) {
            double t = d[k];
            d[k] = d[k - 1];
            d[k - 1] = t;
        }
    double mh = n % 2 ? h[n / 2] : (h[n / 2 - 1] + h[n / 2]) / 2;
    double md = n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
    size_t marked = 0;
    for (size_t i = 0; i < r->ndevices && i < ND_MAX_DEVICES; i++) {
        struct nd_smoke_device *s = &r->devices[i];
        if (s->bandwidth_valid && (s->h2d_gbps < mh / 2 || s->d2h_gbps < md / 2)) {
            s->bandwidth_low = true;
            marked++;
        }
    }
    return marked;
}

static const char *nd_smoke_category(const struct nd_smoke_result *r)
{
    const char *c = r->failed_call;
    if (strcmp(r->vendor, "nvidia") == 0) {
        if (r->code == 803) /* CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: driver and libcuda differ */
            return ND_CAT_VERSION_MISMATCH;
        if (r->code == 34) /* CUDA_ERROR_STUB_LIBRARY: the toolkit's link stub was loaded */
            return ND_CAT_ENV_NOT_LOADED;
    }
    if (strcmp(c, "aclInit") == 0 || r->code == 500001 || strcmp(c, "dlsym") == 0)
        return ND_CAT_ENV_NOT_LOADED;
    if (strcmp(c, "dlopen") == 0 && !r->lib_found)
        return ND_CAT_ENV_NOT_LOADED;
    if (r->code == 207001 || r->code == 200000 || r->code == 2 /* CUDA_ERROR_OUT_OF_MEMORY */)
        return ND_CAT_DEVICE_OOM;
    if (strcmp(c, "aclrtGetDeviceCount") == 0 || strcmp(c, "aclrtSetDevice") == 0 || r->code == 207004 ||
        r->code == 107001 || r->code == 200002 || strcmp(c, "cuDeviceGetCount") == 0 || strcmp(c, "cuInit") == 0)
        return ND_CAT_NO_DEVICE;
    return ND_CAT_DEVICE_FAULT;
}

void nd_smoke_findings(const struct nd_smoke_result *r, struct nd_findings *out)
{
    if (!r || !out)
        return;
    const char *label = nd_vendor_label(r->vendor);
    char id[96];
    if (r->status < 0) {
        snprintf(id, sizeof id, "device.%s.smoke-failed", r->vendor);
        struct nd_finding *f = nd_findings_add(out, id, nd_smoke_category(r), ND_SEV_ERROR,
                                               "%s runtime smoke test failed%s%s", label,
                                               r->failed_call[0] ? " in " : "", r->failed_call);
        nd_finding_add_evidence(f, NULL, 0, "%s", r->error[0] ? r->error : "smoke test failed");
        if (r->lib_found && r->lib_path[0])
            nd_finding_add_evidence(f, NULL, 0, "runtime library: %s", r->lib_path);
        if (r->meaning[0])
            nd_finding_set_cause(f, "%s%s", r->meaning, r->code ? "." : ".");
        if (r->fix[0])
            nd_finding_add_fix(f, "%s", r->fix);
        f->confidence = ND_CONF_HIGH;
    }
    for (size_t i = 0; i < r->ndevices && i < ND_MAX_DEVICES; i++) {
        const struct nd_smoke_device *s = &r->devices[i];
        if (!s->bandwidth_low)
            continue;
        snprintf(id, sizeof id, "device.%s.bandwidth-low", r->vendor);
        struct nd_finding *f = nd_findings_add(out, id, ND_CAT_DEVICE_FAULT, ND_SEV_WARNING,
                                               "%s device %d copies far slower than its siblings", label, s->index);
        nd_finding_add_evidence(f, NULL, 0, "device %d: host->device %.1f GB/s, device->host %.1f GB/s", s->index,
                                s->h2d_gbps, s->d2h_gbps);
        nd_finding_set_cause(f, "A PCIe link trained at a lower width or speed, or a device placed on a remote NUMA "
                                "node, slows every transfer to it.");
        nd_finding_add_fix(f, "%s", ND_VFIELD(r->vendor, bandwidth_fix, "check the link: lspci -vv (LnkSta)"));
        f->confidence = ND_CONF_MEDIUM;
    }
}
