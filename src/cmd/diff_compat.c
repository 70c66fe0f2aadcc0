/* Judges every snapshot given to diff against the compatibility tables and
 * merges the answers across files: a pair that is wrong on node-07 only is
 * the outlier's incompatible pair, one wrong everywhere is named once for
 * all nodes. */
#include "cmd/diff_compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "probe/ascend_install.h"
#include "probe/compat_stack.h"

/* The string at a dotted path of objects, or NULL. */
static const char *nd_jpath(const json_t *o, const char *path)
{
    char key[64];
    const char *p = path;
    while (o && *p) {
        size_t n = strcspn(p, ".");
        if (n >= sizeof key)
            return NULL;
        memcpy(key, p, n);
        key[n] = '\0';
        o = json_object_get(o, key);
        p += n + (p[n] == '.');
    }
    return json_string_value(o);
}

void nd_diff_compat_judge(const json_t *snap, struct nd_findings *out)
{
    char driver_cuda[16] = "";
    const json_t *layer = json_object_get(snap, "device_layer");
    size_t i;
    const json_t *l;
    json_array_foreach (layer, i, l) {
        json_int_t v = json_integer_value(json_object_get(l, "cuda_driver_version"));
        if (v > 0 && v < 1000000)
            snprintf(driver_cuda, sizeof driver_cuda, "%d.%d", (int)(v / 1000), (int)(v % 1000) / 10);
    }
    struct nd_version_set v = {
        .torch = nd_jpath(snap, "facts.python.packages.torch.version"),
        .torch_npu = nd_jpath(snap, "facts.python.packages.torch_npu.version"),
        .torch_cuda = nd_jpath(snap, "facts.python.packages.torch.cuda"),
        .python = nd_jpath(snap, "facts.python.version"),
        .cann = nd_jpath(snap, "facts.ascend.cann.version"),
        .npu_driver = nd_jpath(snap, "facts.ascend.driver.version"),
        .nvidia_driver = nd_jpath(snap, "facts.nvidia.driver_version"),
        .driver_cuda = driver_cuda,
        .cuda_toolkit = nd_jpath(snap, "facts.nvidia.cuda_toolkit"),
    };
    struct nd_findings all = ND_FINDINGS_INIT;
    nd_compat_judge_set(&v, &all);
    /* The node's own runtime statement of the driver it needs, as check judges it. */
    const char *req = nd_jpath(snap, "facts.ascend.cann.required_driver_ascendhal_version");
    const char *hal = nd_jpath(snap, "facts.ascend.driver.ascendhal_version");
    char min[64];
    if (req && hal && nd_ascend_req_hal_min(req, min, sizeof min) && nd_version_cmp(hal, min) < 0) {
        struct nd_finding *f = nd_findings_add(&all, "ascend.cann-driver-hal", ND_CAT_VERSION_MISMATCH, ND_SEV_ERROR,
                                               "CANN %s needs driver HAL %s or newer, but driver %s has HAL %s",
                                               v.cann ? v.cann : "?", min, v.npu_driver ? v.npu_driver : "?", hal);
        nd_finding_add_evidence(f, NULL, 0, "required_driver_ascendhal_version=%s, ascendhal_version=%s", req, hal);
        f->confidence = ND_CONF_HIGH;
        nd_finding_set_cause(f, "The toolkit's runtime was built against a newer driver interface than the node's "
                                "driver offers.");
        nd_finding_add_fix(f, "upgrade this node's NPU driver and firmware to the Ascend HDK published with CANN %s",
                           v.cann ? v.cann : "this CANN");
    }
    for (size_t k = 0; k < all.n; k++)
        if (all.v[k]->severity > ND_SEV_INFO)
            nd_findings_add_copy(out, all.v[k]);
    nd_findings_release(&all);
}

struct nd_compat_group {
    const struct nd_finding *f; /* the first file's finding */
    struct nd_strbuf labels;
    size_t nfiles;
    size_t *files;
};

void nd_diff_compat_merge(const struct nd_diff *d, const struct nd_findings *per_file, struct nd_findings *out)
{
    size_t nfiles = nd_diff_nfiles(d), ng = 0;
    struct nd_compat_group *g = NULL;
    for (size_t i = 0; i < nfiles; i++)
        for (size_t k = 0; k < per_file[i].n; k++) {
            const struct nd_finding *f = per_file[i].v[k];
            size_t j = 0;
            while (j < ng && !(strcmp(g[j].f->id, f->id) == 0 && strcmp(g[j].f->title, f->title) == 0))
                j++;
            if (j == ng) {
                g = nd_xrealloc(g, (ng + 1) * sizeof *g);
                g[ng].f = f;
                nd_strbuf_init(&g[ng].labels);
                g[ng].nfiles = 0;
                g[ng].files = NULL;
                ng++;
            }
            g[j].files = nd_xrealloc(g[j].files, (g[j].nfiles + 1) * sizeof *g[j].files);
            g[j].files[g[j].nfiles++] = i;
            if (g[j].nfiles <= 3)
                nd_strbuf_addf(&g[j].labels, "%s%s", g[j].nfiles > 1 ? ", " : "", nd_diff_label(d, i));
        }
    for (size_t j = 0; j < ng; j++) {
        char who[256];
        if (g[j].nfiles == nfiles && nfiles > 1)
            snprintf(who, sizeof who, "every node");
        else if (g[j].nfiles > 3)
            snprintf(who, sizeof who, "%s and %zu more", g[j].labels.buf, g[j].nfiles - 3);
        else
            snprintf(who, sizeof who, "%s", g[j].labels.buf);
        const struct nd_finding *f = g[j].f;
        struct nd_finding *m = nd_findings_add(out, f->id, f->category, f->severity, "%s: %s", who, f->title);
        m->confidence = f->confidence;
        if (f->cause)
            nd_finding_set_cause(m, "%s", f->cause);
        for (size_t x = 0; x < f->nfix; x++)
            nd_finding_add_fix(m, "%s", f->fix[x]);
        for (size_t x = 0; x < f->nevidence; x++)
            nd_finding_add_evidence(m, nd_diff_file(d, g[j].files[0]), 0, "%s", f->evidence[x].text);
        for (size_t x = 1; x < g[j].nfiles && x < 8; x++)
            nd_finding_add_evidence(m, nd_diff_file(d, g[j].files[x]), 0, "the same pair");
        nd_strbuf_release(&g[j].labels);
        free(g[j].files);
    }
    free(g);
}
