/* The built-in log-line table: a few lines worth an immediate word while the
 * job runs, used when the knowledge base (kb/) has no rule for a line. Also
 * notes the lines other detectors use as evidence (operator fallbacks,
 * DataLoader bus errors). */
#include <stdio.h>
#include <string.h>

#include "monitor/detect.h"

struct nd_logline_rule {
    const char *needle;
    const char *id;
    const char *category;
    enum nd_severity severity;
    const char *title;
    const char *fix;
};

static const struct nd_logline_rule nd_loglines[] = {
    {"will fall back to run on the CPU", "log.op-fallback", ND_CAT_UNSUPPORTED_OP, ND_SEV_WARNING,
     "An operator falls back to run on the CPU",
     "a newer torch_npu/CANN may support the operator on the NPU; otherwise avoid it in the hot loop"},
    {"CUDA out of memory", "log.cuda-oom", ND_CAT_DEVICE_OOM, ND_SEV_ERROR, "The GPU ran out of memory",
     "lower the batch size, or use gradient accumulation / mixed precision"},
    {"NPU out of memory", "log.npu-oom", ND_CAT_DEVICE_OOM, ND_SEV_ERROR, "The NPU ran out of memory",
     "lower the batch size, or use gradient accumulation / mixed precision"},
    {"is killed by signal: Bus error", "log.dataloader-bus-error", ND_CAT_HOST_OOM, ND_SEV_ERROR,
     "A DataLoader worker died from a bus error: /dev/shm is too small",
     "docker run --shm-size=16g ... (or DataLoader(num_workers=0))"},
    {"Watchdog caught collective operation timeout", "log.collective-timeout", ND_CAT_DISTRIBUTED, ND_SEV_ERROR,
     "A collective operation timed out", "check that every rank is alive; see the first rank that failed"},
};

static bool nd_has(const char *line, size_t len, const char *needle)
{
    return memmem(line, len, needle, strlen(needle)) != NULL;
}

int nd_loglines_match(const char *line, size_t len, const char *source, long lineno, struct nd_findings *out)
{
    int n = 0;
    for (size_t i = 0; i < sizeof nd_loglines / sizeof *nd_loglines; i++) {
        const struct nd_logline_rule *r = &nd_loglines[i];
        if (!nd_has(line, len, r->needle))
            continue;
        struct nd_finding *f = nd_findings_add(out, r->id, r->category, r->severity, "%s", r->title);
        nd_finding_add_evidence(f, source, lineno, "%.*s", (int)(len > 400 ? 400 : len), line);
        nd_finding_add_fix(f, "%s", r->fix);
        f->confidence = ND_CONF_MEDIUM;
        n++;
    }
    return n;
}

void nd_loglines_note(const char *line, size_t len, struct nd_detect_context *ctx)
{
    if (nd_has(line, len, "will fall back to run on the CPU")) {
        if (ctx->op_fallback_lines++ == 0)
            snprintf(ctx->op_fallback_example, sizeof ctx->op_fallback_example, "%.*s",
                     (int)(len > 200 ? 200 : len), line);
    }
    if (!ctx->dataloader_bus_error &&
        ((nd_has(line, len, "DataLoader worker") && nd_has(line, len, "Bus error")) ||
         nd_has(line, len, "insufficient shared memory (shm)"))) {
        ctx->dataloader_bus_error = true;
        snprintf(ctx->dataloader_line, sizeof ctx->dataloader_line, "%.*s", (int)(len > 200 ? 200 : len), line);
    }
}
