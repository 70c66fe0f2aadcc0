/* Helpers shared by the device layer's own files (not a public contract):
 * memory shared with a guarded child, so that a child that hangs or crashes
 * still tells which vendor call it was in, and what it had learned. */
#ifndef ND_DEVICE_INTERNAL_H
#define ND_DEVICE_INTERNAL_H

#include <stddef.h>

#include "core/spawn.h"
#include "device/device.h"

#define ND_CALL_MAX 64

/* MAP_SHARED anonymous memory, zeroed; NULL on failure. */
void *nd_shared_alloc(size_t size);
void nd_shared_free(void *p, size_t size);

/* In a guarded child: makes nd_device_progress() write the current call's
 * name into buf (ND_CALL_MAX bytes, shared with the parent). */
void nd_device_progress_attach(char *buf);

/* "timed out after 5 s in dcmi_init" / "crashed with SIGSEGV in aclInit":
 * nd_spawn_describe plus the call in progress when one is known. */
void nd_guard_describe(const struct nd_spawn_result *res, double timeout_s, const char *call, char *buf, size_t size);

/* The standard folders of a vendor library, NULL-terminated. */
extern const char *const nd_ascend_dcmi_dirs[];
extern const char *const nd_ascend_acl_dirs[];

/* Looks soname up in an /etc/ld.so.cache image (glibc "glibc-ld.so.cache1.1"
 * format, alone or after the old "ld.so-1.7.0" table), for this machine's
 * architecture. Copies the path of the first match into out. Returns 0,
 * -ENOENT (not listed) or -EINVAL (not a cache we understand). Any bytes are
 * safe (fuzzed). */
int nd_ldcache_lookup(const void *buf, size_t len, const char *soname, char *out, size_t size);

/* Marks impossible vendor values (used > total memory, utilisation over
 * 100 %, absurd temperatures) unknown and notes it in st->warning (sanity.c). */
void nd_device_state_sanitize(struct nd_device_state *st);

#endif
