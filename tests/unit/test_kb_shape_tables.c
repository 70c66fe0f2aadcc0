/* Unit tests for the tool-table reader of the log-shape analysis
 * (kb_shape_tables.c): the device rows of each tool with their utilisation,
 * memory share and device index, the smi process rows, top / ps rows, the
 * end of a table; and the findings the built-in vocabulary gives on such
 * tables (idle, unused, intermittent devices, a CPU-bound Python). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kb/kb_internal.h"
#include "kb/kb_shape.h"

/* Reads lines (the last one is the row looked at) and returns its kind. */
static enum nd_shape_row_kind read_last(const char *const *lines, size_t n, struct nd_shape_row *r)
{
    struct nd_shape_table t;
    nd_shape_table_init(&t);
    enum nd_shape_row_kind k = ND_ROW_NONE;
    for (size_t i = 0; i < n; i++)
        k = nd_shape_table_line(&t, lines[i], r);
    return k;
}

#define READ(r, ...)                                                                                                   \
    read_last((const char *const[]){__VA_ARGS__}, sizeof((const char *const[]){__VA_ARGS__}) / sizeof(char *), (r))

static void test_smi_rows(void **state)
{
    (void)state;
    struct nd_shape_row r;
    assert_int_equal(READ(&r, "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |",
                          "| N/A   40C    P0    60W / 300W |  30000MiB / 40960MiB |     87%      Default |"),
                     ND_ROW_DEVICE);
    assert_int_equal(r.util, 87);
    assert_true(r.mem_ratio > 0.73 && r.mem_ratio < 0.74);
    assert_int_equal(r.key, 0);
    /* Newer nvidia-smi pads the total. */
    assert_int_equal(
        READ(&r, "| N/A   27C    P0             70W /  700W |       1MiB /  81559MiB |      0%      Default |"),
        ND_ROW_DEVICE);
    assert_true(r.mem_ratio >= 0 && r.mem_ratio < 0.001);
    /* npu-smi: the chip row, HBM is the last "used / total". */
    assert_int_equal(
        READ(&r, "| 0                         | 0000:C1:00.0  | 35          0    / 0          32768/ 65536 |"),
        ND_ROW_DEVICE);
    assert_int_equal(r.util, 35);
    assert_int_equal(
        READ(&r, "| 0                         | 0000:C1:00.0  | 0           0    / 0          3162 / 65536  |"),
        ND_ROW_DEVICE);
    assert_int_equal(r.util, 0);
    assert_true(r.mem_ratio > 0.04 && r.mem_ratio < 0.05);
    /* Process tables. */
    assert_int_equal(READ(&r, "| Processes:                                                                  |",
                          "|    0   N/A  N/A      1234      C   python                          30000MiB |"),
                     ND_ROW_PROC);
    assert_int_equal(
        READ(&r, "| NPU     Chip              | Process id    | Process name             | Process memory(MB) |",
             "| 0       0                 | 6513          | python                   | 617                |"),
        ND_ROW_PROC);
    assert_int_equal(READ(&r, "| Processes:                                                                  |",
                          "|  No running processes found                                                 |"),
                     ND_ROW_TABLE);
    /* A new nvidia-smi table reads devices again after a process table. */
    assert_int_equal(READ(&r, "| Processes:  |", "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05 |",
                          "| N/A   40C    P0    60W / 300W |      4MiB / 40960MiB |      0%      Default |"),
                     ND_ROW_DEVICE);
    assert_int_equal(r.util, 0);
    assert_true(r.mem_ratio < 0.001);
}

static void test_column_tools(void **state)
{
    (void)state;
    struct nd_shape_row r;
    /* nvidia-smi dmon: the sm column, the gpu index first. */
    assert_int_equal(READ(&r, "# gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk",
                          "# Idx     W     C     C     %     %     %     %   MHz   MHz",
                          "1    70    45     -    98    40     0     0  1215  1410"),
                     ND_ROW_DEVICE);
    assert_int_equal(r.util, 98);
    assert_int_equal(r.key, 1);
    assert_true(r.mem_ratio < 0);
    /* --query-gpu CSV, in the order the header gives. */
    assert_int_equal(
        READ(&r, "index, memory.used [MiB], memory.total [MiB], utilization.gpu [%]", "3, 10240 MiB, 40960 MiB, 12 %"),
        ND_ROW_DEVICE);
    assert_int_equal(r.util, 12);
    assert_int_equal(r.key, 3);
    assert_true(r.mem_ratio > 0.24 && r.mem_ratio < 0.26);
    /* npu-smi info watch: "AI Core(%)" is one column. */
    assert_int_equal(READ(&r,
                          "NpuID(Idx)  ChipId(Idx) Pwr(W)      Temp(C)     AI Core(%)  AI Cpu(%)   Ctrl Cpu(%) "
                          "Memory(%)   Memory BW(%)",
                          "2           0           93.5        45          61          0           4           "
                          "10          0"),
                     ND_ROW_DEVICE);
    assert_int_equal(r.util, 61);
    assert_int_equal(r.key, 2);
    assert_true(r.mem_ratio > 0.09 && r.mem_ratio < 0.11);
    /* rocm-smi: VRAM% and GPU% end the row. */
    assert_int_equal(READ(&r,
                          "Device  Node  IDs              Temp    Power  Partitions          SCLK    MCLK    Fan  "
                          "Perf  PwrCap  VRAM%  GPU%",
                          "(DID,     GUID)  (Edge)  (Avg)  (Mem, Compute, ID)",
                          "0       2     0x74a1,   28851  40.0°C  140.0W  NPS1, SPX, 0        131Mhz  900Mhz  0%   "
                          "auto  750.0W  45%    100%"),
                     ND_ROW_DEVICE);
    assert_int_equal(r.util, 100);
    assert_true(r.mem_ratio > 0.44 && r.mem_ratio < 0.46);
    /* gpustat. */
    assert_int_equal(READ(&r, "[1] NVIDIA A100-SXM4-40GB | 35°C,   7 % | 12000 / 40960 MB | user(11990M)"),
                     ND_ROW_DEVICE);
    assert_int_equal(r.util, 7);
    assert_int_equal(r.key, 1);
    /* A line that is no row ends the table: the next digits are not a device. */
    assert_int_equal(
        READ(&r, "# gpu   pwr gtemp mtemp    sm   mem", "training resumed", "0    70    45     -    98    40"),
        ND_ROW_NONE);
}

static void test_host_rows(void **state)
{
    (void)state;
    struct nd_shape_row r;
    const char *top = "    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND";
    assert_int_equal(
        READ(&r, top, "  12345 alice     20   0   30.1g   5.2g 200.0m R  3150  4.1  120:01.00 python train.py"),
        ND_ROW_HOST);
    assert_true(r.cpu > 3149 && r.cpu < 3151);
    assert_true(r.python);
    assert_int_equal(READ(&r, top, "  12400 alice     20   0    1.1g   0.2g  20.0m S   1.0  0.1   0:01.00 bash"),
                     ND_ROW_HOST);
    assert_false(r.python);
    /* ps aux: the program with its path. */
    assert_int_equal(READ(&r, "USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND",
                          "alice      12345  790  4.1 3010000 520000 ?     Rl   10:00 120:01 /opt/conda/bin/python3 "
                          "train.py --epochs 10"),
                     ND_ROW_HOST);
    assert_true(r.python);
    assert_true(r.cpu > 789 && r.cpu < 791);
    /* A summary line of top is no row. */
    assert_int_equal(READ(&r, top, "Tasks: 400 total,   2 running, 398 sleeping,   0 stopped,   0 zombie"), ND_ROW_NONE);
}

static void test_hostile_lines(void **state)
{
    (void)state;
    struct nd_shape_row r;
    /* Truncated rows and headers never read past the line. */
    assert_int_equal(READ(&r, "|"), ND_ROW_TABLE);
    assert_int_equal(READ(&r, "| 0 | 0000:C1:00.0"), ND_ROW_TABLE);
    assert_int_equal(READ(&r, "| 1MiB / "), ND_ROW_TABLE);
    assert_int_equal(READ(&r, "[0] x | 35C, 7"), ND_ROW_NONE);
    assert_int_equal(READ(&r, "[0"), ND_ROW_NONE);
    assert_int_equal(READ(&r, "# gpu sm", "0"), ND_ROW_NONE);
    assert_int_equal(READ(&r, "utilization.gpu [%]", ","), ND_ROW_NONE);
    assert_int_equal(READ(&r, "PID %CPU COMMAND", "1"), ND_ROW_NONE);
    assert_int_equal(READ(&r, "VRAM%  GPU%  GPU%", "0 1% 1%"), ND_ROW_NONE);
    assert_int_equal(READ(&r, ""), ND_ROW_NONE);
    /* More columns than the reader keeps. */
    char wide[400] = "# gpu";
    for (int i = 0; i < 40; i++)
        strcat(wide, " c");
    strcat(wide, " sm");
    assert_int_equal(READ(&r, wide, "0 1 2"), ND_ROW_NONE);
}

/* The built-in knowledge base, loaded once: compiling it takes a while. */
static struct nd_kb *kb;

static int load_kb(void **state)
{
    (void)state;
    setenv("NPU_DOCTOR_CACHE_DIR", "", 1);
    struct nd_error err = {0};
    return nd_kb_load(&kb, NULL, 0, &err);
}

static int free_kb(void **state)
{
    (void)state;
    nd_kb_free(kb);
    kb = NULL;
    return 0;
}

static const char *analyze_top(const char *text, char *cat, size_t catlen)
{
    static char id[128];
    assert_non_null(kb);
    struct nd_findings out = ND_FINDINGS_INIT;
    nd_kb_shape_analyze(&kb->rules.shape, "job.log", text, strlen(text), 1, &out);
    snprintf(id, sizeof id, "%s", out.n ? out.v[0]->id : "");
    snprintf(cat, catlen, "%s", out.n ? out.v[0]->category : "");
    if (out.n) {
        assert_int_equal(out.v[0]->severity, ND_SEV_WARNING);
        assert_int_equal(out.v[0]->confidence, ND_CONF_LOW);
    }
    nd_findings_release(&out);
    return id;
}

static void test_builtin_signals(void **state)
{
    (void)state;
    char cat[32];
    /* The same GPU idle in most dmon samples and busy in some. */
    assert_string_equal(analyze_top("# gpu   pwr gtemp mtemp    sm   mem\n0 70 45 - 99 40\n0 60 44 - 0 0\n"
                                    "0 61 44 - 0 0\n0 72 45 - 97 39\n0 58 44 - 3 0\n",
                                    cat, sizeof cat),
                        "shape.device.device-intermittent");
    assert_string_equal(cat, "input-bound");
    /* Steadily busy: nothing. */
    assert_string_equal(analyze_top("# gpu   pwr gtemp mtemp    sm   mem\n0 70 45 - 99 40\n0 70 45 - 95 40\n"
                                    "0 70 45 - 97 40\n0 70 45 - 98 40\n",
                                    cat, sizeof cat),
                        "");
    /* Different GPUs at different loads in one sample are no intermittence. */
    assert_string_equal(analyze_top("index, utilization.gpu [%]\n0, 100 %\n1, 0 %\n2, 0 %\n3, 0 %\n", cat, sizeof cat),
                        "");
    /* An idle device with a process that holds no memory, beside training
     * lines: the job computes elsewhere. */
    assert_string_equal(analyze_top("step 10 loss 2.3\n"
                                    "| N/A   40C    P8     9W /  70W |      4MiB / 15360MiB |      0%      Default |\n"
                                    "| Processes:                                                                  |\n"
                                    "|    0   N/A  N/A      1234      G   /usr/lib/xorg/Xorg                 2MiB |\n"
                                    "step 20 loss 2.2\n",
                                    cat, sizeof cat),
                        "shape.device.device-unused");
    assert_string_equal(cat, "cpu-fallback");
    /* The same device holding the job's memory: it waits. */
    assert_string_equal(analyze_top("step 10 loss 2.3\n"
                                    "| N/A   40C    P0    30W /  70W |  12000MiB / 15360MiB |      0%      Default |\n"
                                    "| Processes:                                                                  |\n"
                                    "|    0   N/A  N/A      1234      C   python                         11990MiB |\n"
                                    "step 20 loss 2.2\n",
                                    cat, sizeof cat),
                        "shape.device.device-idle");
    assert_string_equal(cat, "input-bound");
    /* An smi table with its headers and no device under them. */
    assert_string_equal(analyze_top("| npu-smi 23.0.0                   Version: 23.0.0                  |\n"
                                    "| NPU   Name                | Health        | Power(W)    Temp(C)  |\n"
                                    "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB) |\n"
                                    "+===========================+===============+==================+\n"
                                    "+===========================+===============+==================+\n",
                                    cat, sizeof cat),
                        "shape.device.device-none");
    assert_string_equal(cat, "no-device");
    /* top: one Python on 31 cores; several Python workers on a core each. */
    const char *top = "    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND\n";
    char buf[1024];
    snprintf(buf, sizeof buf, "%s  12345 alice 20 0 30.1g 5.2g 200.0m R 3150 4.1 120:01.00 python\n", top);
    assert_string_equal(analyze_top(buf, cat, sizeof cat), "shape.host.host-cpu-compute");
    assert_string_equal(cat, "cpu-fallback");
    snprintf(buf, sizeof buf,
             "%s  1 a 20 0 1g 1g 1m R 99.0 1 1:00 python\n  2 a 20 0 1g 1g 1m R 98.0 1 1:00 python\n"
             "  3 a 20 0 1g 1g 1m R 97.0 1 1:00 python\n",
             top);
    assert_string_equal(analyze_top(buf, cat, sizeof cat), "shape.host.host-workers-busy");
    assert_string_equal(cat, "input-bound");
    /* A training process on about one core is what a job on the device looks like. */
    snprintf(buf, sizeof buf, "%s  12345 alice 20 0 30.1g 5.2g 200.0m R 105 4.1 120:01.00 python\n", top);
    assert_string_equal(analyze_top(buf, cat, sizeof cat), "");
    /* Busy devices beside a busy CPU: nothing from the host. */
    snprintf(buf, sizeof buf,
             "| N/A   40C    P0    300W / 300W |  30000MiB / 40960MiB |     99%%      Default |\n"
             "%s  12345 alice 20 0 30.1g 5.2g 200.0m R 3150 4.1 120:01.00 python\n",
             top);
    assert_string_equal(analyze_top(buf, cat, sizeof cat), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_smi_rows),      cmocka_unit_test(test_column_tools),    cmocka_unit_test(test_host_rows),
        cmocka_unit_test(test_hostile_lines), cmocka_unit_test(test_builtin_signals),
    };
    return cmocka_run_group_tests(tests, load_kb, free_kb);
}
