/* Fuzz target: Python package metadata read without importing (METADATA /
 * PKG-INFO headers, version.py, *.dist-info folder names) and the level-2
 * probe's output line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "probe/pyimport.h"
#include "probe/python.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    char name[128], version[64], cuda[32];
    bool known;
    nd_pymeta_parse(buf, size, name, sizeof name, version, sizeof version);
    nd_pyversion_parse(buf, size, version, sizeof version, cuda, sizeof cuda, &known);
    char *s = nd_xstrndup(buf, size < 512 ? size : 512);
    nd_pkg_dirname_parse(s, name, sizeof name, version, sizeof version);
    free(s);
    json_t *j = nd_pyimport_parse_output(buf, size);
    json_decref(j);
    return 0;
}
