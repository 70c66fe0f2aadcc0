/* A small built-in table of the import and runtime errors users meet most,
 * so that `check` explains them even without the knowledge base. Each entry
 * is a message fragment, a finding id, a category, a cause and a fix; "%S" in
 * a fix is the set_env.sh found on this machine. */
#include "probe/pyimport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

struct nd_known_error {
    const char *needle;
    const char *id;
    const char *category;
    const char *title;
    const char *cause;
    const char *fix;
};

static const struct nd_known_error nd_known[] = {
    {"No module named 'tbe'", "env.cann-not-loaded", ND_CAT_ENV_NOT_LOADED, "Python cannot import tbe",
     "CANN's set_env.sh was not sourced, or PYTHONPATH was overwritten after it.", "source %S"},
    {"libascendcl.so: cannot open shared object file", "env.cann-not-loaded", ND_CAT_ENV_NOT_LOADED,
     "libascendcl.so cannot be loaded", "CANN's set_env.sh was not sourced (LD_LIBRARY_PATH lacks the toolkit's lib64).",
     "source %S"},
    {"libhccl.so: cannot open shared object file", "env.cann-not-loaded", ND_CAT_ENV_NOT_LOADED,
     "libhccl.so cannot be loaded", "CANN's set_env.sh was not sourced, or the CANN toolkit is not installed.",
     "source %S"},
    {"ASCEND_OPP_PATH environment variable is not set", "env.cann-not-loaded", ND_CAT_ENV_NOT_LOADED,
     "ASCEND_OPP_PATH is not set", "CANN's set_env.sh was not sourced.", "source %S"},
    {"Failed to import Python module", "python.tbe-deps-missing", ND_CAT_CONFIG,
     "a Python package the CANN operator compiler needs is missing",
     "The tbe compiler imports decorator, scipy, attrs, psutil, numpy, sympy, cloudpickle and tornado.",
     "pip install decorator scipy attrs psutil numpy sympy cloudpickle tornado"},
    {"No module named 'torch_npu'", "python.torch-npu-missing", ND_CAT_CPU_FALLBACK, "torch_npu is not installed",
     "Without torch_npu, torch has no NPU backend.", "pip install torch_npu (the release built for your torch)"},
    {"No module named 'torch'", "python.torch-missing", ND_CAT_CONFIG, "torch is not installed for this interpreter",
     "The interpreter the job runs has no torch.", "pip install torch, or run the job with the interpreter that has it"},
    {"Two accelerators cannot be used at the same time", "compat.torch-cuda-with-npu", ND_CAT_VERSION_MISMATCH,
     "a CUDA build of torch is installed together with torch_npu",
     "torch_npu needs the CPU build of torch.", "pip install torch==<version> --index-url https://download.pytorch.org/whl/cpu"},
    {"Torch not compiled with CUDA enabled", "python.torch-cpu-only", ND_CAT_CPU_FALLBACK, "torch is a CPU-only build",
     "A CPU-only wheel cannot use the GPU.",
     "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cu124"},
    {"Found no NVIDIA driver on your system", "nvidia.no-driver", ND_CAT_NO_DEVICE, "torch finds no NVIDIA driver",
     "No driver, or the container was started without the GPU runtime.", "docker run --gpus all …"},
    {"The NVIDIA driver on your system is too old", "compat.torch-cuda-driver", ND_CAT_VERSION_MISMATCH,
     "the NVIDIA driver is too old for this torch", "torch was built for a newer CUDA than the driver supports.",
     "update the NVIDIA driver, or install a torch build for an older CUDA"},
    {"system not yet initialized", "nvidia.fabric-manager", ND_CAT_NO_DEVICE, "CUDA reports error 802",
     "On NVSwitch machines the Fabric Manager service is not running.", "systemctl start nvidia-fabricmanager"},
    {"compiled using NumPy 1.x cannot be run in", "compat.numpy2", ND_CAT_VERSION_MISMATCH,
     "a module built for numpy 1.x meets numpy 2", "numpy 2 is not binary compatible with modules built for 1.x.",
     "pip install 'numpy<2'"},
    {"undefined symbol", "compat.undefined-symbol", ND_CAT_VERSION_MISMATCH, "a native library misses a symbol",
     "Binary packages (torch, torch_npu, CANN) from releases that do not belong together.",
     "install matching releases (npu-doctor check lists the versions)"},
    {"cannot open shared object file", "env.library-missing", ND_CAT_ENV_NOT_LOADED, "a shared library cannot be loaded",
     "A library the package needs is not on LD_LIBRARY_PATH.", "source %S"},
};

int nd_import_error_explain(const char *text, const char *set_env, struct nd_findings *out)
{
    if (!text)
        return 0;
    for (size_t i = 0; i < sizeof nd_known / sizeof nd_known[0]; i++) {
        const struct nd_known_error *k = &nd_known[i];
        const char *hit = strstr(text, k->needle);
        if (!hit)
            continue;
        /* The set_env fix only makes sense when a toolkit was found. */
        bool needs_env = strstr(k->fix, "%S") != NULL;
        struct nd_finding *f = nd_findings_add(out, k->id, k->category, ND_SEV_ERROR, "%s", k->title);
        const char *ls = hit;
        while (ls > text && ls[-1] != '\n')
            ls--;
        size_t ll = strcspn(ls, "\n");
        nd_finding_add_evidence(f, NULL, 0, "%.*s", (int)(ll > 300 ? 300 : ll), ls);
        nd_finding_set_cause(f, "%s", k->cause);
        if (needs_env) {
            if (set_env && *set_env)
                nd_finding_add_fix(f, "source %s", set_env);
            else
                nd_finding_add_fix(f, "install the CANN toolkit and source its set_env.sh");
        } else {
            nd_finding_add_fix(f, "%s", k->fix);
        }
        return 1;
    }
    return 0;
}
