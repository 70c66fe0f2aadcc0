/* Distributed settings: consistency of RANK/WORLD_SIZE/LOCAL_RANK/MASTER_*,
 * MASTER_ADDR resolution in a guarded child (getaddrinfo can hang on a dead
 * DNS server), interface names, HCCL timeouts and the rank table. */
#include "probe/distributed.h"

#include <ctype.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/json_util.h"
#include "core/redact.h"
#include "core/rootfs.h"
#include "core/spawn.h"
#include "core/strbuf.h"
#include "probe/pathfmt.h"

#define ND_MAX_IFACES 64

void nd_dist_int_parse(const char *value, struct nd_dist_int *out)
{
    memset(out, 0, sizeof *out);
    if (!value)
        return;
    out->set = true;
    nd_pfmt(out->raw, sizeof out->raw, "%s", value);
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    while (*end == ' ')
        end++;
    out->valid = end != value && !*end && !errno && v >= 0 && isdigit((unsigned char)value[0]);
    out->value = out->valid ? v : 0;
}

bool nd_ifname_matches(const char *spec, const char *const *ifaces, size_t n)
{
    if (!spec || !*spec)
        return true;
    bool exclude = spec[0] == '^';
    const char *s = spec + (exclude ? 1 : 0);
    bool exact = s[0] == '=';
    if (exact)
        s++;
    char *copy = nd_xstrdup(s);
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        bool hit = false;
        char *save = NULL;
        char *tmp = nd_xstrdup(copy);
        for (char *tok = strtok_r(tmp, ",", &save); tok && !hit; tok = strtok_r(NULL, ",", &save)) {
            char *t = tok;
            while (*t == ' ')
                t++;
            hit = exact ? strcmp(ifaces[i], t) == 0 : strncmp(ifaces[i], t, strlen(t)) == 0;
        }
        free(tmp);
        if (exclude ? !hit : hit) {
            any = true;
            break;
        }
    }
    free(copy);
    return any;
}

static const char *nd_json_strish(json_t *v, char *buf, size_t size)
{
    if (json_is_string(v))
        return json_string_value(v);
    if (json_is_integer(v)) {
        nd_pfmt(buf, size, "%lld", (long long)json_integer_value(v));
        return buf;
    }
    return NULL;
}

static void nd_rank_server(json_t *server, const char *devkey, const char *const *host_ids, size_t nids,
                           struct nd_rank_table *out)
{
    char b[64];
    const char *id = nd_json_strish(json_object_get(server, "server_id"), b, sizeof b);
    json_t *devs = json_object_get(server, devkey);
    long ndev = json_is_array(devs) ? (long)json_array_size(devs) : 0;
    out->servers++;
    out->devices += ndev;
    for (size_t i = 0; id && i < nids; i++)
        if (host_ids[i] && strcmp(host_ids[i], id) == 0) {
            out->lists_host = true;
            out->host_devices += ndev;
            break;
        }
}

int nd_rank_table_parse(const char *buf, size_t len, const char *const *host_ids, size_t nids,
                        struct nd_rank_table *out, struct nd_error *err)
{
    json_error_t jerr;
    json_t *doc = json_loadb(buf, len, 0, &jerr);
    out->servers = out->devices = out->host_devices = 0;
    out->lists_host = false;
    if (!doc)
        return nd_error_set(err, -EINVAL, "not valid JSON: %s (line %d)", jerr.text, jerr.line);
    int rc = 0;
    json_t *list = json_object_get(doc, "server_list");
    size_t i;
    json_t *v;
    if (json_is_array(list)) {
        json_array_foreach (list, i, v) {
            if (json_is_object(v))
                nd_rank_server(v, "device", host_ids, nids, out);
        }
    } else if (json_is_array(json_object_get(doc, "group_list"))) {
        json_t *g;
        size_t gi;
        json_array_foreach (json_object_get(doc, "group_list"), gi, g) {
            json_array_foreach (json_object_get(g, "instance_list"), i, v) {
                if (json_is_object(v))
                    nd_rank_server(v, "devices", host_ids, nids, out);
            }
        }
    } else {
        rc = nd_error_set(err, -EINVAL, "no server_list array");
    }
    if (rc == 0 && out->servers == 0)
        rc = nd_error_set(err, -EINVAL, "server_list is empty");
    json_decref(doc);
    return rc;
}

static size_t nd_list_ifaces(char names[][IF_NAMESIZE + 1], size_t max, char ips[][64], size_t *nips, size_t maxips)
{
    struct ifaddrs *ifa = NULL;
    size_t n = 0;
    *nips = 0;
    if (getifaddrs(&ifa) != 0)
        return 0;
    for (struct ifaddrs *p = ifa; p; p = p->ifa_next) {
        bool seen = false;
        for (size_t i = 0; i < n && !seen; i++)
            seen = strcmp(names[i], p->ifa_name) == 0;
        if (!seen && n < max)
            nd_pfmt(names[n++], IF_NAMESIZE + 1, "%s", p->ifa_name);
        if (p->ifa_addr && *nips < maxips) {
            int fam = p->ifa_addr->sa_family;
            if (fam == AF_INET)
                inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)p->ifa_addr)->sin_addr, ips[(*nips)++], 64);
            else if (fam == AF_INET6)
                inet_ntop(AF_INET6, &((struct sockaddr_in6 *)(void *)p->ifa_addr)->sin6_addr, ips[(*nips)++], 64);
        }
    }
    freeifaddrs(ifa);
    return n;
}

static int nd_resolve_child(void *arg, int out_fd)
{
    const char *host = arg;
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(host, NULL, &hints, &res);
    char buf[256];
    if (rc != 0) {
        int n = snprintf(buf, sizeof buf, "ERR %s", gai_strerror(rc));
        nd_write_full(out_fd, buf, (size_t)n);
        return 1;
    }
    char ip[64] = "?";
    if (res->ai_family == AF_INET)
        inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)res->ai_addr)->sin_addr, ip, sizeof ip);
    else if (res->ai_family == AF_INET6)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)(void *)res->ai_addr)->sin6_addr, ip, sizeof ip);
    freeaddrinfo(res);
    int n = snprintf(buf, sizeof buf, "OK %s", ip);
    nd_write_full(out_fd, buf, (size_t)n);
    return 0;
}

void nd_distributed_probe(const struct nd_environ *env, double resolve_timeout_s, struct nd_distributed *d)
{
    memset(d, 0, sizeof *d);
    nd_dist_int_parse(nd_environ_get(env, "RANK"), &d->rank);
    nd_dist_int_parse(nd_environ_get(env, "WORLD_SIZE"), &d->world_size);
    nd_dist_int_parse(nd_environ_get(env, "LOCAL_RANK"), &d->local_rank);
    nd_dist_int_parse(nd_environ_get(env, "MASTER_PORT"), &d->master_port);
    nd_dist_int_parse(nd_environ_get(env, "HCCL_CONNECT_TIMEOUT"), &d->hccl_connect_timeout);
    nd_dist_int_parse(nd_environ_get(env, "HCCL_EXEC_TIMEOUT"), &d->hccl_exec_timeout);
    const char *addr = nd_environ_get(env, "MASTER_ADDR");
    if (addr) {
        d->master_addr_set = true;
        nd_pfmt(d->master_addr, sizeof d->master_addr, "%s", addr);
    }
    char names[ND_MAX_IFACES][IF_NAMESIZE + 1];
    char ips[ND_MAX_IFACES][64];
    size_t nips = 0;
    size_t nif = nd_list_ifaces(names, ND_MAX_IFACES, ips, &nips, ND_MAX_IFACES);
    const char *ifp[ND_MAX_IFACES];
    for (size_t i = 0; i < nif; i++)
        ifp[i] = names[i];
    const char *vars[ND_DIST_MAX_IFNAME] = {"NCCL_SOCKET_IFNAME", "HCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME"};
    for (size_t i = 0; i < ND_DIST_MAX_IFNAME; i++) {
        const char *v = nd_environ_get(env, vars[i]);
        if (!v || !*v)
            continue;
        struct nd_ifname_check *c = &d->ifname[d->nifname++];
        nd_pfmt(c->var, sizeof c->var, "%s", vars[i]);
        nd_pfmt(c->value, sizeof c->value, "%s", v);
        c->ok = nif == 0 || nd_ifname_matches(v, ifp, nif);
    }
    const char *rt = nd_environ_get(env, "RANK_TABLE_FILE");
    if (rt && *rt) {
        struct nd_rank_table *t = &d->rank_table;
        t->set = true;
        nd_pfmt(t->path, sizeof t->path, "%s", rt);
        char *buf;
        size_t len;
        struct nd_error err;
        if (nd_rootfs_read(rt, 16u << 20, &buf, &len, &err) < 0) {
            nd_pfmt(t->error, sizeof t->error, "%s", err.msg);
        } else {
            char host[256] = "";
            gethostname(host, sizeof host - 1);
            const char *ids[ND_MAX_IFACES + 1];
            size_t nids = 0;
            for (size_t i = 0; i < nips; i++)
                ids[nids++] = ips[i];
            ids[nids++] = host;
            t->parsed = nd_rank_table_parse(buf, len, ids, nids, t, &err) == 0;
            if (!t->parsed)
                nd_pfmt(t->error, sizeof t->error, "%s: %s", rt, err.msg);
            free(buf);
        }
    }
    unsigned char bin[sizeof(struct in6_addr)];
    if (d->master_addr_set &&
        (inet_pton(AF_INET, d->master_addr, bin) == 1 || inet_pton(AF_INET6, d->master_addr, bin) == 1)) {
        /* A numeric address needs no lookup (and no child). */
        d->addr_checked = true;
        d->addr_resolves = true;
        nd_pfmt(d->addr_result, sizeof d->addr_result, "%s", d->master_addr);
    } else if (d->master_addr_set && d->master_addr[0] && resolve_timeout_s > 0) {
        struct nd_spawn_result res;
        struct nd_error err;
        d->addr_checked = true;
        if (nd_guard_call(nd_resolve_child, d->master_addr, resolve_timeout_s, 4096, &res, &err) == 0) {
            if (res.out && strncmp(res.out, "OK ", 3) == 0) {
                d->addr_resolves = true;
                nd_pfmt(d->addr_result, sizeof d->addr_result, "%s", res.out + 3);
            } else if (res.out && strncmp(res.out, "ERR ", 4) == 0) {
                nd_pfmt(d->addr_result, sizeof d->addr_result, "%s", res.out + 4);
            } else {
                char why[128];
                nd_spawn_describe(&res, resolve_timeout_s, why, sizeof why);
                nd_pfmt(d->addr_result, sizeof d->addr_result, "the lookup %s", why);
            }
            nd_spawn_result_release(&res);
        } else {
            d->addr_checked = false;
        }
    }
}

bool nd_distributed_any(const struct nd_distributed *d)
{
    return d->rank.set || d->world_size.set || d->local_rank.set || d->master_port.set || d->master_addr_set ||
           d->nifname || d->rank_table.set;
}

static void nd_bad_int(struct nd_findings *out, const char *name, const struct nd_dist_int *v, const char *why)
{
    struct nd_finding *f = nd_findings_add(out, "dist.bad-value", ND_CAT_DISTRIBUTED, ND_SEV_ERROR, "%s=%s %s", name,
                                           v->raw, why);
    nd_finding_add_evidence(f, NULL, 0, "%s=%s", name, v->raw);
    nd_finding_add_fix(f, "let the launcher set it (torchrun, mpirun, the operator), or fix the value in the job spec");
}

void nd_distributed_judge(const struct nd_distributed *d, long ndevices, struct nd_findings *out)
{
    /* torchrun sets all four for each worker; a hand-made subset is a broken launch. */
    int nset = d->rank.set + d->world_size.set + d->master_port.set + d->master_addr_set;
    if (nset > 0 && nset < 4) {
        struct nd_finding *f = nd_findings_add(out, "dist.partial-vars", ND_CAT_DISTRIBUTED, ND_SEV_ERROR,
                                               "only some of RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT are set");
        nd_finding_add_evidence(f, NULL, 0, "RANK %s, WORLD_SIZE %s, MASTER_ADDR %s, MASTER_PORT %s",
                                d->rank.set ? "set" : "unset", d->world_size.set ? "set" : "unset",
                                d->master_addr_set ? "set" : "unset", d->master_port.set ? "set" : "unset");
        nd_finding_set_cause(f, "init_process_group(init_method=\"env://\") needs all four; with some missing it "
                                "fails or waits for peers that never come.");
        nd_finding_add_fix(f, "start the job with torchrun (it sets all four), or set the missing ones");
    }
    if (d->rank.set && !d->rank.valid)
        nd_bad_int(out, "RANK", &d->rank, "is not a number");
    if (d->world_size.set && (!d->world_size.valid || d->world_size.value < 1))
        nd_bad_int(out, "WORLD_SIZE", &d->world_size, "is not a positive number");
    if (d->local_rank.set && !d->local_rank.valid)
        nd_bad_int(out, "LOCAL_RANK", &d->local_rank, "is not a number");
    if (d->master_port.set && (!d->master_port.valid || d->master_port.value < 1 || d->master_port.value > 65535))
        nd_bad_int(out, "MASTER_PORT", &d->master_port, "is not a port (1-65535)");
    if (d->rank.valid && d->world_size.valid && d->world_size.value >= 1 && d->rank.value >= d->world_size.value) {
        struct nd_finding *f = nd_findings_add(out, "dist.rank-out-of-range", ND_CAT_DISTRIBUTED, ND_SEV_ERROR,
                                               "RANK=%ld is not below WORLD_SIZE=%ld", d->rank.value,
                                               d->world_size.value);
        nd_finding_add_evidence(f, NULL, 0, "RANK=%ld, WORLD_SIZE=%ld", d->rank.value, d->world_size.value);
        nd_finding_add_fix(
            f, "ranks run from 0 to WORLD_SIZE-1: fix the launcher's arguments (--nnodes, --nproc-per-node)");
    }
    if (d->local_rank.valid && ndevices >= 0 && d->local_rank.value >= ndevices) {
        struct nd_finding *f = nd_findings_add(out, "dist.local-rank-no-device", ND_CAT_DISTRIBUTED, ND_SEV_ERROR,
                                               "LOCAL_RANK=%ld but the job sees %ld device%s", d->local_rank.value,
                                               ndevices, ndevices == 1 ? "" : "s");
        nd_finding_add_evidence(f, NULL, 0, "LOCAL_RANK=%ld, visible devices: %ld", d->local_rank.value, ndevices);
        nd_finding_set_cause(f, "Each local rank binds device LOCAL_RANK; this one has none and set_device fails.");
        nd_finding_add_fix(f, "use --nproc-per-node=%ld, or make more devices visible", ndevices);
    }
    if (d->addr_checked && !d->addr_resolves) {
        char *shown = nd_redact_value("MASTER_ADDR", d->master_addr);
        struct nd_finding *f = nd_findings_add(out, "dist.master-addr-unresolvable", ND_CAT_DISTRIBUTED, ND_SEV_ERROR,
                                               "MASTER_ADDR=%s does not resolve", shown);
        nd_finding_add_evidence(f, NULL, 0, "getaddrinfo(%s): %s", shown, d->addr_result);
        nd_finding_set_cause(f, "Every rank connects to MASTER_ADDR first; rendezvous fails or times out.");
        nd_finding_add_fix(f, "set MASTER_ADDR to the rank-0 host's IP address or a name this host resolves");
        free(shown);
    }
    for (size_t i = 0; i < d->nifname; i++) {
        const struct nd_ifname_check *c = &d->ifname[i];
        if (c->ok)
            continue;
        struct nd_finding *f = nd_findings_add(out, "dist.ifname-missing", ND_CAT_DISTRIBUTED, ND_SEV_ERROR,
                                               "%s=%s matches no network interface here", c->var, c->value);
        nd_finding_add_evidence(f, NULL, 0, "%s=%s; interfaces: see `ip -br link`", c->var, c->value);
        nd_finding_set_cause(f, "The collective library finds no socket interface and fails to initialise.");
        nd_finding_add_fix(f, "set %s to an interface that exists on every node (e.g. the one carrying the node's IP)",
                           c->var);
    }
    if (d->hccl_connect_timeout.set && (!d->hccl_connect_timeout.valid || d->hccl_connect_timeout.value < 120)) {
        struct nd_finding *f = nd_findings_add(out, "dist.hccl-timeout", ND_CAT_DISTRIBUTED, ND_SEV_WARNING,
                                               "HCCL_CONNECT_TIMEOUT=%s is below HCCL's default of 120 s",
                                               d->hccl_connect_timeout.raw);
        nd_finding_add_evidence(f, NULL, 0, "HCCL_CONNECT_TIMEOUT=%s", d->hccl_connect_timeout.raw);
        nd_finding_set_cause(f, "Large jobs need minutes to connect; a short timeout fails with EI0006.");
        nd_finding_add_fix(f, "unset HCCL_CONNECT_TIMEOUT, or set it to 120-7200 s");
    }
    if (d->hccl_exec_timeout.set && !d->hccl_exec_timeout.valid) {
        struct nd_finding *f = nd_findings_add(out, "dist.hccl-timeout", ND_CAT_DISTRIBUTED, ND_SEV_WARNING,
                                               "HCCL_EXEC_TIMEOUT=%s is not a number of seconds",
                                               d->hccl_exec_timeout.raw);
        nd_finding_add_evidence(f, NULL, 0, "HCCL_EXEC_TIMEOUT=%s", d->hccl_exec_timeout.raw);
        nd_finding_add_fix(f, "set HCCL_EXEC_TIMEOUT to a number of seconds, or unset it");
    }
    const struct nd_rank_table *t = &d->rank_table;
    if (t->set && !t->parsed) {
        struct nd_finding *f = nd_findings_add(out, "dist.rank-table-invalid", ND_CAT_DISTRIBUTED, ND_SEV_ERROR,
                                               "RANK_TABLE_FILE cannot be used");
        nd_finding_add_evidence(f, NULL, 0, "%s", t->error);
        nd_finding_set_cause(f, "HCCL reads the rank table at initialisation and fails without it.");
        nd_finding_add_fix(f, "regenerate the rank table (hccl_tools.py) and point RANK_TABLE_FILE at it");
    } else if (t->set && !t->lists_host) {
        struct nd_finding *f = nd_findings_add(out, "dist.rank-table-host-missing", ND_CAT_DISTRIBUTED, ND_SEV_ERROR,
                                               "RANK_TABLE_FILE does not list this host");
        nd_finding_add_evidence(f, t->path, 0, "%ld server%s, %ld device%s; none with this host's IP or name",
                                t->servers, t->servers == 1 ? "" : "s", t->devices, t->devices == 1 ? "" : "s");
        nd_finding_set_cause(f, "Each node must appear in the rank table as server_id; HCCL cannot place this node.");
        nd_finding_add_fix(f, "regenerate the rank table on the nodes of this job, or fix server_id for this host");
    }
}

static json_t *nd_int_json(const struct nd_dist_int *v)
{
    if (!v->set)
        return json_null();
    return v->valid ? json_integer(v->value) : nd_json_str(v->raw);
}

json_t *nd_distributed_facts_json(const struct nd_distributed *d)
{
    json_t *o = json_object();
    json_object_set_new(o, "rank", nd_int_json(&d->rank));
    json_object_set_new(o, "world_size", nd_int_json(&d->world_size));
    json_object_set_new(o, "local_rank", nd_int_json(&d->local_rank));
    json_object_set_new(o, "master_port", nd_int_json(&d->master_port));
    if (d->master_addr_set) {
        char *shown = nd_redact_value("MASTER_ADDR", d->master_addr);
        json_object_set_new(o, "master_addr", nd_json_str(shown));
        free(shown);
    } else {
        json_object_set_new(o, "master_addr", json_null());
    }
    json_object_set_new(o, "master_addr_resolves", d->addr_checked ? json_boolean(d->addr_resolves) : json_null());
    json_t *ifs = json_object();
    for (size_t i = 0; i < d->nifname; i++)
        json_object_set_new(ifs, d->ifname[i].var,
                            json_pack("{s:o,s:b}", "value", nd_json_str(d->ifname[i].value), "exists", d->ifname[i].ok));
    json_object_set_new(o, "socket_ifname", ifs);
    json_object_set_new(o, "hccl_connect_timeout_s", nd_int_json(&d->hccl_connect_timeout));
    json_object_set_new(o, "hccl_exec_timeout_s", nd_int_json(&d->hccl_exec_timeout));
    if (d->rank_table.set)
        json_object_set_new(o, "rank_table",
                            json_pack("{s:o,s:b,s:I,s:I,s:b}", "path", nd_json_str(d->rank_table.path), "valid",
                                      d->rank_table.parsed, "servers", (json_int_t)d->rank_table.servers, "devices",
                                      (json_int_t)d->rank_table.devices, "lists_host", d->rank_table.lists_host));
    else
        json_object_set_new(o, "rank_table", json_null());
    return o;
}
