/* Distributed-training settings in the job's environment: the torchrun /
 * MPI variables, whether MASTER_ADDR resolves (in a guarded child: DNS can
 * block), the *_SOCKET_IFNAME interfaces, HCCL timeouts, and the Ascend
 * RANK_TABLE_FILE. Judgements are pure functions of the gathered facts. */
#ifndef ND_PROBE_DISTRIBUTED_H
#define ND_PROBE_DISTRIBUTED_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "core/error.h"
#include "core/finding.h"
#include "core/environ.h"

struct nd_dist_int {
    bool set;   /* the variable is present */
    bool valid; /* it parses as a non-negative integer */
    long value;
    char raw[32];
};

struct nd_ifname_check {
    char var[32]; /* "NCCL_SOCKET_IFNAME" */
    char value[128];
    bool ok; /* at least one interface matches */
};

struct nd_rank_table {
    bool set;
    char path[PATH_MAX];
    bool parsed;
    char error[256];
    long servers;
    long devices; /* over all servers */
    bool lists_host;
    long host_devices; /* devices listed for this host */
};

#define ND_DIST_MAX_IFNAME 3

struct nd_distributed {
    struct nd_dist_int rank, world_size, local_rank, master_port;
    bool master_addr_set;
    char master_addr[256];
    bool addr_checked;
    bool addr_resolves;
    char addr_result[256]; /* the address it resolved to, or why not */
    size_t nifname;
    struct nd_ifname_check ifname[ND_DIST_MAX_IFNAME];
    struct nd_dist_int hccl_connect_timeout, hccl_exec_timeout;
    struct nd_rank_table rank_table;
};

/* Gathers the facts. resolve_timeout_s bounds the MASTER_ADDR lookup (0 skips it). */
void nd_distributed_probe(const struct nd_environ *env, double resolve_timeout_s, struct nd_distributed *d);
/* ndevices: devices the job can see (-1 unknown), for LOCAL_RANK. */
void nd_distributed_judge(const struct nd_distributed *d, long ndevices, struct nd_findings *out);
json_t *nd_distributed_facts_json(const struct nd_distributed *d);
bool nd_distributed_any(const struct nd_distributed *d);

/* Parses an integer variable's value. */
void nd_dist_int_parse(const char *value, struct nd_dist_int *out);
/* Does an NCCL-style interface list ("eth", "=eth0", "^docker,lo", "ib0,ib1")
 * match any of the given interface names? Excluding lists match when some
 * interface is left. */
bool nd_ifname_matches(const char *spec, const char *const *ifaces, size_t n);
/* Parses a rank table (Ascend hccl.json: server_list[].device[], or the older
 * group_list[].instance_list[].devices[]) and says whether it lists one of
 * host_ids (this host's IPs and name). Returns 0 or -EINVAL with err. */
int nd_rank_table_parse(const char *buf, size_t len, const char *const *host_ids, size_t nids,
                        struct nd_rank_table *out, struct nd_error *err);

#endif
