/* Test helper for `npu-doctor run` under an output flood: prints LINES lines
 * to stdout as fast as it can, one torch_npu warning in every FIVE lines and
 * per-step log lines between them, with one root-cause line at the start, in
 * the middle and at the end (three different failures), then exits 1.
 * usage: flood_job LINES [FIVE]   (FIVE: 1 = every line is the warning) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const roots[3] = {
    "rtGetDeviceCount execute failed, reason=[driver error:no valid device][FUNC:FuncErrorReason]"
    "[FILE:error_message_manage.cc][LINE:53]",
    "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.00 GiB total capacity; 57.21 GiB "
    "already allocated; 57.21 GiB current active; 1.02 GiB free; 57.90 GiB reserved in total by PyTorch)",
    "RuntimeError: DataLoader worker (pid 4321) is killed by signal: Bus error. It is possible that "
    "dataloader's workers are out of shared memory. Please try to raise your shared memory limit.",
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: flood_job LINES [FIVE]\n");
        return 2;
    }
    long n = strtol(argv[1], NULL, 10);
    long every = argc > 2 ? strtol(argv[2], NULL, 10) : 5;
    if (n < 3 || every < 1)
        return 2;
    static char buf[1 << 16];
    setvbuf(stdout, buf, _IOFBF, sizeof buf);
    long warnings = 0;
    for (long i = 0; i < n; i++) {
        if (i == 0 || i == n / 2 || i == n - 1)
            puts(roots[i == 0 ? 0 : i == n - 1 ? 2 : 1]);
        else if (i % every == 0) {
            fputs("[W compiler_depend.ts:623] Warning: Device do not support double dtype now, "
                  "dtype cast repalce with float.\n",
                  stdout);
            warnings++;
        } else
            printf("step %ld loss %.4f lr 1.0e-04 tokens/s %ld\n", i, 2.0 / (double)(i + 1), 1000 + i % 977);
    }
    fflush(stdout);
    fprintf(stderr, "flood_job: %ld lines, %ld warnings\n", n, warnings);
    return 1;
}
