/* Fuzz target: the /proc/PID/cmdline reader behind check --env-from (which
 * script a Python job runs), and the interpreter-name test on the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe/jobcmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char script[256];
    nd_job_cmdline_script((const char *)data, size, script, sizeof script);
    char tiny[4];
    nd_job_cmdline_script((const char *)data, size, tiny, sizeof tiny);
    char *name = malloc(size + 1);
    if (!name)
        return 0;
    memcpy(name, data, size);
    name[size] = '\0';
    nd_job_is_python_name(name);
    free(name);
    return 0;
}
