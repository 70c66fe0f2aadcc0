/* OS, kernel, glibc and CPU model: the facts a bug report starts with. */
#include "probe/sysinfo.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#include "core/array.h"
#include "core/error.h"
#include "core/fileio.h"
#include "core/json_util.h"
#include "core/rootfs.h"
#include "probe/kvfile.h"
#include "probe/pathfmt.h"

int nd_sysinfo_parse_os_release(const char *buf, size_t len, struct nd_sysinfo *s)
{
    struct nd_kvfile kv;
    struct nd_error err;
    s->os_name[0] = s->os_id[0] = s->os_version[0] = '\0';
    if (nd_kvfile_parse(buf, len, &kv, &err) < 0)
        return -EINVAL;
    const char *pretty = nd_kvfile_get(&kv, "PRETTY_NAME", NULL);
    const char *name = nd_kvfile_get(&kv, "NAME", NULL);
    const char *version = nd_kvfile_get(&kv, "VERSION", NULL);
    const char *id = nd_kvfile_get(&kv, "ID", NULL);
    const char *vid = nd_kvfile_get(&kv, "VERSION_ID", NULL);
    if (pretty && *pretty)
        nd_pfmt(s->os_name, sizeof s->os_name, "%s", pretty);
    else if (name && *name)
        nd_pfmt(s->os_name, sizeof s->os_name, "%s%s%s", name, version ? " " : "", version ? version : "");
    if (id)
        nd_pfmt(s->os_id, sizeof s->os_id, "%s", id);
    if (vid)
        nd_pfmt(s->os_version, sizeof s->os_version, "%s", vid);
    nd_kvfile_release(&kv);
    return s->os_name[0] ? 0 : -EINVAL;
}

struct nd_arm_part {
    unsigned implementer, part;
    const char *name;
};

/* The parts found in ML servers; lscpu has the long list. */
static const struct nd_arm_part nd_arm_parts[] = {
    {0x41, 0xd03, "Cortex-A53"},  {0x41, 0xd07, "Cortex-A57"},  {0x41, 0xd08, "Cortex-A72"},
    {0x41, 0xd0c, "Neoverse-N1"}, {0x41, 0xd40, "Neoverse-V1"}, {0x41, 0xd49, "Neoverse-N2"},
    {0x41, 0xd4f, "Neoverse-V2"}, {0x48, 0xd01, "Kunpeng-920"}, {0x46, 0x001, "A64FX"},
    {0xc0, 0xac3, "Ampere-1"},    {0x70, 0x662, "FTC662"},      {0x70, 0x663, "FTC663"},
};

static const char *nd_arm_vendor(unsigned implementer)
{
    switch (implementer) {
    case 0x41: return "ARM";
    case 0x42: return "Broadcom";
    case 0x46: return "Fujitsu";
    case 0x48: return "HiSilicon";
    case 0x4e: return "NVIDIA";
    case 0x50: return "APM";
    case 0x51: return "Qualcomm";
    case 0x61: return "Apple";
    case 0x70: return "Phytium";
    case 0xc0: return "Ampere";
    default: return NULL;
    }
}

const char *nd_sysinfo_arm_part(unsigned implementer, unsigned part, const char **vendor)
{
    if (vendor)
        *vendor = nd_arm_vendor(implementer);
    for (size_t i = 0; i < ND_ARRAY_SIZE(nd_arm_parts); i++)
        if (nd_arm_parts[i].implementer == implementer && nd_arm_parts[i].part == part)
            return nd_arm_parts[i].name;
    return NULL;
}

/* The value of a "key<TAB>: value" line of cpuinfo, trimmed, into out. */
static bool nd_cpuinfo_value(const char *line, size_t n, const char *key, char *out, size_t size)
{
    size_t kl = strlen(key);
    if (n < kl || strncmp(line, key, kl) != 0)
        return false;
    size_t i = kl;
    while (i < n && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (i >= n || line[i] != ':')
        return false;
    i++;
    while (i < n && (line[i] == ' ' || line[i] == '\t'))
        i++;
    size_t end = n;
    while (end > i && (line[end - 1] == ' ' || line[end - 1] == '\t' || line[end - 1] == '\r'))
        end--;
    return nd_pfmt(out, size, "%.*s", (int)(end - i), line + i) >= 0;
}

static bool nd_parse_hex(const char *s, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 0);
    if (end == s || *end || errno || v > 0xffff)
        return false;
    *out = (unsigned)v;
    return true;
}

int nd_sysinfo_parse_cpuinfo(const char *buf, size_t len, struct nd_sysinfo *s)
{
    s->cpu_model[0] = s->cpu_id[0] = '\0';
    char model[160] = "", impl[32] = "", part[32] = "";
    size_t pos = 0;
    while (pos < len) {
        const char *line = buf + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - line) : len - pos;
        pos += n + 1;
        if (memchr(line, '\0', n))
            continue;
        char v[160];
        if (!model[0] && nd_cpuinfo_value(line, n, "model name", v, sizeof v))
            nd_pfmt(model, sizeof model, "%s", v);
        else if (!impl[0] && nd_cpuinfo_value(line, n, "CPU implementer", v, sizeof v))
            nd_pfmt(impl, sizeof impl, "%s", v);
        else if (!part[0] && nd_cpuinfo_value(line, n, "CPU part", v, sizeof v))
            nd_pfmt(part, sizeof part, "%s", v);
    }
    unsigned im, pa;
    bool arm = impl[0] && part[0] && nd_parse_hex(impl, &im) && nd_parse_hex(part, &pa);
    if (arm)
        nd_pfmt(s->cpu_id, sizeof s->cpu_id, "0x%02x/0x%03x", im, pa);
    if (model[0]) {
        nd_pfmt(s->cpu_model, sizeof s->cpu_model, "%s", model);
    } else if (arm) {
        const char *vendor;
        const char *name = nd_sysinfo_arm_part(im, pa, &vendor);
        if (name)
            nd_pfmt(s->cpu_model, sizeof s->cpu_model, "%s %s", vendor ? vendor : "", name);
        else if (vendor)
            nd_pfmt(s->cpu_model, sizeof s->cpu_model, "%s part 0x%03x", vendor, pa);
        else
            nd_pfmt(s->cpu_model, sizeof s->cpu_model, "Arm implementer 0x%02x part 0x%03x", im, pa);
    }
    return s->cpu_model[0] ? 0 : -EINVAL;
}

void nd_sysinfo_probe(struct nd_sysinfo *s)
{
    memset(s, 0, sizeof *s);
    char *buf;
    size_t len;
    struct nd_error err;
    static const char *const os_files[] = {"/etc/os-release", "/usr/lib/os-release"};
    for (size_t i = 0; i < 2; i++)
        if (nd_rootfs_read(os_files[i], 64 * 1024, &buf, &len, &err) == 0) {
            int rc = nd_sysinfo_parse_os_release(buf, len, s);
            free(buf);
            if (rc == 0)
                break;
        }
    /* The kernel and the CPU are the host's even under --root (a container
     * shares them); /proc/cpuinfo still goes through the root so that
     * fixtures can stand in for an aarch64 machine. */
    struct utsname u;
    if (uname(&u) == 0) {
        nd_pfmt(s->kernel, sizeof s->kernel, "%s", u.release);
        nd_pfmt(s->machine, sizeof s->machine, "%s", u.machine);
    }
    if (nd_rootfs_read("/proc/cpuinfo", 4 * 1024 * 1024, &buf, &len, &err) == 0) {
        nd_sysinfo_parse_cpuinfo(buf, len, s);
        free(buf);
    } else if (!nd_rootfs_is_default() && nd_read_file_prefix("/proc/cpuinfo", 64 * 1024, &buf, &len, &err) == 0) {
        nd_sysinfo_parse_cpuinfo(buf, len, s); /* the first CPUs are enough */
        free(buf);
    }
#ifdef __GLIBC__
    if (nd_rootfs_is_default())
        nd_pfmt(s->glibc, sizeof s->glibc, "%s", gnu_get_libc_version());
#endif
}

static json_t *nd_str_or_null(const char *s)
{
    return s[0] ? nd_json_str(s) : json_null();
}

json_t *nd_sysinfo_facts_json(const struct nd_sysinfo *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "os", nd_str_or_null(s->os_name));
    json_object_set_new(o, "os_id", nd_str_or_null(s->os_id));
    json_object_set_new(o, "os_version", nd_str_or_null(s->os_version));
    json_object_set_new(o, "kernel", nd_str_or_null(s->kernel));
    json_object_set_new(o, "machine", nd_str_or_null(s->machine));
    json_object_set_new(o, "glibc", nd_str_or_null(s->glibc));
    json_object_set_new(o, "cpu_model", nd_str_or_null(s->cpu_model));
    json_object_set_new(o, "cpu_id", nd_str_or_null(s->cpu_id));
    return o;
}

int nd_sysinfo_parse_patchlevel(const char *buf, size_t len, char *out, size_t size)
{
    static const char key[] = "#define PY_VERSION";
    size_t kl = sizeof key - 1;
    for (size_t i = 0; kl <= len && i <= len - kl; i++) {
        if (memcmp(buf + i, key, kl) != 0)
            continue;
        size_t j = i + kl;
        while (j < len && (buf[j] == ' ' || buf[j] == '\t'))
            j++;
        if (j >= len || buf[j] != '"')
            continue;
        size_t k = ++j;
        while (k < len && k - j < 32 &&
               ((buf[k] >= '0' && buf[k] <= '9') || buf[k] == '.' || buf[k] == '+' || (buf[k] >= 'a' && buf[k] <= 'z')))
            k++;
        if (k == j || k >= len || buf[k] != '"' || buf[j] < '0' || buf[j] > '9')
            continue;
        return nd_pfmt(out, size, "%.*s", (int)(k - j), buf + j) < 0 ? -EINVAL : 0;
    }
    return -EINVAL;
}

/* True when v is the short version followed by ".": "3.11.7" for "3.11". */
static bool nd_extends(const char *v, const char *short_version)
{
    size_t n = strlen(short_version);
    return n && strncmp(v, short_version, n) == 0 && v[n] == '.' && v[n + 1] >= '0' && v[n + 1] <= '9';
}

/* dirname applied twice: "/opt/venv/bin/python3" -> "/opt/venv". */
static bool nd_prefix_of(const char *exe, char *out, size_t size)
{
    if (nd_pfmt(out, size, "%s", exe) < 0)
        return false;
    for (int k = 0; k < 2; k++) {
        char *slash = strrchr(out, '/');
        if (!slash)
            return false;
        *slash = '\0';
    }
    return true;
}

int nd_sysinfo_python_version(const struct nd_python *py, char *out, size_t size)
{
    if (!py->found || !py->version[0])
        return -ENOENT;
    if (strncmp(py->how, "pyenv ", 6) == 0 && nd_extends(py->how + 6, py->version))
        return nd_pfmt(out, size, "%s", py->how + 6) < 0 ? -ENOENT : 0;
    char pfx[PATH_MAX], p[PATH_MAX + 64];
    struct nd_error err;
    if (nd_prefix_of(py->path, pfx, sizeof pfx) && nd_pfmt(p, sizeof p, "%s/pyvenv.cfg", pfx) >= 0) {
        struct nd_kvfile kv;
        if (nd_kvfile_load(p, &kv, &err) == 0) {
            const char *v = nd_kvfile_get(&kv, "version", NULL);
            if (!v)
                v = nd_kvfile_get(&kv, "version_info", NULL);
            int rc = v && nd_extends(v, py->version) ? nd_pfmt(out, size, "%s", v) : -ENOENT;
            nd_kvfile_release(&kv);
            if (rc >= 0)
                return 0;
        }
    }
    if (py->exe[0] && nd_prefix_of(py->exe, pfx, sizeof pfx) &&
        nd_pfmt(p, sizeof p, "%s/include/python%s/patchlevel.h", pfx, py->version) >= 0) {
        char *buf;
        size_t len;
        if (nd_rootfs_read(p, 1024 * 1024, &buf, &len, &err) == 0) {
            int rc = nd_sysinfo_parse_patchlevel(buf, len, out, size);
            free(buf);
            if (rc == 0 && nd_extends(out, py->version))
                return 0;
        }
    }
    if (size)
        out[0] = '\0';
    return -ENOENT;
}
