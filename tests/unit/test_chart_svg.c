/* Unit tests for core/chart_svg.c: structure, escaping, gaps, markers, scales. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/chart_svg.h"

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static void test_chart_structure(void **state)
{
    (void)state;
    double t[6] = {0, 1, 2, 3, 4, 5};
    double cpu[6] = {0, 1.5, 1.9, 2.0, 1.8, 1.7};
    double util[6] = {0, NAN, NAN, 30, 40, 50}; /* a gap in the middle */
    unsigned char band[6] = {0, 0, 0, 1, 1, 1};
    struct nd_chart_panel p[2];
    memset(p, 0, sizeof p);
    p[0].title = "CPU <cores>";
    p[0].nlines = 1;
    p[0].lines[0] = (struct nd_chart_line){"cpu & more", cpu, 1};
    p[1].title = "Device utilisation (%)";
    p[1].ymax = 100;
    p[1].nlines = 1;
    p[1].lines[0] = (struct nd_chart_line){"npu0", util, 0};
    struct nd_chart_marker m[2] = {{2.0, ND_SEV_ERROR, "cpu-fallback"}, {2.2, ND_SEV_WARNING, "hang"}};
    struct nd_chart c = {"title \"q\"", "sub", t, 6, "on device", band, p, 2, m, 2};
    size_t len = 0;
    char *svg = nd_chart_svg(&c, &len);
    assert_int_equal(strlen(svg), len);
    assert_true(strncmp(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39) == 0);
    assert_non_null(strstr(svg, "</svg>\n"));
    assert_non_null(strstr(svg, "title &quot;q&quot;"));
    assert_non_null(strstr(svg, "CPU &lt;cores&gt;"));
    assert_non_null(strstr(svg, "cpu &amp; more"));
    assert_null(strstr(svg, "<cores>"));
    /* CPU: one filled area and one line; util: a single point then a line after the gap. */
    assert_int_equal(count(svg, "<polygon"), 1);
    assert_int_equal(count(svg, "<polyline"), 2);
    assert_int_equal(count(svg, "<circle"), 1);
    /* Two markers in the finding colours, labels with their times. */
    assert_non_null(strstr(svg, "stroke=\"#d62728\""));
    assert_non_null(strstr(svg, "stroke=\"#e8850c\""));
    assert_non_null(strstr(svg, "cpu-fallback @ 2s"));
    assert_non_null(strstr(svg, "hang @ 2s"));
    /* The strip: one green run over the last three points. */
    assert_int_equal(count(svg, "fill=\"#2ca02c\"/>"), 2); /* the run and its legend box */
    /* CPU axis auto-scaled to a nice 5 (2.0 * 1.05 rounds up to 5), utilisation fixed at 100. */
    assert_non_null(strstr(svg, ">100</text>"));
    free(svg);
}

static void test_chart_degenerate(void **state)
{
    (void)state;
    /* No points, no panels: still a valid document. */
    struct nd_chart c = {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL, 0};
    size_t len;
    char *svg = nd_chart_svg(&c, &len);
    assert_non_null(strstr(svg, "npu-doctor timeline"));
    assert_non_null(strstr(svg, "</svg>"));
    free(svg);
    /* One point, all zero, control bytes in labels. */
    double t[1] = {0}, y[1] = {0};
    struct nd_chart_panel p;
    memset(&p, 0, sizeof p);
    p.title = "x\x01y";
    p.nlines = 1;
    p.lines[0] = (struct nd_chart_line){"l", y, 1};
    struct nd_chart c2 = {"t", NULL, t, 1, NULL, NULL, &p, 1, NULL, 0};
    svg = nd_chart_svg(&c2, &len);
    assert_non_null(strstr(svg, "x y"));
    assert_null(strstr(svg, "nan"));
    free(svg);
}

static void test_chart_long_time_axis(void **state)
{
    (void)state;
    enum { N = 2000 };
    double *t = calloc(N, sizeof *t), *y = calloc(N, sizeof *y);
    for (int i = 0; i < N; i++) {
        t[i] = i * 3.6; /* two hours */
        y[i] = i % 7;
    }
    struct nd_chart_panel p;
    memset(&p, 0, sizeof p);
    p.title = "CPU";
    p.nlines = 1;
    p.lines[0] = (struct nd_chart_line){"cpu", y, 0};
    struct nd_chart c = {"t", NULL, t, N, NULL, NULL, &p, 1, NULL, 0};
    size_t len;
    char *svg = nd_chart_svg(&c, &len);
    assert_non_null(strstr(svg, ">1:00:00</text>"));
    free(svg);
    free(t);
    free(y);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chart_structure),
        cmocka_unit_test(test_chart_degenerate),
        cmocka_unit_test(test_chart_long_time_axis),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
