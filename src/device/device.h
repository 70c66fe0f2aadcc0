/* The vendor device interface (docs/architecture.md): one vtable per vendor, every
 * vendor library opened with dlopen and its symbols declared by us. Callers
 * outside device/ use the guarded entry points (nd_device_query and the
 * session), which run the vtable in a child process with a deadline, so a
 * hanging or crashing vendor library becomes a reported state, never a hang
 * or crash of ours. Unknown values are explicit: a validity flag, never 0. */
#ifndef ND_DEVICE_DEVICE_H
#define ND_DEVICE_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/environ.h"
#include "core/error.h"
#include "core/finding.h"
#include "device/framework.h"

#define ND_MAX_DEVICES 64
#define ND_MAX_DEVICE_PROCS 512
/* The most vendors the table (vendors.c) may list; arrays indexed by vendor use it. */
#define ND_MAX_VENDORS 8

struct nd_device {
    int index;            /* the index the job uses: Ascend logic id, CUDA ordinal */
    int card_id, chip_id; /* Ascend DCMI card/device ids; -1 for other vendors */
    char name[96];        /* "910B3", "NVIDIA H200" */
    char uuid[96];        /* NVIDIA UUID; "" when the vendor has none */
    bool health_valid;
    unsigned health; /* Ascend: 0 OK, 1 warning, 2 alarm, 3 critical */
    bool util_valid;
    unsigned util_pct; /* Ascend AI Core %, NVIDIA GPU % */
    bool mem_valid;
    uint64_t mem_used_bytes, mem_total_bytes;
    bool temp_valid;
    int temp_c;
    bool power_valid;
    double power_w;
};

struct nd_device_proc {
    pid_t pid; /* as the vendor reports it: a HOST pid */
    int device_index;
    bool mem_valid;
    uint64_t mem_bytes;
};

/* Everything one guarded query learned. Plain data (no pointers) so the
 * guarded child can send it to the parent as bytes. */
struct nd_device_state {
    char vendor[16]; /* "ascend", "nvidia" */
    bool lib_found;
    char lib_path[512];
    int status;           /* 0 ok; < 0 the query failed, see error */
    char failed_call[64]; /* "dcmi_init", "nvmlInit_v2"... when status < 0 */
    int vendor_code;      /* the vendor's return code of failed_call */
    char error[512];      /* "dcmi_init returned -8005: ..." or "timed out after 5 s" */
    bool driver_version_valid;
    char driver_version[80];
    int cuda_driver_version; /* NVIDIA: 12040 means 12.4; 0 unknown */
    size_t ndevices;
    struct nd_device devices[ND_MAX_DEVICES];
    bool procs_valid;
    size_t nprocs;
    struct nd_device_proc procs[ND_MAX_DEVICE_PROCS];
    double elapsed_s;
    /* How a guarded query ended when it did not return by itself, and
     * the first non-fatal problem (a per-device call that failed, a
     * process list that could not be read). */
    bool timed_out; /* the child hung in failed_call and was killed */
    bool crashed;   /* the child died from crash_signal in failed_call */
    int crash_signal;
    char warning[256];
};

struct nd_vendor_ctx;
struct nd_smoke_result;

/* A vendor: its backend vtable, and every vendor-specific word, path and
 * library that code outside device/ needs. Shared code loops over
 * nd_vendors[] and reads these fields; it never names a vendor itself. */
struct nd_vendor {
    const char *name;          /* "ascend", "nvidia": ids, JSON "vendor" */
    const char *label;         /* "Ascend", "NVIDIA": report areas, titles */
    const char *device_word;   /* "npu", "gpu": ids such as npu:0, chart columns */
    const char *device_noun;   /* "NPU", "GPU" */
    const char *device_phrase; /* "Ascend NPU", "NVIDIA GPU" */
    /* Variables that choose the visible devices, the one to suggest first. */
    const char *const *visible_env;
    /* Device nodes: numbered nodes dev_node_prefix<N> are device N - dev_node_base;
     * ctl_nodes are control nodes (an entry ending in '/' is a folder of them).
     * When dev_node_needs is set, numbered nodes count only where it exists. */
    const char *dev_node_prefix; /* "/dev/davinci" */
    int dev_node_base;
    const char *dev_node_needs;
    const char *const *ctl_nodes;
    const char *dev_node_glob; /* "/dev/davinci*": how messages name them */
    const char *smi_tool;      /* "npu-smi info" */
    const char *install_fix;   /* the fix when the vendor library is missing */
    const char *bandwidth_fix; /* how to check a slow host link */
    /* Frameworks: mapped, any of these bits means the process can use the device. */
    unsigned frameworks;
    unsigned torch_backend;         /* the bit of torch's backend for it (torch_npu) */
    const char *frameworks_text;    /* "torch_npu or the CANN runtime (libascendcl)" */
    const char *torch_backend_text; /* "torch_npu", "libtorch_cuda" */
    const char *torch_device;       /* what torch calls it: "npu", "cuda" */
    const char *torch_check;        /* a one-line command that must print True */
    const char *set_device_fix;     /* how every rank picks its device */
    const char *collective_fix;     /* how to see a stuck collective */
    /* Why the job's own environment keeps it off the device (set_env.sh not
     * sourced, a visible-devices list naming none): findings, or nothing. */
    void (*env_findings)(const struct nd_environ *env, pid_t pid, struct nd_findings *out);
    /* The runtime smoke test (check --level 2/3), or NULL when there is none. */
    int (*smoke)(int level, double timeout_s, struct nd_smoke_result *out);
    const char *lib_soname;       /* "libdcmi.so", "libnvidia-ml.so.1" */
    const char *lib_override_env; /* "NPU_DOCTOR_DCMI_LIB" */
    const char *const *lib_dirs;  /* its standard folders, NULL-terminated */
    /* Finds the library without loading it and fills state->lib_*, or the
     * not-found error (failed_call "dlopen", status -ENOENT). Runs in our own
     * process before any child is forked: a host without the vendor's driver
     * costs a few stat calls, not a fork. */
    int (*locate)(struct nd_device_state *state);
    /* dlopen + init; fills state->lib_* and, on failure, failed_call/vendor_code/error. */
    int (*open)(struct nd_vendor_ctx **ctx, struct nd_device_state *state, struct nd_error *err);
    /* Enumerates devices and static facts (name, uuid, driver version). */
    int (*devices)(struct nd_vendor_ctx *ctx, struct nd_device_state *state, struct nd_error *err);
    /* Refreshes utilisation, memory, health of the devices already listed. */
    int (*sample)(struct nd_vendor_ctx *ctx, struct nd_device_state *state, struct nd_error *err);
    /* Fills the per-device process list. */
    int (*processes)(struct nd_vendor_ctx *ctx, struct nd_device_state *state, struct nd_error *err);
    void (*close)(struct nd_vendor_ctx *ctx);
};

extern const struct nd_vendor nd_vendor_ascend;
extern const struct nd_vendor nd_vendor_nvidia;
extern const struct nd_vendor nd_vendor_rocm;
/* NULL-terminated list of every vendor, Ascend first; at most ND_MAX_VENDORS. */
extern const struct nd_vendor *const nd_vendors[];

/* The vendor called name ("nvidia"), or NULL. */
const struct nd_vendor *nd_vendor_by_name(const char *name);
/* vendor->device_word for a vendor name, the name itself when unknown. */
const char *nd_vendor_word(const char *name);
/* Classifies a device path: "/dev/davinci3" is that vendor's device 3,
 * "/dev/nvidiactl" a control node (index -1). NULL for other paths. */
const struct nd_vendor *nd_vendor_of_node(const char *path, int *index);
/* How many numbered device nodes of v exist under the root ("/dev/davinci3"...). */
size_t nd_vendor_count_nodes(const struct nd_vendor *v);

#define ND_DEVICE_DEFAULT_TIMEOUT 5.0

/* One guarded query in a child: open, devices, sample, processes, close.
 * Always fills out (status < 0 when anything failed, including a hang or a
 * crash of the child). Returns out->status. A hang gives status -ETIMEDOUT,
 * timed_out, and error "timed out after N s in <call>"; a crash gives
 * status -ECHILD, crashed, and "crashed with SIGSEGV in <call>". A process
 * list that cannot be read leaves status 0, procs_valid false and a warning. */
int nd_device_query(const struct nd_vendor *v, double timeout_s, struct nd_device_state *out);

/* For backends: call before each vendor call ("dcmi_init") so that a hang or
 * crash in the guarded child can name it. A no-op outside the child. */
void nd_device_progress(const char *call);
/* For backends: records a failed vendor call in state (status, failed_call,
 * vendor_code, error "<call> returned <code>: <meaning>") and returns status. */
int nd_device_state_fail(struct nd_device_state *st, int status, const char *call, int code, const char *meaning);
/* The query without the guard, in this process (used inside the child, and
 * by tests that want the raw vtable). Never call it outside a child in the
 * tool: the vendor library may hang or crash. */
int nd_device_query_unguarded(const struct nd_vendor *v, struct nd_device_state *out);

/* A long-lived guarded child for repeated sampling (run/watch): the vendor
 * library is initialised once; each sample is one request with a deadline.
 * After a timeout or crash the session is dead and every later sample
 * returns the failed state (the caller reports it once).
 * open: fills out with the first full sample (devices, utilisation, procs).
 * On failure it returns out->status < 0 and sets *s = NULL (nothing to
 * close). sample(NULL, out) returns -EINVAL; close(NULL) does nothing. The
 * child has its own process group, keeps no fds of ours but its channel,
 * and dies with us (PR_SET_PDEATHSIG). */
struct nd_device_session;
int nd_device_session_open(const struct nd_vendor *v, double timeout_s, struct nd_device_session **s,
                           struct nd_device_state *out);
int nd_device_session_sample(struct nd_device_session *s, struct nd_device_state *out);
void nd_device_session_close(struct nd_device_session *s);

/* Finds a vendor library the way the job would: the override variable,
 * LD_LIBRARY_PATH, the standard driver folders, then the ld cache.
 * Returns 0 with the path, or -ENOENT. */
int nd_device_find_library(const char *soname, const char *override_env, const char *const *std_dirs, char *out,
                           size_t size);

/* The env_findings hooks of the descriptors (env_hints.c). */
void nd_env_hints_ascend(const struct nd_environ *env, pid_t pid, struct nd_findings *out);
void nd_env_hints_nvidia(const struct nd_environ *env, pid_t pid, struct nd_findings *out);
void nd_env_hints_rocm(const struct nd_environ *env, pid_t pid, struct nd_findings *out);

/* Turns a failed or noteworthy state into findings (-8005, NVML 18, a hang...). */
void nd_device_state_findings(const struct nd_device_state *st, struct nd_findings *out);

/* Vendor return codes as text (facts in docs/vendor-apis.md). */
const char *nd_dcmi_strerror(int code);
const char *nd_acl_strerror(int code);
const char *nd_nvml_strerror(int code);
const char *nd_cuda_strerror(int code);
const char *nd_rsmi_strerror(int code);

/* Runtime smoke tests (check --level 2/3), each in a guarded child:
 * Ascend through ACL, NVIDIA through the CUDA driver API. */
struct nd_smoke_device {
    int index;
    bool ok;
    bool bandwidth_valid; /* level 3 */
    double h2d_gbps, d2h_gbps;
    bool bandwidth_low; /* level 3: far below its siblings (nd_smoke_flag_slow) */
};

struct nd_smoke_result {
    char vendor[16];
    bool lib_found;
    char lib_path[512];
    int status;           /* 0 all steps passed; < 0 failed */
    char failed_call[64]; /* "aclInit", "cuMemAlloc_v2"... */
    int code;             /* the vendor code of failed_call */
    char meaning[256];    /* the code's meaning */
    char fix[256];        /* the likely fix */
    char error[512];      /* one line for the user */
    size_t ndevices;
    struct nd_smoke_device devices[ND_MAX_DEVICES];
};

int nd_smoke_ascend(int level, double timeout_s, struct nd_smoke_result *out);
int nd_smoke_cuda(int level, double timeout_s, struct nd_smoke_result *out);

/* Level 3: marks devices whose H2D or D2H bandwidth is below half the
 * median of all devices with bandwidth (needs 2+ devices). Returns how many
 * were marked. Pure: shared by both smoke tests. */
size_t nd_smoke_flag_slow(struct nd_smoke_result *r);
/* Turns a smoke result into findings: the failing call with code, meaning
 * and fix; a slow device; nothing when all passed. */
void nd_smoke_findings(const struct nd_smoke_result *r, struct nd_findings *out);

#endif
