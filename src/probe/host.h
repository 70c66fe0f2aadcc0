/* Host facts a training job depends on: CPUs, memory, the cgroup memory
 * limit, container or not, open-file limit, /dev/shm and free disk. Parsers
 * take buffers (captured /proc and /sys dumps are unit-tested directly). */
#ifndef ND_PROBE_HOST_H
#define ND_PROBE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/finding.h"
#include "core/environ.h"

struct nd_host {
    long ncpu; /* online CPUs */
    bool cpu_quota_valid;
    double cpu_quota; /* cgroup cpu.max in CPUs */
    bool mem_valid;
    uint64_t mem_total, mem_available;
    int cgroup_version;      /* 1, 2, or 0 unknown */
    bool cgroup_limit_valid; /* a real limit is set (not "max") */
    uint64_t cgroup_limit;
    bool container;
    char container_kind[32]; /* "docker", "podman", "kubernetes", "containerd", "lxc" */
    bool nofile_valid;
    uint64_t nofile_soft, nofile_hard;
    bool shm_valid;
    uint64_t shm_total, shm_free;
    bool disk_valid;
    uint64_t disk_free, disk_total;
    char hostname[256];
};

void nd_host_probe(const struct nd_environ *env, struct nd_host *h);
void nd_host_judge(const struct nd_host *h, struct nd_findings *out);
json_t *nd_host_facts_json(const struct nd_host *h);

/* /proc/meminfo: MemTotal and MemAvailable in bytes. 0 or -EINVAL. */
int nd_host_parse_meminfo(const char *buf, size_t len, uint64_t *total, uint64_t *available);
/* memory.max (v2) or memory.limit_in_bytes (v1): 1 with *limit for a real
 * limit, 0 for "max" or the v1 "unlimited" sentinel, -EINVAL for garbage. */
int nd_host_parse_cgroup_limit(const char *buf, size_t len, uint64_t *limit);
/* cpu.max ("200000 100000" -> 2.0): 1 with *cpus, 0 for "max", -EINVAL. */
int nd_host_parse_cpu_max(const char *buf, size_t len, double *cpus);
/* /proc/1/cgroup text: the container runtime it names, or NULL. */
const char *nd_host_cgroup_container(const char *buf, size_t len);

#endif
