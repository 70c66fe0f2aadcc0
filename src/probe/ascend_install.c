/* The Ascend install as files: driver and firmware
 * version.info, /etc/ascend_install.info, the CANN toolkit in the classic
 * (ascend-toolkit/latest) and the 8.5+ (cann-<v>, ascend_cann_install.info)
 * layouts, /dev/davinci* and npu-smi. Every path goes through the root. */
#include "probe/ascend_install.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fileio.h"
#include "core/json_util.h"
#include "core/rootfs.h"
#include "core/strbuf.h"
#include "probe/pathfmt.h"
#include "probe/compat.h"
#include "probe/kvfile.h"

#define ND_ASCEND_BASE "/usr/local/Ascend"

static void nd_copy(char *dst, size_t size, const char *src)
{
    nd_pfmt(dst, size, "%s", src ? src : "");
}

/* Reads one version file; fills version/line/error. Returns true when read. */
static bool nd_read_version(const char *abs, const char *key, char *ver, size_t vsize, long *line, char *error,
                            size_t esize, struct nd_kvfile *keep)
{
    struct nd_kvfile kv;
    struct nd_error err;
    if (nd_kvfile_load(abs, &kv, &err) < 0) {
        if (err.code != -ENOENT)
            nd_copy(error, esize, err.msg);
        return false;
    }
    const char *v = nd_kvfile_get(&kv, key, line);
    if (v && *v)
        nd_copy(ver, vsize, v);
    else
        nd_pfmt(error, esize, "%s: no %s= line", abs, key);
    if (keep)
        *keep = kv;
    else
        nd_kvfile_release(&kv);
    return true;
}

int nd_ascend_parse_range(const char *s, char *lo, size_t lo_size, char *hi, size_t hi_size)
{
    if (!s)
        return -EINVAL;
    while (isspace((unsigned char)*s))
        s++;
    if (*s != '[')
        return -EINVAL;
    const char *comma = strchr(s, ',');
    const char *end = strchr(s, ']');
    if (!comma || !end || comma > end)
        return -EINVAL;
    int n1 = nd_pfmt(lo, lo_size, "%.*s", (int)(comma - s - 1), s + 1);
    int n2 = nd_pfmt(hi, hi_size, "%.*s", (int)(end - comma - 1), comma + 1);
    char *t = nd_trim(lo);
    memmove(lo, t, strlen(t) + 1);
    t = nd_trim(hi);
    memmove(hi, t, strlen(t) + 1);
    if (n1 <= 0 || n2 <= 0 || !lo[0] || !hi[0] || !isdigit((unsigned char)lo[0]) || !isdigit((unsigned char)hi[0]))
        return -EINVAL;
    return 0;
}

bool nd_ascend_version_from_cfg(const char *value, char *out, size_t size)
{
    const char *colon = value ? strchr(value, ':') : NULL;
    if (!colon)
        return false;
    colon++;
    size_t n = strcspn(colon, "]");
    if (n == 0 || !isdigit((unsigned char)colon[0]))
        return false;
    nd_pfmt(out, size, "%.*s", (int)n, colon);
    return true;
}

bool nd_ascend_version_from_dirname(const char *name, char *out, size_t size)
{
    if (!name)
        return false;
    if (strncmp(name, "cann-", 5) == 0)
        name += 5;
    if (!isdigit((unsigned char)name[0]) || !strchr(name, '.'))
        return false;
    nd_pfmt(out, size, "%s", name);
    return true;
}

/* Compares fw cut to the bound's number of components, so "7.2.99.5" is within "7.2.99". */
static int nd_fw_cmp_bound(const char *fw, const char *bound)
{
    int comps = 1;
    for (const char *p = bound; *p; p++)
        comps += *p == '.';
    char cut[64];
    nd_version_prefix(fw, comps, cut, sizeof cut);
    return nd_version_cmp(cut, bound);
}

bool nd_ascend_req_hal_min(const char *value, char *out, size_t size)
{
    /* Every dotted number in the value; the smallest is the minimum. */
    bool found = false;
    if (size)
        out[0] = '\0';
    for (const char *p = value; p && *p;) {
        if (!isdigit((unsigned char)*p)) {
            p++;
            continue;
        }
        size_t n = strspn(p, "0123456789.");
        char v[64];
        nd_pfmt(v, sizeof v, "%.*s", (int)(n < sizeof v ? n : sizeof v - 1), p);
        if (strchr(v, '.') && (!found || nd_version_cmp(v, out) < 0)) {
            nd_pfmt(out, size, "%s", v);
            found = true;
        }
        p += n;
    }
    return found;
}

bool nd_ascend_fw_in_range(const char *fw, const char *lo, const char *hi)
{
    return nd_fw_cmp_bound(fw, lo) >= 0 && nd_fw_cmp_bound(fw, hi) <= 0;
}

static void nd_probe_driver(struct nd_ascend_install *a)
{
    struct nd_kvfile kv;
    struct nd_error err;
    const char *base = ND_ASCEND_BASE;
    if (nd_kvfile_load("/etc/ascend_install.info", &kv, &err) == 0) {
        a->install_info_present = true;
        const char *p = nd_kvfile_get(&kv, "Driver_Install_Path_Param", NULL);
        if (p && p[0] == '/')
            nd_pfmt(a->driver_dir, sizeof a->driver_dir, "%s/driver", p);
        nd_kvfile_release(&kv);
    }
    if (!a->driver_dir[0])
        nd_pfmt(a->driver_dir, sizeof a->driver_dir, "%s/driver", base);
    nd_pfmt(a->driver_version_file, sizeof a->driver_version_file, "%s/version.info", a->driver_dir);
    struct nd_kvfile dkv = {NULL, 0};
    a->driver_present = nd_read_version(a->driver_version_file, "Version", a->driver_version, sizeof a->driver_version,
                                        &a->driver_version_line, a->driver_error, sizeof a->driver_error, &dkv);
    const char *hal = nd_kvfile_get(&dkv, "ascendhal_version", &a->driver_hal_line);
    if (hal)
        nd_copy(a->driver_hal, sizeof a->driver_hal, hal);
    const char *range = nd_kvfile_get(&dkv, "compatible_version_fw", &a->fw_range_line);
    if (range &&
        nd_ascend_parse_range(range, a->fw_range_lo, sizeof a->fw_range_lo, a->fw_range_hi, sizeof a->fw_range_hi) == 0)
        a->fw_range_valid = true;
    nd_kvfile_release(&dkv);

    nd_pfmt(a->firmware_file, sizeof a->firmware_file, "%s/firmware/version.info", base);
    if (a->install_info_present && strcmp(a->driver_dir, base) != 0) {
        char alt[PATH_MAX];
        nd_pfmt(alt, sizeof alt, "%.*s/firmware/version.info", (int)(strlen(a->driver_dir) - 7), a->driver_dir);
        if (nd_rootfs_exists(alt))
            nd_copy(a->firmware_file, sizeof a->firmware_file, alt);
    }
    a->firmware_present = nd_read_version(a->firmware_file, "Version", a->firmware_version, sizeof a->firmware_version,
                                          &a->firmware_line, a->firmware_error, sizeof a->firmware_error, NULL);

    const char *libs[] = {"lib64/driver/libascend_hal.so", "lib64/driver/libdcmi.so", "lib64/libascend_hal.so", NULL};
    for (int i = 0; libs[i]; i++) {
        char p[PATH_MAX];
        nd_pfmt(p, sizeof p, "%s/%s", a->driver_dir, libs[i]);
        if (nd_rootfs_exists(p)) {
            nd_copy(a->driver_lib, sizeof a->driver_lib, p);
            return;
        }
    }
    if (nd_rootfs_exists("/usr/local/dcmi/libdcmi.so"))
        nd_copy(a->driver_lib, sizeof a->driver_lib, "/usr/local/dcmi/libdcmi.so");
}

/* Does this folder look like a CANN toolkit root? */
static bool nd_is_toolkit(const char *dir)
{
    const char *marks[] = {"set_env.sh", "version.cfg", "lib64/libascendcl.so", "runtime/lib64/libascendcl.so", NULL};
    for (int i = 0; marks[i]; i++) {
        char p[PATH_MAX];
        nd_pfmt(p, sizeof p, "%s/%s", dir, marks[i]);
        if (nd_rootfs_exists(p))
            return true;
    }
    /* <arch>-linux/ascend_toolkit_install.info */
    DIR *d = nd_rootfs_opendir(dir);
    if (!d)
        return false;
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n > 6 && strcmp(e->d_name + n - 6, "-linux") == 0) {
            char p[PATH_MAX];
            nd_pfmt(p, sizeof p, "%s/%s/ascend_toolkit_install.info", dir, e->d_name);
            found = nd_rootfs_exists(p);
        }
    }
    closedir(d);
    return found;
}

static void nd_find_arch_dir(struct nd_ascend_install *a)
{
    DIR *d = nd_rootfs_opendir(a->cann_home);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n > 6 && n < sizeof a->arch_dir && strcmp(e->d_name + n - 6, "-linux") == 0) {
            nd_copy(a->arch_dir, sizeof a->arch_dir, e->d_name);
            /* Prefer the machine's own arch when both are installed. */
#if defined(__aarch64__)
            if (strcmp(e->d_name, "aarch64-linux") == 0)
#else
            if (strcmp(e->d_name, "x86_64-linux") == 0)
#endif
                break;
        }
    }
    closedir(d);
}

static void nd_probe_siblings(struct nd_ascend_install *a)
{
    /* Versions beside the active one: ascend-toolkit/<v>/ and /usr/local/Ascend/cann-<v>/. */
    const char *dirs[] = {ND_ASCEND_BASE "/ascend-toolkit", ND_ASCEND_BASE, NULL};
    for (int i = 0; dirs[i]; i++) {
        DIR *d = nd_rootfs_opendir(dirs[i]);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d)) && a->nsiblings < ND_ASCEND_MAX_SIBLINGS) {
            char v[64];
            if (i == 1 && strncmp(e->d_name, "cann-", 5) != 0)
                continue;
            if (!nd_ascend_version_from_dirname(e->d_name, v, sizeof v))
                continue;
            char p[PATH_MAX];
            nd_pfmt(p, sizeof p, "%s/%s", dirs[i], e->d_name);
            struct stat st;
            if (nd_rootfs_lstat(p, &st) != 0 || !S_ISDIR(st.st_mode))
                continue;
            nd_pfmt(a->siblings[a->nsiblings++], PATH_MAX, "%s", p);
        }
        closedir(d);
    }
}

static void nd_probe_cann(struct nd_ascend_install *a)
{
    struct nd_kvfile kv;
    struct nd_error err;
    char cands[8][PATH_MAX];
    int nc = 0;
    if (nd_kvfile_load("/etc/Ascend/ascend_cann_install.info", &kv, &err) == 0) {
        nd_copy(a->cann_install_info, sizeof a->cann_install_info, "/etc/Ascend/ascend_cann_install.info");
        const char *p = nd_kvfile_get(&kv, "Install_Path", NULL);
        if (p && p[0] == '/') {
            nd_pfmt(cands[nc++], PATH_MAX, "%s/cann", p);
            nd_pfmt(cands[nc++], PATH_MAX, "%s/ascend-toolkit/latest", p);
            nd_pfmt(cands[nc++], PATH_MAX, "%s", p);
        }
        nd_kvfile_release(&kv);
    }
    nd_pfmt(cands[nc++], PATH_MAX, "%s", ND_ASCEND_BASE "/ascend-toolkit/latest");
    nd_pfmt(cands[nc++], PATH_MAX, "%s", ND_ASCEND_BASE "/cann");
    for (int i = 0; i < nc; i++) {
        if (nd_rootfs_is_dir(cands[i]) && nd_is_toolkit(cands[i])) {
            nd_copy(a->cann_home, sizeof a->cann_home, cands[i]);
            break;
        }
    }
    if (!a->cann_home[0])
        return;
    if (nd_rootfs_realpath(a->cann_home, a->cann_real, sizeof a->cann_real) != 0)
        nd_copy(a->cann_real, sizeof a->cann_real, a->cann_home);
    const char *real_base = strrchr(a->cann_real, '/');
    real_base = real_base ? real_base + 1 : a->cann_real;
    a->layout = (a->cann_install_info[0] || strncmp(real_base, "cann", 4) == 0) ? ND_CANN_NEW : ND_CANN_CLASSIC;

    nd_find_arch_dir(a);
    if (a->arch_dir[0]) {
        nd_pfmt(a->cann_version_file, sizeof a->cann_version_file, "%s/%s/ascend_toolkit_install.info", a->cann_home,
                a->arch_dir);
        nd_read_version(a->cann_version_file, "version", a->cann_version, sizeof a->cann_version, &a->cann_version_line,
                        a->cann_error, sizeof a->cann_error, NULL);
    }
    if (!a->cann_version[0]) {
        char cfg[PATH_MAX];
        nd_pfmt(cfg, sizeof cfg, "%s/version.cfg", a->cann_home);
        if (nd_kvfile_load(cfg, &kv, &err) == 0) {
            long line = 0;
            const char *v = nd_kvfile_get(&kv, "runtime_running_version", &line);
            if (v && nd_ascend_version_from_cfg(v, a->cann_version, sizeof a->cann_version)) {
                nd_copy(a->cann_version_file, sizeof a->cann_version_file, cfg);
                a->cann_version_line = line;
                a->cann_error[0] = '\0';
            }
            nd_kvfile_release(&kv);
        } else if (err.code != -ENOENT && !a->cann_error[0]) {
            nd_copy(a->cann_error, sizeof a->cann_error, err.msg);
        }
    }
    if (!a->cann_version[0] && nd_ascend_version_from_dirname(real_base, a->cann_version, sizeof a->cann_version)) {
        nd_copy(a->cann_version_file, sizeof a->cann_version_file, a->cann_real);
        a->cann_version_line = 0;
    }

    /* set_env.sh: beside "latest" in the classic layout, inside the root in 8.5+. */
    char cands2[6][PATH_MAX];
    int n2 = 0;
    size_t hl = strlen(a->cann_home);
    if (hl > 7 && strcmp(a->cann_home + hl - 7, "/latest") == 0)
        nd_pfmt(cands2[n2++], PATH_MAX, "%.*s/set_env.sh", (int)(hl - 7), a->cann_home);
    nd_pfmt(cands2[n2++], PATH_MAX, "%s/set_env.sh", a->cann_home);
    nd_pfmt(cands2[n2++], PATH_MAX, "%s/set_env.sh", ND_ASCEND_BASE "/ascend-toolkit");
    nd_pfmt(cands2[n2++], PATH_MAX, "%s/set_env.sh", ND_ASCEND_BASE "/cann");
    nd_pfmt(cands2[n2++], PATH_MAX, "%s/set_env.sh", a->cann_real);
    for (int i = 0; i < n2; i++)
        if (nd_rootfs_is_file(cands2[i])) {
            nd_copy(a->set_env, sizeof a->set_env, cands2[i]);
            break;
        }

    const char *libdirs[] = {"lib64", "runtime/lib64", NULL};
    for (int i = 0; libdirs[i]; i++) {
        char p[PATH_MAX];
        nd_pfmt(p, sizeof p, "%s/%s/libascendcl.so", a->cann_home, libdirs[i]);
        if (nd_rootfs_exists(p)) {
            nd_pfmt(a->ascendcl_dir, sizeof a->ascendcl_dir, "%s/%s", a->cann_home, libdirs[i]);
            break;
        }
    }
    /* The runtime's own statement of the driver it needs, where the package carries one. */
    const char *reqs[] = {"runtime/version.info", "acllib/version.info", NULL};
    for (int i = 0; reqs[i] && !a->cann_req_hal[0]; i++) {
        char p[PATH_MAX];
        nd_pfmt(p, sizeof p, "%s/%s", a->cann_home, reqs[i]);
        struct nd_kvfile rkv;
        if (nd_kvfile_load(p, &rkv, &err) != 0)
            continue;
        long line = 0;
        const char *v = nd_kvfile_get(&rkv, "required_driver_ascendhal_version", &line);
        if (v && *v) {
            nd_copy(a->cann_req_hal, sizeof a->cann_req_hal, v);
            nd_copy(a->cann_req_hal_file, sizeof a->cann_req_hal_file, p);
            a->cann_req_hal_line = line;
        }
        nd_kvfile_release(&rkv);
    }
    nd_pfmt(a->tbe_site, sizeof a->tbe_site, "%s/python/site-packages", a->cann_home);
    char tbe[PATH_MAX];
    nd_pfmt(tbe, sizeof tbe, "%s/tbe/__init__.py", a->tbe_site);
    a->tbe_present = nd_rootfs_exists(tbe);
    nd_pfmt(a->opp_dir, sizeof a->opp_dir, "%s/opp", a->cann_home);
    if (!nd_rootfs_is_dir(a->opp_dir))
        a->opp_dir[0] = '\0';
    nd_probe_siblings(a);
}

static void nd_probe_devfiles(struct nd_ascend_install *a)
{
    DIR *d = nd_rootfs_opendir("/dev");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        if (strncmp(n, "davinci", 7) == 0 && isdigit((unsigned char)n[7])) {
            char *end;
            long idx = strtol(n + 7, &end, 10);
            if (*end || idx < 0 || idx > 100000)
                continue;
            if (a->ndavinci < ND_ASCEND_MAX_DEVFILES) {
                /* Keep them sorted: readdir order is arbitrary. */
                size_t i = a->ndavinci;
                while (i > 0 && a->davinci[i - 1] > idx) {
                    a->davinci[i] = a->davinci[i - 1];
                    i--;
                }
                a->davinci[i] = (int)idx;
                a->ndavinci++;
            }
        } else if (strcmp(n, "davinci_manager") == 0) {
            a->davinci_manager = true;
        } else if (strcmp(n, "devmm_svm") == 0) {
            a->devmm_svm = true;
        } else if (strcmp(n, "hisi_hdc") == 0) {
            a->hisi_hdc = true;
        }
    }
    closedir(d);
}

void nd_ascend_probe(struct nd_ascend_install *a)
{
    memset(a, 0, sizeof *a);
    nd_probe_driver(a);
    nd_probe_cann(a);
    nd_probe_devfiles(a);
    const char *smi[] = {"/usr/local/bin/npu-smi", "/usr/local/sbin/npu-smi", "/usr/bin/npu-smi", "/usr/sbin/npu-smi",
                         NULL};
    for (int i = 0; smi[i]; i++)
        if (nd_rootfs_exists(smi[i])) {
            nd_copy(a->npu_smi, sizeof a->npu_smi, smi[i]);
            break;
        }
}

bool nd_ascend_has_devices(const struct nd_ascend_install *a)
{
    return a->ndavinci > 0 || a->driver_present;
}

bool nd_ascend_any(const struct nd_ascend_install *a)
{
    return a->driver_present || a->cann_home[0] || a->ndavinci > 0 || a->davinci_manager || a->firmware_present;
}

void nd_ascend_judge(const struct nd_ascend_install *a, struct nd_findings *out)
{
    if (a->driver_error[0]) {
        struct nd_finding *f = nd_findings_add(out, "ascend.driver-version-unreadable", ND_CAT_CONFIG, ND_SEV_WARNING,
                                               "the NPU driver's version.info cannot be read");
        nd_finding_add_evidence(f, NULL, 0, "%s", a->driver_error);
        nd_finding_set_cause(f, "The file is missing a Version= line, unreadable, or not text: the driver install "
                                "may be damaged.");
        nd_finding_add_fix(f, "reinstall the NPU driver package (Ascend-hdk-*-npu-driver*.run --full)");
    }
    if (a->firmware_error[0]) {
        struct nd_finding *f = nd_findings_add(out, "ascend.firmware-version-unreadable", ND_CAT_CONFIG, ND_SEV_WARNING,
                                               "the NPU firmware's version.info cannot be read");
        nd_finding_add_evidence(f, NULL, 0, "%s", a->firmware_error);
        nd_finding_add_fix(f, "reinstall the NPU firmware package (Ascend-hdk-*-npu-firmware*.run --full)");
    }
    if (a->cann_error[0] && !a->cann_version[0]) {
        struct nd_finding *f = nd_findings_add(out, "ascend.cann-version-unreadable", ND_CAT_CONFIG, ND_SEV_WARNING,
                                               "the CANN toolkit's version file cannot be read");
        nd_finding_add_evidence(f, NULL, 0, "%s", a->cann_error);
        nd_finding_add_fix(f, "reinstall the CANN toolkit (Ascend-cann-toolkit_*.run --install)");
    }
    if (!a->driver_present && !a->driver_error[0] && a->driver_lib[0] && a->ndavinci > 0) {
        /* Libraries and devices say a driver is there; only its version file
         * is gone (a partial mount, a damaged install): the version checks
         * against firmware and CANN cannot be made. */
        struct nd_finding *f = nd_findings_add(out, "ascend.driver-version-missing", ND_CAT_CONFIG, ND_SEV_WARNING,
                                               "the NPU driver's version.info is missing, though its libraries and "
                                               "devices are present");
        nd_finding_add_evidence(f, NULL, 0, "no %s", a->driver_version_file);
        nd_finding_add_evidence(f, NULL, 0, "%s present, %zu /dev/davinciN", a->driver_lib, a->ndavinci);
        nd_finding_set_cause(f, "Without it the driver's version is unknown, so its fit with the firmware and CANN "
                                "cannot be checked; in a container the driver folder may be mounted only in part.");
        nd_finding_add_fix(f, "mount the whole driver folder: -v /usr/local/Ascend/driver:/usr/local/Ascend/driver:ro");
        nd_finding_add_fix(f, "on the host: reinstall the NPU driver package (Ascend-hdk-*-npu-driver*.run --full)");
    }
    if (a->ndavinci > 0 && !a->driver_lib[0]) {
        struct nd_finding *f = nd_findings_add(out, "ascend.devices-without-driver", ND_CAT_NO_DEVICE, ND_SEV_ERROR,
                                               "NPU device files are present but the driver libraries are not");
        nd_finding_add_evidence(f, NULL, 0, "/dev/davinci%d … (%zu device files)", a->davinci[0], a->ndavinci);
        nd_finding_add_evidence(f, NULL, 0, "no libascend_hal.so or libdcmi.so under %s/lib64 or /usr/local/dcmi",
                                a->driver_dir);
        f->confidence = ND_CONF_HIGH;
        nd_finding_set_cause(f, "The container got the devices but not the host's driver: its mounts are incomplete, "
                                "so the runtime cannot open any NPU.");
        nd_finding_add_fix(f,
                           "add to docker run: -v /usr/local/Ascend/driver:/usr/local/Ascend/driver:ro "
                           "-v /usr/local/dcmi:/usr/local/dcmi:ro -v /usr/local/bin/npu-smi:/usr/local/bin/npu-smi:ro "
                           "-v /etc/ascend_install.info:/etc/ascend_install.info:ro");
    }
    if (a->driver_present && a->ndavinci == 0) {
        struct nd_finding *f = nd_findings_add(
            out, "ascend.driver-without-devices", ND_CAT_NO_DEVICE, ND_SEV_ERROR,
            "the NPU driver is installed but there are no /dev/davinci* device files");
        nd_finding_add_evidence(f, a->driver_version_file, a->driver_version_line, "Version=%s", a->driver_version);
        nd_finding_add_evidence(f, NULL, 0, "no /dev/davinciN");
        nd_finding_set_cause(f, "In a container the devices were not passed in; on a host the driver is not loaded "
                                "(often: installed or upgraded without a reboot).");
        nd_finding_add_fix(f, "container: docker run --device /dev/davinci0 --device /dev/davinci_manager "
                              "--device /dev/devmm_svm --device /dev/hisi_hdc …");
        nd_finding_add_fix(f, "host: reboot after the driver install, then check `npu-smi info`");
    }
    if (a->ndavinci > 0 && (!a->davinci_manager || !a->devmm_svm || !a->hisi_hdc)) {
        struct nd_finding *f = nd_findings_add(out, "ascend.device-files-incomplete", ND_CAT_NO_DEVICE, ND_SEV_ERROR,
                                               "some NPU control device files are missing");
        nd_finding_add_evidence(f, NULL, 0, "/dev/davinci_manager %s, /dev/devmm_svm %s, /dev/hisi_hdc %s",
                                a->davinci_manager ? "present" : "MISSING", a->devmm_svm ? "present" : "MISSING",
                                a->hisi_hdc ? "present" : "MISSING");
        nd_finding_set_cause(f, "The runtime needs all three control devices besides /dev/davinciN.");
        nd_finding_add_fix(f,
                           "docker run --device /dev/davinci_manager --device /dev/devmm_svm --device /dev/hisi_hdc …");
    }
    if (a->fw_range_valid && a->firmware_version[0] &&
        !nd_ascend_fw_in_range(a->firmware_version, a->fw_range_lo, a->fw_range_hi)) {
        struct nd_finding *f = nd_findings_add(out, "ascend.firmware-incompatible", ND_CAT_VERSION_MISMATCH, ND_SEV_ERROR,
                                               "firmware %s is outside the range driver %s accepts (%s to %s)",
                                               a->firmware_version, a->driver_version, a->fw_range_lo, a->fw_range_hi);
        nd_finding_add_evidence(f, a->firmware_file, a->firmware_line, "Version=%s", a->firmware_version);
        nd_finding_add_evidence(f, a->driver_version_file, a->fw_range_line, "compatible_version_fw=[%s,%s]",
                                a->fw_range_lo, a->fw_range_hi);
        f->confidence = ND_CONF_HIGH;
        nd_finding_set_cause(f, "Driver and firmware were upgraded separately; the device may fail to initialise.");
        nd_finding_add_fix(f, "install the firmware package released with driver %s, then reboot", a->driver_version);
    }
    char req[64];
    if (a->cann_req_hal[0] && a->driver_hal[0] && nd_ascend_req_hal_min(a->cann_req_hal, req, sizeof req) &&
        nd_version_cmp(a->driver_hal, req) < 0) {
        struct nd_finding *f = nd_findings_add(out, "ascend.cann-driver-hal", ND_CAT_VERSION_MISMATCH, ND_SEV_ERROR,
                                               "CANN %s needs driver HAL %s or newer, but driver %s has HAL %s",
                                               a->cann_version[0] ? a->cann_version : "(version unknown)", req,
                                               a->driver_version[0] ? a->driver_version : "(version unknown)",
                                               a->driver_hal);
        nd_finding_add_evidence(f, a->cann_req_hal_file, a->cann_req_hal_line, "required_driver_ascendhal_version=%s",
                                a->cann_req_hal);
        nd_finding_add_evidence(f, a->driver_version_file, a->driver_hal_line, "ascendhal_version=%s", a->driver_hal);
        f->confidence = ND_CONF_HIGH;
        nd_finding_set_cause(f, "The toolkit's runtime was built against a newer driver interface than the installed "
                                "driver offers: device open or the first kernel launch fails.");
        nd_finding_add_fix(f, "upgrade the NPU driver and firmware (Ascend HDK) to the release published with CANN %s",
                           a->cann_version[0] ? a->cann_version : "this CANN");
        nd_finding_add_fix(f, "or install a CANN release whose runtime accepts HAL %s", a->driver_hal);
    }
    if (a->cann_home[0] && !a->driver_present && a->ndavinci == 0 && !a->driver_lib[0]) {
        struct nd_finding *f = nd_findings_add(out, "ascend.no-driver", ND_CAT_NO_DEVICE, ND_SEV_WARNING,
                                               "CANN is installed but there is no NPU driver and no NPU device");
        nd_finding_add_evidence(f, a->cann_version_file[0] ? a->cann_version_file : NULL, a->cann_version_line,
                                "CANN %s at %s", a->cann_version[0] ? a->cann_version : "(version unknown)",
                                a->cann_home);
        nd_finding_add_evidence(f, NULL, 0, "no %s/version.info, no /dev/davinciN", a->driver_dir);
        nd_finding_set_cause(f,
                             "Without the driver and device files torch_npu finds no NPU and the job runs on the CPU.");
        nd_finding_add_fix(f, "run on an NPU host, or pass the driver and devices into the container");
    }
    if (a->ndavinci > 0 && a->driver_lib[0] && !a->npu_smi[0]) {
        struct nd_finding *f = nd_findings_add(out, "ascend.npu-smi-missing", ND_CAT_CONFIG, ND_SEV_INFO,
                                               "npu-smi is not installed or not mounted");
        nd_finding_add_evidence(f, NULL, 0, "no /usr/local/bin/npu-smi");
        nd_finding_add_fix(f, "docker run -v /usr/local/bin/npu-smi:/usr/local/bin/npu-smi:ro …");
    }
}

json_t *nd_ascend_facts_json(const struct nd_ascend_install *a)
{
    json_t *o = json_object();
    json_t *drv = json_object();
    json_object_set_new(drv, "present", json_boolean(a->driver_present));
    json_object_set_new(drv, "path", nd_json_str(a->driver_dir));
    json_object_set_new(drv, "version", a->driver_version[0] ? nd_json_str(a->driver_version) : json_null());
    json_object_set_new(drv, "compatible_version_fw",
                        a->fw_range_valid ? json_pack("[s,s]", a->fw_range_lo, a->fw_range_hi) : json_null());
    json_object_set_new(drv, "library", a->driver_lib[0] ? nd_json_str(a->driver_lib) : json_null());
    json_object_set_new(drv, "install_info", json_boolean(a->install_info_present));
    json_object_set_new(drv, "ascendhal_version", a->driver_hal[0] ? nd_json_str(a->driver_hal) : json_null());
    json_object_set_new(o, "driver", drv);
    json_t *fw = json_object();
    json_object_set_new(fw, "present", json_boolean(a->firmware_present));
    json_object_set_new(fw, "version", a->firmware_version[0] ? nd_json_str(a->firmware_version) : json_null());
    json_object_set_new(o, "firmware", fw);
    json_t *c = json_object();
    json_object_set_new(c, "present", json_boolean(a->cann_home[0] != '\0'));
    if (a->cann_home[0]) {
        json_object_set_new(c, "home", nd_json_str(a->cann_home));
        json_object_set_new(c, "real_path", nd_json_str(a->cann_real));
        json_object_set_new(c, "layout", json_string(a->layout == ND_CANN_NEW ? "8.5+" : "classic"));
        json_object_set_new(c, "version", a->cann_version[0] ? nd_json_str(a->cann_version) : json_null());
        json_object_set_new(c, "required_driver_ascendhal_version",
                            a->cann_req_hal[0] ? nd_json_str(a->cann_req_hal) : json_null());
        json_object_set_new(c, "version_file", a->cann_version_file[0] ? nd_json_str(a->cann_version_file) : json_null());
        json_object_set_new(c, "set_env", a->set_env[0] ? nd_json_str(a->set_env) : json_null());
        json_object_set_new(c, "arch", a->arch_dir[0] ? nd_json_str(a->arch_dir) : json_null());
        json_object_set_new(c, "tbe", a->tbe_present ? nd_json_str(a->tbe_site) : json_null());
        json_t *sib = json_array();
        for (size_t i = 0; i < a->nsiblings; i++)
            json_array_append_new(sib, nd_json_str(a->siblings[i]));
        json_object_set_new(c, "installed_versions", sib);
    }
    json_object_set_new(o, "cann", c);
    json_t *dev = json_array();
    for (size_t i = 0; i < a->ndavinci; i++)
        json_array_append_new(dev, json_integer(a->davinci[i]));
    json_t *df = json_object();
    json_object_set_new(df, "davinci", dev);
    json_object_set_new(df, "davinci_manager", json_boolean(a->davinci_manager));
    json_object_set_new(df, "devmm_svm", json_boolean(a->devmm_svm));
    json_object_set_new(df, "hisi_hdc", json_boolean(a->hisi_hdc));
    json_object_set_new(o, "device_files", df);
    json_object_set_new(o, "npu_smi", a->npu_smi[0] ? nd_json_str(a->npu_smi) : json_null());
    return o;
}
