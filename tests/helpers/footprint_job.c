/* A stand-in job for footprint and `ps` tests: opens the files it is given
 * (stand-ins for /dev/davinciN under --root), maps others (libraries named
 * like runtimes), says it is ready, then sleeps or spins until killed.
 *   footprint_job [--spin] [--open PATH]... [--map PATH]... [--ready FILE]
 * It dies on its own after --max-seconds (default 600), so a failed test
 * never leaves it running. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

static void announce(const char *ready)
{
    if (!ready) {
        printf("ready\n");
        fflush(stdout);
        return;
    }
    /* Written then renamed, so a poller never sees half a file. */
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", ready);
    FILE *fp = fopen(tmp, "w");
    if (!fp || fprintf(fp, "%d\n", (int)getpid()) < 0 || fclose(fp) != 0 || rename(tmp, ready) != 0) {
        perror(ready);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    int spin = 0;
    unsigned max_s = 600;
    const char *ready = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--spin") == 0) {
            spin = 1;
        } else if (strcmp(a, "--open") == 0 && v) {
            if (open(v, O_RDONLY) < 0) { /* kept open on purpose: that is the footprint */
                perror(v);
                return 1;
            }
            i++;
        } else if (strcmp(a, "--map") == 0 && v) {
            int fd = open(v, O_RDONLY);
            struct stat st;
            if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0 ||
                mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED) {
                perror(v);
                return 1;
            }
            close(fd);
            i++;
        } else if (strcmp(a, "--ready") == 0 && v) {
            ready = v;
            i++;
        } else if (strcmp(a, "--max-seconds") == 0 && v) {
            max_s = (unsigned)strtoul(v, NULL, 10);
            i++;
        } else {
            fprintf(stderr, "usage: footprint_job [--spin] [--open PATH]... [--map PATH]... [--ready FILE] "
                            "[--max-seconds N]\n");
            return 64;
        }
    }
    alarm(max_s);
    announce(ready);
    if (spin)
        for (volatile unsigned long n = 0;; n++)
            ;
    for (;;)
        pause();
}
