/* Fuzz target: RANK_TABLE_FILE documents (Ascend hccl.json) and the
 * NCCL/HCCL interface-list syntax. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "probe/distributed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *ids[] = {"127.0.0.1", "10.0.0.1", "node-1"};
    struct nd_rank_table rt;
    struct nd_error err;
    memset(&rt, 0, sizeof rt);
    nd_rank_table_parse((const char *)data, size, ids, 3, &rt, &err);
    char *s = nd_xstrndup((const char *)data, size < 256 ? size : 256);
    const char *ifs[] = {"lo", "eth0", "ib0", "docker0"};
    nd_ifname_matches(s, ifs, 4);
    struct nd_dist_int v;
    nd_dist_int_parse(s, &v);
    free(s);
    return 0;
}
