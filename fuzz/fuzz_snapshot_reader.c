/* Fuzz target for the snapshot reader (nd_snapshot_parse) and everything
 * diff does with what it accepts: flattening, comparing against a fixed
 * snapshot and against itself, both reporters, and redaction. Any bytes:
 * never a crash, a leak or a hang; a document compared with itself has no
 * differences. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "diff/diff.h"
#include "core/redact.h"
#include "snapshot/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char nd_base[] =
    "{\"schema\":\"npu-doctor/1\",\"command\":\"snapshot\",\"snapshot_version\":1,"
    "\"identity\":{\"hostname\":\"n0\",\"node_name\":\"n0\",\"time\":\"t\"},"
    "\"facts\":{\"ascend\":{\"cann\":{\"version\":\"8.0.0\"}}},\"devices\":[{\"vendor\":\"ascend\",\"index\":0}],"
    "\"device_files\":[\"/dev/davinci0\"],\"env\":{\"PATH\":\"/usr/bin:/bin\",\"HF_TOKEN\":\"<redacted:00000000>\"}}";

static void nd_compare(const json_t *a, const json_t *b, size_t nfiles)
{
    struct nd_diff *d = nd_diff_new(nfiles);
    nd_diff_add(d, 0, "a.json", a);
    for (size_t i = 1; i < nfiles; i++)
        nd_diff_add(d, i, i == 1 ? "b.json" : "c.json", b);
    struct nd_diff_result r;
    nd_diff_compute(d, true, &r);
    FILE *sink = fopen("/dev/null", "w");
    if (sink) {
        nd_diff_print_text(d, &r, sink, false);
        fclose(sink);
    }
    json_t *j = nd_diff_to_json(d, &r);
    nd_redact_json(j);
    json_decref(j);
    nd_diff_result_release(&r);
    nd_diff_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *doc = NULL;
    struct nd_error err;
    if (nd_snapshot_parse((const char *)data, size, "fuzz.json", &doc, &err) < 0) {
        /* A refusal is one line naming the file. */
        if (!strstr(err.msg, "fuzz.json") || strchr(err.msg, '\n'))
            __builtin_trap();
        return 0;
    }
    /* The same document twice: nothing differs. */
    struct nd_diff *d = nd_diff_new(2);
    nd_diff_add(d, 0, "a.json", doc);
    nd_diff_add(d, 1, "b.json", doc);
    struct nd_diff_result r;
    nd_diff_compute(d, true, &r);
    if (r.n != 0)
        __builtin_trap();
    nd_diff_result_release(&r);
    nd_diff_free(d);

    json_t *base = NULL;
    if (nd_snapshot_parse(nd_base, strlen(nd_base), "base.json", &base, &err) == 0) {
        nd_compare(base, doc, 2);
        nd_compare(base, doc, 3);
        json_decref(base);
    }
    nd_redact_json(doc);
    json_decref(doc);
    return 0;
}
