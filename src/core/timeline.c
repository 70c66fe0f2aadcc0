/* JSON, CSV and SVG views of a run's series (see timeline.h). Past six
 * devices the chart shows the mean and the busiest device instead of one
 * line each: eight overlapping lines read as noise at a glance. */
#include "core/timeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/chart_svg.h"
#include "core/json_util.h"
#include "core/strbuf.h"

#define ND_CHART_PER_DEVICE_MAX 6

/* The device's word ("npu"), which the series took from the vendor table. */
static const char *nd_dev_word(const struct nd_series_device *d)
{
    return d->word[0] ? d->word : d->vendor;
}

json_t *nd_timeline_json(const struct nd_series *s, size_t max_points)
{
    size_t n = 0;
    struct nd_sample *pts = nd_series_export(s, max_points, &n);
    json_t *o = json_object();
    json_object_set_new(o, "interval_s", json_real(s->interval_s));
    json_t *devs = json_array();
    for (size_t d = 0; d < s->ndev; d++) {
        json_t *dj = json_object();
        json_object_set_new(dj, "vendor", nd_json_str(s->dev[d].vendor));
        json_object_set_new(dj, "index", json_integer(s->dev[d].index));
        json_object_set_new(dj, "name", nd_json_str(s->dev[d].name));
        json_object_set_new(dj, "memory_total_bytes", json_integer((json_int_t)s->dev[d].mem_total_bytes));
        json_array_append_new(devs, dj);
    }
    json_object_set_new(o, "devices", devs);
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        const struct nd_sample *x = &pts[i];
        json_t *p = json_object();
        json_object_set_new(p, "t_s", json_real(round(x->t * 1000) / 1000));
        json_object_set_new(p, "cpu_cores", json_real(round(x->cpu_cores * 1000) / 1000));
        json_object_set_new(p, "rss_bytes", json_integer((json_int_t)x->rss_bytes));
        json_object_set_new(p, "procs", json_integer(x->nprocs));
        json_object_set_new(p, "threads", json_integer(x->nthreads));
        json_object_set_new(p, "on_device", json_boolean(x->on_device));
        json_object_set_new(p, "job_utilization_ratio",
                            x->job_util >= 0 ? json_real(round(x->job_util * 10) / 1000) : json_null());
        json_t *u = json_array(), *m = json_array();
        for (size_t d = 0; d < s->ndev; d++) {
            json_array_append_new(u, x->util[d] == ND_SERIES_UTIL_UNKNOWN ? json_null() : json_real(x->util[d] / 100.0));
            json_array_append_new(m, x->mem_mib[d] == ND_SERIES_MEM_UNKNOWN
                                         ? json_null()
                                         : json_integer((json_int_t)x->mem_mib[d] * 1024 * 1024));
        }
        json_object_set_new(p, "utilization_ratio", u);
        json_object_set_new(p, "memory_used_bytes", m);
        if (x->out_valid) {
            json_object_set_new(p, "out_bytes", json_integer((json_int_t)x->out_bytes));
            json_object_set_new(p, "out_lines", json_integer((json_int_t)x->out_lines));
        }
        json_object_set_new(p, "oom_kill", x->oom_kill >= 0 ? json_integer(x->oom_kill) : json_null());
        if (x->io_valid) {
            json_object_set_new(p, "io_wait_ratio", json_real(round(x->iowait * 1000) / 1000));
            json_object_set_new(p, "read_bytes", json_integer((json_int_t)x->read_bytes));
        }
        json_object_set_new(p, "stopped_ratio", json_real(round(x->stopped * 1000) / 1000));
        json_array_append_new(arr, p);
    }
    json_object_set_new(o, "points", arr);
    free(pts);
    return o;
}

char *nd_timeline_csv(const struct nd_series *s, size_t *len)
{
    size_t n = 0;
    struct nd_sample *pts = nd_series_export(s, ND_SERIES_HISTORY, &n);
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    nd_strbuf_adds(&sb, "t_s,cpu_cores,rss_bytes,procs,threads,on_device,job_util_pct,out_bytes,out_lines,oom_kill");
    for (size_t d = 0; d < s->ndev; d++)
        nd_strbuf_addf(&sb, ",util_pct_%s%d,mem_used_bytes_%s%d", nd_dev_word(&s->dev[d]), s->dev[d].index,
                       nd_dev_word(&s->dev[d]), s->dev[d].index);
    nd_strbuf_addc(&sb, '\n');
    for (size_t i = 0; i < n; i++) {
        const struct nd_sample *x = &pts[i];
        nd_strbuf_addf(&sb, "%.3f,%.3f,%llu,%u,%u,%d,", x->t, x->cpu_cores, (unsigned long long)x->rss_bytes, x->nprocs,
                       x->nthreads, x->on_device ? 1 : 0);
        if (x->job_util >= 0)
            nd_strbuf_addf(&sb, "%.1f", x->job_util);
        if (x->out_valid)
            nd_strbuf_addf(&sb, ",%llu,%llu,", (unsigned long long)x->out_bytes, (unsigned long long)x->out_lines);
        else
            nd_strbuf_adds(&sb, ",,,");
        if (x->oom_kill >= 0)
            nd_strbuf_addf(&sb, "%lld", (long long)x->oom_kill);
        for (size_t d = 0; d < s->ndev; d++) {
            nd_strbuf_addc(&sb, ',');
            if (x->util[d] != ND_SERIES_UTIL_UNKNOWN)
                nd_strbuf_addf(&sb, "%d", x->util[d]);
            nd_strbuf_addc(&sb, ',');
            if (x->mem_mib[d] != ND_SERIES_MEM_UNKNOWN)
                nd_strbuf_addf(&sb, "%llu", (unsigned long long)x->mem_mib[d] * 1024 * 1024);
        }
        nd_strbuf_addc(&sb, '\n');
    }
    free(pts);
    return nd_strbuf_detach(&sb, len);
}

char *nd_timeline_svg(const struct nd_series *s, const struct nd_findings *findings, const char *title,
                      const char *subtitle, size_t *len)
{
    size_t n = 0;
    struct nd_sample *pts = nd_series_export(s, ND_SERIES_HISTORY, &n);
    size_t nd = s->ndev;
    bool per_dev = nd <= ND_CHART_PER_DEVICE_MAX;
    size_t nlines = nd == 0 ? 0 : per_dev ? nd : 2;
    double *t = nd_xcalloc(n ? n : 1, sizeof *t);
    double *cpu = nd_xcalloc(n ? n : 1, sizeof *cpu);
    double *rss = nd_xcalloc(n ? n : 1, sizeof *rss);
    double *jutil = nd_xcalloc(n ? n : 1, sizeof *jutil);
    double *util = nd_xcalloc((n ? n : 1) * (nlines ? nlines : 1), sizeof *util);
    double *mem = nd_xcalloc((n ? n : 1) * (nlines ? nlines : 1), sizeof *mem);
    unsigned char *band = nd_xcalloc(n ? n : 1, 1);
    double mem_total_gib = 0;
    for (size_t d = 0; d < nd; d++) {
        double g = (double)s->dev[d].mem_total_bytes / (1024.0 * 1024 * 1024);
        if (g > mem_total_gib)
            mem_total_gib = g;
    }
    for (size_t i = 0; i < n; i++) {
        const struct nd_sample *x = &pts[i];
        t[i] = x->t;
        cpu[i] = x->cpu_cores;
        rss[i] = (double)x->rss_bytes / (1024.0 * 1024 * 1024);
        jutil[i] = x->job_util >= 0 ? x->job_util : NAN;
        band[i] = x->on_device;
        double usum = 0, umax = -1, msum = 0, mmax = -1;
        int uk = 0, mk = 0;
        for (size_t d = 0; d < nd; d++) {
            double u = x->util[d] == ND_SERIES_UTIL_UNKNOWN ? NAN : x->util[d];
            double g = x->mem_mib[d] == ND_SERIES_MEM_UNKNOWN ? NAN : x->mem_mib[d] / 1024.0;
            if (per_dev) {
                util[d * n + i] = u;
                mem[d * n + i] = g;
            }
            if (isfinite(u)) {
                usum += u;
                uk++;
                umax = u > umax ? u : umax;
            }
            if (isfinite(g)) {
                msum += g;
                mk++;
                mmax = g > mmax ? g : mmax;
            }
        }
        if (!per_dev && nd) {
            util[0 * n + i] = uk ? usum / uk : NAN;
            util[1 * n + i] = uk ? umax : NAN;
            mem[0 * n + i] = mk ? msum / mk : NAN;
            mem[1 * n + i] = mk ? mmax : NAN;
        }
    }
    char labels[ND_CHART_MAX_LINES][48];
    struct nd_chart_panel panels[4];
    memset(panels, 0, sizeof panels);
    panels[0].title = "CPU used by the job (cores)";
    panels[0].nlines = 1;
    panels[0].lines[0] = (struct nd_chart_line){"cpu cores", cpu, 1};
    /* Host memory: an OOM kill or a ulimit -v failure reads off this panel. */
    panels[1].title = "Host memory of the job, RSS (GiB)";
    panels[1].nlines = 1;
    panels[1].lines[0] = (struct nd_chart_line){"rss", rss, 1};
    size_t np = 2;
    if (nd) {
        panels[2].title = "Device utilisation (%)";
        panels[2].ymax = 100;
        panels[3].title = "Device memory used (GiB)";
        panels[3].ymax = mem_total_gib > 0 ? mem_total_gib : 0;
        for (size_t l = 0; l < nlines; l++) {
            if (per_dev)
                snprintf(labels[l], sizeof labels[l], "%s%d", nd_dev_word(&s->dev[l]), s->dev[l].index);
            else if (l == 0)
                snprintf(labels[l], sizeof labels[l], "mean of %zu %ss", nd, nd_dev_word(&s->dev[0]));
            else
                snprintf(labels[l], sizeof labels[l], "busiest %s", nd_dev_word(&s->dev[0]));
            panels[2].lines[l] = (struct nd_chart_line){labels[l], &util[l * n], 0};
            panels[3].lines[l] = (struct nd_chart_line){labels[l], &mem[l * n], 0};
        }
        panels[2].nlines = panels[3].nlines = nlines;
        /* The job's own devices, when the per-device lines do not show them. */
        if (!per_dev && nlines < ND_CHART_MAX_LINES) {
            panels[2].lines[nlines] = (struct nd_chart_line){"the job's devices", jutil, 1};
            panels[2].nlines = nlines + 1;
        }
        np = 4;
    }
    struct nd_chart_marker *marks = nd_xcalloc(findings && findings->n ? findings->n : 1, sizeof *marks);
    size_t nm = 0;
    for (size_t i = 0; findings && i < findings->n; i++) {
        const struct nd_finding *f = findings->v[i];
        if (f->at_s < 0 || f->severity == ND_SEV_INFO)
            continue;
        marks[nm++] = (struct nd_chart_marker){f->at_s, f->severity, f->category};
    }
    struct nd_chart c = {title, subtitle, t, n, "on device", band, panels, np, marks, nm};
    char *svg = nd_chart_svg(&c, len);
    free(marks);
    free(band);
    free(mem);
    free(util);
    free(cpu);
    free(rss);
    free(jutil);
    free(t);
    free(pts);
    return svg;
}
