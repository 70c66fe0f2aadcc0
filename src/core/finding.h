/* The finding model (docs/architecture.md, "Findings and exit codes"): what
 * every detector, rule and probe judgement produces, and what every reporter
 * consumes. */
#ifndef ND_CORE_FINDING_H
#define ND_CORE_FINDING_H

#include <stdbool.h>
#include <stddef.h>

enum nd_severity { ND_SEV_INFO = 0, ND_SEV_WARNING = 1, ND_SEV_ERROR = 2 };
enum nd_confidence { ND_CONF_LOW = 0, ND_CONF_MEDIUM = 1, ND_CONF_HIGH = 2 };

/* Stable category names; scripts match on them. */
#define ND_CAT_ENV_NOT_LOADED "env-not-loaded"
#define ND_CAT_VERSION_MISMATCH "version-mismatch"
#define ND_CAT_NO_DEVICE "no-device"
#define ND_CAT_UNSUPPORTED_OP "unsupported-op"
#define ND_CAT_DEVICE_OOM "device-oom"
#define ND_CAT_HOST_OOM "host-oom"
#define ND_CAT_DISTRIBUTED "distributed"
#define ND_CAT_NUMERICS "numerics"
#define ND_CAT_DEVICE_FAULT "device-fault"
#define ND_CAT_CPU_FALLBACK "cpu-fallback"
#define ND_CAT_INPUT_BOUND "input-bound"
#define ND_CAT_HANG "hang"
#define ND_CAT_CONFIG "config"

struct nd_evidence {
    char *text;
    char *file; /* NULL when the evidence is not from a file */
    long line;  /* 0 when unknown */
};

struct nd_finding {
    char *id;       /* dotted and stable, e.g. "env.cann-not-loaded" */
    char *category; /* one of ND_CAT_* */
    enum nd_severity severity;
    enum nd_confidence confidence;
    char *title;
    char *cause; /* may be NULL */
    char **fix;
    size_t nfix;
    struct nd_evidence *evidence;
    size_t nevidence;

    /* Optional, command-specific; "unknown" values are explicit. */
    long count;       /* explain: repeats grouped; 0 = not counted */
    char *first_file; /* explain: first occurrence */
    long first_line;
    int rank;    /* explain: rank where known, -1 otherwise */
    double at_s; /* run/watch: seconds since start, < 0 when not set */
    int chain;   /* run: Python exception-chain markers before its line (ranking) */
};

/* An owning list of findings. Pointers returned by nd_findings_add stay
 * valid until nd_findings_release (the list stores pointers, not structs). */
struct nd_findings {
    struct nd_finding **v;
    size_t n;
    size_t cap;
};

#define ND_FINDINGS_INIT                                                                                               \
    {                                                                                                                  \
        NULL, 0, 0                                                                                                     \
    }

struct nd_finding *nd_findings_add(struct nd_findings *list, const char *id, const char *category,
                                   enum nd_severity severity, const char *title_fmt, ...)
    __attribute__((format(printf, 5, 6)));
void nd_finding_set_cause(struct nd_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void nd_finding_add_fix(struct nd_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void nd_finding_add_evidence(struct nd_finding *f, const char *file, long line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Deep copy of f appended to list (used when moving findings between lists). */
struct nd_finding *nd_findings_add_copy(struct nd_findings *list, const struct nd_finding *f);
/* Removes and frees the finding at index i, keeping order. */
void nd_findings_remove(struct nd_findings *list, size_t i);
/* Finds the first finding with this id, or NULL. */
struct nd_finding *nd_findings_find(const struct nd_findings *list, const char *id);
void nd_findings_release(struct nd_findings *list);
void nd_finding_free(struct nd_finding *f);

/* Highest severity present; -1 when the list is empty. */
int nd_findings_max_severity(const struct nd_findings *list);
/* The exit code of a finding list: 0 nothing above info, 1 warnings, 2 errors. */
int nd_findings_exit_code(const struct nd_findings *list);

const char *nd_severity_name(enum nd_severity s);
const char *nd_confidence_name(enum nd_confidence c);
bool nd_category_is_valid(const char *category);
/* Parses "error"/"warning"/"info"; returns -1 when unknown. */
int nd_severity_parse(const char *s);

#endif
