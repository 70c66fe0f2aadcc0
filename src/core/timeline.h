/* The report views of a series: JSON points, CSV rows and the SVG chart,
 * each over the run downsampled to at most ND_SERIES_HISTORY points. Pure:
 * no I/O (monitor.c writes the files). */
#ifndef ND_CORE_TIMELINE_H
#define ND_CORE_TIMELINE_H

#include <stddef.h>

#include <jansson.h>

#include "core/finding.h"
#include "core/series.h"

/* {"interval_s", "devices": [...], "points": [{"t_s", "cpu_cores", ...}]} */
json_t *nd_timeline_json(const struct nd_series *s, size_t max_points);
/* A header line then one row per point; malloc'd. */
char *nd_timeline_csv(const struct nd_series *s, size_t *len);
/* The chart: CPU cores, device utilisation %, device memory GiB, the
 * on-device strip and the findings marked; malloc'd SVG. */
char *nd_timeline_svg(const struct nd_series *s, const struct nd_findings *findings, const char *title,
                      const char *subtitle, size_t *len);

#endif
