/* The Python stack from files only (level 1 never imports): the interpreter
 * the job would run, its sys.path worked out as site.py would (venv,
 * pyenv shim, Debian dist-packages, user site, PYTHONPATH), and package
 * versions from *.dist-info / *.egg-info and version.py. */
#include "probe/python.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/array.h"
#include "core/fileio.h"
#include "core/json_util.h"
#include "core/rootfs.h"
#include "core/strbuf.h"
#include "probe/compat.h"
#include "probe/kvfile.h"
#include "probe/pathfmt.h"

static const char *const nd_pkg_names[ND_PKG_COUNT] = {
    "torch", "torch_npu", "transformers", "accelerate", "deepspeed",   "numpy",   "decorator",
    "scipy", "attrs",     "psutil",       "sympy",      "cloudpickle", "tornado",
};

const char *nd_pkg_name(enum nd_pkg_id id)
{
    return id < ND_PKG_COUNT ? nd_pkg_names[id] : "?";
}

/* ---- parsers over buffers ---- */

static void nd_normalise_name(char *s)
{
    for (; *s; s++) {
        if (*s == '-' || *s == '.')
            *s = '_';
        else
            *s = (char)tolower((unsigned char)*s);
    }
}

int nd_pymeta_parse(const char *buf, size_t len, char *name, size_t name_size, char *version, size_t version_size)
{
    bool got_name = false, got_version = false;
    size_t pos = 0;
    if (name_size)
        name[0] = '\0';
    if (version_size)
        version[0] = '\0';
    while (pos < len) {
        const char *line = buf + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - line) : len - pos;
        pos += n + (nl ? 1 : 0);
        n = strnlen(line, n);
        if (n && line[n - 1] == '\r')
            n--;
        if (n == 0)
            break; /* end of the headers: the rest is the description */
        const char *val = NULL;
        char *dst = NULL;
        size_t dsize = 0;
        bool *flag = NULL;
        if (n > 5 && strncasecmp(line, "Name:", 5) == 0) {
            val = line + 5, dst = name, dsize = name_size, flag = &got_name;
        } else if (n > 8 && strncasecmp(line, "Version:", 8) == 0) {
            val = line + 8, dst = version, dsize = version_size, flag = &got_version;
        }
        if (!val || *flag || !dsize)
            continue;
        size_t vn = n - (size_t)(val - line);
        while (vn && isspace((unsigned char)*val))
            val++, vn--;
        while (vn && isspace((unsigned char)val[vn - 1]))
            vn--;
        if (vn == 0 || vn >= dsize)
            continue;
        memcpy(dst, val, vn);
        dst[vn] = '\0';
        *flag = true;
    }
    return got_name && got_version ? 0 : -EINVAL;
}

/* The quoted string after "<key> =" on a version.py line, or NULL for None. */
static bool nd_py_assign(const char *line, size_t n, const char *key, char *out, size_t size, bool *is_none)
{
    size_t kl = strlen(key);
    if (n <= kl || strncmp(line, key, kl) != 0)
        return false;
    const char *p = line + kl, *end = line + n;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p < end && *p == ':') { /* "cuda: Optional[str] = '12.1'" */
        while (p < end && *p != '=')
            p++;
    }
    if (p >= end || *p != '=')
        return false;
    p++;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    *is_none = false;
    if (end - p >= 4 && strncmp(p, "None", 4) == 0) {
        *is_none = true;
        if (size)
            out[0] = '\0';
        return true;
    }
    if (p >= end || (*p != '\'' && *p != '"'))
        return false;
    char q = *p++;
    const char *close = memchr(p, q, (size_t)(end - p));
    if (!close || (size_t)(close - p) >= size)
        return false;
    memcpy(out, p, (size_t)(close - p));
    out[close - p] = '\0';
    return true;
}

int nd_pyversion_parse(const char *buf, size_t len, char *version, size_t vsize, char *cuda, size_t csize,
                       bool *cuda_known)
{
    bool got = false;
    *cuda_known = false;
    if (vsize)
        version[0] = '\0';
    if (csize)
        cuda[0] = '\0';
    size_t pos = 0;
    while (pos < len) {
        const char *line = buf + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - line) : len - pos;
        pos += n + (nl ? 1 : 0);
        n = strnlen(line, n);
        bool none;
        char tmp[128];
        if (!got && nd_py_assign(line, n, "__version__", tmp, sizeof tmp, &none) && !none) {
            if (strlen(tmp) < vsize) {
                memcpy(version, tmp, strlen(tmp) + 1);
                got = true;
            }
        } else if (!*cuda_known && nd_py_assign(line, n, "cuda", tmp, sizeof tmp, &none)) {
            if (strlen(tmp) < csize) {
                memcpy(cuda, tmp, strlen(tmp) + 1);
                *cuda_known = true;
            }
        }
    }
    return got ? 0 : -EINVAL;
}

int nd_pkg_dirname_parse(const char *dirname, char *name, size_t name_size, char *version, size_t version_size)
{
    size_t n = strlen(dirname);
    size_t stem;
    if (n > 10 && strcmp(dirname + n - 10, ".dist-info") == 0)
        stem = n - 10;
    else if (n > 9 && strcmp(dirname + n - 9, ".egg-info") == 0)
        stem = n - 9;
    else
        return -EINVAL;
    const char *dash = memchr(dirname, '-', stem);
    size_t nl = dash ? (size_t)(dash - dirname) : stem;
    if (nl == 0 || nl >= name_size)
        return -EINVAL;
    memcpy(name, dirname, nl);
    name[nl] = '\0';
    nd_normalise_name(name);
    if (version_size)
        version[0] = '\0';
    if (dash) {
        const char *v = dash + 1;
        size_t vl = stem - nl - 1;
        /* eggs: "foo-1.0-py3.11" */
        const char *py = NULL;
        for (size_t i = 0; i + 3 < vl; i++)
            if (v[i] == '-' && v[i + 1] == 'p' && v[i + 2] == 'y' && isdigit((unsigned char)v[i + 3])) {
                py = v + i;
                break;
            }
        if (py)
            vl = (size_t)(py - v);
        if (vl && vl < version_size) {
            memcpy(version, v, vl);
            version[vl] = '\0';
        }
    }
    return 0;
}

/* ---- interpreter resolution ---- */

/* True when the in-root file starts with "#!" (a shim script, not a binary). */
static bool nd_is_script(const char *abs)
{
    char *buf;
    size_t len;
    if (nd_rootfs_read(abs, 2, &buf, &len, NULL) < 0) {
        /* nd_read_file refuses files over max: read a prefix through the host path. */
        char host[PATH_MAX];
        if (nd_rootfs_path(abs, host, sizeof host) < 0 || nd_read_file_prefix(host, 2, &buf, &len, NULL) < 0)
            return false;
    }
    bool script = len == 2 && buf[0] == '#' && buf[1] == '!';
    free(buf);
    return script;
}

static bool nd_find_on_path(const struct nd_environ *env, const char *name, const char *skip_dir, char *out, size_t size)
{
    const char *path = env ? nd_environ_get(env, "PATH") : NULL;
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    char **dirs;
    size_t n = nd_path_split(path, &dirs);
    bool found = false;
    for (size_t i = 0; i < n && !found; i++) {
        if (dirs[i][0] != '/' || (skip_dir && strcmp(dirs[i], skip_dir) == 0))
            continue;
        char p[PATH_MAX];
        if (nd_pfmt(p, sizeof p, "%s/%s", dirs[i], name) < 0)
            continue;
        if (nd_rootfs_is_file(p) && nd_rootfs_access(p, X_OK) == 0) {
            nd_pfmt(out, size, "%s", p);
            found = true;
        }
    }
    nd_path_split_free(dirs, n);
    return found;
}

/* "python3.11" -> "3.11". */
static bool nd_version_from_exe(const char *exe, char *out, size_t size)
{
    const char *base = strrchr(exe, '/');
    base = base ? base + 1 : exe;
    if (strncmp(base, "python", 6) != 0 || !isdigit((unsigned char)base[6]) || !strchr(base + 6, '.'))
        return false;
    nd_pfmt(out, size, "%s", base + 6);
    return true;
}

/* A prefix's lib/python3.X (the one holding os.py), for exes named plain "python3". */
static bool nd_version_from_prefix(const char *prefix, char *out, size_t size)
{
    char lib[PATH_MAX];
    nd_pfmt(lib, sizeof lib, "%s/lib", prefix);
    DIR *d = nd_rootfs_opendir(lib);
    if (!d)
        return false;
    struct dirent *e;
    bool found = false;
    while (!found && (e = readdir(d))) {
        if (strncmp(e->d_name, "python3.", 8) != 0)
            continue;
        char os_py[PATH_MAX];
        nd_pfmt(os_py, sizeof os_py, "%s/%s/os.py", lib, e->d_name);
        if (nd_rootfs_exists(os_py)) {
            nd_pfmt(out, size, "%s", e->d_name + 6);
            found = true;
        }
    }
    closedir(d);
    return found;
}

static void nd_dirname(const char *p, char *out, size_t size)
{
    const char *slash = strrchr(p, '/');
    if (!slash || slash == p)
        nd_pfmt(out, size, "/");
    else
        nd_pfmt(out, size, "%.*s", (int)(slash - p), p);
}

static void nd_add_path(struct nd_python *py, const char *dir)
{
    if (!dir || dir[0] != '/' || py->npath >= ND_PY_MAX_PATH)
        return;
    for (size_t i = 0; i < py->npath; i++)
        if (strcmp(py->sys_path[i], dir) == 0)
            return;
    if (!nd_rootfs_is_dir(dir))
        return;
    nd_pfmt(py->sys_path[py->npath++], PATH_MAX, "%s", dir);
}

/* pyenv: the shim runs $PYENV_ROOT/versions/<v>/bin/<name>, v from PYENV_VERSION,
 * then .python-version upwards from the working directory, then $PYENV_ROOT/version. */
static bool nd_resolve_pyenv(const char *shim, const struct nd_environ *env, char *exe, size_t size, char *how,
                             size_t how_size, bool *system)
{
    char shims[PATH_MAX], root[PATH_MAX];
    nd_dirname(shim, shims, sizeof shims);
    size_t n = strlen(shims);
    if (n < 6 || strcmp(shims + n - 6, "/shims") != 0)
        return false;
    nd_pfmt(root, sizeof root, "%.*s", (int)(n - 6), shims);
    char ver[128] = "";
    const char *pv = env ? nd_environ_get(env, "PYENV_VERSION") : NULL;
    if (pv && *pv) {
        nd_pfmt(ver, sizeof ver, "%.*s", (int)strcspn(pv, ":"), pv);
    } else {
        char cwd[PATH_MAX];
        const char *wd = env ? nd_environ_get(env, "PWD") : NULL;
        if (!wd && getcwd(cwd, sizeof cwd))
            wd = cwd;
        char dir[PATH_MAX];
        nd_pfmt(dir, sizeof dir, "%s", wd ? wd : "/");
        for (int depth = 0; depth < 64 && !ver[0]; depth++) {
            char f[PATH_MAX];
            nd_pfmt(f, sizeof f, "%s/.python-version", strcmp(dir, "/") == 0 ? "" : dir);
            char *buf;
            size_t len;
            if (nd_rootfs_read(f, 4096, &buf, &len, NULL) == 0) {
                char *t = nd_trim(buf);
                nd_pfmt(ver, sizeof ver, "%.*s", (int)strcspn(t, " \n\t"), t);
                free(buf);
            }
            if (strcmp(dir, "/") == 0)
                break;
            char up[PATH_MAX];
            nd_dirname(dir, up, sizeof up);
            memcpy(dir, up, strlen(up) + 1);
        }
        if (!ver[0]) {
            char f[PATH_MAX], *buf;
            size_t len;
            nd_pfmt(f, sizeof f, "%s/version", root);
            if (nd_rootfs_read(f, 4096, &buf, &len, NULL) == 0) {
                char *t = nd_trim(buf);
                nd_pfmt(ver, sizeof ver, "%.*s", (int)strcspn(t, " \n\t"), t);
                free(buf);
            }
        }
    }
    if (!ver[0] || strcmp(ver, "system") == 0) {
        *system = true;
        return true;
    }
    const char *name = strrchr(shim, '/') + 1;
    nd_pfmt(exe, size, "%s/versions/%s/bin/%s", root, ver, name);
    nd_pfmt(how, how_size, "pyenv %s", ver);
    return nd_rootfs_exists(exe);
}

static bool env_says_no_user_site(const struct nd_environ *env)
{
    const char *v = nd_environ_get(env, "PYTHONNOUSERSITE");
    return v && *v;
}

/* Works out sys.path for the interpreter at path (in-root), like site.py. */
static bool nd_resolve_interpreter(const char *path, const struct nd_environ *env, struct nd_python *py)
{
    char exe[PATH_MAX];
    nd_pfmt(exe, sizeof exe, "%s", path);
    py->how[0] = '\0';
    for (int hop = 0; hop < 4 && nd_is_script(exe); hop++) {
        bool system = false;
        char next[PATH_MAX];
        if (!nd_resolve_pyenv(exe, env, next, sizeof next, py->how, sizeof py->how, &system)) {
            nd_pfmt(py->error, sizeof py->error, "%s is a script this probe cannot follow", exe);
            return false;
        }
        if (system) {
            char shims[PATH_MAX];
            nd_dirname(exe, shims, sizeof shims);
            const char *name = strrchr(exe, '/') + 1;
            if (!nd_find_on_path(env, name, shims, next, sizeof next)) {
                nd_pfmt(py->error, sizeof py->error, "pyenv selects the system %s, which is not on PATH", name);
                return false;
            }
            nd_pfmt(py->how, sizeof py->how, "pyenv system");
        }
        memcpy(exe, next, strlen(next) + 1);
    }
    /* A venv keeps pyvenv.cfg beside its bin/: do not follow the link out of it first. */
    char bindir[PATH_MAX], venv[PATH_MAX], cfg[PATH_MAX];
    nd_dirname(exe, bindir, sizeof bindir);
    nd_dirname(bindir, venv, sizeof venv);
    nd_pfmt(cfg, sizeof cfg, "%s/pyvenv.cfg", strcmp(venv, "/") == 0 ? "" : venv);
    struct nd_kvfile kv = {NULL, 0};
    bool is_venv = nd_kvfile_load(cfg, &kv, NULL) == 0;
    char real[PATH_MAX];
    if (nd_rootfs_realpath(exe, real, sizeof real) != 0)
        nd_pfmt(real, sizeof real, "%s", exe);
    nd_pfmt(py->exe, sizeof py->exe, "%s", real);
    char prefix[PATH_MAX], rbindir[PATH_MAX];
    nd_dirname(real, rbindir, sizeof rbindir);
    nd_dirname(rbindir, prefix, sizeof prefix);
    if (!nd_version_from_exe(real, py->version, sizeof py->version) &&
        !nd_version_from_prefix(prefix, py->version, sizeof py->version)) {
        const char *v = is_venv ? nd_kvfile_get(&kv, "version", NULL) : NULL;
        if (!v)
            v = is_venv ? nd_kvfile_get(&kv, "version_info", NULL) : NULL;
        if (v)
            nd_version_prefix(v, 2, py->version, sizeof py->version);
    }
    if (!py->version[0]) {
        nd_kvfile_release(&kv);
        nd_pfmt(py->error, sizeof py->error, "cannot tell the Python version of %s", real);
        return false;
    }
    /* PYTHONPATH first, as the interpreter puts it. */
    const char *pp = env ? nd_environ_get(env, "PYTHONPATH") : NULL;
    if (pp && *pp) {
        char **dirs;
        size_t n = nd_path_split(pp, &dirs);
        for (size_t i = 0; i < n; i++)
            nd_add_path(py, dirs[i]);
        nd_path_split_free(dirs, n);
    }
    char d[PATH_MAX];
    const char *pfx = strcmp(prefix, "/") == 0 ? "" : prefix;
    nd_pfmt(d, sizeof d, "%s/lib/python%s", pfx, py->version);
    nd_add_path(py, d);
    bool system_site = true;
    if (is_venv) {
        const char *inc = nd_kvfile_get(&kv, "include-system-site-packages", NULL);
        system_site = inc && strcasecmp(inc, "true") == 0;
        nd_pfmt(d, sizeof d, "%s/lib/python%s/site-packages", venv, py->version);
        nd_add_path(py, d);
        if (!py->how[0])
            nd_pfmt(py->how, sizeof py->how, "venv %s", venv);
    }
    nd_kvfile_release(&kv);
    /* User site (pip install --user), unless isolated by a venv. */
    const char *home = env ? nd_environ_get(env, "HOME") : NULL;
    if (home && *home && !env_says_no_user_site(env) && (!is_venv || system_site)) {
        nd_pfmt(d, sizeof d, "%s/.local/lib/python%s/site-packages", home, py->version);
        nd_add_path(py, d);
    }
    if (system_site) {
        nd_pfmt(d, sizeof d, "%s/lib/python%s/site-packages", pfx, py->version);
        nd_add_path(py, d);
        /* Debian and Ubuntu: dist-packages under /usr/local and /usr. */
        nd_pfmt(d, sizeof d, "%s/local/lib/python%s/dist-packages", pfx, py->version);
        nd_add_path(py, d);
        nd_pfmt(d, sizeof d, "%s/lib/python3/dist-packages", pfx);
        nd_add_path(py, d);
        nd_pfmt(d, sizeof d, "%s/lib/python%s/dist-packages", pfx, py->version);
        nd_add_path(py, d);
    }
    if (!py->how[0])
        nd_pfmt(py->how, sizeof py->how, "%s", strcmp(prefix, "/usr") == 0 ? "system" : prefix);
    return true;
}

/* ---- package metadata ---- */

static int nd_pkg_lookup(const char *norm)
{
    for (int i = 0; i < ND_PKG_COUNT; i++)
        if (strcmp(norm, nd_pkg_names[i]) == 0)
            return i;
    return -1;
}

/* A metadata folder without a version in its name: read METADATA or PKG-INFO. */
static void nd_read_meta_version(const char *dir, char *version, size_t size)
{
    const char *files[] = {"METADATA", "PKG-INFO", NULL};
    for (int i = 0; files[i]; i++) {
        char p[PATH_MAX], *buf, name[128];
        size_t len;
        nd_pfmt(p, sizeof p, "%s/%s", dir, files[i]);
        if (nd_rootfs_read(p, 4u << 20, &buf, &len, NULL) < 0)
            continue;
        int rc = nd_pymeta_parse(buf, len, name, sizeof name, version, size);
        free(buf);
        if (rc == 0)
            return;
    }
}

static void nd_scan_dir(struct nd_python *py, const char *dir)
{
    DIR *d = nd_rootfs_opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        char name[128], version[64];
        if (nd_pkg_dirname_parse(e->d_name, name, sizeof name, version, sizeof version) < 0)
            continue;
        int id = nd_pkg_lookup(name);
        if (id < 0 || py->pkg[id].found)
            continue;
        if (!version[0]) {
            char md[PATH_MAX];
            nd_pfmt(md, sizeof md, "%s/%s", dir, e->d_name);
            nd_read_meta_version(md, version, sizeof version);
        }
        py->pkg[id].found = true;
        nd_pfmt(py->pkg[id].version, sizeof py->pkg[id].version, "%s", version[0] ? version : "unknown");
        nd_pfmt(py->pkg[id].location, sizeof py->pkg[id].location, "%s", dir);
    }
    closedir(d);
}

/* Reads <dir>/<module>/version.py; for torch also the CUDA it was built with. */
static bool nd_read_version_py(const char *dir, const char *module, char *version, size_t vsize, char *cuda,
                               size_t csize, bool *cuda_known)
{
    char p[PATH_MAX], *buf;
    size_t len;
    nd_pfmt(p, sizeof p, "%s/%s/version.py", dir, module);
    if (nd_rootfs_read(p, 1u << 20, &buf, &len, NULL) < 0)
        return false;
    int rc = nd_pyversion_parse(buf, len, version, vsize, cuda, csize, cuda_known);
    free(buf);
    return rc == 0;
}

static void nd_scan_packages(struct nd_python *py)
{
    for (size_t i = 0; i < py->npath; i++) {
        const char *dir = py->sys_path[i];
        /* A package folder without metadata (PYTHONPATH, source trees) still imports. */
        for (int id = 0; id < ND_PKG_COUNT; id++) {
            if (py->pkg[id].found)
                continue;
            char init[PATH_MAX];
            nd_pfmt(init, sizeof init, "%s/%s/__init__.py", dir, nd_pkg_names[id]);
            if (!nd_rootfs_exists(init))
                continue;
            /* Metadata in the same folder gives the version; version.py otherwise. */
            nd_scan_dir(py, dir);
            if (!py->pkg[id].found) {
                char v[64] = "", cuda[32];
                bool ck;
                nd_read_version_py(dir, nd_pkg_names[id], v, sizeof v, cuda, sizeof cuda, &ck);
                py->pkg[id].found = true;
                nd_pfmt(py->pkg[id].version, sizeof py->pkg[id].version, "%s", v[0] ? v : "unknown");
                nd_pfmt(py->pkg[id].location, sizeof py->pkg[id].location, "%s", dir);
            }
        }
        nd_scan_dir(py, dir);
        if (!py->tbe_location[0]) {
            char init[PATH_MAX];
            nd_pfmt(init, sizeof init, "%s/tbe/__init__.py", dir);
            if (nd_rootfs_exists(init))
                nd_pfmt(py->tbe_location, sizeof py->tbe_location, "%s", dir);
        }
    }
    struct nd_py_pkg *t = &py->pkg[ND_PKG_TORCH];
    if (t->found) {
        char v[64];
        bool ck = false;
        py->torch_version_py = nd_read_version_py(t->location, "torch", v, sizeof v, py->torch_cuda,
                                                  sizeof py->torch_cuda, &ck);
        if (!ck)
            py->torch_cuda[0] = '\0';
        if (strcmp(t->version, "unknown") == 0 && py->torch_version_py)
            nd_pfmt(t->version, sizeof t->version, "%s", v);
        nd_pfmt(py->torch_local, sizeof py->torch_local, "%s", nd_version_local(t->version));
        if (!py->torch_cuda[0] && strncmp(py->torch_local, "cu", 2) == 0 && isdigit((unsigned char)py->torch_local[2])) {
            /* "cu121" -> "12.1" when version.py is missing. */
            const char *dg = py->torch_local + 2;
            size_t n = strlen(dg);
            if (n >= 3)
                nd_pfmt(py->torch_cuda, sizeof py->torch_cuda, "%.*s.%s", (int)(n - 1), dg, dg + n - 1);
        }
    }
}

static void nd_probe_one(const char *path, const struct nd_environ *env, struct nd_python *py)
{
    py->found = true;
    nd_pfmt(py->path, sizeof py->path, "%s", path);
    if (!nd_resolve_interpreter(path, env, py))
        return;
    nd_scan_packages(py);
}

/* Every distinct python3 on PATH and the torch it sees. */
static void nd_probe_others(const struct nd_environ *env, struct nd_python *py)
{
    const char *path = env ? nd_environ_get(env, "PATH") : NULL;
    if (!path)
        return;
    char **dirs;
    size_t n = nd_path_split(path, &dirs);
    /* A PATH that repeats one folder thousands of times must not cost thousands of probes. */
    size_t probed = 0;
    for (size_t i = 0; i < n && py->nothers < ND_PY_MAX_OTHERS && probed < 4 * ND_PY_MAX_OTHERS; i++) {
        char p[PATH_MAX];
        if (dirs[i][0] != '/' || nd_pfmt(p, sizeof p, "%s/python3", dirs[i]) < 0)
            continue;
        if (!nd_rootfs_is_file(p) || nd_rootfs_access(p, X_OK) != 0)
            continue;
        probed++;
        struct nd_python *o = nd_xcalloc(1, sizeof *o);
        nd_probe_one(p, env, o);
        bool dup = !o->exe[0];
        for (size_t k = 0; k < py->nothers && !dup; k++)
            dup = strcmp(py->others[k].exe, o->exe) == 0 && strcmp(py->others[k].how, o->how) == 0;
        if (!dup) {
            struct nd_py_other *x = &py->others[py->nothers++];
            nd_pfmt(x->path, sizeof x->path, "%s", p);
            nd_pfmt(x->exe, sizeof x->exe, "%s", o->exe);
            nd_pfmt(x->how, sizeof x->how, "%s", o->how);
            x->torch_found = o->pkg[ND_PKG_TORCH].found;
            nd_pfmt(x->torch_version, sizeof x->torch_version, "%s", o->pkg[ND_PKG_TORCH].version);
            nd_pfmt(x->torch_location, sizeof x->torch_location, "%s", o->pkg[ND_PKG_TORCH].location);
        }
        free(o);
    }
    nd_path_split_free(dirs, n);
}

void nd_python_probe(const char *requested, const struct nd_environ *env, struct nd_python *py)
{
    memset(py, 0, sizeof *py);
    nd_pfmt(py->requested, sizeof py->requested, "%s", requested ? requested : "python3");
    char path[PATH_MAX];
    bool have;
    if (requested && strchr(requested, '/')) {
        have = nd_rootfs_is_file(requested);
        nd_pfmt(path, sizeof path, "%s", requested);
        if (!have)
            nd_pfmt(py->error, sizeof py->error, "%s: no such interpreter", requested);
    } else {
        have = nd_find_on_path(env, py->requested, NULL, path, sizeof path);
        if (!have)
            nd_pfmt(py->error, sizeof py->error, "%s is not on PATH", py->requested);
    }
    if (have)
        nd_probe_one(path, env, py);
    if (!requested)
        nd_probe_others(env, py);
}

bool nd_python_torch_cpu_only(const struct nd_python *py)
{
    const struct nd_py_pkg *t = &py->pkg[ND_PKG_TORCH];
    if (!t->found)
        return false;
    if (strcmp(py->torch_local, "cpu") == 0)
        return true;
    if (strncmp(py->torch_local, "cu", 2) == 0 || strncmp(py->torch_local, "rocm", 4) == 0)
        return false;
    return py->torch_version_py && !py->torch_cuda[0];
}

void nd_python_judge(const struct nd_python *py, bool ascend, bool nvidia, bool cann_present, const char *cann_version,
                     struct nd_findings *out)
{
    if (!py->found || py->error[0]) {
        bool missing = !py->found;
        struct nd_finding *f = nd_findings_add(
            out, missing ? "python.not-found" : "python.unresolved", ND_CAT_CONFIG, ND_SEV_WARNING,
            missing ? "no Python interpreter: %s" : "cannot read the Python stack: %s", py->error);
        nd_finding_add_evidence(f, NULL, 0, "%s", py->error);
        nd_finding_add_fix(f, "name the job's interpreter: npu-doctor check --python /path/to/python");
        if (missing)
            return;
    }
    /* Two interpreters on PATH that see different torch installs. */
    for (size_t i = 1; i < py->nothers; i++) {
        const struct nd_py_other *a = &py->others[0], *b = &py->others[i];
        bool differ = a->torch_found != b->torch_found ||
                      (a->torch_found && (strcmp(a->torch_version, b->torch_version) != 0 ||
                                          strcmp(a->torch_location, b->torch_location) != 0));
        if (!differ)
            continue;
        struct nd_finding *f = nd_findings_add(out, "python.interpreters-differ", ND_CAT_CONFIG, ND_SEV_WARNING,
                                               "two python3 on PATH see different torch installs");
        for (size_t k = 0; k < py->nothers; k++) {
            const struct nd_py_other *o = &py->others[k];
            if (o->torch_found)
                nd_finding_add_evidence(f, NULL, 0, "%s (%s): torch %s in %s", o->path, o->exe, o->torch_version,
                                        o->torch_location);
            else
                nd_finding_add_evidence(f, NULL, 0, "%s (%s): no torch", o->path, o->exe);
        }
        nd_finding_set_cause(f, "`python3 train.py` runs the first one on PATH; a launcher or a shebang may run "
                                "another, with another torch or none.");
        const struct nd_py_other *with = a->torch_found ? a : b;
        if (with->torch_found)
            nd_finding_add_fix(f, "run the job with the interpreter you mean, by full path: %s train.py", with->path);
        nd_finding_add_fix(f, "or check the job's interpreter alone: npu-doctor check --python PATH");
        break;
    }
    const struct nd_py_pkg *t = &py->pkg[ND_PKG_TORCH];
    const struct nd_py_pkg *npu = &py->pkg[ND_PKG_TORCH_NPU];
    if (t->found && nvidia && !ascend && nd_python_torch_cpu_only(py)) {
        struct nd_finding *f = nd_findings_add(out, "python.torch-cpu-only", ND_CAT_CPU_FALLBACK, ND_SEV_ERROR,
                                               "torch %s is a CPU-only build on a host with NVIDIA GPUs", t->version);
        nd_finding_add_evidence(f, NULL, 0, "torch %s in %s (torch.version.cuda = None)", t->version, t->location);
        f->confidence = ND_CONF_HIGH;
        nd_finding_set_cause(f, "A CPU-only wheel cannot use the GPU: torch.cuda.is_available() is False and the job "
                                "silently runs on the CPU.");
        nd_finding_add_fix(f, "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cu124 "
                              "(pick the CUDA version the driver supports)");
    }
    if (t->found && ascend && !npu->found) {
        struct nd_finding *f = nd_findings_add(out, "python.torch-cpu-only", ND_CAT_CPU_FALLBACK, ND_SEV_ERROR,
                                               "torch %s is installed without torch_npu on an NPU host", t->version);
        nd_finding_add_evidence(f, NULL, 0, "torch %s in %s", t->version, t->location);
        nd_finding_add_evidence(f, NULL, 0, "no torch_npu on sys.path of %s", py->exe[0] ? py->exe : py->path);
        f->confidence = ND_CONF_HIGH;
        nd_finding_set_cause(f, "Without torch_npu, torch has no NPU backend: the job silently runs on the CPU.");
        char base[64];
        nd_version_base(t->version, base, sizeof base);
        nd_finding_add_fix(f, "pip install torch_npu==%s (the release built for torch %s)", base, base);
    }
    if (cann_present && py->found && !py->error[0]) {
        static const int deps[] = {ND_PKG_DECORATOR, ND_PKG_SCIPY, ND_PKG_ATTRS,       ND_PKG_PSUTIL,
                                   ND_PKG_NUMPY,     ND_PKG_SYMPY, ND_PKG_CLOUDPICKLE, ND_PKG_TORNADO};
        struct nd_strbuf miss = ND_STRBUF_INIT;
        nd_strbuf_init(&miss);
        for (size_t i = 0; i < ND_ARRAY_SIZE(deps); i++)
            if (!py->pkg[deps[i]].found)
                nd_strbuf_addf(&miss, "%s%s", miss.len ? " " : "", nd_pkg_names[deps[i]]);
        if (miss.len) {
            struct nd_finding *f = nd_findings_add(out, "python.tbe-deps-missing", ND_CAT_CONFIG, ND_SEV_ERROR,
                                                   "Python packages the CANN operator compiler imports are missing");
            nd_finding_add_evidence(f, NULL, 0, "not installed for %s: %s", py->exe[0] ? py->exe : py->path, miss.buf);
            nd_finding_set_cause(f, "The tbe compiler imports them when it builds the first operator; the job then "
                                    "fails with EC0010 \"Failed to import Python module\".");
            nd_finding_add_fix(f, "pip install %s", miss.buf);
        }
        nd_strbuf_release(&miss);
        const struct nd_py_pkg *np = &py->pkg[ND_PKG_NUMPY];
        if (np->found && cann_version && *cann_version && nd_version_cmp(np->version, "2") >= 0 &&
            nd_version_cmp(cann_version, "8.3.RC1") < 0) {
            struct nd_finding *f = nd_findings_add(out, "python.numpy2-old-cann", ND_CAT_VERSION_MISMATCH,
                                                   ND_SEV_WARNING, "numpy %s with CANN %s", np->version, cann_version);
            nd_finding_add_evidence(f, NULL, 0, "numpy %s in %s; CANN %s", np->version, np->location, cann_version);
            f->confidence = ND_CONF_MEDIUM;
            nd_finding_set_cause(f, "The operator compiler of CANN releases before 8.3 is not built for numpy 2: "
                                    "device initialisation fails with error 500001.");
            nd_finding_add_fix(f, "pip install 'numpy<2'");
        }
    }
}

json_t *nd_python_facts_json(const struct nd_python *py)
{
    json_t *o = json_object();
    json_object_set_new(o, "interpreter", nd_json_str(py->requested));
    json_object_set_new(o, "path", py->found ? nd_json_str(py->path) : json_null());
    json_object_set_new(o, "executable", py->exe[0] ? nd_json_str(py->exe) : json_null());
    json_object_set_new(o, "version", py->version[0] ? nd_json_str(py->version) : json_null());
    json_object_set_new(o, "kind", py->how[0] ? nd_json_str(py->how) : json_null());
    if (py->error[0])
        json_object_set_new(o, "error", nd_json_str(py->error));
    json_t *sp = json_array();
    for (size_t i = 0; i < py->npath; i++)
        json_array_append_new(sp, nd_json_str(py->sys_path[i]));
    json_object_set_new(o, "sys_path", sp);
    json_t *pk = json_object();
    for (int i = 0; i < ND_PKG_COUNT; i++) {
        const struct nd_py_pkg *p = &py->pkg[i];
        if (!p->found) {
            json_object_set_new(pk, nd_pkg_names[i], json_null());
            continue;
        }
        json_t *x = json_object();
        json_object_set_new(x, "version", nd_json_str(p->version));
        json_object_set_new(x, "location", nd_json_str(p->location));
        if (i == ND_PKG_TORCH) {
            json_object_set_new(x, "cuda", py->torch_cuda[0] ? nd_json_str(py->torch_cuda) : json_null());
            json_object_set_new(x, "local", nd_json_str(py->torch_local));
            json_object_set_new(x, "cpu_only", json_boolean(nd_python_torch_cpu_only(py)));
        }
        json_object_set_new(pk, nd_pkg_names[i], x);
    }
    json_object_set_new(o, "packages", pk);
    json_object_set_new(o, "tbe", py->tbe_location[0] ? nd_json_str(py->tbe_location) : json_null());
    json_t *oth = json_array();
    for (size_t i = 0; i < py->nothers; i++) {
        const struct nd_py_other *x = &py->others[i];
        json_array_append_new(oth, json_pack("{s:o,s:o,s:o}", "path", nd_json_str(x->path), "executable",
                                             nd_json_str(x->exe), "torch",
                                             x->torch_found ? nd_json_str(x->torch_version) : json_null()));
    }
    json_object_set_new(o, "on_path", oth);
    return o;
}
