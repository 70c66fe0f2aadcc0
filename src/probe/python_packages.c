/* Package versions from importlib.metadata, in a guarded child. */
#include "probe/python_packages.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/json_util.h"
#include "core/spawn.h"
#include "core/strbuf.h"

static const char nd_py_script[] =
    "import sys, json\n"
    "out = {'executable': sys.executable, 'version': '%d.%d.%d' % tuple(sys.version_info[:3])}\n"
    "pk = {}\n"
    "try:\n"
    "    import importlib.metadata as md\n"
    "    for d in md.distributions():\n"
    "        try:\n"
    "            n = d.metadata['Name']\n"
    "        except Exception:\n"
    "            n = None\n"
    "        if n:\n"
    "            pk.setdefault(n.lower(), d.version)\n"
    "except Exception as e:\n"
    "    out['packages_error'] = '%s: %s' % (type(e).__name__, e)\n"
    "out['packages'] = dict(sorted(pk.items()))\n"
    "sys.stdout.write(json.dumps(out))\n";

/* Resolves a bare name on the job's PATH (not ours: --env-file may name a
 * different one). Returns a malloc'd path, or NULL when not found. */
static char *nd_resolve_on_path(const char *name, const struct nd_environ *env)
{
    if (strchr(name, '/'))
        return nd_xstrdup(name);
    const char *path = nd_environ_get(env, "PATH");
    if (!path)
        return NULL;
    char **dirs;
    size_t n = nd_path_split(path, &dirs);
    char *found = NULL;
    for (size_t i = 0; i < n && !found; i++) {
        char *cand = nd_xasprintf("%s/%s", dirs[i][0] ? dirs[i] : ".", name);
        if (access(cand, X_OK) == 0)
            found = cand;
        else
            free(cand);
    }
    nd_path_split_free(dirs, n);
    return found;
}

json_t *nd_python_packages_json(const char *python, const struct nd_environ *env, double timeout_s)
{
    const char *want = python ? python : "python3";
    char *exe = nd_resolve_on_path(want, env);
    if (!exe) {
        json_t *o = json_object();
        json_object_set_new(o, "interpreter", nd_json_str(want));
        char *why = nd_xasprintf("%s not found on the job's PATH", want);
        json_object_set_new(o, "error", nd_json_str(why));
        free(why);
        return o;
    }
    char *argv[] = {exe, "-c", (char *)nd_py_script, NULL};
    char **envp = nd_environ_envp(env);
    struct nd_spawn_result res;
    struct nd_error err;
    nd_error_clear(&err);
    json_t *out = NULL;
    int rc = nd_spawn_capture(argv, envp, timeout_s, 4u << 20, &res, &err);
    char why[600];
    if (rc < 0) {
        snprintf(why, sizeof why, "%s", err.msg);
    } else if (!nd_spawn_ok(&res)) {
        nd_spawn_describe(&res, timeout_s, why, sizeof why);
    } else {
        json_error_t jerr;
        out = json_loadb(res.out, res.out_len, 0, &jerr);
        if (!json_is_object(out)) {
            json_decref(out);
            out = NULL;
            snprintf(why, sizeof why, "the package probe printed no JSON");
        }
    }
    if (rc == 0)
        nd_spawn_result_release(&res);
    nd_environ_envp_free(envp);
    if (!out) {
        out = json_object();
        json_object_set_new(out, "interpreter", nd_json_str(exe));
        json_object_set_new(out, "error", nd_json_str(why));
    }
    free(exe);
    return out;
}
