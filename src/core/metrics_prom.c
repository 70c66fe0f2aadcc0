/* node_exporter textfile output for run/watch (see metrics_prom.h). Every
 * category x severity counter is always present, so alert rules using
 * increase() see the zero before the first finding. */
#include "core/metrics_prom.h"

#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/fileio.h"
#include "core/strbuf.h"
#include "core/termsafe.h"

static const char *const nd_prom_categories[] = {
    ND_CAT_ENV_NOT_LOADED, ND_CAT_VERSION_MISMATCH, ND_CAT_NO_DEVICE,   ND_CAT_UNSUPPORTED_OP,
    ND_CAT_DEVICE_OOM,     ND_CAT_HOST_OOM,         ND_CAT_DISTRIBUTED, ND_CAT_NUMERICS,
    ND_CAT_DEVICE_FAULT,   ND_CAT_CPU_FALLBACK,     ND_CAT_INPUT_BOUND, ND_CAT_HANG,
    ND_CAT_CONFIG,
};

/* Label values escape backslash, double quote and newline, and must be
 * UTF-8: a byte that is not becomes U+FFFD. */
static void nd_prom_label(struct nd_strbuf *sb, const char *v)
{
    const unsigned char *u = (const unsigned char *)v;
    size_t len = strlen(v);
    for (size_t i = 0; i < len;) {
        size_t n = nd_utf8_valid_seq(u + i, len - i);
        if (n == 0) {
            nd_strbuf_adds(sb, "\xEF\xBF\xBD");
            i++;
            continue;
        }
        if (n == 1 && (u[i] == '\\' || u[i] == '"'))
            nd_strbuf_addc(sb, '\\');
        if (n == 1 && u[i] == '\n')
            nd_strbuf_adds(sb, "\\n");
        else
            nd_strbuf_add(sb, u + i, n);
        i += n;
    }
}

static void nd_prom_dev_labels(struct nd_strbuf *sb, const struct nd_prom_device *d)
{
    nd_strbuf_addf(sb, "{device=\"%d\",vendor=\"", d->index);
    nd_prom_label(sb, d->vendor);
    nd_strbuf_adds(sb, "\"}");
}

/* The job's labels, "{command=\"...\",pid=\"...\"}", or nothing. */
static void nd_prom_job_labels(struct nd_strbuf *sb, const struct nd_prom_snapshot *m)
{
    size_t shown = 0;
    for (size_t i = 0; i < m->nlabels; i++) {
        if (!m->label_names[i] || !m->label_values[i])
            continue;
        nd_strbuf_adds(sb, shown++ ? "," : "{");
        nd_strbuf_adds(sb, m->label_names[i]);
        nd_strbuf_adds(sb, "=\"");
        nd_prom_label(sb, m->label_values[i]);
        nd_strbuf_addc(sb, '"');
    }
    if (shown)
        nd_strbuf_addc(sb, '}');
}

char *nd_prom_render(const struct nd_prom_snapshot *m, size_t *len)
{
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    if (m->job_known) {
        nd_strbuf_adds(&sb, "# HELP npu_doctor_job_running 1 while the watched job runs, 0 once it ended.\n"
                            "# TYPE npu_doctor_job_running gauge\n");
        nd_strbuf_adds(&sb, "npu_doctor_job_running");
        nd_prom_job_labels(&sb, m);
        nd_strbuf_addf(&sb, " %d\n", m->running ? 1 : 0);
        if (m->last_sample_unix_s > 0) {
            nd_strbuf_adds(&sb, "# HELP npu_doctor_job_last_sample_timestamp_seconds When the job was last sampled "
                                "(Unix time).\n"
                                "# TYPE npu_doctor_job_last_sample_timestamp_seconds gauge\n");
            nd_strbuf_adds(&sb, "npu_doctor_job_last_sample_timestamp_seconds");
            nd_prom_job_labels(&sb, m);
            nd_strbuf_addf(&sb, " %.0f\n", m->last_sample_unix_s);
        }
    }
    nd_strbuf_adds(&sb, "# HELP npu_doctor_job_cpu_cores CPU cores used by the watched job's process tree.\n"
                        "# TYPE npu_doctor_job_cpu_cores gauge\n");
    nd_strbuf_adds(&sb, "npu_doctor_job_cpu_cores");
    nd_prom_job_labels(&sb, m);
    nd_strbuf_addf(&sb, " %.3f\n", m->job_known && !m->running ? 0.0 : m->cpu_cores);
    nd_strbuf_adds(&sb, "# HELP npu_doctor_job_on_device 1 when a process of the job holds a device.\n"
                        "# TYPE npu_doctor_job_on_device gauge\n");
    nd_strbuf_adds(&sb, "npu_doctor_job_on_device");
    nd_prom_job_labels(&sb, m);
    nd_strbuf_addf(&sb, " %d\n", m->on_device && !(m->job_known && !m->running) ? 1 : 0);
    nd_strbuf_adds(&sb, "# HELP npu_doctor_device_utilization_ratio Device utilisation, 0-1.\n"
                        "# TYPE npu_doctor_device_utilization_ratio gauge\n");
    for (size_t i = 0; i < m->ndev; i++)
        if (m->dev[i].util_valid) {
            nd_strbuf_adds(&sb, "npu_doctor_device_utilization_ratio");
            nd_prom_dev_labels(&sb, &m->dev[i]);
            nd_strbuf_addf(&sb, " %.3f\n", m->dev[i].util_ratio);
        }
    nd_strbuf_adds(&sb, "# HELP npu_doctor_device_memory_used_bytes Device memory in use.\n"
                        "# TYPE npu_doctor_device_memory_used_bytes gauge\n");
    for (size_t i = 0; i < m->ndev; i++)
        if (m->dev[i].mem_valid) {
            nd_strbuf_adds(&sb, "npu_doctor_device_memory_used_bytes");
            nd_prom_dev_labels(&sb, &m->dev[i]);
            nd_strbuf_addf(&sb, " %llu\n", (unsigned long long)m->dev[i].mem_used_bytes);
        }
    nd_strbuf_adds(&sb, "# HELP npu_doctor_findings_total Findings reported so far, by category and severity.\n"
                        "# TYPE npu_doctor_findings_total counter\n");
    for (size_t c = 0; c < ND_ARRAY_SIZE(nd_prom_categories); c++)
        for (int sev = ND_SEV_ERROR; sev >= ND_SEV_INFO; sev--) {
            long n = 0;
            for (size_t i = 0; m->findings && i < m->findings->n; i++)
                if ((int)m->findings->v[i]->severity == sev &&
                    strcmp(m->findings->v[i]->category, nd_prom_categories[c]) == 0)
                    n++;
            nd_strbuf_addf(&sb, "npu_doctor_findings_total{category=\"%s\",severity=\"%s\"} %ld\n",
                           nd_prom_categories[c], nd_severity_name((enum nd_severity)sev), n);
        }
    return nd_strbuf_detach(&sb, len);
}

int nd_prom_write(const char *path, const struct nd_prom_snapshot *m, struct nd_error *err)
{
    size_t len;
    char *text = nd_prom_render(m, &len);
    int rc = nd_write_file_atomic(path, text, len, err);
    free(text);
    return rc;
}
