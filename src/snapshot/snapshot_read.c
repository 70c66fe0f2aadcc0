/* Reading a snapshot back (for diff): the JSON, then the schema and version
 * checks, each failure as one line naming the file. Fuzzed by
 * fuzz/fuzz_snapshot_reader.c. */
#include "snapshot/snapshot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/fileio.h"
#include "core/json_envelope.h"

/* "npu-doctor/N" -> N, or -1 when the schema is not ours at all. */
static long nd_schema_number(const char *schema)
{
    static const char prefix[] = "npu-doctor/";
    if (strncmp(schema, prefix, sizeof prefix - 1) != 0)
        return -1;
    const char *p = schema + sizeof prefix - 1;
    char *end;
    errno = 0;
    long n = strtol(p, &end, 10);
    if (errno || end == p || *end != '\0' || n < 0)
        return -1;
    return n;
}

/* A value from the file, safe inside a one-line message: at most 32
 * characters, control characters as '?'. */
static const char *nd_shown(const char *s, char *buf, size_t size)
{
    size_t n = 0;
    for (; s && s[n] && n + 1 < size && n < 32; n++)
        buf[n] = ((unsigned char)s[n] < 0x20 || s[n] == 0x7f) ? '?' : s[n];
    buf[n] = '\0';
    return buf;
}

struct nd_section {
    const char *key;
    json_type type;
    const char *what;
};

static const struct nd_section nd_sections[] = {
    {"identity", JSON_OBJECT, "an object"},   {"facts", JSON_OBJECT, "an object"},
    {"env", JSON_OBJECT, "an object"},        {"python", JSON_OBJECT, "an object"},
    {"limits", JSON_OBJECT, "an object"},     {"devices", JSON_ARRAY, "an array"},
    {"device_layer", JSON_ARRAY, "an array"}, {"device_files", JSON_ARRAY, "an array"},
    {"findings", JSON_ARRAY, "an array"},
};

static int nd_snapshot_check(const json_t *doc, const char *name, struct nd_error *err)
{
    if (!json_is_object(doc))
        return nd_error_set(err, -EINVAL, "%s: not a snapshot (the JSON is not an object)", name);
    json_t *schema = json_object_get(doc, "schema");
    if (!json_is_string(schema))
        return nd_error_set(err, -EINVAL,
                            "%s: not a snapshot (no \"schema\" key; write one with 'npu-doctor snapshot')", name);
    char shown[40];
    long n = nd_schema_number(json_string_value(schema));
    if (n < 0)
        return nd_error_set(err, -EINVAL, "%s: not an npu-doctor document (schema \"%s\")", name,
                            nd_shown(json_string_value(schema), shown, sizeof shown));
    if (n > ND_JSON_SCHEMA_VERSION)
        return nd_error_set(
            err, -EPROTONOSUPPORT,
            "%s: schema npu-doctor/%ld is newer than this npu-doctor understands (%s); upgrade npu-doctor", name, n,
            ND_JSON_SCHEMA);
    if (n < 1)
        return nd_error_set(err, -EINVAL, "%s: unknown schema npu-doctor/%ld (this npu-doctor understands %s)", name, n,
                            ND_JSON_SCHEMA);
    const char *command = json_string_value(json_object_get(doc, "command"));
    if (!command || strcmp(command, "snapshot") != 0)
        return nd_error_set(err, -EINVAL, "%s: not a snapshot (command \"%s\"); write one with 'npu-doctor snapshot'",
                            name, nd_shown(command ? command : "?", shown, sizeof shown));
    json_t *ver = json_object_get(doc, "snapshot_version");
    if (ver && !json_is_integer(ver))
        return nd_error_set(err, -EINVAL, "%s: \"snapshot_version\" is not an integer", name);
    if (ver && json_integer_value(ver) > ND_SNAPSHOT_VERSION)
        return nd_error_set(err, -EPROTONOSUPPORT,
                            "%s: snapshot version %lld is newer than this npu-doctor understands (version %d); "
                            "upgrade npu-doctor",
                            name, (long long)json_integer_value(ver), ND_SNAPSHOT_VERSION);
    if (ver && json_integer_value(ver) < 1)
        return nd_error_set(err, -EINVAL, "%s: bad snapshot version %lld", name, (long long)json_integer_value(ver));
    for (size_t i = 0; i < sizeof nd_sections / sizeof *nd_sections; i++) {
        json_t *s = json_object_get(doc, nd_sections[i].key);
        if (s && json_typeof(s) != nd_sections[i].type)
            return nd_error_set(err, -EINVAL, "%s: \"%s\" is not %s", name, nd_sections[i].key, nd_sections[i].what);
    }
    return 0;
}

/* Every refusal is one line, whatever bytes the file or its name held. */
static int nd_one_line(struct nd_error *err, int rc)
{
    if (err)
        for (char *p = err->msg; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
    return rc;
}

int nd_snapshot_parse(const char *buf, size_t len, const char *name, json_t **doc, struct nd_error *err)
{
    *doc = NULL;
    if (len == 0)
        return nd_error_set(err, -EINVAL, "%s: empty file, not a snapshot", name);
    json_error_t jerr;
    json_t *d = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!d) {
        /* jansson says "premature end of input" for a cut-off file; say it plainly. */
        bool truncated = jerr.position >= (int)len || strstr(jerr.text, "end of") != NULL;
        return nd_one_line(err, nd_error_set(err, -EINVAL, "%s: %s: %s (line %d, column %d)", name,
                                             truncated ? "truncated or not JSON" : "not valid JSON", jerr.text,
                                             jerr.line, jerr.column));
    }
    int rc = nd_snapshot_check(d, name, err);
    if (rc < 0) {
        json_decref(d);
        return nd_one_line(err, rc);
    }
    nd_snapshot_upgrade(d, nd_schema_number(json_string_value(json_object_get(d, "schema"))));
    *doc = d;
    return 0;
}

int nd_snapshot_load(const char *path, json_t **doc, struct nd_error *err)
{
    *doc = NULL;
    char *buf = NULL;
    size_t len = 0;
    int rc = nd_read_file(path, ND_SNAPSHOT_MAX_BYTES, &buf, &len, err);
    if (rc < 0) {
        if (rc == -EISDIR)
            nd_error_set(err, rc, "%s: is a directory, not a snapshot file (give the files: DIR/*.json)", path);
        return nd_one_line(err, rc);
    }
    rc = nd_snapshot_parse(buf, len, path, doc, err);
    free(buf);
    return rc;
}
