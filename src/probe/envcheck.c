/* The job environment judged against CANN's set_env.sh and the CUDA
 * selection variables. This is the seed case: CANN
 * installed, set_env.sh never sourced, the job silently on the CPU. */
#include "probe/envcheck.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/json_util.h"
#include "core/redact.h"
#include "core/rootfs.h"
#include "core/strbuf.h"
#include "probe/pathfmt.h"

char *nd_env_shown(const char *name, const char *value)
{
    char *v = nd_redact_value(name, value ? value : "");
    size_t n = strlen(v);
    if (n <= 200)
        return v;
    char *cut = nd_xasprintf("%.200s… (%zu bytes)", v, n);
    free(v);
    return cut;
}

/* Same folder after links (inside the root)? */
static bool nd_same_dir(const char *a, const char *b)
{
    if (!a || !b || a[0] != '/' || b[0] != '/')
        return false;
    char ra[PATH_MAX], rb[PATH_MAX];
    if (nd_rootfs_realpath(a, ra, sizeof ra) != 0 || nd_rootfs_realpath(b, rb, sizeof rb) != 0)
        return strcmp(a, b) == 0;
    return strcmp(ra, rb) == 0;
}

/* Does the PATH-like variable hold an entry naming dir? */
static bool nd_pathvar_has(const struct nd_environ *env, const char *var, const char *dir)
{
    const char *v = nd_environ_get(env, var);
    if (!v || !*v || !dir || !*dir)
        return false;
    char **e;
    size_t n = nd_path_split(v, &e);
    bool hit = false;
    for (size_t i = 0; i < n && !hit; i++)
        hit = nd_same_dir(e[i], dir);
    nd_path_split_free(e, n);
    return hit;
}

/* The first PYTHONPATH entry with a tbe package, into out. */
static bool nd_pythonpath_tbe(const struct nd_environ *env, char *out, size_t size)
{
    const char *v = nd_environ_get(env, "PYTHONPATH");
    if (!v || !*v)
        return false;
    char **e;
    size_t n = nd_path_split(v, &e);
    bool hit = false;
    for (size_t i = 0; i < n && !hit; i++) {
        char p[PATH_MAX];
        if (e[i][0] == '/' && nd_pfmt(p, sizeof p, "%s/tbe/__init__.py", e[i]) >= 0 && nd_rootfs_exists(p)) {
            nd_pfmt(out, size, "%s", e[i]);
            hit = true;
        }
    }
    nd_path_split_free(e, n);
    return hit;
}

int nd_visible_parse(const char *value, int *max_index, bool *has_uuid, bool *malformed)
{
    *max_index = -1;
    *has_uuid = false;
    *malformed = false;
    if (!value)
        return -1;
    int count = 0;
    char *copy = nd_xstrdup(value);
    char *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ')
            t++;
        size_t tl = strlen(t);
        while (tl && t[tl - 1] == ' ')
            t[--tl] = '\0';
        if (!*t)
            continue;
        if (strncmp(t, "GPU-", 4) == 0 || strncmp(t, "MIG-", 4) == 0) {
            *has_uuid = true;
            count++;
            continue;
        }
        char *end;
        long idx = strtol(t, &end, 10);
        if (*end || end == t) {
            *malformed = true;
            break;
        }
        if (idx < 0)
            break; /* CUDA stops at the first invalid (negative) entry */
        if (idx > *max_index)
            *max_index = (int)(idx > 100000 ? 100000 : idx);
        count++;
    }
    free(copy);
    return count;
}

/* Pulls the toolkit version out of an in-root path, after links:
 * …/ascend-toolkit/8.0.RC3/…, …/cann-9.0.0/…  */
static bool nd_toolkit_version_of(const char *path, char *out, size_t size)
{
    char real[PATH_MAX];
    if (path[0] != '/' || nd_rootfs_realpath(path, real, sizeof real) != 0)
        return false;
    const char *p = strstr(real, "/ascend-toolkit/");
    if (p) {
        p += strlen("/ascend-toolkit/");
    } else if ((p = strstr(real, "/cann-")) != NULL) {
        p += strlen("/cann-");
    } else {
        return false;
    }
    size_t n = strcspn(p, "/");
    if (n == 0 || !isdigit((unsigned char)p[0]))
        return false;
    nd_pfmt(out, size, "%.*s", (int)n, p);
    return true;
}

static void nd_check_mixed(const struct nd_environ *env, struct nd_findings *out)
{
    static const char *vars[] = {"ASCEND_HOME_PATH",
                                 "ASCEND_TOOLKIT_HOME",
                                 "ASCEND_OPP_PATH",
                                 "ASCEND_AICPU_PATH",
                                 "LD_LIBRARY_PATH",
                                 "PYTHONPATH",
                                 "PATH",
                                 NULL};
    char versions[4][64];
    char where[4][160];
    int nv = 0;
    for (int i = 0; vars[i] && nv < 4; i++) {
        const char *v = nd_environ_get(env, vars[i]);
        if (!v || !*v)
            continue;
        char **e;
        size_t n = nd_path_split(v, &e);
        for (size_t k = 0; k < n && nv < 4; k++) {
            char ver[64];
            if (!nd_toolkit_version_of(e[k], ver, sizeof ver))
                continue;
            bool seen = false;
            for (int j = 0; j < nv && !seen; j++)
                seen = strcmp(versions[j], ver) == 0;
            if (seen)
                continue;
            nd_pfmt(versions[nv], sizeof versions[nv], "%s", ver);
            nd_pfmt(where[nv], sizeof where[nv], "%s has %s", vars[i], e[k]);
            nv++;
        }
        nd_path_split_free(e, n);
    }
    if (nv < 2)
        return;
    struct nd_finding *f = nd_findings_add(out, "env.cann-mixed-versions", ND_CAT_VERSION_MISMATCH, ND_SEV_ERROR,
                                           "the environment mixes paths from CANN %s and CANN %s", versions[0],
                                           versions[1]);
    for (int j = 0; j < nv; j++)
        nd_finding_add_evidence(f, NULL, 0, "%s (CANN %s)", where[j], versions[j]);
    nd_finding_set_cause(f, "set_env.sh of two toolkit versions was sourced one after the other, or a path was "
                            "hard-coded: libraries and operators of different releases get loaded together.");
    nd_finding_add_fix(f, "start from a clean shell and source only one set_env.sh");
}

static void nd_check_devlib(const struct nd_environ *env, struct nd_findings *out)
{
    const char *v = nd_environ_get(env, "LD_LIBRARY_PATH");
    if (!v || !*v)
        return;
    char **e;
    size_t n = nd_path_split(v, &e);
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(e[i]);
        while (l > 1 && e[i][l - 1] == '/')
            e[i][--l] = '\0';
        bool devlib = (l >= 7 && strcmp(e[i] + l - 7, "/devlib") == 0) || strstr(e[i], "/devlib/") != NULL;
        bool cuda_stub = (l >= 6 && strcmp(e[i] + l - 6, "/stubs") == 0) && strstr(e[i], "cuda") != NULL;
        if (!devlib && !cuda_stub)
            continue;
        struct nd_finding *f = nd_findings_add(out, "env.stub-libs-on-path", ND_CAT_CONFIG, ND_SEV_ERROR,
                                               "LD_LIBRARY_PATH holds a folder of link-time stub libraries");
        nd_finding_add_evidence(f, NULL, 0, "LD_LIBRARY_PATH entry %zu: %.200s", i + 1, e[i]);
        nd_finding_set_cause(f, devlib
                                    ? "devlib/ holds stubs (a stub libascendcl.so) for linking only; loaded at run "
                                      "time they make every ACL call fail."
                                    : "stubs/libcuda.so is for linking only; loaded at run time CUDA finds no device.");
        nd_finding_add_fix(f, "remove %.200s from LD_LIBRARY_PATH", e[i]);
        break;
    }
    nd_path_split_free(e, n);
}

static void nd_check_visible(const struct nd_environ *env, const char *var, int ndev, const char *vendor,
                             const char *id, int *visible, struct nd_findings *out)
{
    const char *v = nd_environ_get(env, var);
    if (!v) {
        *visible = ndev;
        return;
    }
    int max_index;
    bool uuid, malformed;
    int count = nd_visible_parse(v, &max_index, &uuid, &malformed);
    *visible = ndev < 0 ? -1 : (count < ndev ? count : ndev);
    if (ndev <= 0 && !(ndev < 0 && malformed))
        return; /* no devices known: nothing to hide or exceed */
    char *shown = nd_env_shown(var, v);
    if (count == 0 && !malformed) {
        struct nd_finding *f = nd_findings_add(out, id, ND_CAT_NO_DEVICE, ND_SEV_ERROR, "%s=\"%s\" hides every %s", var,
                                               shown, vendor);
        nd_finding_add_evidence(f, NULL, 0, "%s=\"%s\"; %d %s%s on this host", var, shown, ndev, vendor,
                                ndev == 1 ? "" : "s");
        f->confidence = ND_CONF_HIGH;
        nd_finding_set_cause(f, "With no device visible the framework reports none available and the job runs on "
                                "the CPU.");
        nd_finding_add_fix(f, "unset %s, or list the devices to use: export %s=0", var, var);
    } else if (malformed) {
        struct nd_finding *f = nd_findings_add(out, id, ND_CAT_NO_DEVICE, ND_SEV_ERROR,
                                               "%s=\"%s\" is not a list "
                                               "of device indices",
                                               var, shown);
        nd_finding_add_evidence(f, NULL, 0, "%s=\"%s\"", var, shown);
        nd_finding_add_fix(f, "export %s=0,1,… (indices separated by commas)", var);
    } else if (max_index >= ndev) {
        struct nd_finding *f = nd_findings_add(out, id, ND_CAT_NO_DEVICE, ND_SEV_ERROR,
                                               "%s=%s names device %d, but there %s only %d", var, shown, max_index,
                                               ndev == 1 ? "is" : "are", ndev);
        nd_finding_add_evidence(f, NULL, 0, "%s=%s; devices 0-%d exist", var, shown, ndev - 1);
        f->confidence = ND_CONF_HIGH;
        nd_finding_set_cause(f, strcmp(vendor, "NPU") == 0
                                    ? "Indices are logical (0 … N-1 as the container sees them), not npu-smi's "
                                      "physical ids; an index out of range fails with EE1001 or 207004."
                                    : "An index that does not exist hides that GPU; torch may see none and run on "
                                      "the CPU.");
        nd_finding_add_fix(f, "use indices from 0 to %d: export %s=0", ndev - 1, var);
    }
    free(shown);
}

static void nd_check_debug(const struct nd_environ *env, struct nd_findings *out)
{
    static const struct {
        const char *var;
        const char *bad[3];
        const char *why;
    } sw[] = {
        {"ASCEND_LAUNCH_BLOCKING", {"1", NULL, NULL}, "runs every NPU operator synchronously"},
        {"ASCEND_GLOBAL_LOG_LEVEL", {"0", "1", NULL}, "writes debug/info logs for every operator"},
        {"ASCEND_SLOG_PRINT_TO_STDOUT", {"1", NULL, NULL}, "prints the device log to stdout"},
        {"CUDA_LAUNCH_BLOCKING", {"1", NULL, NULL}, "runs every CUDA kernel synchronously"},
    };
    struct nd_finding *f = NULL;
    for (size_t i = 0; i < ND_ARRAY_SIZE(sw); i++) {
        const char *v = nd_environ_get(env, sw[i].var);
        if (!v)
            continue;
        bool bad = false;
        for (int k = 0; k < 3 && sw[i].bad[k] && !bad; k++)
            bad = strcmp(v, sw[i].bad[k]) == 0;
        if (!bad)
            continue;
        if (!f) {
            f = nd_findings_add(out, "env.debug-switches", ND_CAT_CONFIG, ND_SEV_WARNING,
                                "debug switches that slow training are on");
            nd_finding_set_cause(f, "They are meant for debugging one failure; left on they cost a large part of "
                                    "the training speed.");
        }
        nd_finding_add_evidence(f, NULL, 0, "%s=%s: %s", sw[i].var, v, sw[i].why);
        nd_finding_add_fix(f, "unset %s", sw[i].var);
    }
}

void nd_envcheck_judge(const struct nd_environ *env, const struct nd_ascend_install *a, const struct nd_cuda_install *c,
                       int ascend_devices, int cuda_devices, bool tbe_elsewhere, struct nd_findings *out,
                       struct nd_envcheck_summary *sum)
{
    struct nd_envcheck_summary s = {false, false, -1, -1};
    if (a && a->cann_home[0]) {
        const char *home = nd_environ_get(env, "ASCEND_HOME_PATH");
        const char *opp = nd_environ_get(env, "ASCEND_OPP_PATH");
        bool home_ok = home && *home && nd_rootfs_is_dir(home);
        bool opp_ok = opp && *opp && nd_rootfs_is_dir(opp);
        bool ld_ok = !a->ascendcl_dir[0] || nd_pathvar_has(env, "LD_LIBRARY_PATH", a->ascendcl_dir);
        char tbe_dir[PATH_MAX] = "";
        bool tbe_ok = nd_pythonpath_tbe(env, tbe_dir, sizeof tbe_dir) || tbe_elsewhere;
        bool tbe_listed = nd_pathvar_has(env, "PYTHONPATH", a->tbe_site);
        s.cann_loaded = home_ok && opp_ok && ld_ok;
        s.tbe_reachable = tbe_ok;
        const char *src = a->set_env[0] ? a->set_env : NULL;
        if (!home && !opp) {
            /* The seed case: nothing of set_env.sh is in the environment. */
            struct nd_finding *f = nd_findings_add(out, "env.cann-not-loaded", ND_CAT_ENV_NOT_LOADED, ND_SEV_ERROR,
                                                   "CANN %s is installed but its environment is not loaded",
                                                   a->cann_version[0] ? a->cann_version : "");
            nd_finding_add_evidence(f, a->cann_version_file[0] ? a->cann_version_file : NULL, a->cann_version_line,
                                    "CANN %s installed at %s",
                                    a->cann_version[0] ? a->cann_version : "(version unknown)", a->cann_home);
            nd_finding_add_evidence(f, NULL, 0, "ASCEND_HOME_PATH and ASCEND_OPP_PATH are not set (%s)", env->source);
            if (a->ascendcl_dir[0])
                nd_finding_add_evidence(f, NULL, 0, "LD_LIBRARY_PATH lacks %s (libascendcl.so)", a->ascendcl_dir);
            if (!tbe_ok)
                nd_finding_add_evidence(f, NULL, 0, "PYTHONPATH lacks %s (tbe)", a->tbe_site);
            f->confidence = ND_CONF_HIGH;
            nd_finding_set_cause(f, "CANN's set_env.sh was not sourced: torch_npu cannot load libascendcl or import "
                                    "tbe, finds no NPU, and the job silently runs on the CPU.");
            if (src) {
                nd_finding_add_fix(f, "source %s", src);
                /* The job's own command where it is known, so the line can be pasted as is. */
                nd_finding_add_fix(f,
                                   "in a container, source it in the entrypoint before the job: "
                                   "bash -c 'source %s && exec %s %s'",
                                   src, env->job_python ? env->job_python : "python",
                                   env->job_script ? env->job_script : "train.py");
            } else {
                nd_finding_add_fix(f, "export ASCEND_HOME_PATH=%s ASCEND_OPP_PATH=%s/opp", a->cann_home, a->cann_home);
            }
        } else {
            if (!home_ok || !opp_ok || !ld_ok) {
                struct nd_finding *f = nd_findings_add(out, "env.cann-partly-loaded", ND_CAT_ENV_NOT_LOADED,
                                                       ND_SEV_ERROR, "the CANN environment is incomplete");
                if (!home_ok)
                    nd_finding_add_evidence(f, NULL, 0, "ASCEND_HOME_PATH %s%.200s",
                                            home ? "points to a missing folder: " : "is not set", home ? home : "");
                if (!opp_ok)
                    nd_finding_add_evidence(f, NULL, 0, "ASCEND_OPP_PATH %s%.200s",
                                            opp ? "points to a missing folder: " : "is not set", opp ? opp : "");
                if (!ld_ok)
                    nd_finding_add_evidence(f, NULL, 0, "LD_LIBRARY_PATH lacks %s (libascendcl.so)", a->ascendcl_dir);
                nd_finding_set_cause(f, "Part of what set_env.sh exports was lost or overwritten after it ran.");
                if (src)
                    nd_finding_add_fix(f, "source %s (after any line that resets these variables)", src);
            }
            if (!tbe_ok) {
                struct nd_finding *f = nd_findings_add(out, "env.tbe-unreachable", ND_CAT_ENV_NOT_LOADED, ND_SEV_ERROR,
                                                       "the tbe package is not reachable: PYTHONPATH lacks %s",
                                                       a->tbe_site);
                const char *pp = nd_environ_get(env, "PYTHONPATH");
                char *shown = pp ? nd_env_shown("PYTHONPATH", pp) : NULL;
                nd_finding_add_evidence(f, NULL, 0, "PYTHONPATH=%s", shown ? shown : "(unset)");
                free(shown);
                if (tbe_listed)
                    nd_finding_add_evidence(f, NULL, 0, "%s/tbe is missing: the toolkit is incomplete", a->tbe_site);
                else
                    nd_finding_add_evidence(f, NULL, 0, "tbe lives in %s", a->tbe_site);
                f->confidence = ND_CONF_HIGH;
                nd_finding_set_cause(f, tbe_listed ? "The toolkit's Python part is missing."
                                                   : "PYTHONPATH was overwritten (PYTHONPATH=foo instead of "
                                                     "PYTHONPATH=foo:$PYTHONPATH) after set_env.sh: "
                                                     "\"No module named 'tbe'\", then ACL error 500001.");
                if (tbe_listed)
                    nd_finding_add_fix(f, "reinstall the CANN toolkit");
                else
                    nd_finding_add_fix(f, "export PYTHONPATH=%s:$PYTHONPATH", a->tbe_site);
            }
        }
    } else {
        s.cann_loaded = false;
    }
    nd_check_devlib(env, out);
    nd_check_mixed(env, out);
    nd_check_visible(env, "ASCEND_RT_VISIBLE_DEVICES", ascend_devices, "NPU", "env.visible-devices", &s.visible_ascend,
                     out);
    nd_check_visible(env, "CUDA_VISIBLE_DEVICES", cuda_devices, "GPU", "env.visible-devices", &s.visible_cuda, out);
    const char *nvd = nd_environ_get(env, "NVIDIA_VISIBLE_DEVICES");
    if (c && nvd && (strcmp(nvd, "void") == 0 || strcmp(nvd, "none") == 0) && cuda_devices != 0) {
        struct nd_finding *f = nd_findings_add(out, "env.visible-devices", ND_CAT_NO_DEVICE, ND_SEV_WARNING,
                                               "NVIDIA_VISIBLE_DEVICES=%s gives the container no GPU", nvd);
        nd_finding_add_evidence(f, NULL, 0, "NVIDIA_VISIBLE_DEVICES=%s", nvd);
        nd_finding_add_fix(f, "docker run --gpus all (or NVIDIA_VISIBLE_DEVICES=all)");
    }
    nd_check_debug(env, out);
    if (sum)
        *sum = s;
}

json_t *nd_envcheck_facts_json(const struct nd_environ *env)
{
    static const char *prefixes[] = {"ASCEND_", "CANN_",    "HCCL_", "NCCL_",      "CUDA_", "NVIDIA_",
                                     "TORCH_",  "PYTORCH_", "ATB_",  "TOOLCHAIN_", "OMP_",  NULL};
    static const char *exact[] = {
        "LD_LIBRARY_PATH",    "PYTHONPATH",       "PATH",         "RANK",          "WORLD_SIZE",
        "LOCAL_RANK",         "LOCAL_WORLD_SIZE", "MASTER_ADDR",  "MASTER_PORT",   "RANK_TABLE_FILE",
        "GLOO_SOCKET_IFNAME", "VIRTUAL_ENV",      "CONDA_PREFIX", "PYENV_VERSION", NULL};
    json_t *o = json_object();
    json_object_set_new(o, "source", nd_json_str(env->source));
    json_t *vars = json_object();
    for (size_t i = 0; i < env->n; i++) {
        const char *name = env->names[i];
        bool keep = false;
        for (int k = 0; exact[k] && !keep; k++)
            keep = strcmp(name, exact[k]) == 0;
        for (int k = 0; prefixes[k] && !keep; k++)
            keep = strncmp(name, prefixes[k], strlen(prefixes[k])) == 0;
        if (!keep)
            continue;
        /* Values are capped at 4 KiB: a facts object is for reading and diffing. */
        char *v = nd_redact_value(name, env->values[i]);
        if (strlen(v) > 4096)
            v[4096] = '\0';
        json_object_set_new(vars, name, nd_json_str(v));
        free(v);
    }
    json_object_set_new(o, "variables", vars);
    return o;
}
