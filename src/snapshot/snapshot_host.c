/* Limits (/dev/shm, memlock, ulimits) and device files for a snapshot. */
#include "snapshot/snapshot_host.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statvfs.h>

#include "core/json_util.h"
#include "core/rootfs.h"
#include "device/device.h"
#include "core/strbuf.h"

static void nd_set_limit(json_t *o, const char *key, int resource)
{
    struct rlimit rl;
    if (getrlimit(resource, &rl) != 0)
        return;
    if (rl.rlim_cur == RLIM_INFINITY)
        json_object_set_new(o, key, json_string("unlimited"));
    else
        json_object_set_new(o, key, json_integer((json_int_t)rl.rlim_cur));
}

json_t *nd_snapshot_limits_json(void)
{
    json_t *o = json_object();
    struct statvfs sv;
    if (statvfs("/dev/shm", &sv) == 0)
        json_object_set_new(o, "shm_bytes", json_integer((json_int_t)((unsigned long long)sv.f_blocks * sv.f_frsize)));
    nd_set_limit(o, "memlock_bytes", RLIMIT_MEMLOCK);
    nd_set_limit(o, "nofile", RLIMIT_NOFILE);
    nd_set_limit(o, "nproc", RLIMIT_NPROC);
    nd_set_limit(o, "stack_bytes", RLIMIT_STACK);
    return o;
}

/* A device or control node of any vendor in the table; a folder of
 * control nodes (/dev/nvidia-caps) counts as well. */
static bool nd_is_accel_dev(const char *name)
{
    char path[300];
    int index;
    snprintf(path, sizeof path, "/dev/%s", name);
    if (nd_vendor_of_node(path, &index))
        return true;
    snprintf(path, sizeof path, "/dev/%s/", name);
    return nd_vendor_of_node(path, &index) != NULL;
}

static int nd_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

json_t *nd_snapshot_device_files_json(void)
{
    json_t *arr = json_array();
    DIR *d = nd_rootfs_opendir("/dev");
    if (!d)
        return arr;
    char **names = NULL;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!nd_is_accel_dev(de->d_name))
            continue;
        names = nd_xrealloc(names, (n + 1) * sizeof *names);
        names[n++] = nd_xasprintf("/dev/%s", de->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, nd_cmp_str);
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(arr, nd_json_str(names[i]));
        free(names[i]);
    }
    free(names);
    return arr;
}
