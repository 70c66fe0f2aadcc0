/* Does a process hold a device? Three ways, strongest first:
 * the vendor's process list, open device files in /proc/PID/fd, and mapped
 * runtime/framework libraries in /proc/PID/maps. The frameworks found in maps
 * are evidence on their own: "torch loaded, torch_npu not loaded" means a
 * CPU-only job. */
#ifndef ND_PROC_FOOTPRINT_H
#define ND_PROC_FOOTPRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "device/device.h"

/* The ND_FW_* bits are in device/framework.h (through device.h). */

enum nd_hold_how {
    ND_HOLD_VENDOR_LIST = 1, /* the vendor's process list names it */
    ND_HOLD_DEVICE_FILE = 2, /* an open /dev/davinciN, /dev/nvidiaN */
};

#define ND_FOOTPRINT_MAX_HELD 16

struct nd_held_device {
    char vendor[16];
    int index; /* device index; -1 for control nodes only */
    bool mem_valid;
    uint64_t mem_bytes;
    enum nd_hold_how how;
};

struct nd_footprint {
    pid_t pid;
    unsigned frameworks; /* enum nd_framework bits */
    bool maps_read;      /* false when /proc/PID/maps was unreadable */
    bool fds_read;
    size_t nheld;
    struct nd_held_device held[ND_FOOTPRINT_MAX_HELD];
    bool holds_device; /* at least one real device (index >= 0) */
    bool control_only; /* only control nodes (davinci_manager, nvidiactl) open */
};

/* Parses a maps buffer into framework bits. */
int nd_maps_parse_frameworks(const char *buf, size_t len, unsigned *frameworks);
/* Classifies a device path ("/dev/davinci3" -> ascend 3, "/dev/nvidiactl" ->
 * nvidia -1). Returns false for paths that are not device nodes of a vendor.
 * Paths inside the --root prefix count as the in-root device. */
bool nd_device_path_classify(const char *path, char *vendor, size_t vsize, int *index);

/* A cache of per-process maps results, so repeated sampling of a tree stays
 * cheap: maps are re-read only for new processes and every refresh_s.
 * It also keeps up to 256 /proc/PID/fd folders open (closed by _free) and
 * reads fd links only for new descriptor numbers between full rescans every
 * refresh_s. refresh_s <= 0: everything re-read on every call. */
struct nd_footprint_cache;
struct nd_footprint_cache *nd_footprint_cache_new(double refresh_s);
void nd_footprint_cache_free(struct nd_footprint_cache *c);

/* The footprint of one process. states (may be NULL/0) are the vendor
 * states whose process lists are consulted (host pids are translated through
 * NSpid). cache may be NULL. */
int nd_footprint_of(pid_t pid, const struct nd_device_state *const *states, size_t nstates,
                    struct nd_footprint_cache *cache, struct nd_footprint *out);

/* Flags for nd_footprint_of_flags. */
#define ND_FOOTPRINT_SKIP_MAPS 1u /* no maps read: frameworks 0, maps_read false */

/* nd_footprint_of with flags: `ps` skips the maps of processes too small to
 * hold an ML runtime, the one costly read per process. */
int nd_footprint_of_flags(pid_t pid, const struct nd_device_state *const *states, size_t nstates,
                          struct nd_footprint_cache *cache, unsigned flags, struct nd_footprint *out);

/* "torch, torch_npu, ascendcl" (empty string when none). */
void nd_frameworks_describe(unsigned frameworks, char *buf, size_t size);

#endif
