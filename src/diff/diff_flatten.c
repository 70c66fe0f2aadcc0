/* From a snapshot document to keyed facts: which facts matter most (vendor
 * stack, devices, Python, host limits), which are noise (times, pids,
 * hostnames, ranks, shell variables), PATH-like variables split into
 * entries, arrays into elements, every value redacted. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff_priv.h"
#include "core/json_util.h"
#include "core/redact.h"
#include "core/strbuf.h"
#include "core/environ.h"

/* Deeper structure is compared as one compact JSON value. */
#define ND_FLAT_MAX_DEPTH 24

static const char *const nd_env_noise_exact[] = {
    "_",
    "OLDPWD",
    "PWD",
    "SHLVL",
    "TERM",
    "TERMCAP",
    "COLORTERM",
    "HOSTNAME",
    "HOST",
    "DISPLAY",
    "LS_COLORS",
    "LSCOLORS",
    "WINDOWID",
    "STY",
    "TMUX",
    "TMUX_PANE",
    "MAIL",
    "LINES",
    "COLUMNS",
    "PS1",
    "PS2",
    "PS4",
    "PROMPT_COMMAND",
    "HISTFILE",
    "HISTSIZE",
    "HISTFILESIZE",
    "HISTCONTROL",
    "LESSOPEN",
    "LESSCLOSE",
    "INVOCATION_ID",
    "JOURNAL_STREAM",
    "SYSTEMD_EXEC_PID",
    "MOTD_SHOWN",
    "RANDOM",
    "SECONDS",
    "PPID",
    "EPOCHSECONDS",
    "EPOCHREALTIME",
    "GPG_TTY",
    "DBUS_SESSION_BUS_ADDRESS",
    "WINDOWPATH",
    "VTE_VERSION",
    /* Rank identity: different on every rank by design. */
    "RANK",
    "LOCAL_RANK",
    "GROUP_RANK",
    "ROLE_RANK",
    "NODE_RANK",
    "TORCHELASTIC_RUN_ID",
    "TORCHELASTIC_ERROR_FILE",
    "RANK_ID",
    "HCCL_IF_IP",
    "POD_NAME",
    "MY_POD_NAME",
    "K8S_POD_NAME",
    "KUBERNETES_POD_NAME",
    "POD_IP",
    "MY_POD_IP",
    "NODE_NAME",
    "MY_NODE_NAME",
    "K8S_NODE_NAME",
    "HOST_IP",
    "MY_HOST_IP",
    "POD_UID",
};

static const char *const nd_env_noise_prefix[] = {
    "SSH_",           "XDG_SESSION_",  "XDG_SEAT", "XDG_VTNR", "TERM_",   "KITTY_",    "WT_",
    "VSCODE_",        "ITERM_",        "KONSOLE_", "SLURM_",   "SLURMD_", "SRUN_",     "OMPI_COMM_WORLD_",
    "OMPI_MCA_orte_", "OMPI_MCA_ess_", "PMI_",     "PMIX_",    "HYDRA_",  "MPI_LOCAL", "TORCHELASTIC_RESTART",
};

static const char *const nd_env_vendor_exact[] = {
    "PATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH", "LIBRARY_PATH", "TOOLCHAIN_HOME",
};

static const char *const nd_env_vendor_prefix[] = {
    "ASCEND_", "CANN",  "HCCL_", "ATB_",         "ASDOPS_",     "TBE_",   "ACL_",  "GE_",
    "NPU_",    "DCMI",  "OPP_",  "TORCH_NPU",    "PYTORCH_NPU", "MINDIE", "CUDA_", "NCCL_",
    "NVIDIA_", "CUDNN", "NV_",   "PYTORCH_CUDA", "TORCH_CUDA",  "LD_",
};

static const char *const nd_env_python_prefix[] = {
    "PYTHON", "VIRTUAL_ENV", "CONDA_", "PIP_", "PYENV", "UV_", "HF_", "TRANSFORMERS_", "TORCH_", "ACCELERATE_",
};

static const char *const nd_pathlike_names[] = {
    "PATH",           "LD_LIBRARY_PATH",    "PYTHONPATH", "LD_PRELOAD",      "LIBRARY_PATH", "CPATH",
    "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "MANPATH",    "PKG_CONFIG_PATH", "CLASSPATH",    "ASCEND_CUSTOM_OPP_PATH",
};

/* Word tokens (split on '_', '-', '.') of fact names that move by themselves. */
static const char *const nd_noise_tokens[] = {
    "time", "timestamp", "date",   "elapsed", "uptime", "pid",         "ppid",    "pids",        "hostname", "boot",
    "free", "available", "avail",  "used",    "usage",  "utilization", "util",    "temperature", "temp",     "power",
    "load", "loadavg",   "sample", "samples", "now",    "age",         "seconds", "duration",    "latency",
};

/* Whole fact names that differ per rank by design. */
static const char *const nd_noise_names[] = {
    "rank",   "local_rank", "node_rank",     "group_rank", "global_rank", "node_name", "node_id", "procid",
    "source", "processes",  "process_count", "s",          "ms",          "us",        "ns",
};

/* Arrays of numbers that stand for device files ("davinci": [0, 1, ...]):
 * their members are shown as the file they stand for. */
static const struct {
    const char *key, *label, *prefix;
} nd_member_prefixes[] = {
    {"facts.ascend.device_files.davinci", "device file", "/dev/davinci"},
    {"facts.nvidia.device_files", "device file", "/dev/nvidia"},
};

#define ND_COUNT(a) (sizeof(a) / sizeof *(a))

static bool nd_in_list(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, list[i]) == 0)
            return true;
    return false;
}

static bool nd_has_prefix(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strncmp(s, list[i], strlen(list[i])) == 0)
            return true;
    return false;
}

bool nd_diff_env_is_noise(const char *name)
{
    return nd_in_list(name, nd_env_noise_exact, ND_COUNT(nd_env_noise_exact)) ||
           nd_has_prefix(name, nd_env_noise_prefix, ND_COUNT(nd_env_noise_prefix));
}

bool nd_diff_env_is_vendor(const char *name)
{
    return nd_in_list(name, nd_env_vendor_exact, ND_COUNT(nd_env_vendor_exact)) ||
           nd_has_prefix(name, nd_env_vendor_prefix, ND_COUNT(nd_env_vendor_prefix));
}

bool nd_diff_env_is_pathlike(const char *name, const char *value)
{
    if (nd_in_list(name, nd_pathlike_names, ND_COUNT(nd_pathlike_names)))
        return true;
    size_t n = strlen(name);
    /* FOO_PATH=/a:/b is a search path; ASCEND_HOME_PATH=/x is one folder. */
    return n >= 4 && strcmp(name + n - 4, "PATH") == 0 && value && strchr(value, ':') != NULL;
}

bool nd_diff_fact_is_noise(const char *leaf)
{
    if (nd_in_list(leaf, nd_noise_names, ND_COUNT(nd_noise_names)))
        return true;
    char tok[64];
    const char *p = leaf;
    while (*p) {
        size_t n = strcspn(p, "_-. ");
        if (n > 0 && n < sizeof tok) {
            for (size_t i = 0; i < n; i++)
                tok[i] = (char)tolower((unsigned char)p[i]);
            tok[n] = '\0';
            if (nd_in_list(tok, nd_noise_tokens, ND_COUNT(nd_noise_tokens)))
                return true;
        }
        p += n;
        while (*p && strchr("_-. ", *p))
            p++;
    }
    return false;
}

static enum nd_diff_category nd_env_category(const char *name)
{
    if (nd_diff_env_is_noise(name))
        return ND_DIFF_NOISE;
    if (nd_diff_env_is_vendor(name))
        return ND_DIFF_VENDOR;
    if (nd_has_prefix(name, nd_env_python_prefix, ND_COUNT(nd_env_python_prefix)))
        return ND_DIFF_PYTHON;
    return ND_DIFF_OTHER;
}

/* The walk's state for one file. */
struct nd_flat {
    struct nd_diff *d;
    size_t file;
    struct nd_strbuf path;
};

static const char *nd_intern(struct nd_flat *f, const char *s)
{
    return nd_strtab_intern(f->d->strs, s, strlen(s), NULL);
}

/* A scalar as text; strings redacted (by the leaf's name when it looks like
 * a variable name holding a secret). malloc'd. */
static char *nd_scalar_text(const json_t *v, const char *leaf)
{
    switch (json_typeof(v)) {
    case JSON_STRING: {
        const char *s = json_string_value(v);
        bool env_style = leaf && *leaf;
        for (const char *p = leaf; env_style && *p; p++)
            env_style = !islower((unsigned char)*p);
        if (env_style && nd_redact_name_is_secret(leaf))
            return nd_redact_value(leaf, s);
        return nd_redact_text(s);
    }
    case JSON_INTEGER: return nd_xasprintf("%lld", (long long)json_integer_value(v));
    case JSON_REAL: return nd_xasprintf("%.6g", json_real_value(v));
    case JSON_TRUE: return nd_xstrdup("true");
    case JSON_FALSE: return nd_xstrdup("false");
    case JSON_NULL: return nd_xstrdup("null");
    default: {
        char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
        char *r = nd_redact_text(s ? s : "?");
        free(s);
        return r;
    }
    }
}

static void nd_flat_scalar(struct nd_flat *f, const char *entry, const char *label, enum nd_diff_category cat,
                           int section, size_t parent, const char *value)
{
    size_t k = nd_diff_intern_key(f->d, f->path.buf, entry, label, cat, section, parent, false);
    nd_diff_put(f->d, k, f->file, nd_intern(f, value));
}

/* What names an array element: "ascend:3" for a device, its id, name or
 * path, else its position. malloc'd. */
static char *nd_element_id(const json_t *el, size_t i)
{
    if (!json_is_object(el))
        return nd_xasprintf("#%zu", i);
    const char *vendor = nd_json_get_str(el, "vendor");
    json_t *index = json_object_get(el, "index");
    if (vendor && json_is_integer(index))
        return nd_xasprintf("%s:%lld", vendor, (long long)json_integer_value(index));
    /* An index first: devices of one kind share their name. */
    if (json_is_integer(index))
        return nd_xasprintf("%lld", (long long)json_integer_value(index));
    static const char *const keys[] = {"id", "vendor", "path", "name", "file"};
    for (size_t k = 0; k < ND_COUNT(keys); k++) {
        const char *s = nd_json_get_str(el, keys[k]);
        if (s)
            return nd_redact_text(s);
    }
    return nd_xasprintf("#%zu", i);
}

static bool nd_is_scalar(const json_t *v)
{
    return !json_is_object(v) && !json_is_array(v);
}

static void nd_flat_node(struct nd_flat *f, const json_t *node, const char *leaf, enum nd_diff_category cat,
                         int section, size_t parent, int depth);

static void nd_flat_array(struct nd_flat *f, const json_t *arr, const char *leaf, const char *elem_label,
                          enum nd_diff_category cat, int section, size_t parent, int depth)
{
    const char *prefix = "";
    for (size_t m = 0; m < ND_COUNT(nd_member_prefixes); m++)
        if (strcmp(f->path.buf, nd_member_prefixes[m].key) == 0) {
            prefix = nd_member_prefixes[m].prefix;
            elem_label = nd_member_prefixes[m].label;
        }
    size_t i;
    json_t *el;
    json_array_foreach (arr, i, el) {
        if (nd_is_scalar(el)) {
            /* A list of values is a set: each member is a fact. */
            char *s = nd_scalar_text(el, leaf);
            char *member = nd_xasprintf("%s%s", prefix, s);
            nd_flat_scalar(f, member, elem_label, cat, section, parent, "present");
            free(member);
            free(s);
            continue;
        }
        char *id = nd_element_id(el, i);
        size_t k = nd_diff_intern_key(f->d, f->path.buf, id, elem_label, cat, section, parent, false);
        nd_diff_put(f->d, k, f->file, nd_intern(f, "present"));
        size_t mark = f->path.len;
        nd_strbuf_addf(&f->path, "[%s]", id);
        nd_flat_node(f, el, leaf, cat, section, k, depth + 1);
        f->path.len = mark;
        f->path.buf[mark] = '\0';
        free(id);
    }
}

static void nd_flat_node(struct nd_flat *f, const json_t *node, const char *leaf, enum nd_diff_category cat,
                         int section, size_t parent, int depth)
{
    if (cat != ND_DIFF_NOISE && leaf && nd_diff_fact_is_noise(leaf))
        cat = ND_DIFF_NOISE;
    /* Device files and counts under a vendor group are about devices. */
    if (cat != ND_DIFF_NOISE && leaf &&
        (strcmp(leaf, "device_files") == 0 || strcmp(leaf, "device_count") == 0 || strcmp(leaf, "devices") == 0))
        cat = ND_DIFF_DEVICES;
    if (nd_is_scalar(node) || depth > ND_FLAT_MAX_DEPTH) {
        char *s = nd_scalar_text(node, leaf);
        nd_flat_scalar(f, NULL, NULL, cat, section, parent, s);
        free(s);
        return;
    }
    if (json_is_array(node)) {
        nd_flat_array(f, node, leaf, NULL, cat, section, parent, depth);
        return;
    }
    const char *name;
    json_t *v;
    json_object_foreach ((json_t *)node, name, v) {
        size_t mark = f->path.len;
        nd_strbuf_addc(&f->path, '.');
        nd_strbuf_adds(&f->path, name);
        nd_flat_node(f, v, name, cat, section, parent, depth + 1);
        f->path.len = mark;
        f->path.buf[mark] = '\0';
    }
}

static void nd_set_path(struct nd_flat *f, const char *s)
{
    nd_strbuf_reset(&f->path);
    nd_strbuf_adds(&f->path, s);
}

/* Variables, from the snapshot's "env" (or, in a document without one,
 * from check's facts.environment.variables). */
static void nd_flat_env(struct nd_flat *f, const json_t *env)
{
    const char *name;
    json_t *v;
    json_object_foreach ((json_t *)env, name, v) {
        nd_set_path(f, "env.");
        nd_strbuf_adds(&f->path, name);
        enum nd_diff_category cat = nd_env_category(name);
        const char *raw = json_string_value(v);
        char *val = raw ? nd_redact_value(name, raw) : nd_scalar_text(v, name);
        if (raw && nd_diff_env_is_pathlike(name, val)) {
            /* Entry by entry: order kept, repeats counted once. */
            char **entries;
            size_t n = nd_path_split(val, &entries);
            for (size_t i = 0; i < n; i++) {
                if (!entries[i][0])
                    continue;
                size_t k = nd_diff_intern_key(f->d, f->path.buf, entries[i], name, cat, 0, ND_DIFF_NO_PARENT, true);
                nd_diff_put(f->d, k, f->file, nd_intern(f, "present"));
            }
            nd_path_split_free(entries, n);
        } else {
            size_t k = nd_diff_intern_key(f->d, f->path.buf, NULL, name, cat, 0, ND_DIFF_NO_PARENT, true);
            nd_diff_put(f->d, k, f->file, nd_intern(f, val));
        }
        free(val);
    }
}

static void nd_flat_findings(struct nd_flat *f, const json_t *findings)
{
    nd_set_path(f, "findings");
    size_t i;
    json_t *fi;
    json_array_foreach (findings, i, fi) {
        const char *id = nd_json_get_str(fi, "id");
        const char *sev = nd_json_get_str(fi, "severity");
        if (!id)
            continue;
        char *rid = nd_redact_text(id);
        size_t k = nd_diff_intern_key(f->d, "findings", rid, "finding", ND_DIFF_OTHER, 9, ND_DIFF_NO_PARENT, false);
        nd_diff_put(f->d, k, f->file, nd_intern(f, sev ? sev : "present"));
        free(rid);
    }
}

static enum nd_diff_category nd_facts_group_category(const char *group)
{
    if (strcmp(group, "ascend") == 0 || strcmp(group, "nvidia") == 0 || strcmp(group, "environment") == 0)
        return ND_DIFF_VENDOR;
    if (strcmp(group, "devices") == 0)
        return ND_DIFF_DEVICES;
    if (strcmp(group, "python") == 0)
        return ND_DIFF_PYTHON;
    if (strcmp(group, "host") == 0)
        return ND_DIFF_LIMITS;
    return ND_DIFF_OTHER;
}

static const char *nd_limit_label(const char *name)
{
    static const char *const map[][2] = {
        {"shm_bytes", "/dev/shm size"},       {"memlock_bytes", "memlock (ulimit -l)"},
        {"nofile", "open files (ulimit -n)"}, {"nproc", "processes (ulimit -u)"},
        {"stack_bytes", "stack (ulimit -s)"},
    };
    for (size_t i = 0; i < ND_COUNT(map); i++)
        if (strcmp(name, map[i][0]) == 0)
            return map[i][1];
    return NULL;
}

void nd_diff_flatten(struct nd_diff *d, size_t file, const json_t *doc)
{
    struct nd_flat f = {d, file, ND_STRBUF_INIT};
    nd_strbuf_init(&f.path);
    /* The environment first: its (sorted) order is the order of the output,
     * whatever other sections copied some variables. */
    json_t *env = json_object_get(doc, "env");
    if (json_is_object(env))
        nd_flat_env(&f, env);
    const char *top;
    json_t *v;
    json_object_foreach ((json_t *)doc, top, v) {
        if (strcmp(top, "schema") == 0 || strcmp(top, "command") == 0 || strcmp(top, "env") == 0)
            continue;
        if (strcmp(top, "findings") == 0 && json_is_array(v)) {
            nd_flat_findings(&f, v);
        } else if (strcmp(top, "facts") == 0 && json_is_object(v)) {
            const char *group;
            json_t *g;
            json_object_foreach (v, group, g) {
                if (strcmp(group, "environment") == 0 && json_is_object(g)) {
                    /* check copies some of the job's variables here: the same
                     * facts as "env", so they are compared as variables, and
                     * only when the document has no "env" of its own. */
                    const char *name;
                    json_t *ev;
                    json_object_foreach (g, name, ev) {
                        if (strcmp(name, "variables") == 0 && json_is_object(ev)) {
                            if (!json_is_object(env))
                                nd_flat_env(&f, ev);
                            continue;
                        }
                        nd_set_path(&f, "facts.environment.");
                        nd_strbuf_adds(&f.path, name);
                        nd_flat_node(&f, ev, name, ND_DIFF_VENDOR, 1, ND_DIFF_NO_PARENT, 2);
                    }
                    continue;
                }
                nd_set_path(&f, "facts.");
                nd_strbuf_adds(&f.path, group);
                nd_flat_node(&f, g, group, nd_facts_group_category(group), 1, ND_DIFF_NO_PARENT, 1);
            }
        } else if (strcmp(top, "devices") == 0 && json_is_array(v)) {
            nd_set_path(&f, "devices");
            nd_flat_array(&f, v, "devices", "device", ND_DIFF_DEVICES, 0, ND_DIFF_NO_PARENT, 1);
        } else if (strcmp(top, "device_files") == 0 && json_is_array(v)) {
            nd_set_path(&f, "device_files");
            nd_flat_array(&f, v, "device_files", "device file", ND_DIFF_DEVICES, 0, ND_DIFF_NO_PARENT, 1);
        } else if (strcmp(top, "device_layer") == 0 && json_is_array(v)) {
            nd_set_path(&f, "device_layer");
            nd_flat_array(&f, v, "device_layer", "device library", ND_DIFF_VENDOR, 2, ND_DIFF_NO_PARENT, 1);
        } else if (strcmp(top, "python") == 0 && json_is_object(v)) {
            const char *name;
            json_t *pv;
            json_object_foreach (v, name, pv) {
                nd_set_path(&f, "python.");
                nd_strbuf_adds(&f.path, name);
                if (strcmp(name, "packages") == 0 && json_is_object(pv)) {
                    const char *pkg;
                    json_t *ver;
                    json_object_foreach (pv, pkg, ver) {
                        nd_set_path(&f, "python.packages.");
                        nd_strbuf_adds(&f.path, pkg);
                        char *s = nd_scalar_text(ver, NULL);
                        nd_flat_scalar(&f, NULL, pkg, ND_DIFF_PYTHON, 0, ND_DIFF_NO_PARENT, s);
                        free(s);
                    }
                } else {
                    nd_flat_node(&f, pv, name, ND_DIFF_PYTHON, 0, ND_DIFF_NO_PARENT, 1);
                }
            }
        } else if (strcmp(top, "limits") == 0 && json_is_object(v)) {
            const char *name;
            json_t *lv;
            json_object_foreach (v, name, lv) {
                nd_set_path(&f, "limits.");
                nd_strbuf_adds(&f.path, name);
                char *s = nd_scalar_text(lv, NULL);
                nd_flat_scalar(&f, NULL, nd_limit_label(name), ND_DIFF_LIMITS, 0, ND_DIFF_NO_PARENT, s);
                free(s);
            }
        } else if (strcmp(top, "identity") == 0 || strcmp(top, "version") == 0 || strcmp(top, "redaction") == 0) {
            nd_set_path(&f, top);
            nd_flat_node(&f, v, top, ND_DIFF_NOISE, 0, ND_DIFF_NO_PARENT, 0);
        } else {
            nd_set_path(&f, top);
            nd_flat_node(&f, v, top, ND_DIFF_OTHER, 5, ND_DIFF_NO_PARENT, 0);
        }
    }
    nd_strbuf_release(&f.path);
}
