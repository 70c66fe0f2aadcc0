/* The state-file reader shared by the simulated vendor libraries (format in
 * sim_common.h). Static storage only: no heap, no sanitizer runtime. */
#include "sim_common.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SIM_MAX_FILE (256 * 1024)
#define SIM_MAX_ENTRIES 4096

struct sim_entry {
    const char *section;
    const char *key;
    const char *value;
};

static char sim_buf[SIM_MAX_FILE + 1];
static struct sim_entry sim_entries[SIM_MAX_ENTRIES];
static size_t sim_nentries;
static bool sim_loaded;
static struct stat sim_st; /* of the file last parsed */
static char sim_path[4096];

static char *sim_trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

static void sim_parse(size_t len)
{
    sim_buf[len] = '\0';
    sim_nentries = 0;
    const char *section = "";
    char *line = sim_buf;
    while (line && *line) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        /* A comment starts at ';' or '#' anywhere on the line. */
        char *c = strpbrk(line, ";#");
        if (c)
            *c = '\0';
        char *t = sim_trim(line);
        if (*t == '[') {
            char *end = strchr(t, ']');
            if (end) {
                *end = '\0';
                section = sim_trim(t + 1);
            }
        } else if (*t) {
            char *eq = strchr(t, '=');
            if (eq && sim_nentries < SIM_MAX_ENTRIES) {
                *eq = '\0';
                sim_entries[sim_nentries].section = section;
                sim_entries[sim_nentries].key = sim_trim(t);
                sim_entries[sim_nentries].value = sim_trim(eq + 1);
                sim_nentries++;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
}

/* Re-reads the file when its identity, size or mtime changed. */
static void sim_refresh(void)
{
    const char *p = getenv("ND_SIM_STATE");
    struct stat st;
    if (!p || !*p || stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
        sim_loaded = false;
        sim_nentries = 0;
        return;
    }
    if (sim_loaded && strcmp(p, sim_path) == 0 && st.st_ino == sim_st.st_ino && st.st_dev == sim_st.st_dev &&
        st.st_size == sim_st.st_size && st.st_mtim.tv_sec == sim_st.st_mtim.tv_sec &&
        st.st_mtim.tv_nsec == sim_st.st_mtim.tv_nsec)
        return;
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        sim_loaded = false;
        sim_nentries = 0;
        return;
    }
    size_t len = 0;
    for (;;) {
        ssize_t n = read(fd, sim_buf + len, SIM_MAX_FILE - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
        if (len == SIM_MAX_FILE)
            break;
    }
    close(fd);
    snprintf(sim_path, sizeof sim_path, "%s", p);
    sim_st = st;
    sim_loaded = true;
    sim_parse(len);
}

bool sim_have_state(void)
{
    sim_refresh();
    return sim_loaded;
}

static const char *sim_lookup(const char *section, const char *key)
{
    for (size_t i = 0; i < sim_nentries; i++)
        if (strcmp(sim_entries[i].section, section) == 0 && strcmp(sim_entries[i].key, key) == 0)
            return sim_entries[i].value;
    return NULL;
}

const char *sim_get(const char *section, int device, const char *key)
{
    sim_refresh();
    if (device >= 0) {
        char sec[128];
        snprintf(sec, sizeof sec, "%s.device.%d", section, device);
        const char *v = sim_lookup(sec, key);
        if (v)
            return v;
    }
    return sim_lookup(section, key);
}

long long sim_get_ll(const char *section, int device, const char *key, long long def)
{
    const char *v = sim_get(section, device, key);
    if (!v || !*v)
        return def;
    char *end;
    long long r = strtoll(v, &end, 0);
    return end == v ? def : r;
}

double sim_get_double(const char *section, int device, const char *key, double def)
{
    const char *v = sim_get(section, device, key);
    if (!v || !*v)
        return def;
    char *end;
    double r = strtod(v, &end);
    return end == v ? def : r;
}

void sim_get_str(const char *section, int device, const char *key, const char *def, char *buf, size_t size)
{
    const char *v = sim_get(section, device, key);
    snprintf(buf, size, "%s", v ? v : (def ? def : ""));
}

size_t sim_get_all(const char *section, const char *key, const char **vals, size_t max)
{
    sim_refresh();
    size_t n = 0;
    for (size_t i = 0; i < sim_nentries; i++)
        if (strcmp(sim_entries[i].section, section) == 0 && strcmp(sim_entries[i].key, key) == 0) {
            if (n < max)
                vals[n] = sim_entries[i].value;
            n++;
        }
    return n;
}

/* Does "FUNC [rest]" name func? Sets *rest to what follows the name. */
static bool sim_names(const char *value, const char *func, const char **rest)
{
    size_t n = strlen(func);
    if (strncmp(value, func, n) != 0 || (value[n] && value[n] != ' ' && value[n] != '\t'))
        return false;
    *rest = value + n;
    return true;
}

static bool sim_inject_in(const char *section, const char *func, long long *code)
{
    for (size_t i = 0; i < sim_nentries; i++) {
        const struct sim_entry *e = &sim_entries[i];
        const char *rest;
        if (strcmp(e->section, section) != 0 || !sim_names(e->value, func, &rest))
            continue;
        if (strcmp(e->key, "hang") == 0) {
            for (;;)
                pause();
        }
        if (strcmp(e->key, "crash") == 0) {
            raise(SIGSEGV);
            /* A SIGSEGV handler that returns must not let the call go on. */
            for (;;)
                pause();
        }
        if (strcmp(e->key, "fail") == 0) {
            *code = strtoll(rest, NULL, 0);
            return true;
        }
    }
    return false;
}

bool sim_inject(const char *section, int device, const char *func, long long *code)
{
    sim_refresh();
    if (device >= 0) {
        char sec[128];
        snprintf(sec, sizeof sec, "%s.device.%d", section, device);
        if (sim_inject_in(sec, func, code))
            return true;
    }
    return sim_inject_in(section, func, code);
}

size_t sim_procs(const char *section, struct sim_proc *out, size_t max)
{
    const char *vals[1024];
    size_t n = sim_get_all(section, "proc", vals, 1024);
    if (n > 1024)
        n = 1024;
    size_t k = 0;
    for (size_t i = 0; i < n && k < max; i++) {
        long long pid, mem;
        int dev;
        if (sscanf(vals[i], "%lld %d %lld", &pid, &dev, &mem) == 3) {
            out[k].pid = pid;
            out[k].device = dev;
            out[k].mem_mb = mem;
            k++;
        }
    }
    return k;
}

void sim_sleep(double s)
{
    if (s <= 0)
        return;
    struct timespec ts;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}
