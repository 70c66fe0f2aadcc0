/* The list of vendor backends, Ascend first (the tool's main audience), and
 * the look-ups shared code uses instead of naming a vendor: by name, and by
 * device node. Adding a vendor is one line here plus its backend file. */
#include <ctype.h>
#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/rootfs.h"
#include "device/device.h"

const struct nd_vendor *const nd_vendors[] = {&nd_vendor_ascend, &nd_vendor_nvidia, &nd_vendor_rocm, NULL};

_Static_assert(sizeof nd_vendors / sizeof nd_vendors[0] - 1 <= ND_MAX_VENDORS, "raise ND_MAX_VENDORS");

const struct nd_vendor *nd_vendor_by_name(const char *name)
{
    for (size_t i = 0; name && nd_vendors[i]; i++)
        if (strcmp(nd_vendors[i]->name, name) == 0)
            return nd_vendors[i];
    return NULL;
}

const char *nd_vendor_word(const char *name)
{
    const struct nd_vendor *v = nd_vendor_by_name(name);
    return v && v->device_word ? v->device_word : name ? name : "?";
}

/* "12" -> 12; false for anything but 1-6 digits. */
static bool nd_node_number(const char *s, int *out)
{
    long v = 0;
    if (!*s)
        return false;
    for (; *s; s++) {
        if (!isdigit((unsigned char)*s) || v > 100000)
            return false;
        v = v * 10 + (*s - '0');
    }
    *out = (int)v;
    return true;
}

static bool nd_node_needs_met(const struct nd_vendor *v)
{
    return !v->dev_node_needs || nd_rootfs_exists(v->dev_node_needs);
}

const struct nd_vendor *nd_vendor_of_node(const char *path, int *index)
{
    int dummy;
    if (!index)
        index = &dummy;
    if (!path)
        return NULL;
    for (size_t i = 0; nd_vendors[i]; i++) {
        const struct nd_vendor *v = nd_vendors[i];
        for (size_t k = 0; v->ctl_nodes && v->ctl_nodes[k]; k++) {
            const char *c = v->ctl_nodes[k];
            size_t n = strlen(c);
            if (n && c[n - 1] == '/' ? strncmp(path, c, n) == 0 : strcmp(path, c) == 0) {
                *index = -1;
                return v;
            }
        }
    }
    for (size_t i = 0; nd_vendors[i]; i++) {
        const struct nd_vendor *v = nd_vendors[i];
        size_t n = v->dev_node_prefix ? strlen(v->dev_node_prefix) : 0;
        int num;
        if (n && strncmp(path, v->dev_node_prefix, n) == 0 && nd_node_number(path + n, &num) &&
            num >= v->dev_node_base && nd_node_needs_met(v)) {
            *index = num - v->dev_node_base;
            return v;
        }
    }
    return NULL;
}

size_t nd_vendor_count_nodes(const struct nd_vendor *v)
{
    const char *prefix = v ? v->dev_node_prefix : NULL;
    const char *slash = prefix ? strrchr(prefix, '/') : NULL;
    if (!slash || slash == prefix)
        return 0;
    char dir[256];
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - prefix), prefix);
    DIR *d = nd_rootfs_opendir(dir);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[512];
        int index;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (nd_vendor_of_node(path, &index) == v && index >= 0)
            n++;
    }
    closedir(d);
    return n;
}
