/* Unit tests for core/metrics_prom.c: the node_exporter textfile format. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/fileio.h"
#include "core/metrics_prom.h"

static void test_prom_render(void **state)
{
    (void)state;
    struct nd_prom_device dev[2] = {
        {"ascend", 0, true, 0.035, true, 2ULL << 30},
        {"asc\"end", 1, false, 0, true, 0},
    };
    struct nd_findings fs = ND_FINDINGS_INIT;
    nd_findings_add(&fs, "fallback.cpu-fallback", ND_CAT_CPU_FALLBACK, ND_SEV_ERROR, "x");
    nd_findings_add(&fs, "log.op-fallback", ND_CAT_UNSUPPORTED_OP, ND_SEV_WARNING, "y");
    struct nd_prom_snapshot m = {.cpu_cores = 1.875, .on_device = true, .dev = dev, .ndev = 2, .findings = &fs};
    size_t len;
    char *t = nd_prom_render(&m, &len);
    assert_int_equal(strlen(t), len);
    assert_non_null(strstr(t, "# TYPE npu_doctor_job_cpu_cores gauge\nnpu_doctor_job_cpu_cores 1.875\n"));
    assert_non_null(strstr(t, "\nnpu_doctor_job_on_device 1\n"));
    assert_non_null(strstr(t, "\nnpu_doctor_device_utilization_ratio{device=\"0\",vendor=\"ascend\"} 0.035\n"));
    /* Unknown utilisation: no sample rather than a fake 0. */
    assert_null(strstr(t, "npu_doctor_device_utilization_ratio{device=\"1\""));
    assert_non_null(strstr(t, "npu_doctor_device_memory_used_bytes{device=\"0\",vendor=\"ascend\"} 2147483648\n"));
    assert_non_null(strstr(t, "{device=\"1\",vendor=\"asc\\\"end\"} 0\n"));
    assert_non_null(strstr(t, "npu_doctor_findings_total{category=\"cpu-fallback\",severity=\"error\"} 1\n"));
    assert_non_null(strstr(t, "npu_doctor_findings_total{category=\"unsupported-op\",severity=\"warning\"} 1\n"));
    assert_non_null(strstr(t, "npu_doctor_findings_total{category=\"hang\",severity=\"warning\"} 0\n"));
    assert_non_null(strstr(t, "# TYPE npu_doctor_findings_total counter\n"));
    /* Every sample line is "name{labels} value" or "name value": no timestamps. */
    for (char *line = strtok(t, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        const char *rest = strchr(line, '}') ? strchr(line, '}') + 1 : line;
        size_t spaces = 0;
        for (const char *q = rest; *q; q++)
            spaces += *q == ' ';
        assert_int_equal(spaces, 1);
    }
    free(t);
    nd_findings_release(&fs);
}

static void test_prom_write_atomic(void **state)
{
    (void)state;
    char dir[] = "/tmp/nd-prom-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/npu_doctor.prom", dir);
    struct nd_prom_snapshot m = {.cpu_cores = 0.5};
    struct nd_error err = {0};
    assert_int_equal(nd_prom_write(path, &m, &err), 0);
    char *buf = NULL;
    size_t len = 0;
    assert_int_equal(nd_read_file(path, 1 << 20, &buf, &len, &err), 0);
    assert_non_null(strstr(buf, "npu_doctor_job_on_device 0\n"));
    free(buf);
    unlink(path);
    rmdir(dir);
    /* An unwritable place: an error, not a crash. */
    assert_true(nd_prom_write("/nonexistent-dir/x.prom", &m, &err) < 0);
    assert_non_null(strstr(err.msg, "/nonexistent-dir/x.prom"));
}

static void test_prom_job_end(void **state)
{
    (void)state;
    const char *names[] = {"command", "pid", "rank", "slurm_job_id"};
    const char *values[] = {"python3 \"train.py\"", "4242", "1", "77"};
    struct nd_prom_snapshot m = {.cpu_cores = 1.0,
                                 .on_device = true,
                                 .job_known = true,
                                 .running = true,
                                 .last_sample_unix_s = 1764567890,
                                 .label_names = names,
                                 .label_values = values,
                                 .nlabels = 4};
    size_t len;
    char *t = nd_prom_render(&m, &len);
    const char *lab = "{command=\"python3 \\\"train.py\\\"\",pid=\"4242\",rank=\"1\",slurm_job_id=\"77\"}";
    char want[512];
    snprintf(want, sizeof want, "npu_doctor_job_running%s 1\n", lab);
    assert_non_null(strstr(t, want));
    snprintf(want, sizeof want, "npu_doctor_job_cpu_cores%s 1.000\n", lab);
    assert_non_null(strstr(t, want));
    snprintf(want, sizeof want, "npu_doctor_job_last_sample_timestamp_seconds%s 1764567890\n", lab);
    assert_non_null(strstr(t, want));
    free(t);
    /* After the end: running 0 and the job gauges at their final values, so alerts clear. */
    m.running = false;
    t = nd_prom_render(&m, &len);
    snprintf(want, sizeof want, "npu_doctor_job_running%s 0\n", lab);
    assert_non_null(strstr(t, want));
    snprintf(want, sizeof want, "npu_doctor_job_cpu_cores%s 0.000\n", lab);
    assert_non_null(strstr(t, want));
    snprintf(want, sizeof want, "npu_doctor_job_on_device%s 0\n", lab);
    assert_non_null(strstr(t, want));
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prom_job_end),
        cmocka_unit_test(test_prom_render),
        cmocka_unit_test(test_prom_write_atomic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
