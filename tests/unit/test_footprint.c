/* Unit tests for proc/footprint.c: the maps classifier on captured and
 * hand-made maps, device path classification (inside and outside --root),
 * and nd_footprint_of on real child processes: one holding a file that
 * stands in for /dev/davinci2, one with only a control node open, one that
 * maps libraries named like runtimes, a plain CPU-bound one, and vendor
 * process lists. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "core/fileio.h"
#include "core/rootfs.h"
#include "proc/footprint.h"
#include "proc/proc.h"

/* ---- helpers ---- */

static char tmpdir[256];

static int setup_tmp(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/nd-fp.XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    char p[512];
    snprintf(p, sizeof p, "%s/dev", tmpdir);
    mkdir(p, 0755);
    return 0;
}

static int teardown_tmp(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void make_file(const char *rel, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", tmpdir, rel);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
    assert_true(fd >= 0);
    /* A page of bytes so the file can be mapped. */
    char page[4096];
    memset(page, 0x7f, sizeof page);
    assert_int_equal(write(fd, page, sizeof page), (ssize_t)sizeof page);
    close(fd);
}

struct child {
    pid_t pid;
    int cmd_fd; /* write a path here: the child maps it and answers */
    int ack_fd;
};

static void child_map(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        _exit(3);
    void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED)
        _exit(4);
    close(fd);
}

/* Forks a child that opens `opens`, maps `maps` (NULL-terminated lists),
 * then either spins or waits for more paths to map on a pipe. Returns once
 * the child is set up. */
static struct child start_child(const char *const *opens, const char *const *maps, bool spin)
{
    int cmd[2], ack[2];
    assert_int_equal(pipe(cmd), 0);
    assert_int_equal(pipe(ack), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* A failed assertion in the parent must not leave a spinning child. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(cmd[1]);
        close(ack[0]);
        for (size_t i = 0; opens && opens[i]; i++)
            if (open(opens[i], O_RDONLY) < 0) /* kept open on purpose */
                _exit(2);
        for (size_t i = 0; maps && maps[i]; i++)
            child_map(maps[i]);
        if (write(ack[1], "k", 1) != 1)
            _exit(5);
        if (spin)
            for (volatile unsigned long n = 0;; n++)
                ;
        char path[512];
        ssize_t n;
        while ((n = read(cmd[0], path, sizeof path - 1)) > 0) {
            path[n] = '\0';
            /* "m/path": map it; "o/path": open it and keep it open */
            if (path[0] == 'o') {
                if (open(path + 1, O_RDONLY) < 0)
                    _exit(2);
            } else {
                child_map(path + 1);
            }
            if (write(ack[1], "k", 1) != 1)
                _exit(5);
        }
        _exit(0);
    }
    close(cmd[0]);
    close(ack[1]);
    char c;
    assert_int_equal(read(ack[0], &c, 1), 1);
    return (struct child){pid, cmd[1], ack[0]};
}

static void child_do(struct child *c, char op, const char *path)
{
    char msg[512];
    int n = snprintf(msg, sizeof msg, "%c%s", op, path);
    assert_int_equal(write(c->cmd_fd, msg, (size_t)n), n);
    char k;
    assert_int_equal(read(c->ack_fd, &k, 1), 1);
}

static void stop_child(struct child *c)
{
    close(c->cmd_fd);
    close(c->ack_fd);
    kill(c->pid, SIGKILL);
    waitpid(c->pid, NULL, 0);
}

static const struct nd_held_device *held(const struct nd_footprint *fp, const char *vendor, int index)
{
    for (size_t i = 0; i < fp->nheld; i++)
        if (fp->held[i].index == index && strcmp(fp->held[i].vendor, vendor) == 0)
            return &fp->held[i];
    return NULL;
}

/* ---- maps ---- */

static void test_maps_captured_torch(void **state)
{
    (void)state;
    const char *dir = getenv("ND_FIXTURES");
    assert_non_null(dir);
    char path[4096];
    snprintf(path, sizeof path, "%s/proc/maps_python_torch.txt", dir);
    char *buf;
    size_t len;
    struct nd_error err = {0};
    assert_int_equal(nd_read_file(path, 1 << 24, &buf, &len, &err), 0);
    unsigned fw = 0;
    assert_int_equal(nd_maps_parse_frameworks(buf, len, &fw), 0);
    /* Debian's CPU-only torch under /usr/bin/python3.11: no device runtime. */
    assert_int_equal(fw, ND_FW_TORCH | ND_FW_TORCH_CPU | ND_FW_PYTHON);
    free(buf);

    snprintf(path, sizeof path, "%s/proc/maps_torch_npu.txt", dir);
    assert_int_equal(nd_read_file(path, 1 << 24, &buf, &len, &err), 0);
    assert_int_equal(nd_maps_parse_frameworks(buf, len, &fw), 0);
    assert_int_equal(fw, ND_FW_TORCH | ND_FW_TORCH_CPU | ND_FW_TORCH_NPU | ND_FW_ASCENDCL | ND_FW_HCCL | ND_FW_PYTHON);
    free(buf);
}

static void test_maps_names(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        unsigned want;
    } cases[] = {
        {"7f0000-7f1000 r-xp 00000000 08:01 12 /usr/lib/libcuda.so.535.104.05", ND_FW_CUDA},
        {"7f0000-7f1000 r-xp 00000000 08:01 12 /opt/x/libcudart.so.12", ND_FW_CUDART},
        {"7f0000-7f1000 r-xp 00000000 08:01 12 /opt/x/libcudnn.so.8", 0},
        {"7f0000-7f1000 r-xp 00000000 08:01 12 /usr/lib/libicudata.so.72.1", 0},
        {"7f0000-7f1000 r-xp 00000000 08:01 12 /x/libnccl.so.2", ND_FW_NCCL},
        {"7f0000-7f1000 r-xp 00000000 08:01 12 /x/torch/lib/libtorch_cuda.so", ND_FW_TORCH | ND_FW_TORCH_CUDA},
        {"7f0000-7f1000 r-xp 00000000 08:01 12 /x/libtorchaudio.so", 0},
        {"7f0000-7f1000 r-xp 00000000 08:01 12 /x/libtorch.so", ND_FW_TORCH},
        {"7f0000-7f1000 r-xp 00000000 08:01 12 /x/libhccl.so (deleted)", ND_FW_HCCL},
        {"7f0000-7f1000 r-xp 00000000 08:01 12 /dir with space/libascendcl.so", ND_FW_ASCENDCL},
        {"7f0000-7f1000 r-xp 00000000 08:01 12 /usr/lib/libpython3.10.so.1.0", ND_FW_PYTHON},
        {"7f0000-7f1000 r-xp 00000000 08:01 12 /opt/rocm-6.2.0/lib/libamdhip64.so.6.2.60200", ND_FW_HIP},
        {"7f0000-7f1000 r-xp 00000000 08:01 12 /x/torch/lib/libtorch_hip.so", ND_FW_TORCH | ND_FW_TORCH_HIP},
        {"7f0000-7f1000 r-xp 00000000 08:01 12 /opt/rocm/lib/librccl.so.1", ND_FW_RCCL},
        {"7f0000-7f1000 r-xp 00000000 08:01 12 /opt/rocm/lib/libhiprtc.so.6", 0},
        {"7f0000-7f1000 r-xp 00000000 08:01 12 /usr/lib/libtorch_cpu/notalib.so", 0},
        {"7f0000-7f1000 rw-p 00000000 00:00 0 [heap]", 0},
        {"7f0000-7f1000 rw-p 00000000 00:00 0 ", 0},
        {"garbage libcuda.so without a slash", 0},
        {"/", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned fw = 99;
        assert_int_equal(nd_maps_parse_frameworks(cases[i].line, strlen(cases[i].line), &fw), 0);
        if (fw != cases[i].want)
            fail_msg("%s: got %#x, want %#x", cases[i].line, fw, cases[i].want);
    }
    unsigned fw;
    assert_int_equal(nd_maps_parse_frameworks(NULL, 0, &fw), 0);
    assert_int_equal(fw, 0);
}

static void test_frameworks_describe(void **state)
{
    (void)state;
    char buf[128];
    nd_frameworks_describe(0, buf, sizeof buf);
    assert_string_equal(buf, "");
    nd_frameworks_describe(ND_FW_TORCH | ND_FW_TORCH_NPU | ND_FW_ASCENDCL, buf, sizeof buf);
    assert_string_equal(buf, "torch, torch_npu, ascendcl");
    char small[12];
    nd_frameworks_describe(ND_FW_TORCH | ND_FW_TORCH_NPU, small, sizeof small);
    assert_string_equal(small, "torch"); /* no half names */
    assert_string_equal(nd_framework_name(ND_FW_CUDA), "cuda");
    assert_string_equal(nd_framework_name(ND_FW_HIP), "hip");
    assert_null(nd_framework_name(1u << 30));
}

/* ---- device paths ---- */

static void test_device_path_classify(void **state)
{
    (void)state;
    char v[16];
    int idx;
    assert_true(nd_device_path_classify("/dev/davinci3", v, sizeof v, &idx));
    assert_string_equal(v, "ascend");
    assert_int_equal(idx, 3);
    assert_true(nd_device_path_classify("/dev/davinci_manager", v, sizeof v, &idx));
    assert_int_equal(idx, -1);
    assert_true(nd_device_path_classify("/dev/devmm_svm", v, sizeof v, &idx) && idx == -1);
    assert_true(nd_device_path_classify("/dev/hisi_hdc", v, sizeof v, &idx) && idx == -1);
    assert_true(nd_device_path_classify("/dev/nvidia7", v, sizeof v, &idx));
    assert_string_equal(v, "nvidia");
    assert_int_equal(idx, 7);
    assert_true(nd_device_path_classify("/dev/nvidiactl", v, sizeof v, &idx) && idx == -1);
    assert_true(nd_device_path_classify("/dev/nvidia-uvm", v, sizeof v, &idx) && idx == -1);
    assert_false(nd_device_path_classify("/dev/davinci", v, sizeof v, &idx));
    assert_false(nd_device_path_classify("/dev/davinci1x", v, sizeof v, &idx));
    assert_false(nd_device_path_classify("/dev/nvidia99999999999", v, sizeof v, &idx));
    assert_false(nd_device_path_classify("/dev/null", v, sizeof v, &idx));
    assert_false(nd_device_path_classify("socket:[123]", v, sizeof v, &idx));
    assert_false(nd_device_path_classify(NULL, v, sizeof v, &idx));

    /* Inside --root, a plain file stands for the node; outside it does not. */
    struct nd_error err = {0};
    assert_int_equal(nd_rootfs_set(tmpdir, &err), 0);
    char p[600];
    snprintf(p, sizeof p, "%s/dev/davinci5", tmpdir);
    assert_true(nd_device_path_classify(p, v, sizeof v, &idx));
    assert_string_equal(v, "ascend");
    assert_int_equal(idx, 5);
    assert_false(nd_device_path_classify("/tmp/elsewhere/dev/davinci5", v, sizeof v, &idx));
    assert_true(nd_device_path_classify("/dev/nvidia0", v, sizeof v, &idx)); /* real nodes still count */
    /* A render node is a ROCm GPU (renderD128 is GPU 0) only beside /dev/kfd. */
    char kfd[512], render[512], dri[512];
    snprintf(dri, sizeof dri, "%s/dev/dri", tmpdir);
    assert_true(mkdir(dri, 0755) == 0 || errno == EEXIST);
    make_file("dev/dri/renderD129", render, sizeof render);
    assert_false(nd_device_path_classify(render, v, sizeof v, &idx));
    make_file("dev/kfd", kfd, sizeof kfd);
    assert_true(nd_device_path_classify(render, v, sizeof v, &idx));
    assert_string_equal(v, "rocm");
    assert_int_equal(idx, 1);
    assert_true(nd_device_path_classify(kfd, v, sizeof v, &idx) && idx == -1);
    assert_int_equal(nd_rootfs_set("/", &err), 0);
    assert_false(nd_device_path_classify(p, v, sizeof v, &idx));
}

/* ---- footprint of real processes ---- */

static void test_footprint_device_file_under_root(void **state)
{
    (void)state;
    char dev[512], mgr[512];
    make_file("dev/davinci2", dev, sizeof dev);
    make_file("dev/davinci_manager", mgr, sizeof mgr);
    struct nd_error err = {0};
    assert_int_equal(nd_rootfs_set(tmpdir, &err), 0);

    const char *opens[] = {dev, mgr, NULL};
    struct child c = start_child(opens, NULL, false);
    struct nd_footprint fp;
    assert_int_equal(nd_footprint_of(c.pid, NULL, 0, NULL, &fp), 0);
    assert_int_equal(fp.pid, c.pid);
    assert_true(fp.fds_read);
    assert_true(fp.maps_read);
    assert_true(fp.holds_device);
    assert_false(fp.control_only);
    const struct nd_held_device *h = held(&fp, "ascend", 2);
    assert_non_null(h);
    assert_int_equal(h->how, ND_HOLD_DEVICE_FILE);
    assert_false(h->mem_valid);
    assert_non_null(held(&fp, "ascend", -1));
    assert_int_equal(fp.nheld, 2);
    stop_child(&c);

    /* Only the control node: not a device. */
    const char *ctl[] = {mgr, NULL};
    c = start_child(ctl, NULL, false);
    assert_int_equal(nd_footprint_of(c.pid, NULL, 0, NULL, &fp), 0);
    assert_false(fp.holds_device);
    assert_true(fp.control_only);
    assert_int_equal(fp.nheld, 1);
    stop_child(&c);

    /* Same file, default root: a file in /tmp is no device. */
    assert_int_equal(nd_rootfs_set("/", &err), 0);
    c = start_child(opens, NULL, false);
    assert_int_equal(nd_footprint_of(c.pid, NULL, 0, NULL, &fp), 0);
    assert_false(fp.holds_device);
    assert_int_equal(fp.nheld, 0);
    stop_child(&c);
}

static void test_footprint_mapped_runtimes(void **state)
{
    (void)state;
    char acl[512], tnpu[512];
    make_file("libascendcl.so", acl, sizeof acl);
    make_file("libtorch_npu.so", tnpu, sizeof tnpu);
    const char *maps[] = {acl, tnpu, NULL};
    struct child c = start_child(NULL, maps, false);
    struct nd_footprint fp;
    assert_int_equal(nd_footprint_of(c.pid, NULL, 0, NULL, &fp), 0);
    assert_true(fp.maps_read);
    assert_int_equal(fp.frameworks, ND_FW_ASCENDCL | ND_FW_TORCH | ND_FW_TORCH_NPU);
    /* A loaded runtime is evidence, not a held device. */
    assert_false(fp.holds_device);
    assert_int_equal(fp.nheld, 0);
    stop_child(&c);
}

static void test_footprint_plain_cpu_child(void **state)
{
    (void)state;
    struct child c = start_child(NULL, NULL, true);
    struct nd_footprint fp;
    assert_int_equal(nd_footprint_of(c.pid, NULL, 0, NULL, &fp), 0);
    assert_true(fp.maps_read && fp.fds_read);
    assert_int_equal(fp.frameworks, 0);
    assert_int_equal(fp.nheld, 0);
    assert_false(fp.holds_device);
    assert_false(fp.control_only);
    stop_child(&c);

    /* Gone: -ESRCH, with or without a cache. */
    struct nd_footprint_cache *cache = nd_footprint_cache_new(10);
    assert_int_equal(nd_footprint_of(c.pid, NULL, 0, NULL, &fp), -ESRCH);
    assert_int_equal(nd_footprint_of(c.pid, NULL, 0, cache, &fp), -ESRCH);
    assert_int_equal(nd_footprint_of(0, NULL, 0, cache, &fp), -EINVAL);
    nd_footprint_cache_free(cache);
}

/* The cache keeps /proc/PID/fd folders open: it must keep them, across
 * samples, and never close a descriptor it did not open (a fresh slot once
 * closed fd 0, the caller's stdin). */
static void test_footprint_cache_keeps_dirs_and_callers_fds(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    int saved = dup(0);
    assert_true(saved >= 0);
    assert_int_equal(dup2(p[0], 0), 0);
    struct child c = start_child(NULL, NULL, true);
    struct nd_footprint_cache *cache = nd_footprint_cache_new(3600);
    struct nd_footprint fp;
    assert_int_equal(nd_footprint_of(c.pid, NULL, 0, cache, &fp), 0);
    assert_int_equal(nd_footprint_of(getpid(), NULL, 0, cache, &fp), 0);
    assert_true(fcntl(0, F_GETFD) != -1);
    /* A kept folder shows up as an open descriptor of ours on /proc/<child>/fd. */
    char want[64], link[256], path[64];
    snprintf(want, sizeof want, "/proc/%d/fd", (int)c.pid);
    int kept = 0;
    for (int fd = 3; fd < 1024; fd++) {
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n > 0) {
            link[n] = '\0';
            kept += strcmp(link, want) == 0;
        }
    }
    assert_int_equal(kept, 1);
    nd_footprint_cache_free(cache);
    stop_child(&c);
    assert_int_equal(dup2(saved, 0), 0);
    close(saved);
    close(p[0]);
    close(p[1]);
}

static void test_footprint_vendor_list(void **state)
{
    (void)state;
    struct child c = start_child(NULL, NULL, false);
    struct nd_proc_status ps;
    assert_int_equal(nd_proc_read_status(c.pid, &ps), 0);
    pid_t host = nd_proc_status_host_pid(&ps, c.pid);

    static struct nd_device_state asc, nv;
    memset(&asc, 0, sizeof asc);
    memset(&nv, 0, sizeof nv);
    snprintf(asc.vendor, sizeof asc.vendor, "ascend");
    snprintf(nv.vendor, sizeof nv.vendor, "nvidia");
    asc.procs_valid = true;
    asc.nprocs = 3;
    asc.procs[0] = (struct nd_device_proc){host, 5, true, 2ull << 30};
    asc.procs[1] = (struct nd_device_proc){host + 100000, 6, true, 1ull << 30}; /* someone else */
    asc.procs[2] = (struct nd_device_proc){host, 5, true, 1ull << 30};          /* listed twice */
    nv.procs_valid = false; /* a failed query's list is never trusted */
    nv.nprocs = 1;
    nv.procs[0] = (struct nd_device_proc){host, 0, true, 1};
    const struct nd_device_state *states[] = {&asc, &nv};

    struct nd_footprint_cache *cache = nd_footprint_cache_new(60);
    struct nd_footprint fp;
    for (int round = 0; round < 2; round++) { /* second round: host pid from the cache */
        assert_int_equal(nd_footprint_of(c.pid, states, 2, cache, &fp), 0);
        assert_int_equal(fp.nheld, 1);
        const struct nd_held_device *h = held(&fp, "ascend", 5);
        assert_non_null(h);
        assert_int_equal(h->how, ND_HOLD_VENDOR_LIST);
        assert_true(h->mem_valid);
        assert_int_equal(h->mem_bytes, 2ull << 30);
        assert_true(fp.holds_device);
    }
    nd_footprint_cache_free(cache);
    stop_child(&c);
}

static void test_footprint_cache_refresh(void **state)
{
    (void)state;
    char hccl[512];
    make_file("libhccl.so.1", hccl, sizeof hccl);
    struct child c = start_child(NULL, NULL, false);

    /* A long refresh: the maps verdict is kept even after the process maps
     * a new runtime; the fd scan is always fresh. */
    struct nd_footprint_cache *slow = nd_footprint_cache_new(3600);
    struct nd_footprint_cache *always = nd_footprint_cache_new(0);
    struct nd_footprint fp;
    assert_int_equal(nd_footprint_of(c.pid, NULL, 0, slow, &fp), 0);
    assert_int_equal(fp.frameworks, 0);
    assert_int_equal(nd_footprint_of(c.pid, NULL, 0, always, &fp), 0);
    assert_int_equal(fp.frameworks, 0);

    child_do(&c, 'm', hccl);
    assert_int_equal(nd_footprint_of(c.pid, NULL, 0, slow, &fp), 0);
    assert_int_equal(fp.frameworks, 0);
    assert_int_equal(nd_footprint_of(c.pid, NULL, 0, always, &fp), 0);
    assert_int_equal(fp.frameworks, ND_FW_HCCL);
    assert_int_equal(nd_footprint_of(c.pid, NULL, 0, NULL, &fp), 0);
    assert_int_equal(fp.frameworks, ND_FW_HCCL);

    /* 300 more processes through the slow cache force it to grow; the old
     * entry survives the rehash (still the cached verdict, not a re-read). */
    enum { N = 300 };
    pid_t kids[N];
    for (int i = 0; i < N; i++) {
        kids[i] = fork();
        assert_true(kids[i] >= 0);
        if (kids[i] == 0) {
            pause();
            _exit(0);
        }
    }
    for (int i = 0; i < N; i++) {
        struct nd_footprint f2;
        assert_int_equal(nd_footprint_of(kids[i], NULL, 0, slow, &f2), 0);
        assert_int_equal(f2.pid, kids[i]);
    }
    assert_int_equal(nd_footprint_of(c.pid, NULL, 0, slow, &fp), 0);
    assert_int_equal(fp.frameworks, 0);
    for (int i = 0; i < N; i++) {
        kill(kids[i], SIGKILL);
        waitpid(kids[i], NULL, 0);
    }
    /* Gone: the cached entry no longer answers for the pid. */
    for (int i = 0; i < N; i++) {
        struct nd_footprint f2;
        assert_int_equal(nd_footprint_of(kids[i], NULL, 0, slow, &f2), -ESRCH);
    }
    stop_child(&c);
    assert_int_equal(nd_footprint_of(c.pid, NULL, 0, slow, &fp), -ESRCH);
    nd_footprint_cache_free(slow);
    nd_footprint_cache_free(always);
}

static void test_footprint_cache_sees_new_fds(void **state)
{
    (void)state;
    char dev[512];
    make_file("dev/davinci6", dev, sizeof dev);
    struct nd_error err = {0};
    assert_int_equal(nd_rootfs_set(tmpdir, &err), 0);
    struct child c = start_child(NULL, NULL, false);
    struct nd_footprint_cache *slow = nd_footprint_cache_new(3600);
    struct nd_footprint fp;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(nd_footprint_of(c.pid, NULL, 0, slow, &fp), 0);
        assert_true(fp.fds_read);
        assert_false(fp.holds_device);
    }
    /* A descriptor opened after the first scan: seen without waiting for a refresh. */
    child_do(&c, 'o', dev);
    assert_int_equal(nd_footprint_of(c.pid, NULL, 0, slow, &fp), 0);
    assert_true(fp.holds_device);
    assert_non_null(held(&fp, "ascend", 6));
    /* Still seen on the next (incremental) scan. */
    assert_int_equal(nd_footprint_of(c.pid, NULL, 0, slow, &fp), 0);
    assert_true(fp.holds_device);
    stop_child(&c);
    assert_int_equal(nd_rootfs_set("/", &err), 0);
    nd_footprint_cache_free(slow);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_maps_captured_torch),
        cmocka_unit_test(test_maps_names),
        cmocka_unit_test(test_frameworks_describe),
        cmocka_unit_test(test_device_path_classify),
        cmocka_unit_test(test_footprint_device_file_under_root),
        cmocka_unit_test(test_footprint_mapped_runtimes),
        cmocka_unit_test(test_footprint_plain_cpu_child),
        cmocka_unit_test(test_footprint_vendor_list),
        cmocka_unit_test(test_footprint_cache_refresh),
        cmocka_unit_test(test_footprint_cache_sees_new_fds),
        cmocka_unit_test(test_footprint_cache_keeps_dirs_and_callers_fds),
    };
    return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
