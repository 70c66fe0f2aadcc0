/* The install probes `check` runs (install_probe.h): adding a vendor's
 * probe is one line here plus its probe/<vendor>_install.c. */
#include <stddef.h>

#include "probe/install_probe.h"
#include "probe/rocm_install.h"

const struct nd_install_probe *const nd_install_probes[] = {&nd_install_rocm, NULL};
