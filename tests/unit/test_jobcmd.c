/* The job's own command: which interpreter and script a running process
 * runs (check --env-from), and fix lines that name them. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/rootfs.h"
#include "probe/ascend_install.h"
#include "probe/envcheck.h"
#include "core/environ.h"
#include "probe/jobcmd.h"

static void test_python_names(void **state)
{
    (void)state;
    const char *yes[] = {"python", "python3", "python3.11", "python3.13t", "python3.11d", "pypy3", "pypy3.10"};
    const char *no[] = {"bash", "python3-config", "pythonw.exe", "torchrun", "ipython3", "py", ""};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        assert_true(nd_job_is_python_name(yes[i]));
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        assert_false(nd_job_is_python_name(no[i]));
}

/* cmdline buffers as /proc/PID/cmdline holds them: NUL after every argument. */
static int script_of(const char *buf, size_t len, char *out, size_t size)
{
    return nd_job_cmdline_script(buf, len, out, size);
}
#define CMDLINE(s) s, sizeof(s) - 1

static void test_cmdline_script(void **state)
{
    (void)state;
    char s[256];
    assert_int_equal(script_of(CMDLINE("python3\0train.py\0--lr\0"
                                       "1e-4\0"),
                               s, sizeof s),
                     0);
    assert_string_equal(s, "train.py");
    assert_int_equal(script_of(CMDLINE("/opt/venv/bin/python\0-u\0-W\0ignore\0/work/train.py\0"), s, sizeof s), 0);
    assert_string_equal(s, "/work/train.py");
    assert_int_equal(script_of(CMDLINE("python\0-uBWignore::DeprecationWarning\0t.py\0"), s, sizeof s), 0);
    assert_string_equal(s, "t.py");
    assert_int_equal(script_of(CMDLINE("python\0-X\0faulthandler\0a.py\0"), s, sizeof s), 0);
    assert_string_equal(s, "a.py");
    assert_int_equal(script_of(CMDLINE("python3\0-m\0torch.distributed.run\0--nproc-per-node=8\0t.py\0"), s, sizeof s),
                     0);
    assert_string_equal(s, "-m torch.distributed.run");
    assert_int_equal(script_of(CMDLINE("python3\0-um\0deepspeed.launcher.runner\0"), s, sizeof s), 0);
    assert_string_equal(s, "-m deepspeed.launcher.runner");
    assert_int_equal(script_of(CMDLINE("python3\0-mvllm.entrypoints.api_server\0"), s, sizeof s), 0);
    assert_string_equal(s, "-m vllm.entrypoints.api_server");
    assert_int_equal(script_of(CMDLINE("python3\0--\0x.py\0"), s, sizeof s), 0);
    assert_string_equal(s, "x.py");
    /* A last argument without its NUL (a truncated read) still counts. */
    assert_int_equal(script_of("python3\0train.py", 16, s, sizeof s), 0);
    assert_string_equal(s, "train.py");
    /* Nothing to name: -c code, stdin, a bare interpreter, an empty buffer, a dangling -m. */
    assert_int_equal(script_of(CMDLINE("python3\0-c\0import time\0"), s, sizeof s), -EINVAL);
    assert_string_equal(s, "");
    assert_int_equal(script_of(CMDLINE("python3\0-\0"), s, sizeof s), -EINVAL);
    assert_int_equal(script_of(CMDLINE("python3\0"), s, sizeof s), -EINVAL);
    assert_int_equal(script_of("", 0, s, sizeof s), -EINVAL);
    assert_int_equal(script_of(CMDLINE("python3\0-m\0"), s, sizeof s), -EINVAL);
    assert_int_equal(script_of(CMDLINE("python3\0-W\0"), s, sizeof s), -EINVAL);
    /* A script name that does not fit is refused, not cut. */
    assert_int_equal(script_of(CMDLINE("python3\0a-rather-long-script-name.py\0"), s, 8), -EINVAL);
}

static void test_cmd_from_pid(void **state)
{
    (void)state;
    struct nd_job_cmd *jc = calloc(1, sizeof *jc);
    /* This test binary: its exe is readable and it is no Python. */
    assert_int_equal(nd_job_cmd_from_pid(getpid(), jc), 0);
    assert_non_null(strstr(jc->exe, "test_jobcmd"));
    assert_false(jc->is_python);
    assert_string_equal(jc->script, "");
    assert_int_equal(nd_job_cmd_from_pid(4194303, jc), -ESRCH);
    assert_string_equal(jc->exe, "");
    free(jc);
}

/* The seed case's container fix names the job's own command when known. */
static void test_fix_names_job(void **state)
{
    (void)state;
    const char *fx = getenv("ND_FIXTURES");
    assert_non_null(fx);
    char root[4096];
    snprintf(root, sizeof root, "%s/roots/ascend-910b-cann80", fx);
    struct nd_error err;
    assert_int_equal(nd_rootfs_set(root, &err), 0);
    struct nd_ascend_install *a = calloc(1, sizeof *a);
    nd_ascend_probe(a);
    struct nd_environ env;
    nd_environ_init(&env, "pid 42");
    nd_environ_set(&env, "PATH", "/usr/bin:/bin");
    for (int pass = 0; pass < 2; pass++) {
        struct nd_findings f = ND_FINDINGS_INIT;
        nd_envcheck_judge(&env, a, NULL, 8, -1, false, &f, NULL);
        const struct nd_finding *x = NULL;
        for (size_t i = 0; i < f.n; i++)
            if (strcmp(f.v[i]->id, "env.cann-not-loaded") == 0)
                x = f.v[i];
        assert_non_null(x);
        assert_true(x->nfix >= 2);
        const char *want = pass == 0 ? "&& exec python train.py'" : "&& exec /opt/venv/bin/python3.10 -m llama.train'";
        assert_non_null(strstr(x->fix[1], want));
        nd_findings_release(&f);
        if (pass == 0) {
            env.job_python = strdup("/opt/venv/bin/python3.10");
            env.job_script = strdup("-m llama.train");
        }
    }
    nd_environ_release(&env);
    free(a);
    nd_rootfs_set("/", &err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_python_names),
        cmocka_unit_test(test_cmdline_script),
        cmocka_unit_test(test_cmd_from_pid),
        cmocka_unit_test(test_fix_names_job),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
