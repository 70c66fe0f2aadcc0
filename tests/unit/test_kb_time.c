/* Unit tests for timestamps and ranks in log lines and paths (kb_time.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "kb/kb.h"

static double ts(const char *line)
{
    double t = -1;
    if (!nd_kb_parse_timestamp(line, strlen(line), &t))
        return -1;
    return t;
}

static void test_formats(void **state)
{
    (void)state;
    /* 2024-05-01 10:00:00 UTC = 1714557600 */
    assert_true(ts("[ERROR] RUNTIME(1234,python):2024-05-01-10:00:00.123.456 [x.cc:1] boom") - 1714557600.123456 < 1e-4);
    assert_true(ts("[ERROR] RUNTIME(1234,python):2024-05-01-10:00:00.123.456 [x.cc:1] boom") >= 1714557600.1234);
    assert_true(ts("2024-05-01 10:00:00,250 - root - INFO - hi") == 1714557600.25);
    assert_true(ts("[2024-05-01 10:00:00,000] [INFO] [engine.py:1] x") == 1714557600.0);
    assert_true(ts("2024-05-01T10:00:00Z something") == 1714557600.0);
    assert_true(ts("2024-05-01T12:00:00+02:00 something") == 1714557600.0);
    assert_true(ts("2024-05-01T05:30:00-0430 x") == 1714557600.0);
    assert_true(ts("[ERROR] 2025-03-16-11:32:36 (PID:80511, Device:0, RankID:-1) ERR99999") > 0);
    assert_true(ts("EE9999: [PID: 540989] 2025-04-27-03:11:08.269.791 get error") > 0);
    assert_true(ts("[rank3]: 2024-05-01 10:00:01,000 ERROR x") == 1714557601.0);
    assert_true(ts("05/01/2024 10:00:00 - INFO - __main__ - Training") == 1714557600.0);
    assert_true(ts("13/01/2024 10:00:00 x") < 0);
    /* Later is larger, across formats. */
    assert_true(ts("2024-05-01-10:00:01.000.000") > ts("2024-05-01 10:00:00,999"));
}

/* Lines without a year: glog and vLLM. Taken in the latest year that does
 * not put them ahead of now, so only differences are exact. */
static void test_formats_without_year(void **state)
{
    (void)state;
    double g0 = ts("W0501 10:00:00.250000 12345 hccl.cc:12] timeout");
    double g1 = ts("[rank3]: E0501 10:00:01.750000 12345 x.cc:1] boom");
    assert_true(g0 > 0 && g1 > 0);
    assert_true(g1 - g0 > 1.4999 && g1 - g0 < 1.5001);
    double v0 = ts("INFO 05-01 10:00:00 engine.py:12] started");
    double v1 = ts("ERROR 05-01 10:00:05 worker.py:99] NPU out of memory");
    assert_true(v1 - v0 == 5.0);
    /* glog and vLLM of the same moment agree. */
    assert_true(g0 - v0 > 0.2499 && g0 - v0 < 0.2501);
    /* Never ahead of now: a date that would be is last year's. */
    time_t now = time(NULL);
    assert_true(ts("I1231 23:59:59.000000 1 x.cc:1] y") <= (double)now + 2 * 86400.0);
    assert_true(ts("I0101 00:00:00.000000 1 x.cc:1] y") <= (double)now + 2 * 86400.0);
    assert_true(ts("I0101 00:00:00.000000 1 x.cc:1] y") > (double)now - 367 * 86400.0);
    /* Not dates: a word ending in W, a version, a range. */
    assert_true(ts("SW0501 10:00:00 x") < 0);
    assert_true(ts("v1.05-01 10:00:00") < 0);
    assert_true(ts("I1301 10:00:00 x") < 0);
    assert_true(ts("INFO 05-32 10:00:00 x") < 0);
}

static void test_not_timestamps(void **state)
{
    (void)state;
    assert_true(ts("no time here") < 0);
    assert_true(ts("version 2024-13-01 10:00:00") < 0);
    assert_true(ts("2024-05-01") < 0);
    assert_true(ts("12024-05-01 10:00:00") < 0);
    assert_true(ts("2024-05-01 25:00:00") < 0);
    assert_true(ts("") < 0);
    double t;
    assert_false(nd_kb_parse_timestamp("2024-05-01 10:00:00", 10, &t)); /* cut before the time */
}

static void test_ranks(void **state)
{
    (void)state;
    assert_int_equal(nd_kb_line_rank("[rank3]: RuntimeError", 21), 3);
    assert_int_equal(nd_kb_line_rank("[rank12]:x", 10), 12);
    assert_int_equal(nd_kb_line_rank("[default5]:[W socket]", 21), 5);
    assert_int_equal(nd_kb_line_rank("rank7: Traceback", 16), 7);
    assert_int_equal(nd_kb_line_rank("ranked: 3", 9), -1);
    assert_int_equal(nd_kb_line_rank("(VllmWorker rank=3 pid=50935) ERROR x", 37), 3);
    assert_int_equal(nd_kb_line_rank("(raylet) rank=4", 15), -1);
    const char *l = "[ERROR] 2025-04-27-03:11:08 (PID:540989, Device:0, RankID:1) ERR02200 DIST";
    assert_int_equal(nd_kb_line_rank(l, strlen(l)), 1);
    l = "[ERROR] 2025 (PID:1, Device:0, RankID:-1) ERR00100 PTA";
    assert_int_equal(nd_kb_line_rank(l, strlen(l)), -1);
    assert_int_equal(nd_kb_line_rank("plain line", 10), -1);
    assert_int_equal(nd_kb_path_rank("logs/rank_5.log"), 5);
    assert_int_equal(nd_kb_path_rank("/job/rank-07/plog/plog-1.log"), 7);
    assert_int_equal(nd_kb_path_rank("/job/RANK3.txt"), 3);
    assert_int_equal(nd_kb_path_rank("/job/frank5.log"), -1);
    assert_int_equal(nd_kb_path_rank("/job/ranks/log.txt"), -1);
    assert_int_equal(nd_kb_path_rank("device-0/device-123.log"), -1);
    assert_int_equal(nd_kb_path_rank("/tmp/torchelastic_x/none_abc/attempt_0/3/stderr.log"), 3);
    assert_int_equal(nd_kb_path_rank("/tmp/attempt_0/x3/stderr.log"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_formats_without_year),
        cmocka_unit_test(test_not_timestamps),
        cmocka_unit_test(test_ranks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
