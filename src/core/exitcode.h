/* Exit codes shared by every command (docs/architecture.md, "Findings and exit codes"). */
#ifndef ND_CORE_EXITCODE_H
#define ND_CORE_EXITCODE_H

enum {
    ND_EXIT_OK = 0, /* nothing above info */
    ND_EXIT_WARNINGS = 1,
    ND_EXIT_ERRORS = 2,
    ND_EXIT_FAIL_FAST = 3, /* run/watch stopped the job because of a finding */
    ND_EXIT_TIMEOUT = 124, /* run stopped the job at --timeout (as timeout(1) does) */
    ND_EXIT_USAGE = 64,
    ND_EXIT_NOINPUT = 66,
    ND_EXIT_INTERNAL = 70,
    ND_EXIT_CANTCREAT = 73, /* an output file cannot be created or written */
};

#endif
