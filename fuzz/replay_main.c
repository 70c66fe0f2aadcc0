/* Without libFuzzer, a fuzz target still runs: this driver feeds it every
 * file under the directories or files named on the command line (the seed
 * corpus), so each test run replays the corpus under the sanitizers. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int nd_replay_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len, fp)) > 0) {
        len += n;
        if (len == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    fclose(fp);
    if (!buf)
        return 1;
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

static int nd_replay(const char *path, int *count)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: %s: missing\n", path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
        (*count)++;
        return nd_replay_file(path);
    }
    DIR *d = opendir(path);
    if (!d)
        return 1;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        rc |= nd_replay(sub, count);
    }
    closedir(d);
    return rc;
}

int main(int argc, char **argv)
{
    int count = 0, rc = 0;
    /* The empty input and a few degenerate ones, always. */
    static const uint8_t edge[] = {0, 0xff, '\n', '=', '[', '{', '"'};
    LLVMFuzzerTestOneInput(edge, 0);
    for (size_t i = 1; i <= sizeof edge; i++)
        LLVMFuzzerTestOneInput(edge, i);
    for (int i = 1; i < argc; i++)
        rc |= nd_replay(argv[i], &count);
    if (count == 0) {
        fprintf(stderr, "replay: no seed inputs found\n");
        return 1;
    }
    printf("replayed %d inputs\n", count);
    return rc;
}
