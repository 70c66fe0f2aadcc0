/* Temporary stand-ins until check lands (issue 2). */
#include "probe/checkup.h"

int nd_checkup_run(const struct nd_check_options *opt, struct nd_report *rep, struct nd_error *err)
{
    (void)opt; (void)rep; (void)err;
    return 0;
}

int nd_checkup_job_env(const struct nd_environ *env, const char *python, struct nd_findings *out)
{
    (void)env; (void)python; (void)out;
    return 0;
}
