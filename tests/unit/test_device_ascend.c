/* Unit tests of the Ascend device layer against the simulated libdcmi.so and
 * libascendcl.so (tests/sim, found through ND_SIM): the DCMI backend through
 * the guarded query and the session, every DCMI code, hangs and crashes, the
 * ACL smoke test, the library search and the findings. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/fileio.h"
#include "core/finding.h"
#include "device/device.h"
#include "device/device_internal.h"

/* The deadline for calls the simulator makes hang: a guard, not a timing
 * assertion; long enough for a loaded machine to reach the hanging call. */
#define HANG_GUARD 3
#define HANG_GUARD_S "3"
/* The smoke test does real work on device 0 (allocations, copies, a
 * bandwidth loop) before device 1 hangs: on a loaded machine that took more
 * than 3 s, so the guard fired in the wrong call. The hang itself lasts
 * forever; a longer guard only makes the test wait longer. */
#define SMOKE_HANG_GUARD 12
#define SMOKE_HANG_GUARD_S "12"

static char g_dir[256];
static char g_state[300];
static char g_dcmi[1024];
static char g_acl[1024];

/* Writes the state atomically (new inode), so the simulator sees the change. */
static void write_state(const char *text)
{
    char tmp[400];
    snprintf(tmp, sizeof tmp, "%s/state.tmp", g_dir);
    FILE *fp = fopen(tmp, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    assert_int_equal(rename(tmp, g_state), 0);
}

static int setup(void **state)
{
    (void)state;
    const char *sim = getenv("ND_SIM");
    if (!sim)
        return -1;
    snprintf(g_dcmi, sizeof g_dcmi, "%s/libdcmi.so", sim);
    snprintf(g_acl, sizeof g_acl, "%s/libascendcl.so", sim);
    snprintf(g_dir, sizeof g_dir, "%s/nd-dev-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(g_dir))
        return -1;
    snprintf(g_state, sizeof g_state, "%s/state.ini", g_dir);
    setenv("NPU_DOCTOR_DCMI_LIB", g_dcmi, 1);
    setenv("NPU_DOCTOR_ACL_LIB", g_acl, 1);
    setenv("ND_SIM_STATE", g_state, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(g_state);
    rmdir(g_dir);
    return 0;
}

static const char *const k_idle8 = "[ascend]\n"
                                   "driver_version = 24.1.rc1\n"
                                   "devices = 8              ; eight 910B3\n"
                                   "chip_name = 910B3\n"
                                   "aicore_util = 0\n"
                                   "hbm_total_mb = 65536\n"
                                   "hbm_used_mb = 3000\n"
                                   "health = 0\n"
                                   "temperature = 41\n"
                                   "power_w = 92.5\n"
                                   "proc = 4242 0 31747\n"
                                   "proc = 4343 5 1024\n"
                                   "[ascend.device.3]\n"
                                   "aicore_util = 85\n"
                                   "hbm_used_mb = 60000\n";

static struct nd_device_state *query(double timeout)
{
    static struct nd_device_state st;
    nd_device_query(&nd_vendor_ascend, timeout, &st);
    return &st;
}

static bool has_finding(const struct nd_findings *l, const char *id, const char *category)
{
    const struct nd_finding *f = nd_findings_find(l, id);
    return f && strcmp(f->category, category) == 0;
}

/* ---- DCMI through the guarded query ---- */

static void test_query_normal(void **state)
{
    (void)state;
    write_state(k_idle8);
    struct nd_device_state *st = query(10);
    assert_int_equal(st->status, 0);
    assert_string_equal(st->vendor, "ascend");
    assert_true(st->lib_found);
    assert_string_equal(st->lib_path, g_dcmi);
    assert_true(st->driver_version_valid);
    assert_string_equal(st->driver_version, "24.1.rc1");
    assert_int_equal(st->ndevices, 8);
    for (int i = 0; i < 8; i++) {
        const struct nd_device *d = &st->devices[i];
        assert_int_equal(d->index, i);
        assert_int_equal(d->card_id, i);
        assert_int_equal(d->chip_id, 0);
        assert_string_equal(d->name, "910B3");
        assert_true(d->health_valid);
        assert_int_equal(d->health, 0);
        assert_true(d->util_valid);
        assert_int_equal(d->util_pct, i == 3 ? 85 : 0);
        assert_true(d->mem_valid);
        assert_int_equal(d->mem_total_bytes, 65536ULL << 20);
        assert_int_equal(d->mem_used_bytes, (i == 3 ? 60000ULL : 3000ULL) << 20);
        assert_true(d->temp_valid);
        assert_int_equal(d->temp_c, 41);
        assert_true(d->power_valid);
        assert_true(d->power_w > 92.4 && d->power_w < 92.6);
    }
    assert_true(st->procs_valid);
    assert_int_equal(st->nprocs, 2);
    assert_int_equal(st->procs[0].pid, 4242);
    assert_int_equal(st->procs[0].device_index, 0);
    assert_true(st->procs[0].mem_valid);
    assert_int_equal(st->procs[0].mem_bytes, 31747ULL << 20);
    assert_int_equal(st->procs[1].pid, 4343);
    assert_int_equal(st->procs[1].device_index, 5);
    assert_string_equal(st->warning, "");
    assert_false(st->timed_out);
    assert_false(st->crashed);

    struct nd_findings l = ND_FINDINGS_INIT;
    nd_device_state_findings(st, &l);
    assert_int_equal(l.n, 0); /* a healthy machine says nothing */
    nd_findings_release(&l);
}

/* Without HBM (310 series) the v3 memory info is used, also in MB. */
static void test_query_memory_v3(void **state)
{
    (void)state;
    write_state("[ascend]\ndevices = 1\nchip_name = 310P3\nhbm_total_mb = 0\nddr_total_mb = 21527\n"
                "ddr_used_mb = 1527\n");
    struct nd_device_state *st = query(10);
    assert_int_equal(st->status, 0);
    assert_string_equal(st->devices[0].name, "310P3");
    assert_true(st->devices[0].mem_valid);
    assert_int_equal(st->devices[0].mem_total_bytes, 21527ULL << 20);
    assert_int_equal(st->devices[0].mem_used_bytes, 1527ULL << 20);
    assert_int_equal(st->nprocs, 0);
    assert_true(st->procs_valid);
}

struct code_case {
    int code;
    const char *category;
    const char *id;
};

static void test_query_every_dcmi_code(void **state)
{
    (void)state;
    static const struct code_case cases[] = {
        {-8001, ND_CAT_NO_DEVICE, "device.ascend.driver-error"},
        {-8002, ND_CAT_NO_DEVICE, "device.ascend.permission-denied"},
        {-8005, ND_CAT_NO_DEVICE, "device.ascend.driver-inaccessible"},
        {-8006, ND_CAT_DEVICE_FAULT, "device.ascend.device-busy"},
        {-8007, ND_CAT_NO_DEVICE, "device.ascend.no-device"},
        {-8008, ND_CAT_NO_DEVICE, "device.ascend.no-device"},
        {-8012, ND_CAT_DEVICE_FAULT, "device.ascend.device-busy"},
        {-8013, ND_CAT_NO_DEVICE, "device.ascend.container-unsupported"},
        {-8020, ND_CAT_DEVICE_FAULT, "device.ascend.device-busy"},
        {-8255, ND_CAT_NO_DEVICE, "device.ascend.driver-error"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256], want[256];
        snprintf(text, sizeof text, "[ascend]\ndevices = 2\nfail = dcmi_init %d\n", cases[i].code);
        write_state(text);
        struct nd_device_state *st = query(10);
        assert_true(st->status < 0);
        assert_string_equal(st->failed_call, "dcmi_init");
        assert_int_equal(st->vendor_code, cases[i].code);
        const char *meaning = nd_dcmi_strerror(cases[i].code);
        assert_null(strstr(meaning, "unknown"));
        snprintf(want, sizeof want, "dcmi_init returned %d: %s", cases[i].code, meaning);
        assert_string_equal(st->error, want);
        assert_int_equal(st->ndevices, 0);
        struct nd_findings l = ND_FINDINGS_INIT;
        nd_device_state_findings(st, &l);
        assert_int_equal(l.n, 1);
        assert_true(has_finding(&l, cases[i].id, cases[i].category));
        assert_int_equal(l.v[0]->severity, ND_SEV_ERROR);
        assert_true(l.v[0]->nfix >= 1);
        assert_string_equal(l.v[0]->title, want);
        char ev[1200];
        snprintf(ev, sizeof ev, "dcmi_init returned %d (%s)", cases[i].code, g_dcmi);
        assert_string_equal(l.v[0]->evidence[0].text, ev);
        nd_findings_release(&l);
    }
    assert_non_null(strstr(nd_dcmi_strerror(-8005), "upgraded without a reboot"));
    assert_string_equal(nd_dcmi_strerror(-12345), "unknown DCMI error");
}

static void test_query_8005_text(void **state)
{
    (void)state;
    write_state("[ascend]\ndevices = 8\nfail = dcmi_init -8005\n");
    struct nd_device_state *st = query(10);
    assert_string_equal(st->error, "dcmi_init returned -8005: internal error: the driver was often upgraded "
                                   "without a reboot, or this user may not access the device");
    assert_int_equal(st->status, -EIO);
}

static void test_query_enumeration_failure(void **state)
{
    (void)state;
    write_state("[ascend]\ndevices = 4\nfail = dcmi_get_card_list -8006\n");
    struct nd_device_state *st = query(10);
    assert_true(st->status < 0);
    assert_string_equal(st->failed_call, "dcmi_get_card_list");
    assert_int_equal(st->vendor_code, -8006);
    write_state("[ascend]\ndevices = 4\n[ascend.device.2]\nfail = dcmi_get_device_logic_id -8007\n");
    st = query(10);
    assert_true(st->status < 0);
    assert_string_equal(st->failed_call, "dcmi_get_device_logic_id");
}

/* A per-device failure leaves the rest valid and says so in a warning. */
static void test_query_partial(void **state)
{
    (void)state;
    write_state("[ascend]\ndevices = 4\nhbm_total_mb = 32768\n[ascend.device.3]\n"
                "fail = dcmi_get_device_health -8007\nfail = dcmi_get_device_utilization_rate -8255\n");
    struct nd_device_state *st = query(10);
    assert_int_equal(st->status, 0);
    assert_int_equal(st->ndevices, 4);
    assert_true(st->devices[0].health_valid);
    assert_true(st->devices[0].util_valid);
    assert_false(st->devices[3].health_valid);
    assert_false(st->devices[3].util_valid);
    assert_true(st->devices[3].mem_valid);
    assert_non_null(strstr(st->warning, "dcmi_get_device_health(card 3, chip 0) returned -8007"));
    struct nd_findings l = ND_FINDINGS_INIT;
    nd_device_state_findings(st, &l);
    assert_true(has_finding(&l, "device.ascend.partial", ND_CAT_DEVICE_FAULT));
    assert_int_equal(nd_findings_max_severity(&l), ND_SEV_INFO);
    nd_findings_release(&l);
}

static void test_query_process_list_failure(void **state)
{
    (void)state;
    write_state("[ascend]\ndevices = 2\nproc = 1 0 10\nfail = dcmi_get_device_resource_info -8002\n");
    struct nd_device_state *st = query(10);
    assert_int_equal(st->status, 0);
    assert_int_equal(st->ndevices, 2);
    assert_false(st->procs_valid);
    assert_int_equal(st->nprocs, 0);
    assert_non_null(strstr(st->warning, "dcmi_get_device_resource_info returned -8002"));
    assert_string_equal(st->error, "");
}

static void test_query_health_findings(void **state)
{
    (void)state;
    write_state("[ascend]\ndevices = 4\n[ascend.device.1]\nhealth = 1\n[ascend.device.2]\nhealth = 3\n"
                "[ascend.device.3]\nhealth = 0xffffffff\n");
    struct nd_device_state *st = query(10);
    assert_int_equal(st->status, 0);
    assert_false(st->devices[3].health_valid); /* outside 0..3: unknown, not an alarm */
    struct nd_findings l = ND_FINDINGS_INIT;
    nd_device_state_findings(st, &l);
    assert_int_equal(l.n, 2);
    assert_string_equal(l.v[0]->id, "device.ascend.health");
    assert_int_equal(l.v[0]->severity, ND_SEV_WARNING);
    assert_non_null(strstr(l.v[0]->title, "NPU 1"));
    assert_int_equal(l.v[1]->severity, ND_SEV_ERROR);
    assert_non_null(strstr(l.v[1]->title, "Critical"));
    nd_findings_release(&l);
}

static void test_query_hang(void **state)
{
    (void)state;
    write_state("[ascend]\ndevices = 2\nhang = dcmi_get_device_utilization_rate\n");
    struct nd_device_state *st = query(HANG_GUARD);
    assert_int_equal(st->status, -ETIMEDOUT);
    assert_true(st->timed_out);
    assert_string_equal(st->failed_call, "dcmi_get_device_utilization_rate");
    assert_string_equal(st->error, "timed out after " HANG_GUARD_S " s in dcmi_get_device_utilization_rate");
    assert_true(st->lib_found);
    struct nd_findings l = ND_FINDINGS_INIT;
    nd_device_state_findings(st, &l);
    assert_true(has_finding(&l, "device.ascend.hung", ND_CAT_DEVICE_FAULT));
    assert_non_null(strstr(l.v[0]->title, "hung in dcmi_get_device_utilization_rate"));
    assert_non_null(strstr(l.v[0]->evidence[0].text, "timed out after " HANG_GUARD_S " s"));
    nd_findings_release(&l);
}

static void test_query_crash(void **state)
{
    (void)state;
    write_state("[ascend]\ndevices = 2\ncrash = dcmi_init\n");
    struct nd_device_state *st = query(10);
    assert_int_equal(st->status, -ECHILD);
    assert_true(st->crashed);
    assert_int_equal(st->crash_signal, SIGSEGV);
    assert_string_equal(st->failed_call, "dcmi_init");
    assert_string_equal(st->error, "crashed with SIGSEGV in dcmi_init");
    struct nd_findings l = ND_FINDINGS_INIT;
    nd_device_state_findings(st, &l);
    assert_true(has_finding(&l, "device.ascend.crashed", ND_CAT_DEVICE_FAULT));
    nd_findings_release(&l);
}

static void test_query_no_state_no_library(void **state)
{
    (void)state;
    /* No state file: a machine without devices. */
    unsetenv("ND_SIM_STATE");
    struct nd_device_state *st = query(10);
    assert_true(st->status < 0);
    assert_string_equal(st->failed_call, "dcmi_init");
    assert_int_equal(st->vendor_code, -8008);
    setenv("ND_SIM_STATE", g_state, 1);
    /* An override naming nothing: not found, and an info finding only. */
    setenv("NPU_DOCTOR_DCMI_LIB", "/nonexistent/libdcmi.so", 1);
    st = query(10);
    assert_int_equal(st->status, -ENOENT);
    assert_false(st->lib_found);
    assert_non_null(strstr(st->error, "/nonexistent/libdcmi.so"));
    struct nd_findings l = ND_FINDINGS_INIT;
    nd_device_state_findings(st, &l);
    assert_true(has_finding(&l, "device.ascend.library-missing", ND_CAT_NO_DEVICE));
    assert_int_equal(nd_findings_max_severity(&l), ND_SEV_INFO);
    nd_findings_release(&l);
    /* A file that is not a library. */
    setenv("NPU_DOCTOR_DCMI_LIB", g_state, 1);
    write_state("[ascend]\ndevices = 1\n");
    st = query(10);
    assert_true(st->status < 0);
    assert_true(st->lib_found);
    assert_string_equal(st->failed_call, "dlopen");
    nd_device_state_findings(st, &l);
    assert_true(has_finding(&l, "device.ascend.library-broken", ND_CAT_NO_DEVICE));
    nd_findings_release(&l);
    setenv("NPU_DOCTOR_DCMI_LIB", g_dcmi, 1);
}

/* The generic findings judge NVIDIA codes too (pure: a state made by hand). */
static void test_findings_nvml_codes(void **state)
{
    (void)state;
    static const struct code_case cases[] = {
        {18, ND_CAT_VERSION_MISMATCH, "device.nvidia.driver-library-mismatch"},
        {9, ND_CAT_NO_DEVICE, "device.nvidia.driver-not-loaded"},
        {4, ND_CAT_NO_DEVICE, "device.nvidia.permission-denied"},
        {15, ND_CAT_DEVICE_FAULT, "device.nvidia.gpu-lost"},
        {999, ND_CAT_NO_DEVICE, "device.nvidia.driver-error"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        static struct nd_device_state st;
        memset(&st, 0, sizeof st);
        snprintf(st.vendor, sizeof st.vendor, "nvidia");
        st.lib_found = true;
        snprintf(st.lib_path, sizeof st.lib_path, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1");
        nd_device_state_fail(&st, -EIO, "nvmlInit_v2", cases[i].code, "meaning");
        assert_string_equal(st.failed_call, "nvmlInit_v2");
        assert_true(st.status < 0);
        struct nd_findings l = ND_FINDINGS_INIT;
        nd_device_state_findings(&st, &l);
        assert_int_equal(l.n, 1);
        assert_true(has_finding(&l, cases[i].id, cases[i].category));
        assert_non_null(strstr(l.v[0]->title, "nvmlInit_v2 returned"));
        nd_findings_release(&l);
    }
}

/* ---- the session ---- */

static void test_session_samples_and_changes(void **state)
{
    (void)state;
    static struct nd_device_state st;
    struct nd_device_session *s = NULL;
    write_state(k_idle8);
    assert_int_equal(nd_device_session_open(&nd_vendor_ascend, 10, &s, &st), 0);
    assert_non_null(s);
    assert_int_equal(st.ndevices, 8);
    assert_int_equal(st.devices[3].util_pct, 85);
    assert_int_equal(st.nprocs, 2);
    assert_int_equal(nd_device_session_sample(s, &st), 0);
    assert_int_equal(st.devices[3].util_pct, 85);
    /* The job on device 3 stops; a new one starts on device 1. */
    write_state("[ascend]\ndevices = 8\nhbm_total_mb = 65536\n[ascend.device.1]\naicore_util = 40\n"
                "[ascend]\nproc = 777 1 2048\n");
    assert_int_equal(nd_device_session_sample(s, &st), 0);
    assert_int_equal(st.devices[3].util_pct, 0);
    assert_int_equal(st.devices[1].util_pct, 40);
    assert_int_equal(st.nprocs, 1);
    assert_int_equal(st.procs[0].pid, 777);
    assert_int_equal(st.procs[0].device_index, 1);
    /* A per-sample vendor error does not kill the session. */
    write_state("[ascend]\ndevices = 8\nfail = dcmi_get_device_resource_info -8020\n");
    assert_int_equal(nd_device_session_sample(s, &st), 0);
    assert_false(st.procs_valid);
    write_state(k_idle8);
    assert_int_equal(nd_device_session_sample(s, &st), 0);
    assert_true(st.procs_valid);
    assert_string_equal(st.warning, "");
    nd_device_session_close(s);
}

static void test_session_hang_then_dead(void **state)
{
    (void)state;
    static struct nd_device_state st;
    struct nd_device_session *s = NULL;
    write_state(k_idle8);
    assert_int_equal(nd_device_session_open(&nd_vendor_ascend, HANG_GUARD, &s, &st), 0);
    write_state("[ascend]\ndevices = 8\n[ascend.device.5]\nhang = dcmi_get_device_hbm_info\n");
    assert_int_equal(nd_device_session_sample(s, &st), -ETIMEDOUT);
    assert_true(st.timed_out);
    assert_string_equal(st.error, "timed out after " HANG_GUARD_S " s in dcmi_get_device_hbm_info");
    /* Dead: the same failed state again, even when the library would answer. */
    write_state(k_idle8);
    assert_int_equal(nd_device_session_sample(s, &st), -ETIMEDOUT);
    assert_string_equal(st.failed_call, "dcmi_get_device_hbm_info");
    nd_device_session_close(s);
}

static void test_session_crash(void **state)
{
    (void)state;
    static struct nd_device_state st;
    struct nd_device_session *s = NULL;
    write_state(k_idle8);
    assert_int_equal(nd_device_session_open(&nd_vendor_ascend, 10, &s, &st), 0);
    write_state("[ascend]\ndevices = 8\ncrash = dcmi_get_device_health\n");
    assert_int_equal(nd_device_session_sample(s, &st), -ECHILD);
    assert_true(st.crashed);
    assert_string_equal(st.error, "crashed with SIGSEGV in dcmi_get_device_health");
    assert_int_equal(nd_device_session_sample(s, &st), -ECHILD);
    nd_device_session_close(s);
}

static void test_session_open_failures(void **state)
{
    (void)state;
    static struct nd_device_state st;
    struct nd_device_session *s = (struct nd_device_session *)&st; /* must be reset */
    write_state("[ascend]\ndevices = 8\nfail = dcmi_init -8005\n");
    assert_true(nd_device_session_open(&nd_vendor_ascend, 10, &s, &st) < 0);
    assert_null(s);
    assert_int_equal(st.vendor_code, -8005);
    write_state("[ascend]\ndevices = 8\nhang = dcmi_init\n");
    assert_int_equal(nd_device_session_open(&nd_vendor_ascend, HANG_GUARD, &s, &st), -ETIMEDOUT);
    assert_null(s);
    assert_string_equal(st.error, "timed out after " HANG_GUARD_S " s in dcmi_init");
    assert_int_equal(nd_device_session_sample(NULL, &st), -EINVAL);
    nd_device_session_close(NULL);
}

static int count_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

/* run/watch sample for hours: no fd, mapping or child may be left behind by
 * a query, a session, or a session that died. */
static void test_no_leaks_of_fds_or_children(void **state)
{
    (void)state;
    static struct nd_device_state st;
    write_state(k_idle8);
    int before = count_fds();
    for (int i = 0; i < 5; i++)
        assert_int_equal(nd_device_query(&nd_vendor_ascend, 10, &st), 0);
    struct nd_device_session *s = NULL;
    assert_int_equal(nd_device_session_open(&nd_vendor_ascend, 10, &s, &st), 0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(nd_device_session_sample(s, &st), 0);
    nd_device_session_close(s);
    assert_int_equal(nd_device_session_open(&nd_vendor_ascend, 10, &s, &st), 0);
    write_state("[ascend]\ndevices = 8\ncrash = dcmi_get_device_health\n");
    assert_int_equal(nd_device_session_sample(s, &st), -ECHILD);
    nd_device_session_close(s);
    assert_int_equal(count_fds(), before);
    errno = 0;
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

/* ---- ACL smoke test ---- */

static void test_smoke_success(void **state)
{
    (void)state;
    static struct nd_smoke_result r;
    write_state(k_idle8);
    assert_int_equal(nd_smoke_ascend(2, 60, &r), 0);
    assert_string_equal(r.vendor, "ascend");
    assert_true(r.lib_found);
    assert_string_equal(r.lib_path, g_acl);
    assert_int_equal(r.ndevices, 8);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(r.devices[i].index, i);
        assert_true(r.devices[i].ok);
        assert_false(r.devices[i].bandwidth_valid);
    }
    assert_string_equal(r.failed_call, "");
    struct nd_findings l = ND_FINDINGS_INIT;
    nd_smoke_findings(&r, &l);
    assert_int_equal(l.n, 0);
    nd_findings_release(&l);
}

static void test_smoke_level3_bandwidth(void **state)
{
    (void)state;
    static struct nd_smoke_result r;
    write_state("[ascend]\ndevices = 2\n[acl]\nbandwidth_gbps = 50\n");
    assert_int_equal(nd_smoke_ascend(3, 120, &r), 0);
    assert_int_equal(r.ndevices, 2);
    for (int i = 0; i < 2; i++) {
        assert_true(r.devices[i].ok);
        assert_true(r.devices[i].bandwidth_valid);
        assert_true(r.devices[i].h2d_gbps > 0);
        assert_true(r.devices[i].d2h_gbps > 0);
        /* The simulator never copies faster than the rate it was given. */
        assert_true(r.devices[i].h2d_gbps <= 50.5);
        assert_true(r.devices[i].d2h_gbps <= 50.5);
    }
}

struct smoke_case {
    const char *state;
    const char *call;
    int code;
    const char *category;
    const char *fix_has;
};

static void test_smoke_failure_per_call(void **state)
{
    (void)state;
    static const struct smoke_case cases[] = {
        {"[acl]\nfail = aclInit 500001\n", "aclInit", 500001, ND_CAT_ENV_NOT_LOADED, "set_env.sh"},
        {"[acl]\nfail = aclrtGetDeviceCount 207004\n", "aclrtGetDeviceCount", 207004, ND_CAT_NO_DEVICE,
         "/dev/davinci_manager"},
        {"[acl]\nfail = aclrtSetDevice 107001\n", "aclrtSetDevice", 107001, ND_CAT_NO_DEVICE, "ASCEND_RT_VISIBLE_DEVICES"},
        {"[acl]\nfail = aclrtMalloc 207001\n", "aclrtMalloc", 207001, ND_CAT_DEVICE_OOM, "npu-smi info"},
        {"[acl]\nfail = aclrtMemcpy 507053\n", "aclrtMemcpy", 507053, ND_CAT_DEVICE_FAULT, "health"},
        {"[acl]\nfail = aclrtFree 507899\n", "aclrtFree", 507899, ND_CAT_DEVICE_FAULT, "health"},
        {"[acl]\nfail = aclrtResetDevice 507899\n", "aclrtResetDevice", 507899, ND_CAT_DEVICE_FAULT, "health"},
        {"[acl]\nfail = aclFinalize 100001\n", "aclFinalize", 100001, ND_CAT_DEVICE_FAULT, "set_env.sh"},
        {"[acl]\ncorrupt = 1\n", "compare", -1, ND_CAT_DEVICE_FAULT, "health"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        static struct nd_smoke_result r;
        char text[256];
        snprintf(text, sizeof text, "[ascend]\ndevices = 2\n%s", cases[i].state);
        write_state(text);
        assert_true(nd_smoke_ascend(2, 60, &r) < 0);
        assert_string_equal(r.failed_call, cases[i].call);
        assert_int_equal(r.code, cases[i].code);
        assert_string_equal(r.meaning, nd_acl_strerror(cases[i].code));
        assert_null(strstr(r.meaning, "unknown"));
        assert_non_null(strstr(r.fix, cases[i].fix_has));
        assert_non_null(strstr(r.error, cases[i].call));
        struct nd_findings l = ND_FINDINGS_INIT;
        nd_smoke_findings(&r, &l);
        assert_true(has_finding(&l, "device.ascend.smoke-failed", cases[i].category));
        nd_findings_release(&l);
    }
}

static void test_smoke_one_bad_device(void **state)
{
    (void)state;
    static struct nd_smoke_result r;
    write_state("[ascend]\ndevices = 4\n[acl.device.2]\nfail = aclrtMalloc 207001\n");
    assert_true(nd_smoke_ascend(2, 60, &r) < 0);
    assert_int_equal(r.ndevices, 4);
    assert_true(r.devices[0].ok);
    assert_true(r.devices[1].ok);
    assert_false(r.devices[2].ok);
    assert_true(r.devices[3].ok);
    assert_non_null(strstr(r.error, "aclrtMalloc returned 207001 on device 2: device memory allocation failed"));
    /* The runtime's own message comes along. */
    assert_non_null(strstr(r.error, "EZ9999"));
}

static void test_smoke_hang_and_crash(void **state)
{
    (void)state;
    static struct nd_smoke_result r;
    write_state("[ascend]\ndevices = 2\n[acl.device.1]\nhang = aclrtMemcpy\n");
    assert_int_equal(nd_smoke_ascend(2, SMOKE_HANG_GUARD, &r), -ETIMEDOUT);
    assert_string_equal(r.failed_call, "aclrtMemcpy");
    assert_string_equal(r.error, "timed out after " SMOKE_HANG_GUARD_S " s in aclrtMemcpy on device 1");
    assert_true(r.devices[0].ok);
    write_state("[ascend]\ndevices = 2\n[acl]\ncrash = aclInit\n");
    assert_int_equal(nd_smoke_ascend(2, 30, &r), -ECHILD);
    assert_string_equal(r.error, "crashed with SIGSEGV in aclInit");
    struct nd_findings l = ND_FINDINGS_INIT;
    nd_smoke_findings(&r, &l);
    assert_true(has_finding(&l, "device.ascend.smoke-failed", ND_CAT_ENV_NOT_LOADED));
    nd_findings_release(&l);
}

static void test_smoke_no_library(void **state)
{
    (void)state;
    static struct nd_smoke_result r;
    setenv("NPU_DOCTOR_ACL_LIB", "/nonexistent/libascendcl.so", 1);
    assert_int_equal(nd_smoke_ascend(2, 30, &r), -ENOENT);
    assert_false(r.lib_found);
    assert_non_null(strstr(r.fix, "set_env.sh"));
    setenv("NPU_DOCTOR_ACL_LIB", g_acl, 1);
}

static void test_smoke_flag_slow(void **state)
{
    (void)state;
    static struct nd_smoke_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.vendor, sizeof r.vendor, "ascend");
    r.ndevices = 4;
    double h2d[4] = {24.0, 23.5, 6.0, 24.2}, d2h[4] = {25.0, 25.1, 24.9, 25.3};
    for (int i = 0; i < 4; i++) {
        r.devices[i].index = i;
        r.devices[i].ok = true;
        r.devices[i].bandwidth_valid = true;
        r.devices[i].h2d_gbps = h2d[i];
        r.devices[i].d2h_gbps = d2h[i];
    }
    assert_int_equal(nd_smoke_flag_slow(&r), 1);
    assert_true(r.devices[2].bandwidth_low);
    assert_false(r.devices[0].bandwidth_low);
    struct nd_findings l = ND_FINDINGS_INIT;
    nd_smoke_findings(&r, &l);
    assert_int_equal(l.n, 1);
    assert_string_equal(l.v[0]->id, "device.ascend.bandwidth-low");
    assert_int_equal(l.v[0]->severity, ND_SEV_WARNING);
    nd_findings_release(&l);
    /* A single device has no siblings to compare with. */
    r.ndevices = 1;
    r.devices[0].h2d_gbps = 0.1;
    assert_int_equal(nd_smoke_flag_slow(&r), 0);
}

/* ---- the library search ---- */

static void test_find_library_order(void **state)
{
    (void)state;
    char out[1024], want[1024];
    char d1[400], d2[400], link1[500], link2[500];
    snprintf(d1, sizeof d1, "%s/ld1", g_dir);
    snprintf(d2, sizeof d2, "%s/std", g_dir);
    assert_int_equal(mkdir(d1, 0700), 0);
    assert_int_equal(mkdir(d2, 0700), 0);
    snprintf(link1, sizeof link1, "%s/libfake.so", d1);
    snprintf(link2, sizeof link2, "%s/libfake.so", d2);
    assert_int_equal(symlink(g_dcmi, link1), 0);
    assert_int_equal(symlink(g_dcmi, link2), 0);
    const char *dirs[] = {"/nonexistent-dir", d2, NULL};
    unsetenv("ND_TEST_LIB_OVERRIDE");
    /* The override wins, and names exactly one file. */
    setenv("ND_TEST_LIB_OVERRIDE", g_acl, 1);
    assert_int_equal(nd_device_find_library("libfake.so", "ND_TEST_LIB_OVERRIDE", dirs, out, sizeof out), 0);
    assert_string_equal(out, g_acl);
    setenv("ND_TEST_LIB_OVERRIDE", "/nonexistent/x.so", 1);
    assert_int_equal(nd_device_find_library("libfake.so", "ND_TEST_LIB_OVERRIDE", dirs, out, sizeof out), -ENOENT);
    unsetenv("ND_TEST_LIB_OVERRIDE");
    /* LD_LIBRARY_PATH before the standard folders. */
    const char *old = getenv("LD_LIBRARY_PATH");
    char *saved = old ? strdup(old) : NULL;
    char ld[900];
    snprintf(ld, sizeof ld, "/nonexistent:%s", d1);
    setenv("LD_LIBRARY_PATH", ld, 1);
    assert_int_equal(nd_device_find_library("libfake.so", "ND_TEST_LIB_OVERRIDE", dirs, out, sizeof out), 0);
    assert_string_equal(out, link1);
    unsetenv("LD_LIBRARY_PATH");
    assert_int_equal(nd_device_find_library("libfake.so", "ND_TEST_LIB_OVERRIDE", dirs, out, sizeof out), 0);
    assert_string_equal(out, link2);
    /* Nowhere. */
    assert_int_equal(nd_device_find_library("libnd-not-there.so.9", NULL, dirs, out, sizeof out), -ENOENT);
    assert_string_equal(out, "");
    /* Too small a buffer is an error, not a truncated path. */
    assert_int_equal(nd_device_find_library("libfake.so", NULL, dirs, out, 8), -ENAMETOOLONG);
    if (saved) {
        setenv("LD_LIBRARY_PATH", saved, 1);
        free(saved);
    }
    snprintf(want, sizeof want, "%s", link1);
    unlink(link1);
    unlink(link2);
    rmdir(d1);
    rmdir(d2);
}

/* Builds a minimal new-format cache with two entries. */
static size_t make_cache(unsigned char *buf, size_t size, int32_t flags)
{
    memset(buf, 0, size);
    memcpy(buf, "glibc-ld.so.cache1.1", 20);
    uint32_t nlibs = 2;
    memcpy(buf + 20, &nlibs, 4);
    size_t strings = 48 + 2 * 24;
    const char *s[] = {"libdcmi.so", "/opt/x/libdcmi.so", "libfoo.so.1", "/usr/lib/libfoo.so.1"};
    uint32_t off[4];
    size_t p = strings;
    for (int i = 0; i < 4; i++) {
        off[i] = (uint32_t)p;
        memcpy(buf + p, s[i], strlen(s[i]) + 1);
        p += strlen(s[i]) + 1;
    }
    uint32_t len_strings = (uint32_t)(p - strings);
    memcpy(buf + 24, &len_strings, 4);
    for (int e = 0; e < 2; e++) {
        unsigned char *ent = buf + 48 + e * 24;
        memcpy(ent, &flags, 4);
        memcpy(ent + 4, &off[e * 2], 4);
        memcpy(ent + 8, &off[e * 2 + 1], 4);
    }
    return p;
}

static void test_ldcache_parser(void **state)
{
    (void)state;
    unsigned char buf[512];
    char out[256];
#if defined(__x86_64__)
    int32_t native = 0x0303, foreign = 0x0a03;
#else
    int32_t native = 0x0a03, foreign = 0x0303;
#endif
    size_t n = make_cache(buf, sizeof buf, native);
    assert_int_equal(nd_ldcache_lookup(buf, n, "libfoo.so.1", out, sizeof out), 0);
    assert_string_equal(out, "/usr/lib/libfoo.so.1");
    assert_int_equal(nd_ldcache_lookup(buf, n, "libdcmi.so", out, sizeof out), 0);
    assert_string_equal(out, "/opt/x/libdcmi.so");
    assert_int_equal(nd_ldcache_lookup(buf, n, "libbar.so", out, sizeof out), -ENOENT);
    assert_int_equal(nd_ldcache_lookup(buf, n, "libdcmi.so", out, 5), -ENAMETOOLONG);
    /* Another architecture's entries are not ours to load. */
    n = make_cache(buf, sizeof buf, foreign);
    assert_int_equal(nd_ldcache_lookup(buf, n, "libdcmi.so", out, sizeof out), -ENOENT);
    /* Truncated or foreign bytes. */
    assert_int_equal(nd_ldcache_lookup(buf, 30, "libdcmi.so", out, sizeof out), -EINVAL);
    assert_int_equal(nd_ldcache_lookup("hello", 5, "libdcmi.so", out, sizeof out), -EINVAL);
    n = make_cache(buf, sizeof buf, native);
    assert_int_equal(nd_ldcache_lookup(buf, 48 + 24 + 5, "libfoo.so.1", out, sizeof out), -EINVAL);
    /* The machine's own cache knows its libc. */
    char *real = NULL;
    size_t rlen = 0;
    struct nd_error err;
    if (nd_read_file("/etc/ld.so.cache", 64u << 20, &real, &rlen, &err) == 0) {
        assert_int_equal(nd_ldcache_lookup(real, rlen, "libc.so.6", out, sizeof out), 0);
        struct stat st;
        assert_int_equal(stat(out, &st), 0);
        free(real);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_query_normal),
        cmocka_unit_test(test_query_memory_v3),
        cmocka_unit_test(test_query_every_dcmi_code),
        cmocka_unit_test(test_query_8005_text),
        cmocka_unit_test(test_query_enumeration_failure),
        cmocka_unit_test(test_query_partial),
        cmocka_unit_test(test_query_process_list_failure),
        cmocka_unit_test(test_query_health_findings),
        cmocka_unit_test(test_query_hang),
        cmocka_unit_test(test_query_crash),
        cmocka_unit_test(test_query_no_state_no_library),
        cmocka_unit_test(test_findings_nvml_codes),
        cmocka_unit_test(test_session_samples_and_changes),
        cmocka_unit_test(test_session_hang_then_dead),
        cmocka_unit_test(test_session_crash),
        cmocka_unit_test(test_session_open_failures),
        cmocka_unit_test(test_no_leaks_of_fds_or_children),
        cmocka_unit_test(test_smoke_success),
        cmocka_unit_test(test_smoke_level3_bandwidth),
        cmocka_unit_test(test_smoke_failure_per_call),
        cmocka_unit_test(test_smoke_one_bad_device),
        cmocka_unit_test(test_smoke_hang_and_crash),
        cmocka_unit_test(test_smoke_no_library),
        cmocka_unit_test(test_smoke_flag_slow),
        cmocka_unit_test(test_find_library_order),
        cmocka_unit_test(test_ldcache_parser),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
