/* Each vendor's quick reason why a job's own environment keeps it off the
 * device (the descriptor's env_findings hook): `run`/`watch` use it when the
 * check's environment judgements have nothing to say. Ascend: the CANN
 * set_env.sh was not sourced; NVIDIA and ROCm: the visible-devices list
 * names no device. */
#include <stdio.h>
#include <string.h>

#include "core/rootfs.h"
#include "device/device.h"

/* The first of the vendor's visible-devices variables that names no device
 * ("" or -1): one finding with id "env.<id>-devices-hidden". */
static void nd_hidden_devices(const struct nd_vendor *v, const char *id, const struct nd_environ *env, pid_t pid,
                              struct nd_findings *out)
{
    for (size_t i = 0; v->visible_env && v->visible_env[i]; i++) {
        const char *name = v->visible_env[i];
        const char *val = nd_environ_get(env, name);
        if (!val || (val[0] != '\0' && strcmp(val, "-1") != 0))
            continue;
        char fid[64];
        snprintf(fid, sizeof fid, "env.%s-devices-hidden", id);
        struct nd_finding *f = nd_findings_add(out, fid, ND_CAT_NO_DEVICE, ND_SEV_ERROR,
                                               "%s hides every %s from the job", name, v->device_noun);
        nd_finding_add_evidence(f, NULL, 0, "%s=\"%s\" in the environment of pid %d", name, val, (int)pid);
        nd_finding_add_fix(f, "unset %s   # or list the %ss: %s=0,1", name, v->device_noun, name);
        return;
    }
}

void nd_env_hints_nvidia(const struct nd_environ *env, pid_t pid, struct nd_findings *out)
{
    nd_hidden_devices(&nd_vendor_nvidia, "cuda", env, pid, out);
}

void nd_env_hints_rocm(const struct nd_environ *env, pid_t pid, struct nd_findings *out)
{
    nd_hidden_devices(&nd_vendor_rocm, "hip", env, pid, out);
}

/* The CANN variables missing while set_env.sh is installed. */
void nd_env_hints_ascend(const struct nd_environ *env, pid_t pid, struct nd_findings *out)
{
    if (nd_environ_get(env, "ASCEND_OPP_PATH") || nd_environ_get(env, "ASCEND_TOOLKIT_HOME"))
        return;
    static const char *const setenv_paths[] = {
        "/usr/local/Ascend/ascend-toolkit/set_env.sh",
        "/usr/local/Ascend/ascend-toolkit/latest/set_env.sh",
        "/usr/local/Ascend/nnae/set_env.sh",
        "/usr/local/Ascend/cann/set_env.sh",
    };
    const char *found = NULL;
    for (size_t i = 0; i < sizeof setenv_paths / sizeof *setenv_paths && !found; i++)
        if (nd_rootfs_is_file(setenv_paths[i]))
            found = setenv_paths[i];
    struct nd_finding *f = nd_findings_add(out, "env.cann-not-loaded", ND_CAT_ENV_NOT_LOADED, ND_SEV_ERROR,
                                           "The CANN environment is not loaded in the job");
    nd_finding_add_evidence(f, NULL, 0,
                            "the job's environment (pid %d) has no ASCEND_OPP_PATH and no ASCEND_TOOLKIT_HOME, "
                            "and its PYTHONPATH lacks the tbe path: CANN set_env.sh was not sourced",
                            (int)pid);
    if (found)
        nd_finding_add_fix(f, "source %s", found);
    else
        nd_finding_add_fix(f, "source /usr/local/Ascend/ascend-toolkit/set_env.sh   # where CANN is installed");
}
