/* The Python stack as files, without importing anything: which interpreter
 * the job runs, its sys.path (worked out from the interpreter's layout, as
 * site.py does), and the versions of torch, torch_npu and friends from their
 * package metadata. Parsers take buffers (fuzz/fuzz_py_metadata.c). */
#ifndef ND_PROBE_PYTHON_H
#define ND_PROBE_PYTHON_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "core/finding.h"
#include "core/environ.h"

enum nd_pkg_id {
    ND_PKG_TORCH,
    ND_PKG_TORCH_NPU,
    ND_PKG_TRANSFORMERS,
    ND_PKG_ACCELERATE,
    ND_PKG_DEEPSPEED,
    ND_PKG_NUMPY,
    /* the tbe compiler's own imports */
    ND_PKG_DECORATOR,
    ND_PKG_SCIPY,
    ND_PKG_ATTRS,
    ND_PKG_PSUTIL,
    ND_PKG_SYMPY,
    ND_PKG_CLOUDPICKLE,
    ND_PKG_TORNADO,
    ND_PKG_COUNT
};

/* The distribution name as pip normalises it ("torch_npu"). */
const char *nd_pkg_name(enum nd_pkg_id id);

struct nd_py_pkg {
    bool found;
    char version[64];
    char location[PATH_MAX]; /* the sys.path folder it is in */
};

#define ND_PY_MAX_PATH 24
#define ND_PY_MAX_OTHERS 6

struct nd_py_other {
    char path[PATH_MAX]; /* as found on PATH */
    char exe[PATH_MAX];  /* what it resolves to */
    char how[64];        /* "venv /opt/venv", "system": a venv shares exe with its base */
    bool torch_found;
    char torch_version[64];
    char torch_location[PATH_MAX];
};

struct nd_python {
    char requested[PATH_MAX]; /* --python, or "python3" */
    bool found;
    char path[PATH_MAX]; /* where it was found (in-root) */
    char exe[PATH_MAX];  /* the real interpreter after links, venvs and pyenv shims */
    char version[16];    /* "3.11" */
    char how[64];        /* "venv", "pyenv 3.11.7", "system" … */
    char error[256];
    size_t npath;
    char sys_path[ND_PY_MAX_PATH][PATH_MAX];
    struct nd_py_pkg pkg[ND_PKG_COUNT];
    bool torch_version_py;       /* torch/version.py was read */
    char torch_cuda[32];         /* torch.version.cuda; "" for None */
    char torch_local[32];        /* "cpu", "cu121", "" */
    char tbe_location[PATH_MAX]; /* the sys.path folder holding tbe/, "" when none */
    size_t nothers;              /* every python3 on PATH, deduplicated */
    struct nd_py_other others[ND_PY_MAX_OTHERS];
};

/* Finds the interpreter (requested NULL = python3 on env's PATH) and reads
 * the package metadata its sys.path holds. Never runs it. Paths are in-root. */
void nd_python_probe(const char *requested, const struct nd_environ *env, struct nd_python *py);
/* True when torch has no accelerator build of its own: "+cpu" or version.cuda None. */
bool nd_python_torch_cpu_only(const struct nd_python *py);
json_t *nd_python_facts_json(const struct nd_python *py);

/* Judgements. ascend/nvidia: the host has that accelerator. cann_present: a
 * CANN toolkit is installed. python.* findings: interpreter missing, two
 * interpreters that see different torch installs, CPU-only torch on an
 * accelerator host, torch_npu missing on an NPU host, tbe's dependencies missing. */
void nd_python_judge(const struct nd_python *py, bool ascend, bool nvidia, bool cann_present, const char *cann_version,
                     struct nd_findings *out);

/* "Name:" and "Version:" from a METADATA / PKG-INFO buffer (headers end at
 * the first blank line). Returns 0 when both are found, else -EINVAL. */
int nd_pymeta_parse(const char *buf, size_t len, char *name, size_t name_size, char *version, size_t version_size);
/* torch/version.py or torch_npu/version.py: __version__ and cuda (None -> "").
 * Returns 0 when __version__ is found, else -EINVAL; *cuda_known tells whether a
 * cuda = line was seen. */
int nd_pyversion_parse(const char *buf, size_t len, char *version, size_t vsize, char *cuda, size_t csize,
                       bool *cuda_known);
/* "torch-2.1.0+cpu.dist-info", "numpy-1.24.2.egg-info", "foo-1.0-py3.11.egg-info":
 * the normalised name and the version ("" when the name has none). Returns 0,
 * or -EINVAL when it is not a metadata folder name. */
int nd_pkg_dirname_parse(const char *dirname, char *name, size_t name_size, char *version, size_t version_size);

#endif
