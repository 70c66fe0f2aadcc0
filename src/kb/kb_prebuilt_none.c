/* No build-time rule database: the rules are compiled when loaded. This
 * file is its own archive member so that a binary linking a generated
 * database (tools/nd_kbc.c) never pulls it in. */
#include "kb/kb_prebuilt.h"

const unsigned char nd_kb_prebuilt_blob[1] = {0};
const size_t nd_kb_prebuilt_blob_len = 0;
