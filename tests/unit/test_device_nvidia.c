/* Unit tests of the NVIDIA backend (NVML vtable through the guarded query,
 * CUDA driver API smoke test) against the simulated libnvidia-ml.so.1 and
 * libcuda.so.1 built in $ND_SIM, driven by state files (tests/sim/sim_common.h). */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/finding.h"
#include "device/device.h"

/* Generous: only a hang guard, never a timing assertion. */
#define T_LONG 60.0
/* The deadline of the hang tests: the call under test never returns, and
 * the calls before it must fit in it even on a loaded machine. */
#define T_HANG 3.0

static char t_dir[256];
static int t_serial;

static int t_setup_all(void **state)
{
    (void)state;
    const char *sim = getenv("ND_SIM");
    if (!sim || !*sim) {
        fprintf(stderr, "ND_SIM is not set: run through ctest\n");
        return -1;
    }
    char path[512];
    snprintf(path, sizeof path, "%s/libnvidia-ml.so.1", sim);
    setenv("NPU_DOCTOR_NVML_LIB", path, 1);
    snprintf(path, sizeof path, "%s/libcuda.so.1", sim);
    setenv("NPU_DOCTOR_CUDA_LIB", path, 1);
    snprintf(t_dir, sizeof t_dir, "/tmp/nd-test-nvidia.XXXXXX");
    if (!mkdtemp(t_dir))
        return -1;
    unsetenv("CUDA_VISIBLE_DEVICES");
    return 0;
}

static int t_teardown_all(void **state)
{
    (void)state;
    char path[512];
    for (int i = 1; i <= t_serial; i++) {
        snprintf(path, sizeof path, "%s/state%d.ini", t_dir, i);
        unlink(path);
    }
    rmdir(t_dir);
    return 0;
}

/* Writes a fresh state file (a new name each time, so the simulators never
 * see a stale one) and points ND_SIM_STATE at it. */
static void t_state(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void t_state(const char *fmt, ...)
{
    char path[512];
    snprintf(path, sizeof path, "%s/state%d.ini", t_dir, ++t_serial);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(fp, fmt, ap);
    va_end(ap);
    assert_int_equal(fclose(fp), 0);
    setenv("ND_SIM_STATE", path, 1);
}

/* Replaces the current state file in place (rename over it), for a child
 * that was started with the old ND_SIM_STATE and must see the change. */
static void t_state_replace(const char *text)
{
    const char *cur = getenv("ND_SIM_STATE");
    assert_non_null(cur);
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s/replace.tmp", t_dir);
    FILE *fp = fopen(tmp, "w");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(rename(tmp, cur), 0);
}

#define T_TWO_GPUS                                                                                                     \
    "[nvidia]\ndriver_version = 580.159.03\ncuda_driver_version = 13000\ndevices = 2\nname = NVIDIA H200\n"            \
    "gpu_util = 37\nmem_total_mb = 143771\nmem_used_mb = 1024\n"

static struct nd_device_state *t_query(double timeout_s)
{
    struct nd_device_state *st = calloc(1, sizeof *st);
    assert_non_null(st);
    nd_device_query(&nd_vendor_nvidia, timeout_s, st);
    return st;
}

static bool t_has_proc(const struct nd_device_state *st, pid_t pid, int dev, uint64_t mem_mb)
{
    for (size_t i = 0; i < st->nprocs; i++)
        if (st->procs[i].pid == pid && st->procs[i].device_index == dev)
            return st->procs[i].mem_valid && st->procs[i].mem_bytes == (mem_mb << 20);
    return false;
}

/* ---- NVML ----------------------------------------------------------- */

static void test_nvml_normal(void **state)
{
    (void)state;
    t_state(T_TWO_GPUS "proc = 4242 0 31747\nproc = 4243 1 2048\nproc = 4244 1 -1\n"
                       "[nvidia.device.1]\nname = NVIDIA H100 80GB HBM3\ngpu_util = 99\nmem_used_mb = 80000\n"
                       "uuid = GPU-deadbeef-0000-0000-0000-000000000001\n");
    struct nd_device_state *st = t_query(T_LONG);
    assert_int_equal(st->status, 0);
    assert_string_equal(st->vendor, "nvidia");
    assert_true(st->lib_found);
    assert_non_null(strstr(st->lib_path, "libnvidia-ml.so.1"));
    assert_true(st->driver_version_valid);
    assert_string_equal(st->driver_version, "580.159.03");
    assert_int_equal(st->cuda_driver_version, 13000);
    assert_int_equal(st->ndevices, 2);
    assert_string_equal(st->devices[0].name, "NVIDIA H200");
    assert_string_equal(st->devices[1].name, "NVIDIA H100 80GB HBM3");
    assert_int_equal(st->devices[1].index, 1);
    assert_int_equal(st->devices[1].card_id, -1);
    assert_string_equal(st->devices[1].uuid, "GPU-deadbeef-0000-0000-0000-000000000001");
    assert_true(strncmp(st->devices[0].uuid, "GPU-", 4) == 0);
    assert_true(st->devices[0].util_valid);
    assert_int_equal(st->devices[0].util_pct, 37);
    assert_int_equal(st->devices[1].util_pct, 99);
    assert_true(st->devices[1].mem_valid);
    assert_true(st->devices[1].mem_used_bytes == 80000ull << 20);
    assert_true(st->devices[1].mem_total_bytes == 143771ull << 20);
    assert_false(st->devices[0].health_valid);
    assert_true(st->procs_valid);
    assert_int_equal(st->nprocs, 3);
    assert_true(t_has_proc(st, 4242, 0, 31747));
    assert_true(t_has_proc(st, 4243, 1, 2048));
    /* NVML_VALUE_NOT_AVAILABLE: the process is listed, its memory unknown. */
    bool seen = false;
    for (size_t i = 0; i < st->nprocs; i++)
        if (st->procs[i].pid == 4244) {
            seen = true;
            assert_false(st->procs[i].mem_valid);
        }
    assert_true(seen);
    assert_string_equal(st->warning, "");
    free(st);
}

static void test_nvml_every_error_code(void **state)
{
    (void)state;
    static const int codes[] = {1, 2, 3, 4, 6, 7, 9, 12, 15, 18, 999};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        t_state(T_TWO_GPUS "fail = nvmlInit_v2 %d\n", codes[i]);
        struct nd_device_state *st = t_query(T_LONG);
        assert_true(st->status < 0);
        assert_true(st->lib_found);
        assert_string_equal(st->failed_call, "nvmlInit_v2");
        assert_int_equal(st->vendor_code, codes[i]);
        const char *meaning = nd_nvml_strerror(codes[i]);
        assert_non_null(strstr(st->error, meaning));
        char num[32];
        snprintf(num, sizeof num, "returned %d", codes[i]);
        assert_non_null(strstr(st->error, num));
        assert_int_equal(st->ndevices, 0);
        free(st);
        /* The table knows every listed code: none falls to the catch-all. */
        assert_null(strstr(meaning, "unrecognised"));
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(meaning, nd_nvml_strerror(codes[j]));
    }
    assert_non_null(strstr(nd_nvml_strerror(18), "version mismatch"));
    assert_non_null(strstr(nd_nvml_strerror(12345), "unrecognised"));
}

/* An error in the enumeration itself is fatal too, and names that call. */
static void test_nvml_count_fails(void **state)
{
    (void)state;
    t_state(T_TWO_GPUS "fail = nvmlDeviceGetCount_v2 15\n");
    struct nd_device_state *st = t_query(T_LONG);
    assert_true(st->status < 0);
    assert_string_equal(st->failed_call, "nvmlDeviceGetCount_v2");
    assert_int_equal(st->vendor_code, 15);
    assert_non_null(strstr(st->error, "lost"));
    free(st);
}

static void test_nvml_version_mismatch_finding(void **state)
{
    (void)state;
    t_state(T_TWO_GPUS "fail = nvmlInit_v2 18\n");
    struct nd_device_state *st = t_query(T_LONG);
    assert_int_equal(st->vendor_code, 18);
    struct nd_findings f = ND_FINDINGS_INIT;
    nd_device_state_findings(st, &f);
    bool found = false;
    for (size_t i = 0; i < f.n; i++)
        if (strcmp(f.v[i]->category, ND_CAT_VERSION_MISMATCH) == 0) {
            found = true;
            assert_int_equal(f.v[i]->severity, ND_SEV_ERROR);
        }
    assert_true(found);
    nd_findings_release(&f);
    free(st);
}

static void test_nvml_no_driver(void **state)
{
    (void)state;
    t_state("[ascend]\ndevices = 8\n"); /* a state without [nvidia]: no NVIDIA driver */
    struct nd_device_state *st = t_query(T_LONG);
    assert_true(st->status < 0);
    assert_int_equal(st->vendor_code, 9);
    assert_non_null(strstr(st->error, "driver is not loaded"));
    free(st);
}

static void test_nvml_no_library(void **state)
{
    (void)state;
    t_state(T_TWO_GPUS);
    char *saved = strdup(getenv("NPU_DOCTOR_NVML_LIB"));
    setenv("NPU_DOCTOR_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
    struct nd_device_state *st = t_query(T_LONG);
    setenv("NPU_DOCTOR_NVML_LIB", saved, 1);
    free(saved);
    assert_true(st->status < 0);
    assert_false(st->lib_found);
    assert_string_equal(st->failed_call, "dlopen");
    assert_non_null(strstr(st->error, "/nonexistent/libnvidia-ml.so.1"));
    free(st);
}

/* A library that is not NVML (here: the CUDA simulator) is named as such. */
static void test_nvml_wrong_library(void **state)
{
    (void)state;
    t_state(T_TWO_GPUS);
    char *saved = strdup(getenv("NPU_DOCTOR_NVML_LIB"));
    setenv("NPU_DOCTOR_NVML_LIB", getenv("NPU_DOCTOR_CUDA_LIB"), 1);
    struct nd_device_state *st = t_query(T_LONG);
    setenv("NPU_DOCTOR_NVML_LIB", saved, 1);
    free(saved);
    assert_true(st->status < 0);
    assert_true(st->lib_found);
    assert_string_equal(st->failed_call, "dlsym");
    assert_non_null(strstr(st->error, "does not export nvmlInit_v2"));
    free(st);
}

static void test_nvml_hang(void **state)
{
    (void)state;
    t_state(T_TWO_GPUS "hang = nvmlDeviceGetUtilizationRates\n");
    struct nd_device_state *st = t_query(T_HANG);
    assert_int_equal(st->status, -ETIMEDOUT);
    assert_true(st->timed_out);
    assert_string_equal(st->failed_call, "nvmlDeviceGetUtilizationRates");
    assert_non_null(strstr(st->error, "timed out"));
    assert_non_null(strstr(st->error, "nvmlDeviceGetUtilizationRates"));
    free(st);
}

static void test_nvml_crash(void **state)
{
    (void)state;
    t_state(T_TWO_GPUS "crash = nvmlInit_v2\n");
    struct nd_device_state *st = t_query(T_LONG);
    assert_int_equal(st->status, -ECHILD);
    assert_true(st->crashed);
    assert_int_equal(st->crash_signal, SIGSEGV);
    assert_string_equal(st->failed_call, "nvmlInit_v2");
    assert_non_null(strstr(st->error, "SIGSEGV"));
    free(st);
}

/* More processes than our first array holds: NVML answers INSUFFICIENT_SIZE
 * with the count it needs, and the retry gets them all. */
static void test_nvml_process_retry(void **state)
{
    (void)state;
    char procs[8192] = "";
    size_t off = 0;
    for (int i = 0; i < 100; i++)
        off += (size_t)snprintf(procs + off, sizeof procs - off, "proc = %d %d %d\n", 10000 + i, i % 2, 100 + i);
    t_state(T_TWO_GPUS "%s", procs);
    struct nd_device_state *st = t_query(T_LONG);
    assert_int_equal(st->status, 0);
    assert_true(st->procs_valid);
    assert_int_equal(st->nprocs, 100);
    for (int i = 0; i < 100; i++)
        assert_true(t_has_proc(st, 10000 + i, i % 2, (uint64_t)(100 + i)));
    free(st);
}

/* More processes than the state can carry: the list is cut, never overrun. */
static void test_nvml_process_overflow(void **state)
{
    (void)state;
    static char procs[64 * 1024];
    size_t off = 0;
    for (int i = 0; i < ND_MAX_DEVICE_PROCS + 100; i++)
        off += (size_t)snprintf(procs + off, sizeof procs - off, "proc = %d 0 1\n", 20000 + i);
    t_state(T_TWO_GPUS "%s", procs);
    struct nd_device_state *st = t_query(T_LONG);
    assert_int_equal(st->status, 0);
    assert_int_equal(st->nprocs, ND_MAX_DEVICE_PROCS);
    assert_int_equal(st->procs[ND_MAX_DEVICE_PROCS - 1].pid, 20000 + ND_MAX_DEVICE_PROCS - 1);
    free(st);
}

/* An older driver: _v3 answers FUNCTION_NOT_FOUND, _v2 gives the list. */
static void test_nvml_process_fallback_v2(void **state)
{
    (void)state;
    t_state(T_TWO_GPUS "proc = 4242 0 31747\nproc = 4243 1 77\n"
                       "fail = nvmlDeviceGetComputeRunningProcesses_v3 13\n");
    struct nd_device_state *st = t_query(T_LONG);
    assert_int_equal(st->status, 0);
    assert_true(st->procs_valid);
    assert_int_equal(st->nprocs, 2);
    assert_true(t_has_proc(st, 4242, 0, 31747));
    assert_true(t_has_proc(st, 4243, 1, 77));
    free(st);
}

/* The oldest generation fills the two-field v1 struct: read with the wrong
 * layout, the second entry's pid and memory would be garbage. */
static void test_nvml_process_fallback_v1(void **state)
{
    (void)state;
    t_state(T_TWO_GPUS "proc = 4242 0 31747\nproc = 4250 0 12\nproc = 4251 0 13\n"
                       "fail = nvmlDeviceGetComputeRunningProcesses_v3 13\n"
                       "fail = nvmlDeviceGetComputeRunningProcesses_v2 13\n");
    struct nd_device_state *st = t_query(T_LONG);
    assert_int_equal(st->status, 0);
    assert_true(st->procs_valid);
    assert_int_equal(st->nprocs, 3);
    assert_true(t_has_proc(st, 4242, 0, 31747));
    assert_true(t_has_proc(st, 4250, 0, 12));
    assert_true(t_has_proc(st, 4251, 0, 13));
    free(st);
}

/* No generation answers: the devices stand, the list is unknown, and the
 * warning names the last call tried. */
static void test_nvml_process_list_unavailable(void **state)
{
    (void)state;
    t_state(T_TWO_GPUS "proc = 4242 0 1\n"
                       "fail = nvmlDeviceGetComputeRunningProcesses_v3 13\n"
                       "fail = nvmlDeviceGetComputeRunningProcesses_v2 13\n"
                       "fail = nvmlDeviceGetComputeRunningProcesses 4\n");
    struct nd_device_state *st = t_query(T_LONG);
    assert_int_equal(st->status, 0);
    assert_int_equal(st->ndevices, 2);
    assert_true(st->devices[0].util_valid);
    assert_false(st->procs_valid);
    assert_non_null(strstr(st->warning, "nvmlDeviceGetComputeRunningProcesses returned 4"));
    assert_non_null(strstr(st->warning, "permission"));
    free(st);
}

/* One lost GPU among healthy ones: a warning, and the others still report. */
static void test_nvml_one_gpu_lost(void **state)
{
    (void)state;
    t_state(T_TWO_GPUS "[nvidia.device.1]\nfail = nvmlDeviceGetHandleByIndex_v2 15\n");
    struct nd_device_state *st = t_query(T_LONG);
    assert_int_equal(st->status, 0);
    assert_int_equal(st->ndevices, 2);
    assert_true(st->devices[0].util_valid);
    assert_string_equal(st->devices[0].name, "NVIDIA H200");
    assert_false(st->devices[1].util_valid);
    assert_false(st->devices[1].mem_valid);
    assert_non_null(strstr(st->warning, "GPU 1"));
    assert_non_null(strstr(st->warning, "returned 15"));
    assert_false(st->procs_valid); /* GPU 1's processes are unknown */
    free(st);
}

/* "Not supported" leaves a fact unknown without any warning. */
static void test_nvml_not_supported(void **state)
{
    (void)state;
    t_state(T_TWO_GPUS "fail = nvmlDeviceGetUtilizationRates 3\n");
    struct nd_device_state *st = t_query(T_LONG);
    assert_int_equal(st->status, 0);
    assert_false(st->devices[0].util_valid);
    assert_true(st->devices[0].mem_valid);
    assert_string_equal(st->warning, "");
    free(st);
}

/* Static facts NVML cannot give are unknown, not fatal and not zero. */
static void test_nvml_driver_version_unknown(void **state)
{
    (void)state;
    t_state(T_TWO_GPUS "fail = nvmlSystemGetDriverVersion 999\nfail = nvmlSystemGetCudaDriverVersion_v2 3\n"
                       "fail = nvmlDeviceGetName 999\n");
    struct nd_device_state *st = t_query(T_LONG);
    assert_int_equal(st->status, 0);
    assert_false(st->driver_version_valid);
    assert_string_equal(st->driver_version, "");
    assert_int_equal(st->cuda_driver_version, 0);
    assert_int_equal(st->ndevices, 2);
    assert_string_equal(st->devices[0].name, "");
    assert_true(st->devices[0].mem_valid);
    free(st);
}

/* A state that changes over time is seen by a long-lived session. */
static void test_nvml_session(void **state)
{
    (void)state;
    t_state(T_TWO_GPUS);
    struct nd_device_state *st = calloc(1, sizeof *st);
    assert_non_null(st);
    struct nd_device_session *s = NULL;
    assert_int_equal(nd_device_session_open(&nd_vendor_nvidia, T_LONG, &s, st), 0);
    assert_non_null(s);
    assert_int_equal(st->devices[0].util_pct, 37);
    t_state_replace(T_TWO_GPUS "[nvidia.device.0]\ngpu_util = 88\n");
    assert_int_equal(nd_device_session_sample(s, st), 0);
    assert_int_equal(st->devices[0].util_pct, 88);
    nd_device_session_close(s);
    free(st);
}

/* ---- CUDA smoke test ---------------------------------------------------- */

#define T_CUDA_TWO "[nvidia]\ndevices = 2\nname = NVIDIA H200\nmem_total_mb = 143771\n"

static struct nd_smoke_result *t_smoke(int level, double timeout_s)
{
    struct nd_smoke_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    nd_smoke_cuda(level, timeout_s, r);
    return r;
}

static void test_cuda_smoke_ok(void **state)
{
    (void)state;
    t_state(T_CUDA_TWO);
    struct nd_smoke_result *r = t_smoke(2, T_LONG);
    assert_int_equal(r->status, 0);
    assert_string_equal(r->vendor, "nvidia");
    assert_true(r->lib_found);
    assert_non_null(strstr(r->lib_path, "libcuda.so.1"));
    assert_string_equal(r->failed_call, "");
    assert_int_equal(r->ndevices, 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(r->devices[i].index, i);
        assert_true(r->devices[i].ok);
        assert_false(r->devices[i].bandwidth_valid);
    }
    free(r);
}

/* Every step of the sequence, failing in turn, is named with its code. */
static void test_cuda_smoke_each_call_fails(void **state)
{
    (void)state;
    static const char *const calls[] = {
        "cuInit",
        "cuDriverGetVersion",
        "cuDeviceGetCount",
        "cuDeviceGet",
        "cuDeviceGetName",
        "cuDevicePrimaryCtxRetain",
        "cuCtxSetCurrent",
        "cuMemGetInfo_v2",
        "cuMemAlloc_v2",
        "cuMemcpyHtoD_v2",
        "cuMemcpyDtoH_v2",
        "cuMemFree_v2",
        "cuDevicePrimaryCtxRelease_v2",
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        t_state(T_CUDA_TWO "[cuda]\nfail = %s 999\n", calls[i]);
        struct nd_smoke_result *r = t_smoke(2, T_LONG);
        assert_true(r->status < 0);
        assert_string_equal(r->failed_call, calls[i]);
        assert_int_equal(r->code, 999);
        assert_non_null(strstr(r->meaning, "CUDA_ERROR_UNKNOWN"));
        assert_non_null(strstr(r->meaning, nd_cuda_strerror(999)));
        assert_true(strlen(r->fix) > 10);
        assert_non_null(strstr(r->error, calls[i]));
        assert_non_null(strstr(r->error, "999"));
        free(r);
    }
}

/* The documented codes, in cuInit: meaning from our table plus the
 * driver's own name, and a fix that fits the code. */
static void test_cuda_smoke_codes(void **state)
{
    (void)state;
    static const struct {
        int code;
        const char *name, *fix, *category;
    } cases[] = {
        {2, "CUDA_ERROR_OUT_OF_MEMORY", "npu-doctor ps", ND_CAT_DEVICE_OOM},
        {3, "CUDA_ERROR_NOT_INITIALIZED", "nvidia-smi", ND_CAT_NO_DEVICE},
        {100, "CUDA_ERROR_NO_DEVICE", "CUDA_VISIBLE_DEVICES", ND_CAT_NO_DEVICE},
        {101, "CUDA_ERROR_INVALID_DEVICE", "CUDA_VISIBLE_DEVICES", ND_CAT_NO_DEVICE},
        {802, "CUDA_ERROR_SYSTEM_NOT_READY", "nvidia-fabricmanager", ND_CAT_NO_DEVICE},
        {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "reboot", ND_CAT_VERSION_MISMATCH},
        {999, "CUDA_ERROR_UNKNOWN", "nvidia-uvm", ND_CAT_NO_DEVICE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        t_state(T_CUDA_TWO "[cuda]\nfail = cuInit %d\n", cases[i].code);
        struct nd_smoke_result *r = t_smoke(2, T_LONG);
        assert_true(r->status < 0);
        assert_string_equal(r->failed_call, "cuInit");
        assert_int_equal(r->code, cases[i].code);
        assert_non_null(strstr(r->meaning, cases[i].name));
        assert_non_null(strstr(r->meaning, nd_cuda_strerror(cases[i].code)));
        assert_non_null(strstr(r->fix, cases[i].fix));
        assert_null(strstr(nd_cuda_strerror(cases[i].code), "unrecognised"));
        struct nd_findings fl = ND_FINDINGS_INIT;
        nd_smoke_findings(r, &fl);
        assert_int_equal(fl.n, 1);
        assert_string_equal(fl.v[0]->category, cases[i].category);
        nd_findings_release(&fl);
        free(r);
    }
    assert_non_null(strstr(nd_cuda_strerror(802), "Fabric Manager"));
    assert_non_null(strstr(nd_cuda_strerror(4242), "unrecognised"));
}

/* A failure on one GPU names it, and the others are still tested. */
static void test_cuda_smoke_one_device_fails(void **state)
{
    (void)state;
    t_state(T_CUDA_TWO "[cuda.device.1]\nfail = cuMemAlloc_v2 2\n");
    struct nd_smoke_result *r = t_smoke(2, T_LONG);
    assert_true(r->status < 0);
    assert_string_equal(r->failed_call, "cuMemAlloc_v2");
    assert_int_equal(r->code, 2);
    assert_non_null(strstr(r->error, "GPU 1"));
    assert_true(r->devices[0].ok);
    assert_false(r->devices[1].ok);
    free(r);
}

static void test_cuda_smoke_hang(void **state)
{
    (void)state;
    t_state(T_CUDA_TWO "[cuda]\nhang = cuMemAlloc_v2\n");
    struct nd_smoke_result *r = t_smoke(2, T_HANG);
    assert_int_equal(r->status, -ETIMEDOUT);
    assert_string_equal(r->failed_call, "cuMemAlloc_v2");
    assert_non_null(strstr(r->error, "timed out"));
    assert_non_null(strstr(r->error, "cuMemAlloc_v2"));
    assert_non_null(strstr(r->error, "GPU 0"));
    assert_true(strlen(r->fix) > 10);
    free(r);
}

static void test_cuda_smoke_crash(void **state)
{
    (void)state;
    t_state(T_CUDA_TWO "[cuda]\ncrash = cuInit\n");
    struct nd_smoke_result *r = t_smoke(2, T_LONG);
    assert_int_equal(r->status, -ECHILD);
    assert_string_equal(r->failed_call, "cuInit");
    assert_non_null(strstr(r->error, "SIGSEGV"));
    free(r);
}

/* Data that comes back different is a device fault, named as such. */
static void test_cuda_smoke_corrupt(void **state)
{
    (void)state;
    t_state(T_CUDA_TWO "[cuda]\ncorrupt = 1\n");
    struct nd_smoke_result *r = t_smoke(2, T_LONG);
    assert_true(r->status < 0);
    assert_string_equal(r->failed_call, "compare");
    assert_non_null(strstr(r->error, "different bytes"));
    assert_false(r->devices[0].ok);
    free(r);
}

/* The test never asks for more than the card has free: 40 MiB free makes the
 * simulated driver refuse a 64 MiB allocation, and the test still passes. */
static void test_cuda_smoke_respects_free_memory(void **state)
{
    (void)state;
    t_state("[nvidia]\ndevices = 1\nmem_total_mb = 1000\nmem_used_mb = 960\n");
    struct nd_smoke_result *r = t_smoke(2, T_LONG);
    assert_int_equal(r->status, 0);
    assert_true(r->devices[0].ok);
    free(r);
    /* Almost full: nothing to test with, reported as out of memory. */
    t_state("[nvidia]\ndevices = 1\nmem_total_mb = 1000\nmem_used_mb = 999\n");
    r = t_smoke(2, T_LONG);
    assert_true(r->status < 0);
    assert_int_equal(r->code, 2);
    assert_non_null(strstr(r->error, "1 MiB"));
    free(r);
}

static void test_cuda_smoke_visible_devices_empty(void **state)
{
    (void)state;
    t_state(T_CUDA_TWO);
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    struct nd_smoke_result *r = t_smoke(2, T_LONG);
    unsetenv("CUDA_VISIBLE_DEVICES");
    assert_true(r->status < 0);
    assert_string_equal(r->failed_call, "cuInit");
    assert_int_equal(r->code, 100);
    assert_non_null(strstr(r->fix, "CUDA_VISIBLE_DEVICES"));
    free(r);
    /* A list picks devices: one visible GPU out of two. */
    setenv("CUDA_VISIBLE_DEVICES", "1", 1);
    r = t_smoke(2, T_LONG);
    unsetenv("CUDA_VISIBLE_DEVICES");
    assert_int_equal(r->status, 0);
    assert_int_equal(r->ndevices, 1);
    free(r);
}

static void test_cuda_smoke_no_library(void **state)
{
    (void)state;
    t_state(T_CUDA_TWO);
    char *saved = strdup(getenv("NPU_DOCTOR_CUDA_LIB"));
    setenv("NPU_DOCTOR_CUDA_LIB", "/nonexistent/libcuda.so.1", 1);
    struct nd_smoke_result *r = t_smoke(2, T_LONG);
    setenv("NPU_DOCTOR_CUDA_LIB", saved, 1);
    free(saved);
    assert_true(r->status < 0);
    assert_false(r->lib_found);
    assert_string_equal(r->failed_call, "dlopen");
    assert_true(strlen(r->fix) > 10);
    free(r);
}

static void test_cuda_smoke_wrong_library(void **state)
{
    (void)state;
    t_state(T_CUDA_TWO);
    char *saved = strdup(getenv("NPU_DOCTOR_CUDA_LIB"));
    setenv("NPU_DOCTOR_CUDA_LIB", getenv("NPU_DOCTOR_NVML_LIB"), 1);
    struct nd_smoke_result *r = t_smoke(2, T_LONG);
    setenv("NPU_DOCTOR_CUDA_LIB", saved, 1);
    free(saved);
    assert_true(r->status < 0);
    assert_true(r->lib_found);
    assert_string_equal(r->failed_call, "dlsym");
    assert_non_null(strstr(r->error, "does not export cuInit"));
    free(r);
}

/* Level 3: bandwidth both ways on every GPU (8 MiB cards: 2 MiB copies). One GPU is held to a much
 * slower simulated link (each copy sleeps at least size/bandwidth, so it is
 * slower by construction) and is flagged; the others are not. */
static void test_cuda_smoke_bandwidth(void **state)
{
    (void)state;
    t_state("[nvidia]\ndevices = 3\nmem_total_mb = 8\n[cuda]\nbandwidth_gbps = 4\n"
            "[cuda.device.2]\nbandwidth_gbps = 0.02\n");
    struct nd_smoke_result *r = t_smoke(3, T_LONG);
    assert_int_equal(r->status, 0);
    assert_int_equal(r->ndevices, 3);
    for (int i = 0; i < 3; i++) {
        assert_true(r->devices[i].ok);
        assert_true(r->devices[i].bandwidth_valid);
        assert_true(r->devices[i].h2d_gbps > 0);
        assert_true(r->devices[i].d2h_gbps > 0);
    }
    /* The sleep bounds the slow GPU from above: at most 0.02 GB/s. */
    assert_true(r->devices[2].h2d_gbps <= 0.02 * 1.0001);
    assert_true(r->devices[2].bandwidth_low);
    free(r);
    /* A single GPU has no siblings to be compared with. */
    t_state("[nvidia]\ndevices = 1\nmem_total_mb = 8\n[cuda]\nbandwidth_gbps = 0.02\n");
    r = t_smoke(3, T_LONG);
    assert_int_equal(r->status, 0);
    assert_true(r->devices[0].bandwidth_valid);
    assert_false(r->devices[0].bandwidth_low);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nvml_normal),
        cmocka_unit_test(test_nvml_every_error_code),
        cmocka_unit_test(test_nvml_count_fails),
        cmocka_unit_test(test_nvml_version_mismatch_finding),
        cmocka_unit_test(test_nvml_no_driver),
        cmocka_unit_test(test_nvml_no_library),
        cmocka_unit_test(test_nvml_wrong_library),
        cmocka_unit_test(test_nvml_hang),
        cmocka_unit_test(test_nvml_crash),
        cmocka_unit_test(test_nvml_process_retry),
        cmocka_unit_test(test_nvml_process_overflow),
        cmocka_unit_test(test_nvml_process_fallback_v2),
        cmocka_unit_test(test_nvml_process_fallback_v1),
        cmocka_unit_test(test_nvml_process_list_unavailable),
        cmocka_unit_test(test_nvml_one_gpu_lost),
        cmocka_unit_test(test_nvml_not_supported),
        cmocka_unit_test(test_nvml_driver_version_unknown),
        cmocka_unit_test(test_nvml_session),
        cmocka_unit_test(test_cuda_smoke_ok),
        cmocka_unit_test(test_cuda_smoke_each_call_fails),
        cmocka_unit_test(test_cuda_smoke_codes),
        cmocka_unit_test(test_cuda_smoke_one_device_fails),
        cmocka_unit_test(test_cuda_smoke_hang),
        cmocka_unit_test(test_cuda_smoke_crash),
        cmocka_unit_test(test_cuda_smoke_corrupt),
        cmocka_unit_test(test_cuda_smoke_respects_free_memory),
        cmocka_unit_test(test_cuda_smoke_visible_devices_empty),
        cmocka_unit_test(test_cuda_smoke_no_library),
        cmocka_unit_test(test_cuda_smoke_wrong_library),
        cmocka_unit_test(test_cuda_smoke_bandwidth),
    };
    return cmocka_run_group_tests(tests, t_setup_all, t_teardown_all);
}
