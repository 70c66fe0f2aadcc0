/* The timeline chart of a run/watch report as a self-contained SVG: stacked
 * panels sharing one time axis (CPU cores, device utilisation, device
 * memory), a strip saying when the job was on a device, and the findings
 * marked where they happened. Pure: data in, SVG text out. */
#ifndef ND_CORE_CHART_SVG_H
#define ND_CORE_CHART_SVG_H

#include <stddef.h>

#include "core/finding.h"

#define ND_CHART_MAX_LINES 8

struct nd_chart_line {
    const char *label;
    const double *y; /* npoints values; NAN leaves a gap */
    int fill;        /* 1: shade the area under the line */
};

struct nd_chart_panel {
    const char *title; /* "CPU (cores)" */
    double ymax;       /* 0: from the data (rounded up) */
    size_t nlines;
    struct nd_chart_line lines[ND_CHART_MAX_LINES];
};

struct nd_chart_marker {
    double t;
    enum nd_severity severity;
    const char *label; /* "cpu-fallback" */
};

struct nd_chart {
    const char *title;    /* "npu-doctor run: python3 train.py" */
    const char *subtitle; /* "exit 0 after 62 s · 2 findings" */
    const double *t;      /* npoints times in seconds, increasing */
    size_t npoints;
    const char *band_label;    /* "on device"; NULL: no strip */
    const unsigned char *band; /* npoints 0/1 */
    const struct nd_chart_panel *panels;
    size_t npanels;
    const struct nd_chart_marker *markers;
    size_t nmarkers;
};

/* Renders the chart; returns a malloc'd NUL-terminated SVG document. */
char *nd_chart_svg(const struct nd_chart *c, size_t *len);

#endif
