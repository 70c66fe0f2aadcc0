/* Host facts: CPUs, memory and its cgroup limit, container detection,
 * RLIMIT_NOFILE, /dev/shm and free disk. Judged against what DataLoader
 * workers and checkpoints need. */
#include "probe/host.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/array.h"
#include "core/fileio.h"
#include "core/json_util.h"
#include "core/rootfs.h"
#include "core/strbuf.h"
#include "probe/pathfmt.h"

#define ND_GIB (1024ULL * 1024 * 1024)

int nd_host_parse_meminfo(const char *buf, size_t len, uint64_t *total, uint64_t *available)
{
    char *copy = nd_xstrndup(buf, len);
    bool got_total = false;
    *total = *available = 0;
    char *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        unsigned long long kb;
        if (sscanf(line, "MemTotal: %llu kB", &kb) == 1) {
            *total = (uint64_t)kb * 1024;
            got_total = true;
        } else if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
            *available = (uint64_t)kb * 1024;
        }
    }
    free(copy);
    return got_total ? 0 : -EINVAL;
}

int nd_host_parse_cgroup_limit(const char *buf, size_t len, uint64_t *limit)
{
    char tmp[64];
    size_t n = len < sizeof tmp - 1 ? len : sizeof tmp - 1;
    memcpy(tmp, buf, n);
    tmp[n] = '\0';
    char *s = nd_trim(tmp);
    if (strcmp(s, "max") == 0)
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end || errno || s[0] == '-')
        return -EINVAL;
    /* cgroup v1 writes LONG_MAX rounded down to a page for "no limit". */
    if (v >= (1ULL << 62))
        return 0;
    *limit = v;
    return 1;
}

int nd_host_parse_cpu_max(const char *buf, size_t len, double *cpus)
{
    char tmp[64];
    size_t n = len < sizeof tmp - 1 ? len : sizeof tmp - 1;
    memcpy(tmp, buf, n);
    tmp[n] = '\0';
    char quota[32];
    unsigned long long period;
    int k = sscanf(tmp, "%31s %llu", quota, &period);
    if (k < 1)
        return -EINVAL;
    if (strcmp(quota, "max") == 0)
        return 0;
    char *end;
    unsigned long long q = strtoull(quota, &end, 10);
    if (*end || k < 2 || period == 0)
        return -EINVAL;
    *cpus = (double)q / (double)period;
    return 1;
}

const char *nd_host_cgroup_container(const char *buf, size_t len)
{
    static const struct {
        const char *needle, *kind;
    } marks[] = {
        {"kubepods", "kubernetes"},   {"docker", "docker"}, {"libpod", "podman"},
        {"containerd", "containerd"}, {"/lxc/", "lxc"},     {"crio", "cri-o"},
    };
    for (size_t i = 0; i < ND_ARRAY_SIZE(marks); i++)
        if (memmem(buf, len, marks[i].needle, strlen(marks[i].needle)))
            return marks[i].kind;
    return NULL;
}

static bool nd_read_small(const char *path, bool in_root, char *out, size_t size)
{
    char *buf;
    size_t len;
    int rc = in_root ? nd_rootfs_read(path, 64 * 1024, &buf, &len, NULL)
                     : nd_read_file_prefix(path, 64 * 1024, &buf, &len, NULL);
    if (rc < 0)
        return false;
    size_t n = len < size - 1 ? len : size - 1;
    memcpy(out, buf, n);
    out[n] = '\0';
    free(buf);
    return true;
}

static void nd_probe_cgroup(struct nd_host *h)
{
    char buf[256];
    uint64_t lim;
    /* Inside a container the cgroup namespace makes /sys/fs/cgroup our own group. */
    if (nd_rootfs_exists("/sys/fs/cgroup/cgroup.controllers")) {
        h->cgroup_version = 2;
        if (nd_read_small("/sys/fs/cgroup/memory.max", true, buf, sizeof buf) &&
            nd_host_parse_cgroup_limit(buf, strlen(buf), &lim) == 1) {
            h->cgroup_limit_valid = true;
            h->cgroup_limit = lim;
        }
        double cpus;
        if (nd_read_small("/sys/fs/cgroup/cpu.max", true, buf, sizeof buf) &&
            nd_host_parse_cpu_max(buf, strlen(buf), &cpus) == 1) {
            h->cpu_quota_valid = true;
            h->cpu_quota = cpus;
        }
    } else if (nd_rootfs_is_dir("/sys/fs/cgroup/memory")) {
        h->cgroup_version = 1;
        if (nd_read_small("/sys/fs/cgroup/memory/memory.limit_in_bytes", true, buf, sizeof buf) &&
            nd_host_parse_cgroup_limit(buf, strlen(buf), &lim) == 1) {
            h->cgroup_limit_valid = true;
            h->cgroup_limit = lim;
        }
    }
}

static void nd_probe_container(const struct nd_environ *env, struct nd_host *h)
{
    const char *kind = NULL;
    if (env && nd_environ_get(env, "KUBERNETES_SERVICE_HOST"))
        kind = "kubernetes";
    else if (nd_rootfs_exists("/.dockerenv"))
        kind = "docker";
    else if (nd_rootfs_exists("/run/.containerenv"))
        kind = "podman";
    if (!kind && nd_rootfs_is_default()) {
        char buf[4096];
        if (nd_read_small("/proc/1/cgroup", false, buf, sizeof buf))
            kind = nd_host_cgroup_container(buf, strlen(buf));
    }
    if (!kind && env) {
        const char *c = nd_environ_get(env, "container");
        if (c && *c)
            kind = c;
    }
    if (kind) {
        h->container = true;
        nd_pfmt(h->container_kind, sizeof h->container_kind, "%s", kind);
    }
}

void nd_host_probe(const struct nd_environ *env, struct nd_host *h)
{
    memset(h, 0, sizeof *h);
    h->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (gethostname(h->hostname, sizeof h->hostname) != 0)
        h->hostname[0] = '\0';
    h->hostname[sizeof h->hostname - 1] = '\0';
    char *buf;
    size_t len;
    if (nd_read_file_prefix("/proc/meminfo", 64 * 1024, &buf, &len, NULL) == 0) {
        h->mem_valid = nd_host_parse_meminfo(buf, len, &h->mem_total, &h->mem_available) == 0;
        free(buf);
    }
    nd_probe_cgroup(h);
    nd_probe_container(env, h);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        h->nofile_valid = true;
        h->nofile_soft = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
        h->nofile_hard = rl.rlim_max == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_max;
    }
    char path[4096];
    struct statvfs vfs;
    struct stat st_shm, st_root;
    /* Under --root a plain /dev/shm folder is not a mount: its size says nothing. */
    if (nd_rootfs_path("/dev/shm", path, sizeof path) == 0 && stat(path, &st_shm) == 0 && S_ISDIR(st_shm.st_mode) &&
        statvfs(path, &vfs) == 0) {
        char rootp[4096];
        bool separate = nd_rootfs_is_default() || (nd_rootfs_path("/", rootp, sizeof rootp) == 0 &&
                                                   stat(rootp, &st_root) == 0 && st_root.st_dev != st_shm.st_dev);
        if (separate) {
            h->shm_valid = true;
            h->shm_total = (uint64_t)vfs.f_blocks * vfs.f_frsize;
            h->shm_free = (uint64_t)vfs.f_bavail * vfs.f_frsize;
        }
    }
    if (nd_rootfs_path("/", path, sizeof path) == 0 && statvfs(path, &vfs) == 0) {
        h->disk_valid = true;
        h->disk_total = (uint64_t)vfs.f_blocks * vfs.f_frsize;
        h->disk_free = (uint64_t)vfs.f_bavail * vfs.f_frsize;
    }
}

void nd_host_judge(const struct nd_host *h, struct nd_findings *out)
{
    char a[32], b[32];
    if (h->shm_valid && h->shm_total < ND_GIB) {
        nd_format_bytes(h->shm_total, a, sizeof a);
        struct nd_finding *f = nd_findings_add(out, "host.shm-small", ND_CAT_HOST_OOM, ND_SEV_WARNING,
                                               "/dev/shm is only %s", a);
        nd_finding_add_evidence(f, NULL, 0, "/dev/shm size %s (under 1 GiB)", a);
        nd_finding_set_cause(f, "DataLoader workers pass batches through /dev/shm; at Docker's 64 MB default they "
                                "die with \"Bus error\" or \"unable to write to file </torch_…>\".");
        nd_finding_add_fix(
            f, "docker run --shm-size=16g … (Kubernetes: mount an emptyDir with medium: Memory at /dev/shm)");
    }
    if (h->nofile_valid && h->nofile_soft < 1024) {
        struct nd_finding *f = nd_findings_add(out, "host.nofile-low", ND_CAT_CONFIG, ND_SEV_WARNING,
                                               "the open-file limit is %" PRIu64, h->nofile_soft);
        nd_finding_add_evidence(f, NULL, 0, "ulimit -n = %" PRIu64 " (hard %" PRIu64 ")", h->nofile_soft, h->nofile_hard);
        nd_finding_set_cause(f, "DataLoader workers share tensors through file descriptors; a low limit gives "
                                "\"Too many open files\".");
        nd_finding_add_fix(f, "ulimit -n 65536 (docker run --ulimit nofile=65536:65536)");
    }
    if (h->cgroup_limit_valid && h->cgroup_limit < 4 * ND_GIB) {
        nd_format_bytes(h->cgroup_limit, a, sizeof a);
        struct nd_finding *f = nd_findings_add(out, "host.memory-limit-low", ND_CAT_HOST_OOM, ND_SEV_WARNING,
                                               "the container's memory limit is %s", a);
        nd_finding_add_evidence(f, NULL, 0, "cgroup v%d memory limit %s", h->cgroup_version, a);
        nd_finding_set_cause(f, "Loading a model and its DataLoader workers above this limit gets the job "
                                "OOM-killed (exit 137) without a Python error.");
        nd_finding_add_fix(f, "raise the limit: docker run --memory=64g … / resources.limits.memory in the pod spec");
    }
    if (h->disk_valid && h->disk_free < ND_GIB) {
        nd_format_bytes(h->disk_free, a, sizeof a);
        nd_format_bytes(h->disk_total, b, sizeof b);
        struct nd_finding *f = nd_findings_add(out, "host.disk-low", ND_CAT_CONFIG, ND_SEV_WARNING, "only %s free on /",
                                               a);
        nd_finding_add_evidence(f, NULL, 0, "/: %s free of %s", a, b);
        nd_finding_set_cause(f, "Checkpoints, compiled-kernel caches and logs fail to write when the disk fills.");
        nd_finding_add_fix(f, "free space, or point checkpoints and caches at a larger volume");
    }
}

static json_t *nd_u64_or_null(bool valid, uint64_t v)
{
    return valid ? json_integer((json_int_t)(v > (uint64_t)INT64_MAX ? INT64_MAX : v)) : json_null();
}

json_t *nd_host_facts_json(const struct nd_host *h)
{
    json_t *o = json_object();
    json_object_set_new(o, "hostname", nd_json_str(h->hostname));
    json_object_set_new(o, "cpus", json_integer(h->ncpu));
    json_object_set_new(o, "cpu_quota_cores", h->cpu_quota_valid ? json_real(h->cpu_quota) : json_null());
    json_object_set_new(o, "memory_total_bytes", nd_u64_or_null(h->mem_valid, h->mem_total));
    json_object_set_new(o, "memory_available_bytes", nd_u64_or_null(h->mem_valid, h->mem_available));
    json_object_set_new(o, "cgroup_version", h->cgroup_version ? json_integer(h->cgroup_version) : json_null());
    json_object_set_new(o, "cgroup_memory_limit_bytes", nd_u64_or_null(h->cgroup_limit_valid, h->cgroup_limit));
    json_object_set_new(o, "container", json_boolean(h->container));
    json_object_set_new(o, "container_kind", h->container ? nd_json_str(h->container_kind) : json_null());
    json_object_set_new(o, "nofile_soft", nd_u64_or_null(h->nofile_valid, h->nofile_soft));
    json_object_set_new(o, "nofile_hard", nd_u64_or_null(h->nofile_valid, h->nofile_hard));
    json_object_set_new(o, "shm_bytes", nd_u64_or_null(h->shm_valid, h->shm_total));
    json_object_set_new(o, "disk_free_bytes", nd_u64_or_null(h->disk_valid, h->disk_free));
    json_object_set_new(o, "disk_total_bytes", nd_u64_or_null(h->disk_valid, h->disk_total));
    return o;
}
