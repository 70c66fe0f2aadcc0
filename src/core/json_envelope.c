/* The one writer of the JSON envelope (core/json_envelope.h). */
#include "core/json_envelope.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef ND_VERSION
#define ND_VERSION "unknown"
#endif

json_t *nd_json_envelope(const char *command)
{
    json_t *o = json_object();
    if (!o || json_object_set_new(o, "schema", json_string(ND_JSON_SCHEMA)) != 0 ||
        json_object_set_new(o, "command", json_string(command ? command : "")) != 0 ||
        json_object_set_new(o, "version", json_string(ND_VERSION)) != 0) {
        fputs("npu-doctor: out of memory\n", stderr);
        abort();
    }
    return o;
}
