/* The NVIDIA install as files: /proc/driver/nvidia/version,
 * /dev/nvidia*, libcuda.so.1 and libnvidia-ml.so.1 on the job's library path. */
#include "probe/cuda_install.h"

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
#include "probe/toolkit_version.h"

int nd_nvidia_parse_version(const char *buf, size_t len, char *out, size_t size)
{
    static const char key[] = "Kernel Module";
    const char *end = buf + len;
    for (const char *p = buf; p && p < end; p = memchr(p, '\n', (size_t)(end - p)), p = p ? p + 1 : NULL) {
        size_t linelen = (size_t)(end - p);
        const char *nl = memchr(p, '\n', linelen);
        if (nl)
            linelen = (size_t)(nl - p);
        if (linelen < 5 || strncmp(p, "NVRM", 4) != 0)
            continue;
        /* Find "Kernel Module" (or "Kernel Module for aarch64") inside this line. */
        for (size_t i = 0; i + sizeof key - 1 <= linelen; i++) {
            if (memcmp(p + i, key, sizeof key - 1) != 0)
                continue;
            const char *q = p + i + sizeof key - 1;
            const char *le = p + linelen;
            /* Skip words until one that starts with a digit. */
            while (q < le) {
                while (q < le && isspace((unsigned char)*q))
                    q++;
                if (q < le && isdigit((unsigned char)*q))
                    break;
                while (q < le && !isspace((unsigned char)*q))
                    q++;
            }
            size_t n = 0;
            while (q + n < le && (isdigit((unsigned char)q[n]) || q[n] == '.'))
                n++;
            if (n == 0 || n >= size)
                return -EINVAL;
            memcpy(out, q, n);
            out[n] = '\0';
            return 0;
        }
    }
    return -EINVAL;
}

static bool nd_lib_in_dir(const char *dir, const char *name, char *out, size_t size)
{
    if (!dir || dir[0] != '/')
        return false;
    char p[PATH_MAX];
    if (nd_pfmt(p, sizeof p, "%s/%s", dir, name) >= (int)sizeof p)
        return false;
    if (!nd_rootfs_exists(p))
        return false;
    nd_pfmt(out, size, "%s", p);
    return true;
}

bool nd_find_lib_in_root(const struct nd_environ *env, const char *name, char *out, size_t size)
{
    const char *ld = env ? nd_environ_get(env, "LD_LIBRARY_PATH") : NULL;
    if (ld && *ld) {
        char **dirs;
        size_t n = nd_path_split(ld, &dirs);
        bool found = false;
        for (size_t i = 0; i < n && !found; i++)
            found = nd_lib_in_dir(dirs[i], name, out, size);
        nd_path_split_free(dirs, n);
        if (found)
            return true;
    }
    DIR *d = nd_rootfs_opendir("/etc/ld.so.conf.d");
    if (d) {
        struct dirent *e;
        bool found = false;
        while (!found && (e = readdir(d))) {
            size_t nl = strlen(e->d_name);
            if (nl < 5 || strcmp(e->d_name + nl - 5, ".conf") != 0)
                continue;
            char p[PATH_MAX];
            nd_pfmt(p, sizeof p, "/etc/ld.so.conf.d/%s", e->d_name);
            char *buf;
            size_t len;
            if (nd_rootfs_read(p, 64 * 1024, &buf, &len, NULL) < 0)
                continue;
            char *save = NULL;
            for (char *line = strtok_r(buf, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save))
                found = nd_lib_in_dir(nd_trim(line), name, out, size);
            free(buf);
        }
        closedir(d);
        if (found)
            return true;
    }
    const char *std[] = {"/usr/lib/x86_64-linux-gnu",
                         "/usr/lib/aarch64-linux-gnu",
                         "/usr/lib64",
                         "/usr/lib",
                         "/lib64",
                         "/lib/x86_64-linux-gnu",
                         "/lib/aarch64-linux-gnu",
                         "/usr/local/nvidia/lib64",
                         "/usr/local/nvidia/lib",
                         NULL};
    for (int i = 0; std[i]; i++)
        if (nd_lib_in_dir(std[i], name, out, size))
            return true;
    return false;
}

void nd_cuda_probe(const struct nd_environ *env, struct nd_cuda_install *c)
{
    memset(c, 0, sizeof *c);
    char *buf;
    size_t len;
    if (nd_rootfs_read("/proc/driver/nvidia/version", 64 * 1024, &buf, &len, NULL) == 0) {
        c->driver_present = nd_nvidia_parse_version(buf, len, c->driver_version, sizeof c->driver_version) == 0;
        free(buf);
    }
    DIR *d = nd_rootfs_opendir("/dev");
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            const char *n = e->d_name;
            if (strncmp(n, "nvidia", 6) == 0 && isdigit((unsigned char)n[6])) {
                char *end;
                long idx = strtol(n + 6, &end, 10);
                if (*end || idx < 0 || idx > 100000 || c->ngpu_files >= ND_NVIDIA_MAX_DEVFILES)
                    continue;
                size_t i = c->ngpu_files;
                while (i > 0 && c->gpu_files[i - 1] > idx) {
                    c->gpu_files[i] = c->gpu_files[i - 1];
                    i--;
                }
                c->gpu_files[i] = (int)idx;
                c->ngpu_files++;
            } else if (strcmp(n, "nvidiactl") == 0) {
                c->nvidiactl = true;
            } else if (strcmp(n, "nvidia-uvm") == 0) {
                c->nvidia_uvm = true;
            }
        }
        closedir(d);
    }
    if (nd_find_lib_in_root(env, "libcuda.so.1", c->libcuda, sizeof c->libcuda) ||
        nd_find_lib_in_root(env, "libcuda.so", c->libcuda, sizeof c->libcuda))
        c->libcuda_is_stub = strstr(c->libcuda, "/stubs/") != NULL;
    nd_find_lib_in_root(env, "libnvidia-ml.so.1", c->libnvml, sizeof c->libnvml);
    nd_cuda_toolkit_probe(c->cuda_toolkit, sizeof c->cuda_toolkit, c->cuda_toolkit_file, sizeof c->cuda_toolkit_file);
}

bool nd_cuda_any(const struct nd_cuda_install *c)
{
    return c->driver_present || c->ngpu_files > 0 || c->nvidiactl;
}

void nd_cuda_judge(const struct nd_cuda_install *c, struct nd_findings *out)
{
    if (c->ngpu_files > 0 && (!c->libcuda[0] || c->libcuda_is_stub)) {
        struct nd_finding *f = nd_findings_add(out, "nvidia.devices-without-driver", ND_CAT_NO_DEVICE, ND_SEV_ERROR,
                                               "GPU device files are present but libcuda.so.1 is not");
        nd_finding_add_evidence(f, NULL, 0, "/dev/nvidia%d … (%zu device files)", c->gpu_files[0], c->ngpu_files);
        if (c->libcuda_is_stub)
            nd_finding_add_evidence(f, NULL, 0, "only the link-time stub %s", c->libcuda);
        else
            nd_finding_add_evidence(f, NULL, 0,
                                    "no libcuda.so.1 on LD_LIBRARY_PATH, in ld.so.conf.d or the standard "
                                    "library folders");
        f->confidence = ND_CONF_HIGH;
        nd_finding_set_cause(f, "The container got the GPUs but not the driver's user-space libraries: it was not "
                                "started through the NVIDIA container runtime.");
        nd_finding_add_fix(f, "docker run --gpus all … (with nvidia-container-toolkit installed on the host)");
    }
    if (c->driver_present && c->ngpu_files == 0) {
        struct nd_finding *f = nd_findings_add(out, "nvidia.driver-without-devices", ND_CAT_NO_DEVICE, ND_SEV_ERROR,
                                               "the NVIDIA driver is loaded but there are no /dev/nvidiaN files");
        nd_finding_add_evidence(f, "/proc/driver/nvidia/version", 0, "driver %s", c->driver_version);
        nd_finding_set_cause(f, "The device nodes were not created or not passed into the container.");
        nd_finding_add_fix(f, "container: docker run --gpus all …; host: run nvidia-smi once as root "
                              "(it creates the nodes) or load nvidia-uvm");
    }
}

json_t *nd_cuda_facts_json(const struct nd_cuda_install *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "driver_version", c->driver_present ? nd_json_str(c->driver_version) : json_null());
    json_t *dev = json_array();
    for (size_t i = 0; i < c->ngpu_files; i++)
        json_array_append_new(dev, json_integer(c->gpu_files[i]));
    json_object_set_new(o, "device_files", dev);
    json_object_set_new(o, "nvidiactl", json_boolean(c->nvidiactl));
    json_object_set_new(o, "nvidia_uvm", json_boolean(c->nvidia_uvm));
    json_object_set_new(o, "libcuda", c->libcuda[0] ? nd_json_str(c->libcuda) : json_null());
    json_object_set_new(o, "libcuda_is_stub", json_boolean(c->libcuda_is_stub));
    json_object_set_new(o, "libnvidia_ml", c->libnvml[0] ? nd_json_str(c->libnvml) : json_null());
    json_object_set_new(o, "cuda_toolkit", c->cuda_toolkit[0] ? nd_json_str(c->cuda_toolkit) : json_null());
    return o;
}
