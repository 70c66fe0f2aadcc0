/* check --report-issue: one fenced Markdown block to paste into a GitHub
 * issue. It holds what `python -m torch.utils.collect_env` shows (OS,
 * kernel, glibc, CPU, Python, torch, CUDA toolkit, cuDNN, ROCm) and what
 * only npu-doctor knows (Ascend driver/firmware/CANN, devices, findings,
 * the vendor stack's variables). It reads the report's facts by name, so it
 * needs no probe; every line is redacted on the way out. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/redact.h"
#include "core/array.h"
#include "core/report.h"
#include "core/strbuf.h"

/* A value shown in full up to this many characters: the block must stay short. */
#define ND_ISSUE_MAX_VALUE 240

/* Prints one line, redacted, with backticks replaced so nothing from the
 * machine can close the fence, and controls replaced so it stays one line. */
static void nd_issue_line(FILE *fp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void nd_issue_line(FILE *fp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    nd_strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    char *r = nd_redact_text(sb.buf);
    for (char *p = r; *p; p++)
        if (*p == '`')
            *p = '\'';
        else if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    fputs(r, fp);
    fputc('\n', fp);
    free(r);
    nd_strbuf_release(&sb);
}

static const json_t *nd_at(const json_t *o, const char *path)
{
    /* "a.b.c" into nested objects. */
    char key[64];
    while (o && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        o = json_object_get(o, key);
        path += n + (dot ? 1 : 0);
    }
    return o;
}

static const char *nd_str_at(const json_t *o, const char *path)
{
    const json_t *v = nd_at(o, path);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static const char *nd_or(const char *s, const char *def)
{
    return s && *s ? s : def;
}

static void nd_fmt_size(json_int_t b, char *out, size_t size)
{
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    int i = 0;
    while (v >= 1024 && i < 4) {
        v /= 1024;
        i++;
    }
    snprintf(out, size, i ? "%.1f %s" : "%.0f %s", v, u[i]);
}

static void nd_issue_python(FILE *fp, const json_t *py)
{
    const char *full = nd_str_at(py, "version_full");
    nd_issue_line(fp, "Python:        %s (%s)", nd_or(full, nd_or(nd_str_at(py, "version"), "not found")),
                  nd_or(nd_str_at(py, "executable"), nd_or(nd_str_at(py, "path"), "-")));
    static const char *const pkgs[] = {"torch", "torch_npu", "transformers", "accelerate", "deepspeed", "numpy"};
    const json_t *p = json_object_get(py, "packages");
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    for (size_t i = 0; i < ND_ARRAY_SIZE(pkgs); i++) {
        const char *v = nd_str_at(json_object_get(p, pkgs[i]), "version");
        if (v)
            nd_strbuf_addf(&sb, "%s%s %s", sb.len ? ", " : "", pkgs[i], v);
    }
    const char *cuda = nd_str_at(json_object_get(p, "torch"), "cuda");
    if (json_object_get(p, "torch") && json_is_object(json_object_get(p, "torch")))
        nd_strbuf_addf(&sb, " (torch CUDA %s)", nd_or(cuda, "none"));
    nd_issue_line(fp, "Packages:      %s", sb.len ? sb.buf : "no torch stack found");
    nd_strbuf_release(&sb);
}

static void nd_issue_toolkits(FILE *fp, const json_t *f)
{
    const json_t *tk = json_object_get(f, "toolkits");
    const char *cv = nd_str_at(tk, "cuda_toolkit.version");
    const char *nv = nd_str_at(tk, "cuda_toolkit.nvcc_version");
    if (cv || nv)
        nd_issue_line(fp, "CUDA toolkit:  %s%s%s%s%s", nd_or(cv, "-"), cv ? " in " : "",
                      cv ? nd_or(nd_str_at(tk, "cuda_toolkit.home"), "?") : "", nv ? ", nvcc " : "", nv ? nv : "");
    else
        nd_issue_line(fp, "CUDA toolkit:  -");
    nd_issue_line(fp, "cuDNN:         %s", nd_or(nd_str_at(tk, "cudnn.version"), "-"));
    const json_t *rocm = json_object_get(tk, "rocm");
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    size_t i;
    const json_t *r;
    json_array_foreach (rocm, i, r)
        nd_strbuf_addf(&sb, "%s%s (%s)", i ? ", " : "", nd_or(nd_str_at(r, "version"), "?"),
                       nd_or(nd_str_at(r, "path"), "?"));
    nd_issue_line(fp, "ROCm:          %s", sb.len ? sb.buf : "-");
    nd_strbuf_release(&sb);
    nd_issue_line(fp, "NVIDIA driver: %s", nd_or(nd_str_at(f, "nvidia.driver_version"), "-"));
    const char *ad = nd_str_at(f, "ascend.driver.version");
    const char *fw = nd_str_at(f, "ascend.firmware.version");
    const char *cann = nd_str_at(f, "ascend.cann.version");
    nd_issue_line(fp, "Ascend driver: %s, firmware %s", nd_or(ad, "-"), nd_or(fw, "-"));
    nd_issue_line(fp, "CANN toolkit:  %s%s%s", nd_or(cann, "-"), cann ? " in " : "",
                  cann ? nd_or(nd_str_at(f, "ascend.cann.home"), "?") : "");
}

static void nd_issue_devices(FILE *fp, const json_t *f)
{
    const json_t *vendors = nd_at(f, "devices.vendors");
    size_t n = 0, i;
    const json_t *v;
    json_array_foreach (vendors, i, v) {
        const json_t *devs = json_object_get(v, "devices");
        size_t nd = json_array_size(devs);
        if (!nd)
            continue;
        const json_t *d0 = json_array_get(devs, 0);
        char mem[32] = "";
        const json_t *mt = json_object_get(d0, "memory_total_bytes");
        if (json_is_integer(mt))
            nd_fmt_size(json_integer_value(mt), mem, sizeof mem);
        nd_issue_line(fp, "Devices:       %zu x %s %s%s%s", nd, nd_or(nd_str_at(v, "vendor"), "?"),
                      nd_or(nd_str_at(d0, "name"), "?"), mem[0] ? ", " : "", mem);
        n++;
    }
    if (!n)
        nd_issue_line(fp, "Devices:       %s", vendors ? "none answered" : "not queried (level 1; --level 2 asks them)");
}

static void nd_issue_env(FILE *fp, const json_t *f)
{
    const json_t *vars = nd_at(f, "environment.variables");
    if (!json_is_object(vars) || json_object_size(vars) == 0) {
        nd_issue_line(fp, "Environment:   no vendor variables set");
        return;
    }
    nd_issue_line(fp, "Environment:");
    const char *k;
    const json_t *v;
    json_object_foreach ((json_t *)vars, k, v) {
        const char *s = json_string_value(v);
        if (!s)
            continue;
        char *r = nd_redact_value(k, s);
        size_t len = strlen(r);
        if (len > ND_ISSUE_MAX_VALUE)
            nd_issue_line(fp, "  %s=%.*s... (%zu more characters)", k, ND_ISSUE_MAX_VALUE, r, len - ND_ISSUE_MAX_VALUE);
        else
            nd_issue_line(fp, "  %s=%s", k, r);
        free(r);
    }
}

void nd_report_print_issue(const struct nd_report *rep, FILE *fp, const char *version)
{
    const json_t *f = rep->facts;
    fputs("<!-- npu-doctor check --report-issue: secrets are redacted; read it before you paste -->\n", fp);
    fputs("```text\n", fp);
    nd_issue_line(fp, "npu-doctor %s, check level %lld", version, (long long)json_integer_value(nd_at(f, "check.level")));
    const json_t *h = json_object_get(f, "host");
    nd_issue_line(fp, "OS:            %s", nd_or(nd_str_at(h, "os"), "unknown"));
    nd_issue_line(fp, "Kernel:        %s %s", nd_or(nd_str_at(h, "kernel"), "?"), nd_or(nd_str_at(h, "machine"), ""));
    nd_issue_line(fp, "glibc:         %s", nd_or(nd_str_at(h, "glibc"), "-"));
    const json_t *cpus = json_object_get(h, "cpus");
    nd_issue_line(fp, "CPU:           %s%s%s%s, %lld CPUs", nd_or(nd_str_at(h, "cpu_model"), "unknown"),
                  nd_str_at(h, "cpu_id") ? " (" : "", nd_or(nd_str_at(h, "cpu_id"), ""),
                  nd_str_at(h, "cpu_id") ? ")" : "", (long long)json_integer_value(cpus));
    char mem[32] = "?";
    const json_t *mt = json_object_get(h, "memory_total_bytes");
    if (json_is_integer(mt))
        nd_fmt_size(json_integer_value(mt), mem, sizeof mem);
    const char *ck = nd_str_at(h, "container_kind");
    nd_issue_line(fp, "Memory:        %s%s%s", mem, ck ? ", in a container: " : "", ck ? ck : "");
    nd_issue_python(fp, json_object_get(f, "python"));
    nd_issue_toolkits(fp, f);
    nd_issue_devices(fp, f);
    size_t shown = 0;
    for (size_t i = 0; i < rep->findings.n; i++) {
        const struct nd_finding *x = rep->findings.v[i];
        if (x->severity == ND_SEV_INFO)
            continue;
        if (shown++ == 0)
            nd_issue_line(fp, "Findings:");
        nd_issue_line(fp, "  %-7s %s: %s", nd_severity_name(x->severity), x->id, x->title);
    }
    if (!shown)
        nd_issue_line(fp, "Findings:      none above info");
    nd_issue_env(fp, f);
    fputs("```\n", fp);
}
