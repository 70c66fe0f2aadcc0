/* Fuzz target: the job-environment parsers behind --env-file and
 * --env-from (KEY=VALUE lines, NUL-separated /proc/PID/environ, docker
 * inspect JSON), then the environment judgement over what they produced. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/finding.h"
#include "probe/envcheck.h"
#include "core/environ.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    struct nd_environ env;
    struct nd_error err;
    nd_environ_init(&env, "fuzz");
    nd_environ_parse_lines(buf, size, &env);
    /* Judged without an install: visible devices, stubs, mixed paths, debug switches. */
    struct nd_findings f = ND_FINDINGS_INIT;
    nd_envcheck_judge(&env, NULL, NULL, 8, 2, false, &f, NULL);
    nd_findings_release(&f);
    json_t *facts = nd_envcheck_facts_json(&env);
    json_decref(facts);
    nd_environ_release(&env);
    nd_environ_init(&env, "fuzz");
    nd_environ_parse_nul(buf, size, &env);
    nd_environ_release(&env);
    nd_environ_init(&env, "fuzz");
    nd_environ_parse_docker_json(buf, size, &env, &err);
    nd_environ_release(&env);
    return 0;
}
