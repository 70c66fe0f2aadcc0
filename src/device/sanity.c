/* Plausibility of what a vendor library reports. A driver bug, a simulator
 * or a mismatched library can hand back used > total memory, "negative"
 * byte counts (a signed value cast to unsigned), utilisation over 100 % or
 * absurd temperatures; passed on, they become verdicts and dashboards.
 * Impossible values are marked unknown (validity bit off) and said once in
 * the state's warning. Vendor-neutral: runs on every refreshed state. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "device/device_internal.h"

/* No accelerator has a petabyte of memory: past this, a count is garbage. */
#define ND_MEM_MAX_BYTES (1ull << 50)

static void nd_sanity_note(struct nd_device_state *st, const struct nd_device *d, const char *what)
{
    if (!st->warning[0])
        snprintf(st->warning, sizeof st->warning, "%s device %d reported %s; shown as unknown", st->vendor, d->index,
                 what);
}

void nd_device_state_sanitize(struct nd_device_state *st)
{
    uint64_t max_total = 0;
    for (size_t i = 0; i < st->ndevices && i < ND_MAX_DEVICES; i++) {
        struct nd_device *d = &st->devices[i];
        if (d->util_valid && d->util_pct > 100) {
            d->util_valid = false;
            nd_sanity_note(st, d, "utilisation over 100%");
        }
        if (d->mem_valid && (d->mem_total_bytes == 0 || d->mem_total_bytes > ND_MEM_MAX_BYTES ||
                             d->mem_used_bytes > d->mem_total_bytes)) {
            d->mem_valid = false;
            nd_sanity_note(st, d, "memory used beyond its total (or a negative count)");
        }
        if (d->mem_valid && d->mem_total_bytes > max_total)
            max_total = d->mem_total_bytes;
        if (d->temp_valid && (d->temp_c < -40 || d->temp_c > 150)) {
            d->temp_valid = false;
            nd_sanity_note(st, d, "an impossible temperature");
        }
        if (d->power_valid && (!isfinite(d->power_w) || d->power_w < 0 || d->power_w > 10000)) {
            d->power_valid = false;
            nd_sanity_note(st, d, "an impossible power draw");
        }
    }
    for (size_t i = 0; i < st->nprocs && i < ND_MAX_DEVICE_PROCS; i++) {
        struct nd_device_proc *p = &st->procs[i];
        if (p->mem_valid && (p->mem_bytes > ND_MEM_MAX_BYTES || (max_total && p->mem_bytes > max_total)))
            p->mem_valid = false;
    }
}
