/* The Python stack a snapshot records: the interpreter the job would run
 * and every installed distribution's version, read from package metadata in
 * a child process with a deadline (nothing heavy is imported). */
#ifndef ND_PROBE_PYTHON_PACKAGES_H
#define ND_PROBE_PYTHON_PACKAGES_H

#include <jansson.h>

#include "core/environ.h"

/* python: the interpreter (a path, or a name searched on env's PATH; NULL
 * means "python3"). Runs it with env. Returns {"executable", "version",
 * "packages": {"<lower-case name>": "<version>"}} or, when it cannot run or
 * times out, {"interpreter": ..., "error": "..."}. Never NULL. */
json_t *nd_python_packages_json(const char *python, const struct nd_environ *env, double timeout_s);

#endif
