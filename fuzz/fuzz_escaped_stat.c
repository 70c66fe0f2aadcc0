/* Fuzz target for nd_escaped_parse_stat (the parent and session fields of
 * /proc/PID/stat, read by run's daemon sweep): any bytes, never a crash; a
 * successful parse gives no negative pid. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/escaped.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    pid_t ppid, sid;
    if (nd_escaped_parse_stat(s, &ppid, &sid) == 0 && (ppid < 0 || sid < 0))
        __builtin_trap();
    free(s);
    return 0;
}
