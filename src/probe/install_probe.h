/* A vendor's install probe for `check`: one file per vendor
 * (probe/<vendor>_install.c) reads the install under the root, the job's
 * environment and the Python facts, and adds its report lines (under the
 * vendor's label), findings and facts. The check runs every probe in
 * nd_install_probes[]; a probe that finds nothing of its vendor adds nothing. */
#ifndef ND_PROBE_INSTALL_PROBE_H
#define ND_PROBE_INSTALL_PROBE_H

#include "core/environ.h"
#include "core/report.h"
#include "device/device.h"
#include "probe/python.h"

struct nd_install_ctx {
    const struct nd_environ *env;      /* the job's environment */
    const struct nd_python *py;        /* the Python stack (torch's folder) */
    const struct nd_device_state *dev; /* this vendor's device query (level 2+), or NULL */
    int level;
};

struct nd_install_probe {
    const struct nd_vendor *vendor;
    void (*run)(const struct nd_install_ctx *ctx, struct nd_report *rep);
};

/* NULL-terminated: the vendors whose install check is a probe of this kind. */
extern const struct nd_install_probe *const nd_install_probes[];

#endif
