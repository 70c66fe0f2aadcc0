/* The ROCm install for `check` (rocm_install.h). Everything is read from
 * files under the root: the install's .info/version, the device nodes and
 * torch/version.py; nothing is run. Its lines go under the ROCm label of
 * the vendor descriptor; a host with none of it gets no line at all. */
#include "probe/rocm_install.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/json_util.h"
#include "core/rootfs.h"
#include "probe/pathfmt.h"
#include "probe/toolkits.h"

#define ND_ROCM_MAX_INSTALLS 8

struct nd_rocm_facts {
    size_t ninst;
    struct {
        char path[PATH_MAX]; /* "/opt/rocm-6.2.0", "/opt/dtk-24.04" */
        char version[32];
    } inst[ND_ROCM_MAX_INSTALLS];
    bool kfd, kfd_access;
    size_t nrender, nrender_access;
    bool torch_found;
    int torch_hip; /* 1 built for ROCm, 0 not, -1 unknown (no version.py) */
    char hip[64];
};

int nd_rocm_parse_torch_hip(const char *buf, size_t len, char *out, size_t size)
{
    if (!buf || !out || size == 0)
        return -EINVAL;
    out[0] = '\0';
    size_t i = 0;
    while (i < len) {
        size_t eol = i;
        while (eol < len && buf[eol] != '\n')
            eol++;
        /* "hip = '6.2.1'" or "hip: Optional[str] = None" at the start of a line. */
        if (eol - i > 3 && memcmp(buf + i, "hip", 3) == 0 &&
            (buf[i + 3] == ' ' || buf[i + 3] == ':' || buf[i + 3] == '=')) {
            const char *eq = memchr(buf + i, '=', eol - i);
            if (!eq)
                return -EINVAL;
            size_t p = (size_t)(eq - buf) + 1;
            while (p < eol && buf[p] == ' ')
                p++;
            if (eol - p >= 4 && memcmp(buf + p, "None", 4) == 0)
                return 0;
            if (p >= eol || (buf[p] != '\'' && buf[p] != '"'))
                return -EINVAL;
            char q = buf[p++];
            size_t s = p;
            while (p < eol && buf[p] != q)
                p++;
            if (p >= eol || p == s || p - s >= size)
                return -EINVAL;
            for (size_t k = s; k < p; k++)
                if (!isalnum((unsigned char)buf[k]) && buf[k] != '.' && buf[k] != '-' && buf[k] != '_' && buf[k] != '+')
                    return -EINVAL;
            memcpy(out, buf + s, p - s);
            out[p - s] = '\0';
            return 1;
        }
        i = eol + 1;
    }
    return -EINVAL;
}

/* /opt/rocm, /opt/rocm-X, /opt/dtk, /opt/dtk-X with a readable .info/version. */
static void nd_rocm_installs(struct nd_rocm_facts *r)
{
    DIR *d = nd_rootfs_opendir("/opt");
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && r->ninst < ND_ROCM_MAX_INSTALLS) {
        const char *n = de->d_name;
        if (strcmp(n, "rocm") != 0 && strncmp(n, "rocm-", 5) != 0 && strcmp(n, "dtk") != 0 && strncmp(n, "dtk-", 4) != 0)
            continue;
        char p[PATH_MAX], *buf;
        size_t len;
        if (nd_pfmt(p, sizeof p, "/opt/%s/.info/version", n) < 0 || nd_rootfs_read(p, 4096, &buf, &len, NULL) < 0)
            continue;
        int rc = nd_tk_parse_rocm_version(buf, len, r->inst[r->ninst].version, sizeof r->inst[r->ninst].version);
        free(buf);
        if (rc < 0)
            continue;
        nd_pfmt(r->inst[r->ninst].path, sizeof r->inst[r->ninst].path, "/opt/%s", n);
        r->ninst++;
    }
    closedir(d);
    /* readdir order is the file system's: sort for stable output. */
    for (size_t i = 1; i < r->ninst; i++)
        for (size_t j = i; j > 0 && strcmp(r->inst[j - 1].path, r->inst[j].path) > 0; j--) {
            char tp[PATH_MAX], tv[32];
            memcpy(tp, r->inst[j].path, sizeof tp);
            memcpy(tv, r->inst[j].version, sizeof tv);
            memcpy(r->inst[j].path, r->inst[j - 1].path, sizeof tp);
            memcpy(r->inst[j].version, r->inst[j - 1].version, sizeof tv);
            memcpy(r->inst[j - 1].path, tp, sizeof tp);
            memcpy(r->inst[j - 1].version, tv, sizeof tv);
        }
}

static void nd_rocm_nodes(struct nd_rocm_facts *r)
{
    r->kfd = nd_rootfs_exists("/dev/kfd");
    r->kfd_access = r->kfd && nd_rootfs_access("/dev/kfd", R_OK | W_OK) == 0;
    DIR *d = nd_rootfs_opendir("/dev/dri");
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "renderD", 7) != 0 || !isdigit((unsigned char)de->d_name[7]))
            continue;
        char p[PATH_MAX];
        nd_pfmt(p, sizeof p, "/dev/dri/%s", de->d_name);
        r->nrender++;
        if (nd_rootfs_access(p, R_OK | W_OK) == 0)
            r->nrender_access++;
    }
    closedir(d);
}

static void nd_rocm_torch(const struct nd_python *py, struct nd_rocm_facts *r)
{
    r->torch_hip = -1;
    if (!py || !py->pkg[ND_PKG_TORCH].found)
        return;
    r->torch_found = true;
    char p[PATH_MAX], *buf;
    size_t len;
    nd_pfmt(p, sizeof p, "%s/torch/version.py", py->pkg[ND_PKG_TORCH].location);
    if (nd_rootfs_read(p, 1u << 20, &buf, &len, NULL) == 0) {
        int rc = nd_rocm_parse_torch_hip(buf, len, r->hip, sizeof r->hip);
        free(buf);
        if (rc >= 0)
            r->torch_hip = rc;
    }
    /* No version.py: the wheel's local version tells ("2.5.1+rocm6.2"). */
    if (r->torch_hip < 0 && strcmp(py->pkg[ND_PKG_TORCH].version, "unknown") != 0) {
        const char *plus = strchr(py->pkg[ND_PKG_TORCH].version, '+');
        r->torch_hip = plus && strncmp(plus + 1, "rocm", 4) == 0;
        if (r->torch_hip)
            nd_pfmt(r->hip, sizeof r->hip, "%s", plus + 5);
    }
}

/* "6.2" of "6.2.0-66": what the torch wheels of that ROCm are named after. */
static void nd_major_minor(const char *v, char *out, size_t size)
{
    size_t n = 0, dots = 0;
    while (v[n] && (isdigit((unsigned char)v[n]) || (v[n] == '.' && ++dots < 2)))
        n++;
    nd_pfmt(out, size, "%.*s", (int)n, v);
}

static void nd_rocm_judge_nodes(const struct nd_rocm_facts *r, const char *area, struct nd_report *rep)
{
    struct nd_findings *out = &rep->findings;
    if (!r->kfd) {
        struct nd_finding *f = nd_findings_add(out, "rocm.kfd-missing", ND_CAT_NO_DEVICE, ND_SEV_ERROR,
                                               "/dev/kfd is missing: no process here can reach a ROCm GPU");
        nd_finding_add_evidence(f, NULL, 0, "no /dev/kfd; %zu render node%s in /dev/dri", r->nrender,
                                r->nrender == 1 ? "" : "s");
        nd_finding_set_cause(f, "The ROCm runtime talks to the GPUs through /dev/kfd: the amdgpu kernel driver is "
                                "not loaded, or the container was started without the device passed in.");
        nd_finding_add_fix(f, "on the host: modprobe amdgpu, and check dmesg | grep -i amdgpu");
        nd_finding_add_fix(f, "in a container: docker run --device /dev/kfd --device /dev/dri --group-add video ...");
        f->confidence = ND_CONF_HIGH;
        nd_report_line(rep, area, ND_CHECK_FAIL, "no /dev/kfd");
        return;
    }
    if (!r->kfd_access) {
        struct nd_finding *f = nd_findings_add(out, "rocm.kfd-permission", ND_CAT_NO_DEVICE, ND_SEV_ERROR,
                                               "/dev/kfd is not readable and writable by this user");
        nd_finding_add_evidence(f, NULL, 0, "access(/dev/kfd, R_OK|W_OK) failed for uid %ld", (long)getuid());
        nd_finding_add_fix(f, "add the user to the render and video groups (usermod -aG render,video USER), then "
                              "log in again");
        f->confidence = ND_CONF_HIGH;
    }
    if (r->nrender == 0) {
        struct nd_finding *f = nd_findings_add(out, "rocm.render-missing", ND_CAT_NO_DEVICE, ND_SEV_ERROR,
                                               "/dev/kfd is there but no /dev/dri/renderD* node is");
        nd_finding_set_cause(f, "Each GPU is reached through its render node; without one the runtime sees no "
                                "device (a container given /dev/kfd but not /dev/dri).");
        nd_finding_add_fix(f, "pass the render nodes too: docker run --device /dev/dri ...");
        f->confidence = ND_CONF_HIGH;
    } else if (r->nrender_access < r->nrender) {
        struct nd_finding *f = nd_findings_add(out, "rocm.render-permission", ND_CAT_NO_DEVICE, ND_SEV_ERROR,
                                               "%zu of %zu render nodes are not readable and writable by this user",
                                               r->nrender - r->nrender_access, r->nrender);
        nd_finding_add_fix(f, "add the user to the render and video groups (usermod -aG render,video USER), then "
                              "log in again");
        f->confidence = ND_CONF_HIGH;
    }
    nd_report_line(rep, area,
                   r->kfd_access && r->nrender && r->nrender_access == r->nrender ? ND_CHECK_OK : ND_CHECK_FAIL,
                   "/dev/kfd%s, %zu render node%s%s", r->kfd_access ? "" : " (no access)", r->nrender,
                   r->nrender == 1 ? "" : "s", r->nrender_access < r->nrender ? " (not all accessible)" : "");
}

/* HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES each
 * narrow what the job sees (HIP reads the CUDA name too, for ported code);
 * an empty list or -1 hides every GPU. */
static void nd_rocm_judge_env(const struct nd_vendor *v, const struct nd_environ *env, const char *area,
                              struct nd_report *rep)
{
    for (size_t i = 0; env && v->visible_env && v->visible_env[i]; i++) {
        const char *name = v->visible_env[i];
        const char *val = nd_environ_get(env, name);
        if (!val)
            continue;
        bool hides = !*val || strcmp(val, "-1") == 0;
        nd_report_line(rep, area, hides ? ND_CHECK_FAIL : ND_CHECK_INFO, "%s=\"%s\"", name, val);
        if (!hides)
            continue;
        struct nd_finding *f = nd_findings_add(&rep->findings, "rocm.devices-hidden", ND_CAT_NO_DEVICE, ND_SEV_ERROR,
                                               "%s=\"%s\" hides every ROCm GPU", name, val);
        nd_finding_add_evidence(f, NULL, 0, "%s=\"%s\" in the job's environment", name, val);
        nd_finding_set_cause(f, "The HIP runtime shows the job only the GPUs this list names; an empty list or -1 "
                                "names none, so torch.cuda.is_available() is False.");
        nd_finding_add_fix(f, "unset %s   # or list the GPUs: %s=0,1", name, name);
        f->confidence = ND_CONF_HIGH;
    }
}

static void nd_rocm_judge_torch(const struct nd_rocm_facts *r, const struct nd_python *py, const char *area,
                                struct nd_report *rep)
{
    if (!r->torch_found)
        return;
    const char *tv = py->pkg[ND_PKG_TORCH].version;
    if (r->torch_hip == 1) {
        nd_report_line(rep, area, ND_CHECK_OK, "torch %s built for ROCm (HIP %s)", tv, r->hip);
        if (r->ninst) {
            char a[16], b[16];
            nd_major_minor(r->hip, a, sizeof a);
            nd_major_minor(r->inst[0].version, b, sizeof b);
            if (a[0] && b[0] && strtol(a, NULL, 10) != strtol(b, NULL, 10)) {
                struct nd_finding *f = nd_findings_add(
                    &rep->findings, "rocm.torch-rocm-mismatch", ND_CAT_VERSION_MISMATCH, ND_SEV_WARNING,
                    "torch is built for ROCm %s but ROCm %s is installed", a, r->inst[0].version);
                nd_finding_add_evidence(f, NULL, 0, "torch %s: HIP %s; %s: %s", tv, r->hip, r->inst[0].path,
                                        r->inst[0].version);
                nd_finding_add_fix(f, "install the torch wheel built for ROCm %s", b);
                f->confidence = ND_CONF_MEDIUM;
            }
        }
        return;
    }
    if (r->torch_hip < 0) {
        nd_report_line(rep, area, ND_CHECK_INFO, "torch %s: its ROCm build is unknown (no torch/version.py)", tv);
        return;
    }
    char mm[16] = "";
    if (r->ninst)
        nd_major_minor(r->inst[0].version, mm, sizeof mm);
    struct nd_finding *f = nd_findings_add(
        &rep->findings, "rocm.torch-not-rocm", ND_CAT_CPU_FALLBACK, ND_SEV_ERROR,
        "torch %s is not built for ROCm: it cannot use the GPUs and computes on the CPU", tv);
    nd_finding_add_evidence(f, NULL, 0, "torch.version.hip is None (%s/torch/version.py)",
                            py->pkg[ND_PKG_TORCH].location);
    nd_finding_set_cause(f, "Only a torch wheel built for ROCm carries the HIP backend (libtorch_hip); a CPU or "
                            "CUDA build silently keeps every tensor on the CPU.");
    nd_finding_add_fix(f, "pip install torch --index-url https://download.pytorch.org/whl/rocm%s",
                       mm[0] ? mm : "<ROCm major.minor>");
    nd_finding_add_fix(f, "python3 -c 'import torch; print(torch.version.hip)'   # must not print None");
    f->confidence = ND_CONF_HIGH;
    nd_report_line(rep, area, ND_CHECK_FAIL, "torch %s is not built for ROCm", tv);
}

static json_t *nd_rocm_facts_json(const struct nd_rocm_facts *r)
{
    json_t *o = json_object();
    json_t *inst = json_array();
    for (size_t i = 0; i < r->ninst; i++)
        json_array_append_new(inst, json_pack("{s:o,s:o}", "path", nd_json_str(r->inst[i].path), "version",
                                              nd_json_str(r->inst[i].version)));
    json_object_set_new(o, "installs", inst);
    json_object_set_new(o, "kfd", json_boolean(r->kfd));
    json_object_set_new(o, "kfd_access", json_boolean(r->kfd_access));
    json_object_set_new(o, "render_nodes", json_integer((json_int_t)r->nrender));
    json_object_set_new(o, "torch_hip", r->torch_hip == 1 ? nd_json_str(r->hip) : json_null());
    return o;
}

static void nd_rocm_run(const struct nd_install_ctx *ctx, struct nd_report *rep)
{
    const struct nd_vendor *v = &nd_vendor_rocm;
    struct nd_rocm_facts *r = calloc(1, sizeof *r);
    if (!r)
        return;
    nd_rocm_installs(r);
    nd_rocm_nodes(r);
    bool devices = ctx->dev && ctx->dev->status == 0 && ctx->dev->ndevices > 0;
    /* Nothing of ROCm here: no line, so other hosts read as before. */
    if (!r->ninst && !r->kfd && !devices) {
        free(r);
        return;
    }
    nd_rocm_torch(ctx->py, r);
    const char *area = v->label;
    for (size_t i = 0; i < r->ninst; i++)
        nd_report_line(rep, area, ND_CHECK_OK, "%s %s at %s", strstr(r->inst[i].path, "/dtk") ? "DTK" : "ROCm",
                       r->inst[i].version, r->inst[i].path);
    if (!r->ninst)
        nd_report_line(rep, area, ND_CHECK_WARN, "no ROCm or DTK install under /opt (rocm*, dtk*)");
    nd_rocm_judge_nodes(r, area, rep);
    nd_rocm_judge_env(v, ctx->env, area, rep);
    nd_rocm_judge_torch(r, ctx->py, area, rep);
    json_t *facts = nd_rocm_facts_json(r);
    json_object_update(nd_report_facts(rep, v->name), facts);
    json_decref(facts);
    free(r);
}

const struct nd_install_probe nd_install_rocm = {&nd_vendor_rocm, nd_rocm_run};
