/* npu-doctor snapshot: placeholder until its issue lands. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/exitcode.h"

int cmd_snapshot(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--help") == 0) {
        printf("usage: npu-doctor snapshot [options]\n");
        return ND_EXIT_OK;
    }
    return nd_cmd_fail("snapshot", ND_EXIT_INTERNAL, "not implemented yet");
}
