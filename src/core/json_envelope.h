/* The envelope every command's JSON output starts with (docs/json.md):
 * "schema", "command" and "version" (the tool's), in that order, before the
 * command's own keys. One writer, so the commands cannot drift apart. */
#ifndef ND_CORE_JSON_ENVELOPE_H
#define ND_CORE_JSON_ENVELOPE_H

#include <jansson.h>

/* The contract's version: bumped when a key is renamed, removed or changes
 * its type or unit. 2: units in the names (_ratio, _bytes, _s), device
 * status and health as strings, one device object for ps, check, snapshot. */
#define ND_JSON_SCHEMA_VERSION 2
#define ND_JSON_SCHEMA "npu-doctor/2"

/* A new object holding {"schema", "command", "version"}; the caller adds
 * the payload. Never NULL (allocation failure aborts, as elsewhere). */
json_t *nd_json_envelope(const char *command);

#endif
