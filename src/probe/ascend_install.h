/* What of the Ascend stack is installed (through the root prefix): driver and
 * firmware version files, the CANN toolkit in the classic and the 8.5+
 * layout, device files and npu-smi. The probe gathers facts; nd_ascend_judge
 * turns inconsistencies into findings. */
#ifndef ND_PROBE_ASCEND_INSTALL_H
#define ND_PROBE_ASCEND_INSTALL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "core/finding.h"

#define ND_ASCEND_MAX_DEVFILES 64
#define ND_ASCEND_MAX_SIBLINGS 8

enum nd_cann_layout { ND_CANN_NONE, ND_CANN_CLASSIC, ND_CANN_NEW };

struct nd_ascend_install {
    /* Driver: <D>/version.info, D from /etc/ascend_install.info or /usr/local/Ascend/driver. */
    char driver_dir[PATH_MAX];
    bool driver_present;
    char driver_version[64];
    char driver_version_file[PATH_MAX];
    long driver_version_line;
    bool fw_range_valid;
    char fw_range_lo[64], fw_range_hi[64];
    long fw_range_line;
    char driver_error[256];    /* unreadable or garbage version.info */
    bool install_info_present; /* /etc/ascend_install.info */
    char driver_lib[PATH_MAX]; /* libascend_hal.so or libdcmi.so found; "" none */
    char driver_hal[32];       /* version.info ascendhal_version=, "" when absent */
    long driver_hal_line;

    bool firmware_present;
    char firmware_version[64];
    char firmware_file[PATH_MAX];
    long firmware_line;
    char firmware_error[256];

    /* CANN toolkit. home is the path set_env.sh exports (…/ascend-toolkit/latest
     * or /usr/local/Ascend/cann); real is where its links lead. */
    enum nd_cann_layout layout;
    char cann_home[PATH_MAX];
    char cann_real[PATH_MAX];
    char cann_version[64];
    char cann_version_file[PATH_MAX];
    long cann_version_line;
    char cann_install_info[PATH_MAX]; /* /etc/Ascend/ascend_cann_install.info when present */
    char cann_error[256];
    /* The driver HAL the toolkit's runtime says it needs: required_driver_ascendhal_version=
     * in <home>/runtime/version.info (or acllib/); "" when the install does not say. */
    char cann_req_hal[64];
    char cann_req_hal_file[PATH_MAX];
    long cann_req_hal_line;
    char set_env[PATH_MAX];      /* the set_env.sh to source; "" when none found */
    char arch_dir[64];           /* "x86_64-linux" / "aarch64-linux" */
    char ascendcl_dir[PATH_MAX]; /* the lib64 that holds libascendcl.so */
    char tbe_site[PATH_MAX];     /* site-packages holding tbe/ */
    bool tbe_present;
    char opp_dir[PATH_MAX];
    /* Other toolkit versions installed beside this one (…/ascend-toolkit/<v>, cann-<v>). */
    size_t nsiblings;
    char siblings[ND_ASCEND_MAX_SIBLINGS][PATH_MAX];

    /* Device files under /dev. */
    size_t ndavinci;
    int davinci[ND_ASCEND_MAX_DEVFILES];
    bool davinci_manager, devmm_svm, hisi_hdc;
    char npu_smi[PATH_MAX]; /* "" when absent */
};

/* Gathers the facts (never fails: what is missing is a fact). */
void nd_ascend_probe(struct nd_ascend_install *a);
/* Judges the install on its own (no environment): device files without
 * driver libraries, a driver without device files, firmware outside the
 * driver's compatible_version_fw range, unreadable version files. */
void nd_ascend_judge(const struct nd_ascend_install *a, struct nd_findings *out);
/* True when any part of the Ascend stack is present (driver, CANN or devices). */
bool nd_ascend_any(const struct nd_ascend_install *a);
/* True when device files or a driver say this host has NPUs. */
bool nd_ascend_has_devices(const struct nd_ascend_install *a);
json_t *nd_ascend_facts_json(const struct nd_ascend_install *a);

/* Parses "[7.0.0,7.2.99]" into lo/hi. Returns 0 or -EINVAL. */
int nd_ascend_parse_range(const char *s, char *lo, size_t lo_size, char *hi, size_t hi_size);
/* The CANN version from version.cfg's "runtime_running_version=[7.6.0.1.220:8.0.0]"
 * style value (the part after ':'), or from a directory name ("cann-9.0.0", "8.0.RC3"). */
bool nd_ascend_version_from_cfg(const char *value, char *out, size_t size);
bool nd_ascend_version_from_dirname(const char *name, char *out, size_t size);
/* The oldest driver HAL a required_driver_ascendhal_version value accepts:
 * "7.35.19", "[7.35.19]", "[7.35.19,7.35.23]" or "[7.35.19],[7.35.23]" -> "7.35.19".
 * Returns false when the value names no version. */
bool nd_ascend_req_hal_min(const char *value, char *out, size_t size);

/* Is fw inside [lo, hi]? Compared on as many components as each bound has. */
bool nd_ascend_fw_in_range(const char *fw, const char *lo, const char *hi);

#endif
