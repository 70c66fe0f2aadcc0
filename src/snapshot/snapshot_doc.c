/* The snapshot's environment section (redacted, sorted) and the short text
 * summary of a whole snapshot. */
#include "snapshot/snapshot.h"

#include <stdlib.h>
#include <string.h>

#include "core/fileio.h"
#include "core/json_util.h"
#include "core/redact.h"
#include "core/strbuf.h"
#include "core/termsafe.h"

struct nd_env_pair {
    const char *name, *value;
};

static int nd_cmp_pair(const void *a, const void *b)
{
    return strcmp(((const struct nd_env_pair *)a)->name, ((const struct nd_env_pair *)b)->name);
}

json_t *nd_snapshot_env_json(const struct nd_environ *env, size_t *nredacted)
{
    /* Sorted by name, so two snapshots read side by side line up. */
    struct nd_env_pair *pairs = nd_xcalloc(env->n ? env->n : 1, sizeof *pairs);
    for (size_t i = 0; i < env->n; i++)
        pairs[i] = (struct nd_env_pair){env->names[i], env->values[i]};
    qsort(pairs, env->n, sizeof *pairs, nd_cmp_pair);
    json_t *o = json_object();
    size_t changed = 0;
    for (size_t i = 0; i < env->n; i++) {
        char *r = nd_redact_value(pairs[i].name, pairs[i].value);
        if (strcmp(r, pairs[i].value) != 0)
            changed++;
        json_object_set_new(o, pairs[i].name, nd_json_str(r));
        free(r);
    }
    free(pairs);
    if (nredacted)
        *nredacted = changed;
    return o;
}

/* "value" of a JSON scalar for the summary, or "?" when absent. */
static const char *nd_str_or(const json_t *o, const char *key, const char *dflt)
{
    const char *s = nd_json_get_str(o, key);
    return s ? s : dflt;
}

static void nd_print_limit(struct nd_strbuf *sb, const json_t *limits, const char *key, const char *label, bool bytes)
{
    json_t *v = json_object_get(limits, key);
    if (!v)
        return;
    if (sb->len)
        nd_strbuf_adds(sb, ", ");
    if (json_is_integer(v) && bytes) {
        char b[32];
        nd_format_bytes((unsigned long long)json_integer_value(v), b, sizeof b);
        nd_strbuf_addf(sb, "%s %s", label, b);
    } else if (json_is_integer(v)) {
        nd_strbuf_addf(sb, "%s %lld", label, (long long)json_integer_value(v));
    } else {
        nd_strbuf_addf(sb, "%s %s", label, nd_str_or(limits, key, "?"));
    }
}

/* Strings of a snapshot are another host's (or user's) bytes: the text
 * summary shows them escaped (core/termsafe.h). The copies live until the
 * summary is printed. */
struct nd_safe_pool {
    char *v[64];
    size_t n;
};

static void nd_snapshot_print_text_safe(const json_t *doc, FILE *fp, bool color, struct nd_safe_pool *pool);

static const char *nd_safe(struct nd_safe_pool *pool, const char *s)
{
    if (pool->n == sizeof pool->v / sizeof *pool->v)
        return "?";
    return pool->v[pool->n++] = nd_term_printable(s);
}

void nd_snapshot_print_text(const json_t *doc, FILE *fp, bool color)
{
    struct nd_safe_pool pool = {.n = 0};
    nd_snapshot_print_text_safe(doc, fp, color, &pool);
    for (size_t i = 0; i < pool.n; i++)
        free(pool.v[i]);
}

static void nd_snapshot_print_text_safe(const json_t *doc, FILE *fp, bool color, struct nd_safe_pool *pool)
{
    const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
    json_t *id = json_object_get(doc, "identity");
    fprintf(fp, "%ssnapshot of %s%s at %s", bold, nd_safe(pool, nd_str_or(id, "hostname", "?")), reset,
            nd_safe(pool, nd_str_or(id, "time", "?")));
    json_t *rank = json_object_get(id, "rank");
    if (json_is_integer(rank))
        fprintf(fp, ", rank %lld", (long long)json_integer_value(rank));
    json_t *k8s = json_object_get(id, "kubernetes");
    if (k8s)
        fprintf(fp, ", pod %s/%s", nd_safe(pool, nd_str_or(k8s, "namespace", "?")),
                nd_safe(pool, nd_str_or(k8s, "pod", "?")));
    fputc('\n', fp);

    /* One line per vendor: "8 x 910B3, driver 24.1.rc2", or why none. */
    json_t *devices = json_object_get(doc, "devices");
    json_t *layer = json_object_get(doc, "device_layer");
    struct nd_strbuf sb = ND_STRBUF_INIT;
    size_t i;
    json_t *l;
    json_array_foreach (layer, i, l) {
        const char *vendor = nd_str_or(l, "vendor", "?");
        json_int_t count = json_integer_value(json_object_get(l, "device_count"));
        if (count > 0) {
            const char *name = "?";
            size_t j;
            json_t *d;
            json_array_foreach (devices, j, d)
                if (strcmp(nd_str_or(d, "vendor", ""), vendor) == 0) {
                    name = nd_safe(pool, nd_str_or(d, "name", "?"));
                    break;
                }
            fprintf(fp, "  %-10s %lld x %s", nd_safe(pool, vendor), (long long)count, name);
            const char *drv = nd_json_get_str(l, "driver_version");
            if (drv)
                fprintf(fp, ", driver %s", nd_safe(pool, drv));
            fputc('\n', fp);
        } else {
            /* The error's first clause is enough here; the JSON has it all. */
            const char *e = nd_safe(pool, nd_str_or(l, "error", "none found"));
            size_t n = strcspn(e, "(:;");
            while (n > 0 && e[n - 1] == ' ')
                n--;
            fprintf(fp, "  %-10s no devices (%.*s)\n", nd_safe(pool, vendor), (int)n, e);
        }
    }

    json_t *files = json_object_get(doc, "device_files");
    fprintf(fp, "  %-10s %zu under /dev\n", "dev files", json_array_size(files));

    json_t *facts = json_object_get(doc, "facts");
    const char *group;
    json_t *g;
    json_object_foreach (facts, group, g) {
        if (sb.len)
            nd_strbuf_adds(&sb, ", ");
        nd_strbuf_addf(&sb, "%s (%zu)", nd_safe(pool, group),
                       json_is_object(g) ? json_object_size(g) : json_array_size(g));
    }
    fprintf(fp, "  %-10s %s\n", "facts", sb.len ? sb.buf : "none gathered");
    nd_strbuf_reset(&sb);

    json_t *py = json_object_get(doc, "python");
    json_t *pk = json_object_get(py, "packages");
    if (nd_json_get_str(py, "executable")) {
        fprintf(fp, "  %-10s %s %s, %zu packages", "python", nd_safe(pool, nd_str_or(py, "executable", "?")),
                nd_safe(pool, nd_str_or(py, "version", "?")), json_object_size(pk));
        static const char *const key_pkgs[] = {"torch", "torch_npu", "torch-npu", "transformers", "deepspeed"};
        for (size_t k = 0; k < sizeof key_pkgs / sizeof *key_pkgs; k++) {
            const char *v = nd_json_get_str(pk, key_pkgs[k]);
            if (v)
                fprintf(fp, ", %s %s", key_pkgs[k], nd_safe(pool, v));
        }
        fputc('\n', fp);
    } else {
        fprintf(fp, "  %-10s %s\n", "python", nd_safe(pool, nd_str_or(py, "error", "not found")));
    }

    json_t *limits = json_object_get(doc, "limits");
    nd_print_limit(&sb, limits, "shm_bytes", "/dev/shm", true);
    nd_print_limit(&sb, limits, "memlock_bytes", "memlock", true);
    nd_print_limit(&sb, limits, "nofile", "nofile", false);
    fprintf(fp, "  %-10s %s\n", "limits", sb.len ? nd_safe(pool, sb.buf) : "unknown");
    nd_strbuf_release(&sb);

    json_t *env = json_object_get(doc, "env");
    size_t nred = 0;
    const char *name;
    json_t *v;
    json_object_foreach (env, name, v) {
        const char *s = json_string_value(v);
        if (s && strstr(s, "<redacted:"))
            nred++;
    }
    fprintf(fp, "  %-10s %zu variables, %zu with secrets redacted\n", "env", json_object_size(env), nred);

    json_t *findings = json_object_get(doc, "findings");
    size_t nerr = 0, nwarn = 0;
    json_t *f;
    json_array_foreach (findings, i, f) {
        const char *sev = nd_str_or(f, "severity", "");
        nerr += strcmp(sev, "error") == 0;
        nwarn += strcmp(sev, "warning") == 0;
    }
    fprintf(fp, "  %-10s %zu error%s, %zu warning%s%s\n", "findings", nerr, nerr == 1 ? "" : "s", nwarn,
            nwarn == 1 ? "" : "s", nerr + nwarn ? " ('npu-doctor check' explains them)" : "");
}
