/* The bytes of the build-time rule database: its 32-character key, then
 * the serialized vectorscan database. The binary links a generated
 * definition (tools/nd_kbc.c writes it); everything else (unit tests, fuzz
 * targets, the tool itself) gets kb_prebuilt_none.c's empty one. */
#ifndef ND_KB_PREBUILT_H
#define ND_KB_PREBUILT_H

#include <stddef.h>

extern const unsigned char nd_kb_prebuilt_blob[];
extern const size_t nd_kb_prebuilt_blob_len;

#endif
