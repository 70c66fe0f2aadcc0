/* The pre-flight check as one library call: runs every probe (host, Ascend,
 * NVIDIA, environment, Python, distributed; at level 2+ the import probe, the
 * device layer and the runtime smoke test), turns their facts into check
 * lines, findings and grouped JSON facts. `check` prints the report,
 * `snapshot` keeps its facts, `run`/`watch` use nd_checkup_job_env. */
#include "probe/checkup.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fileio.h"
#include "core/json_util.h"
#include "core/redact.h"
#include "core/rootfs.h"
#include "core/strbuf.h"
#include "device/device.h"
#include "device/device_json.h"
#include "probe/ascend_install.h"
#include "probe/compat.h"
#include "probe/compat_stack.h"
#include "probe/toolkit_version.h"
#include "probe/cuda_install.h"
#include "probe/distributed.h"
#include "probe/envcheck.h"
#include "probe/host.h"
#include "probe/install_probe.h"
#include "probe/pathfmt.h"
#include "probe/pyimport.h"
#include "probe/python.h"
#include "probe/sysinfo.h"
#include "probe/toolkits.h"

struct nd_checkup {
    const struct nd_check_options *opt;
    struct nd_report *rep;
    struct nd_host host;
    struct nd_ascend_install *asc;
    struct nd_cuda_install *cuda;
    struct nd_python *py;
    struct nd_distributed dist;
    struct nd_device_state *dev[ND_MAX_VENDORS]; /* by nd_vendors index: NULL when not queried */
    int ascend_devices, cuda_devices;            /* best known counts, -1 unknown */
    struct nd_envcheck_summary env;              /* what the environment leaves visible */
    bool has_ascend, has_nvidia;                 /* the host has that accelerator (files or device layer) */
    struct nd_sysinfo sys;                       /* OS, kernel, glibc, CPU model */
    struct nd_toolkits *tk;                      /* CUDA toolkit, cuDNN, ROCm */
    char py_full[32];                            /* "3.11.7", "" unknown */
};

/* The status of a line from the findings with this id prefix added since mark. */
static enum nd_check_status nd_status_since(const struct nd_report *rep, size_t mark, const char *prefix,
                                            enum nd_check_status ok)
{
    enum nd_check_status s = ok;
    for (size_t i = mark; i < rep->findings.n; i++) {
        const struct nd_finding *f = rep->findings.v[i];
        if (prefix && strncmp(f->id, prefix, strlen(prefix)) != 0)
            continue;
        if (f->severity == ND_SEV_ERROR)
            return ND_CHECK_FAIL;
        if (f->severity == ND_SEV_WARNING)
            s = ND_CHECK_WARN;
    }
    return s;
}

static void nd_fmt_bytes(uint64_t b, char *out, size_t size)
{
    nd_format_bytes((unsigned long long)b, out, size);
}

/* ---- host ---- */

static void nd_do_host(struct nd_checkup *c)
{
    struct nd_report *rep = c->rep;
    struct nd_host *h = &c->host;
    nd_host_probe(c->opt->env, h);
    size_t mark = rep->findings.n;
    nd_host_judge(h, &rep->findings);
    char a[32], b[32];
    const char *area = "Host";
    if (h->mem_valid) {
        nd_fmt_bytes(h->mem_total, a, sizeof a);
        nd_fmt_bytes(h->mem_available, b, sizeof b);
        nd_report_line(rep, area, ND_CHECK_OK, "%ld CPUs, %s memory (%s available)", h->ncpu, a, b);
    } else {
        nd_report_line(rep, area, ND_CHECK_OK, "%ld CPUs", h->ncpu);
    }
    if (h->cgroup_limit_valid) {
        nd_fmt_bytes(h->cgroup_limit, a, sizeof a);
        nd_report_line(rep, area, nd_status_since(rep, mark, "host.memory-limit", ND_CHECK_OK),
                       "cgroup v%d memory limit %s", h->cgroup_version, a);
    }
    if (h->container)
        nd_report_line(rep, area, ND_CHECK_INFO, "in a container (%s)", h->container_kind);
    else
        nd_report_line(rep, area, ND_CHECK_INFO, "not in a container");
    if (h->shm_valid) {
        nd_fmt_bytes(h->shm_total, a, sizeof a);
        nd_report_line(rep, area, nd_status_since(rep, mark, "host.shm", ND_CHECK_OK), "/dev/shm %s", a);
    }
    if (h->nofile_valid)
        nd_report_line(rep, area, nd_status_since(rep, mark, "host.nofile", ND_CHECK_OK), "ulimit -n %" PRIu64,
                       h->nofile_soft);
    if (h->disk_valid) {
        nd_fmt_bytes(h->disk_free, a, sizeof a);
        nd_report_line(rep, area, nd_status_since(rep, mark, "host.disk", ND_CHECK_OK), "%s free on /", a);
    }
}

/* ---- Ascend and NVIDIA installs ---- */

static void nd_do_ascend(struct nd_checkup *c)
{
    struct nd_report *rep = c->rep;
    struct nd_ascend_install *a = c->asc;
    nd_ascend_probe(a);
    size_t mark = rep->findings.n;
    nd_ascend_judge(a, &rep->findings);
    const char *area = "Ascend";
    if (!nd_ascend_any(a)) {
        nd_report_line(rep, area, ND_CHECK_INFO, "no Ascend driver, CANN toolkit or NPU device files");
        return;
    }
    if (a->driver_present)
        nd_report_line(rep, area, nd_status_since(rep, mark, "ascend.driver", ND_CHECK_OK), "driver %s (%s)",
                       a->driver_version[0] ? a->driver_version : "version unknown", a->driver_version_file);
    else if (a->driver_lib[0] && a->ndavinci)
        nd_report_line(rep, area, nd_status_since(rep, mark, "ascend.driver", ND_CHECK_WARN),
                       "driver libraries present (%s), version unknown: no %s", a->driver_lib, a->driver_version_file);
    else
        nd_report_line(rep, area, a->ndavinci ? ND_CHECK_FAIL : ND_CHECK_INFO, "no NPU driver (%s)",
                       a->driver_version_file);
    if (a->firmware_present)
        nd_report_line(rep, area, nd_status_since(rep, mark, "ascend.firmware", ND_CHECK_OK), "firmware %s%s%s%s%s%s",
                       a->firmware_version[0] ? a->firmware_version : "version unknown",
                       a->fw_range_valid ? " (driver accepts " : "", a->fw_range_valid ? a->fw_range_lo : "",
                       a->fw_range_valid ? " to " : "", a->fw_range_valid ? a->fw_range_hi : "",
                       a->fw_range_valid ? ")" : "");
    if (a->cann_home[0])
        nd_report_line(rep, area, nd_status_since(rep, mark, "ascend.cann", ND_CHECK_OK), "CANN %s at %s (%s layout%s%s)",
                       a->cann_version[0] ? a->cann_version : "(version unknown)", a->cann_home,
                       a->layout == ND_CANN_NEW ? "8.5+" : "classic", strcmp(a->cann_home, a->cann_real) ? " -> " : "",
                       strcmp(a->cann_home, a->cann_real) ? a->cann_real : "");
    else
        nd_report_line(rep, area, ND_CHECK_INFO, "no CANN toolkit");
    if (a->ndavinci) {
        struct nd_strbuf sb = ND_STRBUF_INIT;
        nd_strbuf_init(&sb);
        for (size_t i = 0; i < a->ndavinci && i < 16; i++)
            nd_strbuf_addf(&sb, "%s%d", i ? "," : "", a->davinci[i]);
        if (a->ndavinci > 16)
            nd_strbuf_adds(&sb, ",…");
        nd_report_line(rep, area, nd_status_since(rep, mark, "ascend.device", ND_CHECK_OK),
                       "%zu NPU device file%s (/dev/davinci{%s})%s", a->ndavinci, a->ndavinci == 1 ? "" : "s", sb.buf,
                       a->davinci_manager && a->devmm_svm && a->hisi_hdc ? ", control devices present" : "");
        nd_strbuf_release(&sb);
    } else if (a->driver_present) {
        nd_report_line(rep, area, ND_CHECK_FAIL, "no /dev/davinci* device files");
    }
    if (a->ndavinci || a->driver_present)
        nd_report_line(rep, area, a->npu_smi[0] ? ND_CHECK_OK : ND_CHECK_INFO, "npu-smi %s",
                       a->npu_smi[0] ? a->npu_smi : "not found");
}

static void nd_do_cuda(struct nd_checkup *c)
{
    struct nd_report *rep = c->rep;
    struct nd_cuda_install *n = c->cuda;
    nd_cuda_probe(c->opt->env, n);
    size_t mark = rep->findings.n;
    nd_cuda_judge(n, &rep->findings);
    const char *area = "NVIDIA";
    if (!nd_cuda_any(n)) {
        nd_report_line(rep, area, ND_CHECK_INFO, "no NVIDIA driver or GPU device files");
        return;
    }
    if (n->driver_present)
        nd_report_line(rep, area, ND_CHECK_OK, "driver %s (/proc/driver/nvidia/version)", n->driver_version);
    else
        nd_report_line(rep, area, ND_CHECK_INFO, "no /proc/driver/nvidia/version");
    nd_report_line(rep, area, nd_status_since(rep, mark, "nvidia.", n->ngpu_files ? ND_CHECK_OK : ND_CHECK_FAIL),
                   "%zu GPU device file%s%s", n->ngpu_files, n->ngpu_files == 1 ? "" : "s",
                   n->nvidiactl ? ", /dev/nvidiactl" : "");
    nd_report_line(rep, area, n->libcuda[0] && !n->libcuda_is_stub ? ND_CHECK_OK : ND_CHECK_FAIL, "libcuda %s%s",
                   n->libcuda[0] ? n->libcuda : "not found", n->libcuda_is_stub ? " (stub)" : "");
    nd_report_line(rep, area, n->libnvml[0] ? ND_CHECK_OK : ND_CHECK_WARN, "libnvidia-ml %s",
                   n->libnvml[0] ? n->libnvml : "not found");
}

/* ---- devices (level 2+): the device layer ---- */

/* The vendor's library is there (its own search), or its device nodes are. */
static bool nd_vendor_relevant(const struct nd_vendor *v)
{
    struct nd_device_state *st = nd_xcalloc(1, sizeof *st);
    bool found = v->locate(st) == 0;
    free(st);
    return found || nd_vendor_count_nodes(v) > 0;
}

/* The device state of vendor v, NULL when it was not queried. */
static struct nd_device_state *nd_state_of(const struct nd_checkup *c, const struct nd_vendor *v)
{
    for (size_t k = 0; k < ND_MAX_VENDORS && nd_vendors[k]; k++)
        if (nd_vendors[k] == v)
            return c->dev[k];
    return NULL;
}

/* Devices in the vendor list held by processes of another user. */
static void nd_busy_other_user(struct nd_report *rep, const struct nd_device_state *st)
{
    if (!st->procs_valid)
        return;
    uid_t me = getuid();
    struct nd_finding *f = NULL;
    for (size_t i = 0; i < st->nprocs && i < ND_MAX_DEVICE_PROCS; i++) {
        char path[64], *buf;
        size_t len;
        snprintf(path, sizeof path, "/proc/%ld/status", (long)st->procs[i].pid);
        if (nd_read_file_prefix(path, 64 * 1024, &buf, &len, NULL) < 0)
            continue; /* a host pid we cannot see (container): no owner known */
        const char *u = strstr(buf, "\nUid:");
        long uid = u ? strtol(u + 5, NULL, 10) : -1;
        free(buf);
        if (uid < 0 || (uid_t)uid == me)
            continue;
        if (!f) {
            f = nd_findings_add(&rep->findings, "devices.busy-other-user", ND_CAT_NO_DEVICE, ND_SEV_WARNING,
                                "%s devices are in use by another user's processes", st->vendor);
            nd_finding_set_cause(f, "A job sharing the device competes for its memory and compute.");
            const struct nd_vendor *v = nd_vendor_by_name(st->vendor);
            nd_finding_add_fix(f, "pick free devices with %s, or wait for them",
                               v && v->visible_env && v->visible_env[0] ? v->visible_env[0]
                                                                        : "the visible-devices variable");
        }
        nd_finding_add_evidence(f, NULL, 0, "pid %ld (uid %ld) on device %d", (long)st->procs[i].pid, uid,
                                st->procs[i].device_index);
    }
}

static void nd_do_devices(struct nd_checkup *c)
{
    struct nd_report *rep = c->rep;
    json_t *facts = nd_report_facts(rep, "devices");
    json_t *vendors = json_array();
    for (size_t k = 0; nd_vendors[k] && k < ND_MAX_VENDORS; k++) {
        const struct nd_vendor *v = nd_vendors[k];
        const char *area = v->label;
        if (!nd_vendor_relevant(v))
            continue;
        struct nd_device_state *st = nd_xcalloc(1, sizeof *st);
        nd_device_query(v, c->opt->device_timeout_s > 0 ? c->opt->device_timeout_s : ND_DEVICE_DEFAULT_TIMEOUT, st);
        if (st->status == -ENOSYS) {
            free(st); /* the device layer is not built in: not a finding */
            continue;
        }
        c->dev[k] = st;
        json_array_append_new(vendors, nd_device_layer_json(st, true));
        size_t mark = rep->findings.n;
        nd_device_state_findings(st, &rep->findings);
        if (st->status < 0) {
            nd_report_line(rep, area, ND_CHECK_FAIL, "device query failed: %s", st->error);
            continue;
        }
        size_t busy = 0;
        unsigned util_max = 0;
        for (size_t i = 0; i < st->ndevices; i++)
            if (st->devices[i].util_valid) {
                if (st->devices[i].util_pct > 0)
                    busy++;
                if (st->devices[i].util_pct > util_max)
                    util_max = st->devices[i].util_pct;
            }
        nd_report_line(rep, area, nd_status_since(rep, mark, "device.", st->ndevices ? ND_CHECK_OK : ND_CHECK_FAIL),
                       "%zu device%s via %s: %s%s, %zu busy (max %u%%)", st->ndevices, st->ndevices == 1 ? "" : "s",
                       st->lib_path, st->ndevices ? st->devices[0].name : "-", st->ndevices > 1 ? " …" : "", busy,
                       util_max);
        /* Device files against what the library reports. */
        size_t files = nd_vendor_count_nodes(v);
        if (st->ndevices != files && (files > 0 || st->ndevices > 0) && nd_rootfs_is_default()) {
            struct nd_finding *f = nd_findings_add(
                &rep->findings, "devices.files-mismatch", ND_CAT_NO_DEVICE, ND_SEV_WARNING,
                "%zu %s device file%s but the driver reports %zu device%s", files, v->dev_node_glob,
                files == 1 ? "" : "s", st->ndevices, st->ndevices == 1 ? "" : "s");
            nd_finding_add_evidence(f, NULL, 0, "%zu device file%s; %s lists %zu device%s", files,
                                    files == 1 ? "" : "s", st->lib_path, st->ndevices, st->ndevices == 1 ? "" : "s");
            nd_finding_set_cause(f, "Inside a container only the devices passed in have files; the driver may list "
                                    "more (or a device failed and lost its file).");
            nd_finding_add_fix(f, "pass every device the job should use into the container, and check %s", v->smi_tool);
        }
        nd_busy_other_user(rep, st);
        if (v == &nd_vendor_ascend)
            c->ascend_devices = (int)st->ndevices;
        else if (v == &nd_vendor_nvidia)
            c->cuda_devices = (int)st->ndevices;
    }
    json_object_set_new(facts, "vendors", vendors);
}

static void nd_do_smoke(struct nd_checkup *c)
{
    struct nd_report *rep = c->rep;
    json_t *smoke = json_array();
    size_t measured = 0;
    for (size_t k = 0; k < ND_MAX_VENDORS && nd_vendors[k]; k++) {
        struct nd_device_state *st = c->dev[k];
        if (!st || st->status < 0 || st->ndevices == 0 || !nd_vendors[k]->smoke)
            continue;
        struct nd_smoke_result *r = nd_xcalloc(1, sizeof *r);
        double t = c->opt->device_timeout_s > 0 ? c->opt->device_timeout_s * 4 : 20;
        nd_vendors[k]->smoke(c->opt->level, t, r);
        if (r->status == -ENOSYS) {
            free(r);
            continue;
        }
        if (c->opt->level >= 3)
            nd_smoke_flag_slow(r);
        size_t mark = rep->findings.n;
        nd_smoke_findings(r, &rep->findings);
        const char *area = nd_vendors[k]->label;
        if (r->status < 0) {
            nd_report_line(rep, area, ND_CHECK_FAIL, "runtime smoke test fails in %s: %s", r->failed_call, r->error);
        } else {
            nd_report_line(rep, area, nd_status_since(rep, mark, NULL, ND_CHECK_OK),
                           "runtime smoke test passed on %zu device%s (alloc, copy, compare)", r->ndevices,
                           r->ndevices == 1 ? "" : "s");
            for (size_t i = 0; c->opt->level >= 3 && i < r->ndevices; i++)
                if (r->devices[i].bandwidth_valid && ++measured)
                    nd_report_line(rep, area, r->devices[i].bandwidth_low ? ND_CHECK_WARN : ND_CHECK_OK,
                                   "device %d: host->device %.1f GB/s, device->host %.1f GB/s", r->devices[i].index,
                                   r->devices[i].h2d_gbps, r->devices[i].d2h_gbps);
        }
        json_t *o = json_pack("{s:s,s:b,s:i}", "vendor", r->vendor, "passed", r->status == 0, "device_count",
                              (int)r->ndevices);
        if (r->status < 0)
            json_object_set_new(o, "failed_call", nd_json_str(r->failed_call));
        json_array_append_new(smoke, o);
        free(r);
    }
    json_object_set_new(nd_report_facts(rep, "devices"), "smoke_tests", smoke);
    /* Level 3 must not look like level 2 in silence: say what was skipped and why. */
    if (c->opt->level >= 3 && measured == 0) {
        bool any = false;
        for (size_t k = 0; k < ND_MAX_VENDORS; k++)
            any |= c->dev[k] && c->dev[k]->status == 0 && c->dev[k]->ndevices > 0;
        const char *why = any ? "the runtime smoke test did not pass or measured nothing"
                              : "no device answered (no Ascend NPU or NVIDIA GPU found)";
        nd_report_line(rep, "Devices", ND_CHECK_INFO, "level 3: host<->device bandwidth test skipped: %s", why);
        json_object_set_new(nd_report_facts(rep, "devices"), "bandwidth_skipped", json_string(why));
    }
}

/* ---- installs of vendors that have an install probe (install_probe.h) ---- */

static void nd_do_install_probes(struct nd_checkup *c)
{
    for (size_t i = 0; nd_install_probes[i]; i++) {
        const struct nd_install_probe *p = nd_install_probes[i];
        struct nd_install_ctx ctx = {c->opt->env, c->py, nd_state_of(c, p->vendor), c->opt->level};
        p->run(&ctx, c->rep);
    }
}

/* ---- what collect_env shows: OS, kernel, glibc, CPU, toolkits ---- */

static void nd_do_system(struct nd_checkup *c)
{
    struct nd_report *rep = c->rep;
    struct nd_sysinfo *s = &c->sys;
    nd_sysinfo_probe(s);
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    nd_strbuf_addf(&sb, "%s", s->os_name[0] ? s->os_name : "OS unknown (no os-release)");
    if (s->kernel[0])
        nd_strbuf_addf(&sb, ", kernel %s %s", s->kernel, s->machine);
    if (s->glibc[0])
        nd_strbuf_addf(&sb, ", glibc %s", s->glibc);
    nd_report_line(rep, "Host", ND_CHECK_INFO, "%s", sb.buf);
    if (s->cpu_model[0])
        nd_report_line(rep, "Host", ND_CHECK_INFO, "CPU %s%s%s%s", s->cpu_model, s->cpu_id[0] ? " (" : "", s->cpu_id,
                       s->cpu_id[0] ? ")" : "");
    nd_strbuf_release(&sb);

    /* nvcc is a program: level 1 promises files only unless asked (--report-issue). */
    const struct nd_python *py = c->py;
    const char *sp[ND_PY_MAX_PATH];
    for (size_t i = 0; i < py->npath && i < ND_PY_MAX_PATH; i++)
        sp[i] = py->sys_path[i];
    double nvcc_t = c->opt->level >= 2 || c->opt->run_tools ? 5.0 : 0;
    c->tk = nd_xcalloc(1, sizeof *c->tk);
    nd_toolkits_probe(c->opt->env, sp, py->npath, nvcc_t, c->tk);
    const struct nd_toolkits *t = c->tk;
    nd_strbuf_init(&sb);
    if (t->cuda_version[0])
        nd_strbuf_addf(&sb, "CUDA toolkit %s in %s", t->cuda_version, t->cuda_home);
    if (t->nvcc_version[0])
        nd_strbuf_addf(&sb, "%snvcc %s", sb.len ? ", " : "", t->nvcc_version);
    if (t->cudnn_version[0])
        nd_strbuf_addf(&sb, "%scuDNN %s", sb.len ? ", " : "", t->cudnn_version);
    for (size_t i = 0; i < t->nrocm; i++)
        nd_strbuf_addf(&sb, "%sROCm %s in %s", sb.len ? ", " : "", t->rocm[i].version, t->rocm[i].path);
    if (sb.len)
        nd_report_line(rep, "Toolkits", ND_CHECK_INFO, "%s", sb.buf);
    nd_strbuf_release(&sb);
    if (nd_sysinfo_python_version(py, c->py_full, sizeof c->py_full) < 0)
        c->py_full[0] = '\0';
}

/* ---- environment, Python, compatibility, distributed ---- */

static void nd_do_python(struct nd_checkup *c)
{
    struct nd_report *rep = c->rep;
    struct nd_python *py = c->py;
    nd_python_probe(c->opt->python, c->opt->env, py);
    bool ascend = c->has_ascend;
    bool nvidia = c->has_nvidia;
    size_t mark = rep->findings.n;
    nd_python_judge(py, ascend, nvidia, c->asc->cann_home[0] != '\0', c->asc->cann_version, &rep->findings);
    const char *area = "Python";
    if (!py->found || !py->exe[0]) {
        nd_report_line(rep, area, ND_CHECK_WARN, "%s", py->error[0] ? py->error : "no interpreter");
        return;
    }
    nd_report_line(rep, area, ND_CHECK_OK, "%s -> %s (Python %s, %s)", py->path, py->exe, py->version, py->how);
    const struct nd_py_pkg *t = &py->pkg[ND_PKG_TORCH];
    /* Another accelerator's wheel says so in its local version ("2.5.1+rocm6.2"). */
    char local_build[48] = "build unknown";
    if (py->torch_local[0])
        nd_pfmt(local_build, sizeof local_build, "%s build", py->torch_local);
    if (t->found)
        nd_report_line(rep, area, nd_status_since(rep, mark, "python.torch", ND_CHECK_OK), "torch %s (%s) in %s",
                       t->version,
                       nd_python_torch_cpu_only(py)
                           ? (py->pkg[ND_PKG_TORCH_NPU].found ? "CPU build; torch_npu adds the NPU" : "CPU-only build")
                       : py->torch_cuda[0] ? "CUDA build"
                                           : local_build,
                       t->location);
    else
        nd_report_line(rep, area, ND_CHECK_INFO, "torch not installed for this interpreter");
    if (t->found && py->torch_cuda[0])
        nd_report_line(rep, area, ND_CHECK_INFO, "torch built for CUDA %s", py->torch_cuda);
    const struct nd_py_pkg *n = &py->pkg[ND_PKG_TORCH_NPU];
    if (n->found || ascend)
        nd_report_line(rep, area, n->found ? ND_CHECK_OK : (t->found && ascend ? ND_CHECK_FAIL : ND_CHECK_INFO),
                       "torch_npu %s", n->found ? n->version : "not installed");
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    const int others[] = {ND_PKG_TRANSFORMERS, ND_PKG_ACCELERATE, ND_PKG_DEEPSPEED, ND_PKG_NUMPY};
    for (size_t i = 0; i < 4; i++)
        nd_strbuf_addf(&sb, "%s%s %s", i ? ", " : "", nd_pkg_name(others[i]),
                       py->pkg[others[i]].found ? py->pkg[others[i]].version : "-");
    nd_report_line(rep, area, ND_CHECK_INFO, "%s", sb.buf);
    nd_strbuf_release(&sb);
    if (c->asc->cann_home[0])
        nd_report_line(rep, area, nd_status_since(rep, mark, "python.tbe-deps", ND_CHECK_OK),
                       "tbe compiler dependencies %s",
                       nd_findings_find(&rep->findings, "python.tbe-deps-missing") ? "incomplete" : "installed");
    if (py->nothers > 1)
        nd_report_line(rep, area, nd_status_since(rep, mark, "python.interpreters", ND_CHECK_OK),
                       "%zu different python3 on PATH", py->nothers);
}

/* The pairs beyond torch/torch_npu/CANN and torch/driver: CANN with the NPU
 * driver, torch and torch_npu with Python, the CUDA toolkit and ROCm. */
static void nd_do_compat_stack(struct nd_checkup *c, const char *torch, const char *npu, const char *cann,
                               const char *driver_cuda)
{
    struct nd_report *rep = c->rep;
    const struct nd_python *py = c->py;
    const char *area = "Compatibility";
    char rocm[32];
    nd_rocm_probe(rocm, sizeof rocm);
    struct nd_version_set v = {
        .python = py->found ? py->version : NULL,
        .cann = cann,
        .npu_driver = c->asc->driver_version[0] ? c->asc->driver_version : NULL,
        .nvidia_driver = c->cuda->driver_present ? c->cuda->driver_version : NULL,
        .driver_cuda = driver_cuda,
        .cuda_toolkit = c->cuda->cuda_toolkit,
        .rocm = rocm,
    };
    struct nd_cann_driver dt;
    struct nd_torch_wheels wt;
    struct nd_npu_compat nt;
    struct nd_cuda_compat ct;
    nd_cann_driver_builtin(&dt);
    nd_torch_wheels_builtin(&wt);
    nd_npu_compat_builtin(&nt);
    nd_cuda_compat_builtin(&ct);
    size_t mark = rep->findings.n;
    if (v.cann && v.npu_driver) {
        nd_compat_judge_cann_driver(&dt, v.cann, v.npu_driver, &rep->findings);
        const struct nd_cann_driver_row *r = nd_cann_driver_lookup(&dt, v.cann);
        nd_report_line(rep, area, nd_status_since(rep, mark, "compat.cann-driver", ND_CHECK_OK),
                       "CANN %s, NPU driver %s%s%s%s", v.cann, v.npu_driver, r ? " (published with Ascend HDK " : "",
                       r ? r->hdk : "", r ? ")" : "");
    }
    mark = rep->findings.n;
    nd_compat_judge_torch_python(&wt, torch, v.python, &rep->findings);
    nd_compat_judge_npu_python(&nt, npu, v.python, &rep->findings);
    if (torch && v.python)
        nd_report_line(rep, area, nd_status_since(rep, mark, "compat.torch", ND_CHECK_OK), "torch %s%s%s on Python %s",
                       torch, npu ? ", torch_npu " : "", npu ? npu : "", v.python);
    if (v.cuda_toolkit[0]) {
        mark = rep->findings.n;
        nd_compat_judge_cuda_toolkit(&ct, &wt, v.cuda_toolkit, torch, torch ? py->torch_cuda : NULL, v.nvidia_driver,
                                     v.driver_cuda && *v.driver_cuda ? v.driver_cuda : NULL, &rep->findings);
        nd_report_line(rep, area, nd_status_since(rep, mark, "compat.cuda-toolkit", ND_CHECK_OK),
                       "CUDA toolkit %s (%s)", v.cuda_toolkit, c->cuda->cuda_toolkit_file);
    }
    if (torch && rocm[0]) {
        mark = rep->findings.n;
        nd_compat_judge_rocm(&wt, torch, rocm, &rep->findings);
        nd_report_line(rep, area, nd_status_since(rep, mark, "compat.torch-rocm", ND_CHECK_OK), "torch %s, ROCm %s",
                       torch, rocm);
    }
    nd_cann_driver_release(&dt);
    nd_torch_wheels_release(&wt);
    nd_npu_compat_release(&nt);
    nd_cuda_compat_release(&ct);
}

static void nd_do_compat(struct nd_checkup *c)
{
    struct nd_report *rep = c->rep;
    const struct nd_python *py = c->py;
    const char *torch = py->pkg[ND_PKG_TORCH].found ? py->pkg[ND_PKG_TORCH].version : NULL;
    const char *npu = py->pkg[ND_PKG_TORCH_NPU].found ? py->pkg[ND_PKG_TORCH_NPU].version : NULL;
    const char *cann = c->asc->cann_version[0] ? c->asc->cann_version : NULL;
    const char *area = "Compatibility";
    if (npu) {
        struct nd_npu_compat t;
        nd_npu_compat_builtin(&t);
        size_t mark = rep->findings.n;
        nd_compat_judge_npu(&t, torch, npu, cann, &rep->findings);
        nd_npu_compat_release(&t);
        nd_report_line(rep, area, nd_status_since(rep, mark, "compat.", ND_CHECK_OK), "torch %s, torch_npu %s, CANN %s",
                       torch ? torch : "-", npu, cann ? cann : "-");
    }
    char driver_cuda[32] = "";
    const struct nd_device_state *nv = nd_state_of(c, &nd_vendor_nvidia);
    if (nv && nv->status == 0 && nv->cuda_driver_version > 0)
        nd_pfmt(driver_cuda, sizeof driver_cuda, "%d.%d", nv->cuda_driver_version / 1000,
                (nv->cuda_driver_version % 1000) / 10);
    if (torch && py->torch_cuda[0] && (c->cuda->driver_present || driver_cuda[0])) {
        struct nd_cuda_compat t;
        nd_cuda_compat_builtin(&t);
        size_t mark = rep->findings.n;
        char dc[32];
        if (driver_cuda[0])
            nd_pfmt(dc, sizeof dc, "%s", driver_cuda);
        else
            nd_cuda_for_driver(&t, c->cuda->driver_version, dc, sizeof dc);
        struct nd_torch_wheels wt;
        nd_torch_wheels_builtin(&wt);
        nd_compat_judge_torch_cuda(&t, &wt, torch, py->torch_cuda,
                                   c->cuda->driver_present ? c->cuda->driver_version : NULL,
                                   driver_cuda[0] ? driver_cuda : NULL, &rep->findings);
        nd_torch_wheels_release(&wt);
        nd_cuda_compat_release(&t);
        nd_report_line(rep, area, nd_status_since(rep, mark, "compat.", ND_CHECK_OK),
                       "torch CUDA %s, driver %s supports CUDA %s", py->torch_cuda,
                       c->cuda->driver_present ? c->cuda->driver_version : "?", dc[0] ? dc : "?");
    }
    nd_do_compat_stack(c, torch, npu, cann, driver_cuda);
}

static void nd_do_env(struct nd_checkup *c)
{
    struct nd_report *rep = c->rep;
    const struct nd_environ *env = c->opt->env;
    size_t mark = rep->findings.n;
    struct nd_envcheck_summary s;
    nd_envcheck_judge(env, c->asc, c->cuda, c->ascend_devices, c->cuda_devices, c->py->tbe_location[0] != '\0',
                      &rep->findings, &s);
    c->env = s;
    const char *area = "Environment";
    nd_report_line(rep, area, ND_CHECK_INFO, "the job's environment: %s", env->source);
    if (env->job_python)
        nd_report_line(rep, area, ND_CHECK_INFO, "the job runs %s%s%s", env->job_python, env->job_script ? " " : "",
                       env->job_script ? env->job_script : "");
    if (c->opt->job_note)
        nd_report_line(rep, area, ND_CHECK_INFO, "%s", c->opt->job_note);
    if (c->asc->cann_home[0]) {
        const char *home = nd_environ_get(env, "ASCEND_HOME_PATH");
        if (s.cann_loaded)
            nd_report_line(rep, area, ND_CHECK_OK, "CANN environment loaded (ASCEND_HOME_PATH=%.200s)", home);
        else
            nd_report_line(rep, area, ND_CHECK_FAIL, "CANN environment not loaded%s%s",
                           c->asc->set_env[0] ? ": source " : "", c->asc->set_env);
        nd_report_line(rep, area, s.tbe_reachable ? ND_CHECK_OK : ND_CHECK_FAIL, "tbe %s",
                       s.tbe_reachable ? "reachable" : "not reachable from PYTHONPATH");
    }
    const char *vis[] = {"ASCEND_RT_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", NULL};
    for (int i = 0; vis[i]; i++) {
        const char *v = nd_environ_get(env, vis[i]);
        if (!v)
            continue;
        char *shown = nd_env_shown(vis[i], v);
        nd_report_line(rep, area, nd_status_since(rep, mark, "env.visible", ND_CHECK_OK), "%s=\"%s\"", vis[i], shown);
        free(shown);
    }
    if (nd_findings_find(&rep->findings, "env.stub-libs-on-path"))
        nd_report_line(rep, area, ND_CHECK_FAIL, "stub libraries on LD_LIBRARY_PATH");
    if (nd_findings_find(&rep->findings, "env.cann-mixed-versions"))
        nd_report_line(rep, area, ND_CHECK_FAIL, "paths from two CANN versions mixed");
    if (nd_findings_find(&rep->findings, "env.debug-switches"))
        nd_report_line(rep, area, ND_CHECK_WARN, "debug switches on");
    json_t *facts = nd_envcheck_facts_json(env);
    json_object_set_new(facts, "cann_loaded", c->asc->cann_home[0] ? json_boolean(s.cann_loaded) : json_null());
    json_object_set_new(facts, "tbe_reachable", c->asc->cann_home[0] ? json_boolean(s.tbe_reachable) : json_null());
    json_object_update(nd_report_facts(rep, "environment"), facts);
    json_decref(facts);
}

static void nd_do_distributed(struct nd_checkup *c)
{
    struct nd_report *rep = c->rep;
    struct nd_distributed *d = &c->dist;
    nd_distributed_probe(c->opt->env, 3.0, d);
    /* LOCAL_RANK must be below what the visible-devices variables leave. */
    long ndev = c->ascend_devices > 0 ? c->env.visible_ascend : c->env.visible_cuda;
    size_t mark = rep->findings.n;
    nd_distributed_judge(d, ndev, &rep->findings);
    const char *area = "Distributed";
    if (!nd_distributed_any(d)) {
        nd_report_line(rep, area, ND_CHECK_INFO, "not a distributed launch (no RANK, WORLD_SIZE, MASTER_ADDR)");
        return;
    }
    enum nd_check_status st = nd_status_since(rep, mark, "dist.", ND_CHECK_OK);
    char *addr = d->master_addr_set ? nd_redact_value("MASTER_ADDR", d->master_addr) : NULL;
    bool resolved = d->addr_resolves && strcmp(d->addr_result, d->master_addr) != 0;
    nd_report_line(rep, area, st, "RANK %s of WORLD_SIZE %s, LOCAL_RANK %s, MASTER %s:%s%s%s",
                   d->rank.set ? d->rank.raw : "-", d->world_size.set ? d->world_size.raw : "-",
                   d->local_rank.set ? d->local_rank.raw : "-", addr ? addr : "-",
                   d->master_port.set ? d->master_port.raw : "-", resolved ? " -> " : "", resolved ? d->addr_result : "");
    free(addr);
    if (d->rank_table.set)
        nd_report_line(rep, area, nd_status_since(rep, mark, "dist.rank-table", ND_CHECK_OK),
                       "rank table %s: %ld server%s, %ld device%s%s", d->rank_table.path, d->rank_table.servers,
                       d->rank_table.servers == 1 ? "" : "s", d->rank_table.devices,
                       d->rank_table.devices == 1 ? "" : "s", d->rank_table.lists_host ? ", lists this host" : "");
}

static void nd_do_imports(struct nd_checkup *c)
{
    struct nd_report *rep = c->rep;
    const struct nd_python *py = c->py;
    if (!nd_rootfs_is_default()) {
        nd_report_line(rep, "Python imports", ND_CHECK_INFO, "skipped: --root names another file system");
        return;
    }
    if (!py->found)
        return;
    bool ascend = c->has_ascend;
    bool nvidia = c->has_nvidia;
    bool try_npu = ascend || py->pkg[ND_PKG_TORCH_NPU].found;
    bool try_tbe = c->asc->cann_home[0] != '\0';
    double t = c->opt->probe_timeout_s > 0 ? c->opt->probe_timeout_s : 30;
    struct nd_pyimport p;
    nd_pyimport_run(py->path, c->opt->env, try_npu, try_tbe, t, &p);
    nd_pyimport_judge(&p, t, ascend, nvidia, c->asc->set_env, rep);
    json_t *facts = nd_report_facts(rep, "python");
    json_t *imp = json_object();
    json_object_set_new(imp, "status", nd_json_str(p.status));
    json_object_set_new(imp, "elapsed_s", json_real(p.elapsed_s));
    json_object_set_new(imp, "result", p.result ? json_incref(p.result) : json_null());
    json_object_set_new(facts, "imports", imp);
    const char *full = p.result ? nd_json_get_str(p.result, "python") : NULL;
    if (full && *full)
        nd_pfmt(c->py_full, sizeof c->py_full, "%s", full); /* the interpreter's own word wins */
    nd_pyimport_release(&p);
}

int nd_checkup_run(const struct nd_check_options *opt, struct nd_report *rep, struct nd_error *err)
{
    if (!opt || !opt->env)
        return nd_error_set(err, -EINVAL, "checkup: no environment given");
    struct nd_checkup c;
    memset(&c, 0, sizeof c);
    c.opt = opt;
    c.rep = rep;
    c.asc = nd_xcalloc(1, sizeof *c.asc);
    c.cuda = nd_xcalloc(1, sizeof *c.cuda);
    c.py = nd_xcalloc(1, sizeof *c.py);
    c.ascend_devices = c.cuda_devices = -1;

    nd_do_host(&c);
    nd_do_ascend(&c);
    nd_do_cuda(&c);
    c.ascend_devices = c.asc->ndavinci ? (int)c.asc->ndavinci : (c.asc->driver_present ? 0 : -1);
    c.cuda_devices = c.cuda->ngpu_files ? (int)c.cuda->ngpu_files : (c.cuda->driver_present ? 0 : -1);
    c.has_ascend = nd_ascend_has_devices(c.asc);
    c.has_nvidia = c.cuda->ngpu_files > 0 || c.cuda->driver_present;
    if (opt->level >= 2) {
        nd_do_devices(&c);
        /* A device the driver library reports counts even without device files (a VM, a sim). */
        const struct nd_device_state *asc = nd_state_of(&c, &nd_vendor_ascend);
        const struct nd_device_state *nv = nd_state_of(&c, &nd_vendor_nvidia);
        c.has_ascend |= asc && asc->status == 0 && asc->ndevices > 0;
        c.has_nvidia |= nv && nv->status == 0 && nv->ndevices > 0;
    }
    nd_do_python(&c);
    nd_do_install_probes(&c);
    nd_do_system(&c);
    nd_do_env(&c);
    nd_do_compat(&c);
    nd_do_distributed(&c);
    if (opt->level >= 2) {
        nd_do_imports(&c);
        nd_do_smoke(&c);
    }

    json_t *g;
    g = nd_report_facts(rep, "host");
    json_t *hf = nd_host_facts_json(&c.host);
    json_object_update(g, hf);
    json_decref(hf);
    g = nd_report_facts(rep, "ascend");
    json_t *af = nd_ascend_facts_json(c.asc);
    json_object_update(g, af);
    json_decref(af);
    g = nd_report_facts(rep, "nvidia");
    json_t *nf = nd_cuda_facts_json(c.cuda);
    json_object_update(g, nf);
    json_decref(nf);
    g = nd_report_facts(rep, "python");
    json_t *pf = nd_python_facts_json(c.py);
    json_object_update(g, pf);
    json_decref(pf);
    json_object_set_new(g, "version_full", c.py_full[0] ? nd_json_str(c.py_full) : json_null());
    g = nd_report_facts(rep, "host");
    json_t *sf = nd_sysinfo_facts_json(&c.sys);
    json_object_update(g, sf);
    json_decref(sf);
    g = nd_report_facts(rep, "toolkits");
    json_t *tf = nd_toolkits_facts_json(c.tk);
    json_object_update(g, tf);
    json_decref(tf);
    json_t *cann = json_object();
    json_object_set_new(cann, "version", c.asc->cann_version[0] ? nd_json_str(c.asc->cann_version) : json_null());
    json_object_set_new(cann, "home", c.asc->cann_home[0] ? nd_json_str(c.asc->cann_home) : json_null());
    json_object_set_new(g, "cann", cann);
    g = nd_report_facts(rep, "distributed");
    json_t *df = nd_distributed_facts_json(&c.dist);
    json_object_update(g, df);
    json_decref(df);
    nd_report_facts(rep, "devices");
    g = nd_report_facts(rep, "environment");
    if (opt->env->job_python)
        json_object_set_new(g, "job_python", nd_json_str(opt->env->job_python));
    if (opt->env->job_script)
        json_object_set_new(g, "job_script", nd_json_str(opt->env->job_script));
    json_object_set_new(nd_report_facts(rep, "check"), "level", json_integer(opt->level));
    json_object_set_new(nd_report_facts(rep, "check"), "root",
                        nd_json_str(nd_rootfs_is_default() ? "/" : nd_rootfs_prefix()));

    for (size_t k = 0; k < ND_MAX_VENDORS; k++)
        free(c.dev[k]);
    free(c.asc);
    free(c.cuda);
    free(c.py);
    free(c.tk);
    return 0;
}

int nd_checkup_job_env(const struct nd_environ *env, const char *python, struct nd_findings *out)
{
    if (!env || !out)
        return -EINVAL;
    struct nd_ascend_install *a = nd_xcalloc(1, sizeof *a);
    struct nd_cuda_install *cu = nd_xcalloc(1, sizeof *cu);
    struct nd_python *py = nd_xcalloc(1, sizeof *py);
    nd_ascend_probe(a);
    nd_cuda_probe(env, cu);
    nd_python_probe(python, env, py);
    nd_envcheck_judge(env, a, cu, a->ndavinci ? (int)a->ndavinci : -1, cu->ngpu_files ? (int)cu->ngpu_files : -1,
                      py->tbe_location[0] != '\0', out, NULL);
    struct nd_findings tmp = ND_FINDINGS_INIT;
    nd_python_judge(py, nd_ascend_has_devices(a), cu->ngpu_files > 0 || cu->driver_present, a->cann_home[0] != '\0',
                    a->cann_version, &tmp);
    for (size_t i = 0; i < tmp.n; i++)
        if (strcmp(tmp.v[i]->id, "python.torch-cpu-only") == 0 || strcmp(tmp.v[i]->id, "python.tbe-deps-missing") == 0)
            nd_findings_add_copy(out, tmp.v[i]);
    nd_findings_release(&tmp);
    free(a);
    free(cu);
    free(py);
    return 0;
}
