/* Lookup in the table of compiled-in files. */
#include "core/embedded.h"

#include <string.h>

const struct nd_embedded_file *nd_embedded_find(const char *name)
{
    for (const struct nd_embedded_file *f = nd_embedded_files; f->name; f++)
        if (strcmp(f->name, name) == 0)
            return f;
    return NULL;
}
