/* Fuzz target: whatever bytes reach a chart title, a legend, a finding label
 * or a JSON string, the SVG stays well-formed XML (UTF-8, balanced tags,
 * quoted attributes, only known entities, no control bytes) and the JSON
 * document, redacted, still parses. The input is cut at NUL-free '\x01'
 * separators into the strings it fills in. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/chart_svg.h"
#include "core/json_util.h"
#include "core/redact.h"
#include "core/termsafe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool nd_name_ch(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == ':' || c == '.';
}

static bool nd_entity_ok(const char *p)
{
    static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (size_t i = 0; i < 5; i++)
        if (strncmp(p, ents[i], strlen(ents[i])) == 0)
            return true;
    return p[1] == '#';
}

/* A small well-formedness check, enough for what chart_svg.c writes. */
static bool nd_xml_wellformed(const char *doc)
{
    const unsigned char *u = (const unsigned char *)doc;
    size_t len = strlen(doc);
    for (size_t i = 0; i < len;) {
        size_t n = nd_utf8_valid_seq(u + i, len - i);
        if (n == 0 || (n == 1 && u[i] < 0x20 && u[i] != '\t' && u[i] != '\n' && u[i] != '\r'))
            return false;
        i += n;
    }
    const char *stack[256];
    size_t depth = 0, i = 0;
    if (strncmp(doc, "<?xml", 5) == 0) {
        const char *e = strstr(doc, "?>");
        if (!e)
            return false;
        i = (size_t)(e - doc) + 2;
    }
    bool root_seen = false;
    while (i < len) {
        if (doc[i] == '&') {
            if (!nd_entity_ok(doc + i))
                return false;
            i++;
            continue;
        }
        if (doc[i] != '<') {
            if (depth == 0 && !(doc[i] == ' ' || doc[i] == '\n' || doc[i] == '\t' || doc[i] == '\r'))
                return false;
            i++;
            continue;
        }
        if (strncmp(doc + i, "<!--", 4) == 0) {
            const char *e = strstr(doc + i + 4, "-->");
            if (!e)
                return false;
            i = (size_t)(e - doc) + 3;
            continue;
        }
        bool closing = doc[i + 1] == '/';
        size_t s = i + 1 + closing, e = s;
        while (e < len && nd_name_ch((unsigned char)doc[e]))
            e++;
        if (e == s)
            return false;
        if (closing) {
            if (depth == 0 || strncmp(stack[depth - 1], doc + s, e - s) != 0 ||
                nd_name_ch((unsigned char)stack[depth - 1][e - s]) || doc[e] != '>')
                return false;
            depth--;
            i = e + 1;
            continue;
        }
        if (depth == 0 && root_seen)
            return false;
        const char *name = doc + s;
        size_t p = e;
        for (;;) {
            while (p < len && (doc[p] == ' ' || doc[p] == '\n' || doc[p] == '\t'))
                p++;
            if (p >= len)
                return false;
            if (doc[p] == '>' || (doc[p] == '/' && doc[p + 1] == '>'))
                break;
            size_t a = p;
            while (p < len && nd_name_ch((unsigned char)doc[p]))
                p++;
            if (p == a || doc[p] != '=' || (doc[p + 1] != '"' && doc[p + 1] != '\''))
                return false;
            char q = doc[p + 1];
            p += 2;
            while (p < len && doc[p] != q) {
                if (doc[p] == '<' || (doc[p] == '&' && !nd_entity_ok(doc + p)))
                    return false;
                p++;
            }
            if (p >= len)
                return false;
            p++;
        }
        if (doc[p] == '/') {
            i = p + 2;
            if (depth == 0)
                root_seen = true;
            continue;
        }
        if (depth == sizeof stack / sizeof *stack)
            return false;
        stack[depth++] = name;
        i = p + 1;
        if (depth == 1)
            root_seen = true;
    }
    return depth == 0 && root_seen;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    /* Up to six strings: title, subtitle, band label, legend, marker, panel. */
    const char *part[6] = {"", "", "", "", "", ""};
    char *p = text;
    for (int k = 0; k < 6 && p; k++) {
        part[k] = p;
        char *sep = strchr(p, '\x01');
        if (sep)
            *sep++ = '\0';
        p = sep;
    }
    double t[4] = {0, 1, 2, 3}, y[4] = {0.5, NAN, 2, 1};
    unsigned char band[4] = {0, 1, 1, 0};
    struct nd_chart_panel panel = {part[5], 0, 1, {{part[3], y, 1}}};
    struct nd_chart_marker mk = {1.5, ND_SEV_ERROR, part[4]};
    struct nd_chart c = {part[0], part[1], t, 4, part[2], band, &panel, 1, &mk, 1};
    size_t len = 0;
    char *svg = nd_chart_svg(&c, &len);
    if (!svg || strlen(svg) != len || !nd_xml_wellformed(svg))
        __builtin_trap();
    free(svg);

    json_t *doc = json_object();
    json_object_set_new(doc, "title", nd_json_str(part[0]));
    json_object_set_new(doc, "argv", json_pack("[s,o,o]", "--password", nd_json_str(part[1]), nd_json_str(part[2])));
    json_object_set_new(doc, "HF_TOKEN", nd_json_str(part[3]));
    nd_redact_json(doc);
    char *dump = json_dumps(doc, JSON_ENSURE_ASCII);
    json_t *back = dump ? json_loads(dump, 0, NULL) : NULL;
    if (!back)
        __builtin_trap();
    json_decref(back);
    free(dump);
    json_decref(doc);
    free(text);
    return 0;
}
