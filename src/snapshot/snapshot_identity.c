/* Who wrote a snapshot: host, time, and the rank identity each launcher
 * (torchrun, Slurm, Open MPI/PMI, Kubernetes downward API) leaves in the
 * environment; and the -o file-name patterns built from it. */
#include "snapshot/snapshot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/json_util.h"
#include "core/strbuf.h"

/* The variable names a Kubernetes manifest usually gives the downward-API
 * fields; there is no standard name, so the common ones are all accepted. */
static const char *const nd_k8s_pod_vars[] = {"POD_NAME", "MY_POD_NAME", "K8S_POD_NAME", "KUBERNETES_POD_NAME", NULL};
static const char *const nd_k8s_ns_vars[] = {"POD_NAMESPACE", "MY_POD_NAMESPACE", "K8S_NAMESPACE",
                                             "KUBERNETES_NAMESPACE", NULL};
static const char *const nd_k8s_node_vars[] = {"NODE_NAME", "MY_NODE_NAME", "K8S_NODE_NAME", NULL};

static const char *nd_first_set(const struct nd_environ *env, const char *const *names)
{
    for (; *names; names++) {
        const char *v = nd_environ_get(env, *names);
        if (v && *v)
            return v;
    }
    return NULL;
}

/* Adds {"VAR": "value"} for each set variable; the group only when any is. */
static void nd_add_group(json_t *id, const char *group, const struct nd_environ *env, const char *const *names)
{
    json_t *g = json_object();
    for (; *names; names++) {
        const char *v = nd_environ_get(env, *names);
        if (v)
            json_object_set_new(g, *names, nd_json_str(v));
    }
    if (json_object_size(g))
        json_object_set_new(id, group, g);
    else
        json_decref(g);
}

bool nd_snapshot_rank(const struct nd_environ *env, long *rank)
{
    static const char *const vars[] = {"RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = nd_environ_get(env, vars[i]);
        if (!v || !*v)
            continue;
        char *end;
        errno = 0;
        long r = strtol(v, &end, 10);
        if (errno == 0 && *end == '\0' && r >= 0) {
            *rank = r;
            return true;
        }
    }
    return false;
}

void nd_snapshot_node_name(const struct nd_environ *env, const char *hostname, char *out, size_t size)
{
    const char *v = nd_environ_get(env, "SLURMD_NODENAME");
    if (!v || !*v)
        v = nd_first_set(env, nd_k8s_node_vars);
    if (v && *v) {
        snprintf(out, size, "%s", v);
        return;
    }
    size_t n = strcspn(hostname, ".");
    snprintf(out, size, "%.*s", (int)n, hostname);
}

json_t *nd_snapshot_identity(const struct nd_environ *env, const char *hostname, time_t now)
{
    json_t *id = json_object();
    json_object_set_new(id, "hostname", nd_json_str(hostname));
    char node[256];
    nd_snapshot_node_name(env, hostname, node, sizeof node);
    json_object_set_new(id, "node_name", nd_json_str(node));
    struct tm tm;
    char when[64] = "";
    if (gmtime_r(&now, &tm))
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    json_object_set_new(id, "time", json_string(when));
    long rank;
    if (nd_snapshot_rank(env, &rank))
        json_object_set_new(id, "rank", json_integer(rank));

    static const char *const torchrun[] = {"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", NULL};
    static const char *const slurm[] = {"SLURM_PROCID",  "SLURM_NODEID", "SLURM_LOCALID",   "SLURM_JOB_ID",
                                        "SLURM_STEP_ID", "SLURM_NTASKS", "SLURMD_NODENAME", NULL};
    static const char *const mpi[] = {"OMPI_COMM_WORLD_RANK",
                                      "OMPI_COMM_WORLD_LOCAL_RANK",
                                      "OMPI_COMM_WORLD_SIZE",
                                      "PMI_RANK",
                                      "PMI_SIZE",
                                      "PMIX_RANK",
                                      NULL};
    nd_add_group(id, "torchrun", env, torchrun);
    nd_add_group(id, "slurm", env, slurm);
    nd_add_group(id, "mpi", env, mpi);

    const char *pod = nd_first_set(env, nd_k8s_pod_vars);
    const char *ns = nd_first_set(env, nd_k8s_ns_vars);
    const char *knode = nd_first_set(env, nd_k8s_node_vars);
    if (pod || ns) {
        json_t *k = json_object();
        if (pod)
            json_object_set_new(k, "pod", nd_json_str(pod));
        if (ns)
            json_object_set_new(k, "namespace", nd_json_str(ns));
        if (knode)
            json_object_set_new(k, "node", nd_json_str(knode));
        json_object_set_new(id, "kubernetes", k);
    }
    return id;
}

/* Appends v with characters that would change the folder ('/') or confuse
 * a shell glob made safe. A value of dots only ("..", from the environment
 * of a job another user runs) becomes underscores: it would otherwise name
 * the folder above, and a value with any other character cannot make a
 * component of dots alone. */
static void nd_add_safe(struct nd_strbuf *sb, const char *v)
{
    if (*v && strspn(v, ".") == strlen(v)) {
        for (; *v; v++)
            nd_strbuf_addc(sb, '_');
        return;
    }
    for (; *v; v++)
        nd_strbuf_addc(sb, (*v == '/' || *v == '\n') ? '_' : *v);
}

int nd_snapshot_expand_output(const char *pattern, const struct nd_environ *env, const char *hostname, char **out,
                              struct nd_error *err)
{
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    for (const char *p = pattern; *p; p++) {
        if (*p != '%') {
            nd_strbuf_addc(&sb, *p);
            continue;
        }
        char buf[256];
        const char *v;
        switch (p[1]) {
        case 'n':
            nd_snapshot_node_name(env, hostname, buf, sizeof buf);
            nd_add_safe(&sb, buf);
            break;
        case 'h': nd_add_safe(&sb, hostname); break;
        case 'r': {
            long r = 0;
            (void)nd_snapshot_rank(env, &r);
            nd_strbuf_addf(&sb, "%ld", r);
            break;
        }
        case 'j':
            v = nd_environ_get(env, "SLURM_JOB_ID");
            nd_add_safe(&sb, v && *v ? v : "nojob");
            break;
        case 'p': nd_strbuf_addf(&sb, "%ld", (long)getpid()); break;
        case '%': nd_strbuf_addc(&sb, '%'); break;
        default:
            nd_strbuf_release(&sb);
            if (p[1] == '\0')
                return nd_error_set(err, -EINVAL, "-o '%s': a trailing '%%' (use %%%% for a percent sign)", pattern);
            return nd_error_set(err, -EINVAL,
                                "-o '%s': unknown '%%%c' (known: %%n node, %%h host, %%r rank, "
                                "%%j job id, %%p pid, %%%%)",
                                pattern, p[1]);
        }
        p++;
    }
    *out = nd_strbuf_detach(&sb, NULL);
    return 0;
}
