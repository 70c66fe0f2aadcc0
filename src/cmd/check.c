/* npu-doctor check: placeholder until its issue lands. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/exitcode.h"

int cmd_check(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--help") == 0) {
        printf("usage: npu-doctor check [options]\n");
        return ND_EXIT_OK;
    }
    return nd_cmd_fail("check", ND_EXIT_INTERNAL, "not implemented yet");
}
