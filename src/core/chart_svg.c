/* The run/watch timeline as SVG (see chart_svg.h). Hand-written SVG keeps
 * the binary free of plotting libraries; the layout is fixed-width so the
 * chart reads the same in a browser, an issue tracker and the README. */
#include "core/chart_svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/array.h"
#include "core/strbuf.h"
#include "core/termsafe.h"

#define W 960.0
#define ML 72.0 /* left margin: y labels */
#define MR 28.0
#define PLOT_W (W - ML - MR)
#define PANEL_H 130.0
#define PANEL_GAP 46.0
#define BAND_H 14.0

static const char *const nd_palette[ND_CHART_MAX_LINES] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
                                                           "#8c564b", "#e377c2", "#17becf", "#7f7f7f"};

static const char *nd_sev_color(enum nd_severity s)
{
    return s == ND_SEV_ERROR ? "#d62728" : s == ND_SEV_WARNING ? "#e8850c" : "#7f7f7f";
}

/* Text and attribute values: whatever bytes came in (argv, log lines), the
 * document stays XML 1.0: markup characters escaped, control bytes as
 * spaces, bytes that are not UTF-8 (or a sequence cut by a length limit) and
 * the non-characters U+FFFE/U+FFFF as U+FFFD. */
static void nd_xml_text(struct nd_strbuf *sb, const char *s)
{
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    size_t len = strlen((const char *)u);
    for (size_t i = 0; i < len;) {
        unsigned char c = u[i];
        size_t n = nd_utf8_valid_seq(u + i, len - i);
        if (n == 0 || (n == 3 && c == 0xef && u[i + 1] == 0xbf && (u[i + 2] == 0xbe || u[i + 2] == 0xbf))) {
            nd_strbuf_adds(sb, "\xEF\xBF\xBD");
            i += n ? n : 1;
            continue;
        }
        if (n > 1) {
            nd_strbuf_add(sb, u + i, n);
            i += n;
            continue;
        }
        switch (c) {
        case '&': nd_strbuf_adds(sb, "&amp;"); break;
        case '<': nd_strbuf_adds(sb, "&lt;"); break;
        case '>': nd_strbuf_adds(sb, "&gt;"); break;
        case '"': nd_strbuf_adds(sb, "&quot;"); break;
        case '\'': nd_strbuf_adds(sb, "&apos;"); break;
        default:
            /* Control bytes are not allowed in XML 1.0. */
            if ((c < 0x20 && c != '\t') || c == 0x7f)
                nd_strbuf_addc(sb, ' ');
            else
                nd_strbuf_addc(sb, (char)c);
        }
        i++;
    }
}

/* 1, 2 or 5 times a power of ten, at least v. */
static double nd_nice_ceil(double v)
{
    if (!(v > 0))
        return 1;
    double p = pow(10, floor(log10(v)));
    for (int i = 0; i < 3; i++) {
        double m = (double[]){1, 2, 5}[i] * p;
        if (m >= v * 0.999)
            return m;
    }
    return 10 * p;
}

static void nd_fmt_time(double t, double range, char *buf, size_t size)
{
    long s = lround(t);
    if (range < 120)
        snprintf(buf, size, "%lds", s);
    else if (s < 3600)
        snprintf(buf, size, "%ld:%02ld", s / 60, s % 60);
    else
        snprintf(buf, size, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
}

static void nd_fmt_value(double v, char *buf, size_t size)
{
    if (v == floor(v) && fabs(v) < 1e7)
        snprintf(buf, size, "%.0f", v);
    else
        snprintf(buf, size, "%.1f", v);
}

static double nd_time_step(double range)
{
    static const double steps[] = {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 28800, 86400};
    for (size_t i = 0; i < ND_ARRAY_SIZE(steps); i++)
        if (range / steps[i] <= 10)
            return steps[i];
    return 86400 * ceil(range / 86400 / 10);
}

struct nd_xmap {
    double t0, t1;
};

static double nd_x(const struct nd_xmap *m, double t)
{
    return ML + (t - m->t0) / (m->t1 - m->t0) * PLOT_W;
}

static void nd_panel(struct nd_strbuf *sb, const struct nd_chart *c, const struct nd_chart_panel *p,
                     const struct nd_xmap *xm, double top)
{
    double ymax = p->ymax;
    if (!(ymax > 0)) {
        double m = 0;
        for (size_t l = 0; l < p->nlines; l++)
            for (size_t i = 0; i < c->npoints; i++)
                if (isfinite(p->lines[l].y[i]) && p->lines[l].y[i] > m)
                    m = p->lines[l].y[i];
        ymax = nd_nice_ceil(m * 1.05);
    }
    double y0 = top + PANEL_H;
    /* Title on the left, legend on the right, on one line above the plot. */
    nd_strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" class=\"pt\">", ML, top - 8);
    nd_xml_text(sb, p->title);
    nd_strbuf_adds(sb, "</text>\n");
    double lx = ML + PLOT_W;
    for (size_t l = p->nlines; l-- > 0;) {
        const char *label = p->lines[l].label ? p->lines[l].label : "";
        double w = 7.0 * (double)strlen(label) + 22;
        lx -= w;
        nd_strbuf_addf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"4\" fill=\"%s\"/>", lx, top - 14,
                       nd_palette[l % ND_CHART_MAX_LINES]);
        nd_strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" class=\"lg\">", lx + 16, top - 9);
        nd_xml_text(sb, label);
        nd_strbuf_adds(sb, "</text>\n");
    }
    nd_strbuf_addf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"bg\"/>\n", ML, top, PLOT_W,
                   PANEL_H);
    for (int k = 0; k <= 4; k++) {
        double v = ymax * k / 4, y = y0 - PANEL_H * k / 4;
        nd_strbuf_addf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"%s\"/>\n", ML, y, ML + PLOT_W,
                       y, k == 0 ? "ax" : "gr");
        if (k % 2 == 0) {
            char vb[32];
            nd_fmt_value(v, vb, sizeof vb);
            nd_strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" class=\"yl\">%s</text>\n", ML - 6, y + 4, vb);
        }
    }
    double range = xm->t1 - xm->t0, step = nd_time_step(range);
    for (double t = ceil(xm->t0 / step) * step; t <= xm->t1 + 1e-9; t += step) {
        double x = nd_x(xm, t);
        nd_strbuf_addf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"gr\"/>\n", x, top, x, y0);
        char tb[32];
        nd_fmt_time(t, range, tb, sizeof tb);
        nd_strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" class=\"xl\">%s</text>\n", x, y0 + 14, tb);
    }
    for (size_t l = 0; l < p->nlines; l++) {
        const struct nd_chart_line *ln = &p->lines[l];
        const char *col = nd_palette[l % ND_CHART_MAX_LINES];
        size_t i = 0;
        while (i < c->npoints) {
            while (i < c->npoints && !isfinite(ln->y[i]))
                i++;
            size_t start = i;
            while (i < c->npoints && isfinite(ln->y[i]))
                i++;
            if (i == start)
                break;
            struct nd_strbuf pts = ND_STRBUF_INIT;
            nd_strbuf_init(&pts);
            for (size_t k = start; k < i; k++) {
                double v = ln->y[k] > ymax ? ymax : ln->y[k] < 0 ? 0 : ln->y[k];
                nd_strbuf_addf(&pts, "%.1f,%.1f ", nd_x(xm, c->t[k]), y0 - v / ymax * PANEL_H);
            }
            if (ln->fill)
                nd_strbuf_addf(sb, "<polygon points=\"%.1f,%.1f %s%.1f,%.1f\" fill=\"%s\" fill-opacity=\"0.18\"/>\n",
                               nd_x(xm, c->t[start]), y0, pts.buf, nd_x(xm, c->t[i - 1]), y0, col);
            if (i - start == 1)
                nd_strbuf_addf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"%s\"/>\n", nd_x(xm, c->t[start]),
                               y0 - (ln->y[start] > ymax ? ymax : ln->y[start]) / ymax * PANEL_H, col);
            else
                nd_strbuf_addf(sb, "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\"/>\n",
                               pts.buf, col);
            nd_strbuf_release(&pts);
        }
    }
}

char *nd_chart_svg(const struct nd_chart *c, size_t *len)
{
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    double band_top = 64;
    double first_panel = band_top + (c->band ? BAND_H + 44 : 20);
    double h = first_panel + (double)c->npanels * (PANEL_H + PANEL_GAP) + 10;
    nd_strbuf_addf(&sb,
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                   "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
                   W, h, W, h);
    nd_strbuf_adds(&sb, "<style>.t{font-size:17px;font-weight:bold;fill:#222}.st{font-size:12px;fill:#555}"
                        ".pt{font-size:13px;font-weight:bold;fill:#333}.lg{font-size:11px;fill:#333}"
                        ".yl{font-size:10px;fill:#666;text-anchor:end}.xl{font-size:10px;fill:#666;text-anchor:middle}"
                        ".ml{font-size:11px;font-weight:bold;stroke:#fff;stroke-width:3px;paint-order:stroke}.bg{fill:#"
                        "fafafa;stroke:#ddd}"
                        ".gr{stroke:#e6e6e6;stroke-width:1}.ax{stroke:#999;stroke-width:1}</style>\n");
    nd_strbuf_addf(&sb, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n", W, h);
    nd_strbuf_adds(&sb, "<text x=\"16\" y=\"28\" class=\"t\">");
    /* About 90 characters fit at this size; longer commands are cut with an ellipsis. */
    const char *title = c->title ? c->title : "npu-doctor timeline";
    if (strlen(title) > 90) {
        char cut[96];
        size_t n = 86;
        while (n > 0 && ((unsigned char)title[n] & 0xC0) == 0x80)
            n--; /* not inside a UTF-8 sequence */
        snprintf(cut, sizeof cut, "%.*s\xe2\x80\xa6", (int)n, title);
        nd_xml_text(&sb, cut);
    } else {
        nd_xml_text(&sb, title);
    }
    nd_strbuf_adds(&sb, "</text>\n");
    if (c->subtitle) {
        nd_strbuf_adds(&sb, "<text x=\"16\" y=\"48\" class=\"st\">");
        nd_xml_text(&sb, c->subtitle);
        nd_strbuf_adds(&sb, "</text>\n");
    }
    struct nd_xmap xm = {0, 1};
    if (c->npoints) {
        xm.t0 = c->t[0] < 0 ? c->t[0] : 0;
        xm.t1 = c->t[c->npoints - 1];
    }
    if (xm.t1 - xm.t0 < 1e-9)
        xm.t1 = xm.t0 + 1;
    if (c->band && c->npoints) {
        double y = band_top + 14;
        nd_strbuf_addf(&sb, "<text x=\"%.1f\" y=\"%.1f\" class=\"yl\">", ML - 6, y + 11);
        nd_xml_text(&sb, c->band_label ? c->band_label : "");
        nd_strbuf_adds(&sb, "</text>\n");
        /* Grey for the whole run, green over each stretch on a device. */
        nd_strbuf_addf(&sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#d9d9d9\"/>\n", ML, y,
                       PLOT_W, BAND_H);
        for (size_t i = 0; i < c->npoints;) {
            if (!c->band[i]) {
                i++;
                continue;
            }
            size_t j = i;
            while (j + 1 < c->npoints && c->band[j + 1])
                j++;
            double xa = nd_x(&xm, i ? c->t[i - 1] : xm.t0), xb = nd_x(&xm, c->t[j]);
            if (xb - xa < 1)
                xb = xa + 1;
            nd_strbuf_addf(&sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#2ca02c\"/>\n", xa,
                           y, xb - xa, BAND_H);
            i = j + 1;
        }
        nd_strbuf_addf(&sb,
                       "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"#2ca02c\"/><text x=\"%.1f\" "
                       "y=\"%.1f\" class=\"lg\">holds a device</text><rect x=\"%.1f\" y=\"%.1f\" width=\"10\" "
                       "height=\"10\" fill=\"#d9d9d9\"/><text x=\"%.1f\" y=\"%.1f\" class=\"lg\">no device</text>\n",
                       ML, band_top - 6, ML + 14, band_top + 3, ML + 110, band_top - 6, ML + 124, band_top + 3);
    }
    for (size_t p = 0; p < c->npanels; p++)
        nd_panel(&sb, c, &c->panels[p], &xm, first_panel + (double)p * (PANEL_H + PANEL_GAP));
    /* Findings: a dashed line over the strip and through each plot (not over
     * titles and legends), labelled at the top of the first plot. */
    double last_x = -1e9;
    int row = 0;
    for (size_t i = 0; i < c->nmarkers; i++) {
        const struct nd_chart_marker *m = &c->markers[i];
        double t = m->t < xm.t0 ? xm.t0 : m->t > xm.t1 ? xm.t1 : m->t;
        double x = nd_x(&xm, t);
        const char *col = nd_sev_color(m->severity);
        if (c->band)
            nd_strbuf_addf(&sb,
                           "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                           x, band_top + 14, x, band_top + 14 + BAND_H, col);
        for (size_t p = 0; p < c->npanels; p++) {
            double top = first_panel + (double)p * (PANEL_H + PANEL_GAP);
            nd_strbuf_addf(&sb,
                           "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\" "
                           "stroke-dasharray=\"6,3\"/>\n",
                           x, top, x, top + PANEL_H, col);
        }
        row = (x - last_x < 150) ? row + 1 : 0;
        last_x = x;
        double ly = first_panel + 14 + (row % 6) * 13.0;
        bool right = x > ML + PLOT_W - 200;
        nd_strbuf_addf(&sb, "<text x=\"%.1f\" y=\"%.1f\" class=\"ml\" fill=\"%s\" text-anchor=\"%s\">",
                       right ? x - 5 : x + 5, ly, col, right ? "end" : "start");
        nd_xml_text(&sb, m->label);
        char tb[32];
        nd_fmt_time(m->t, xm.t1 - xm.t0, tb, sizeof tb);
        nd_strbuf_addf(&sb, " @ %s</text>\n", tb);
    }
    nd_strbuf_adds(&sb, "</svg>\n");
    return nd_strbuf_detach(&sb, len);
}
