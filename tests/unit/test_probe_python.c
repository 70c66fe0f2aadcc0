/* Unit tests for the Python stack probe (probe/python.c): how it finds the
 * job's interpreter and its sys.path without running it — a venv, a pyenv
 * shim, PYTHONPATH first, user site — on a root tree built in a temp dir. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/rootfs.h"
#include "probe/python.h"

static char root[PATH_MAX];

static void mkdirs(const char *rel)
{
    char p[PATH_MAX * 2];
    snprintf(p, sizeof p, "%s%s", root, rel);
    for (char *s = p + strlen(root) + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0755);
            *s = '/';
        }
    mkdir(p, 0755);
}

static void put(const char *rel, const char *text, mode_t mode)
{
    char p[PATH_MAX * 2];
    snprintf(p, sizeof p, "%s%s", root, rel);
    char dir[PATH_MAX * 2];
    snprintf(dir, sizeof dir, "%s", rel);
    *strrchr(dir, '/') = '\0';
    mkdirs(dir);
    FILE *fp = fopen(p, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    chmod(p, mode);
}

static void link_to(const char *target, const char *rel)
{
    char p[PATH_MAX * 2];
    snprintf(p, sizeof p, "%s%s", root, rel);
    assert_int_equal(symlink(target, p), 0);
}

static void pkg(const char *site, const char *dist, const char *module)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s/METADATA", site, dist);
    put(p, "Metadata-Version: 2.1\nName: x\nVersion: 0\n", 0644);
    if (module) {
        snprintf(p, sizeof p, "%s/%s/__init__.py", site, module);
        put(p, "", 0644);
    }
}

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "%s/nd-pytest.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(root));
    /* System python 3.10 with Debian's dist-packages. */
    put("/usr/bin/python3.10", "\177ELF", 0755);
    link_to("python3.10", "/usr/bin/python3");
    pkg("/usr/lib/python3/dist-packages", "numpy-1.21.5.egg-info", "numpy");
    /* A venv on top of it, without system site-packages, holding torch 2.4.0+cu121. */
    put("/opt/venv/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.10.12\n", 0644);
    mkdirs("/opt/venv/bin");
    link_to("/usr/bin/python3.10", "/opt/venv/bin/python3");
    pkg("/opt/venv/lib/python3.10/site-packages", "torch-2.4.0+cu121.dist-info", "torch");
    put("/opt/venv/lib/python3.10/site-packages/torch/version.py", "__version__ = '2.4.0+cu121'\ncuda = '12.1'\n", 0644);
    /* pyenv: a shim script, the global version file, the real interpreter. */
    put("/root/.pyenv/shims/python3", "#!/usr/bin/env bash\nexec pyenv exec python3 \"$@\"\n", 0755);
    put("/root/.pyenv/version", "3.11.7\n", 0644);
    put("/root/.pyenv/versions/3.11.7/bin/python3.11", "\177ELF", 0755);
    link_to("python3.11", "/root/.pyenv/versions/3.11.7/bin/python3");
    pkg("/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages", "torch_npu-2.4.0.post2.dist-info", "torch_npu");
    /* Something on PYTHONPATH: a source checkout of tbe without metadata. */
    put("/work/src/tbe/__init__.py", "", 0644);
    /* pip install --user. */
    pkg("/home/u/.local/lib/python3.10/site-packages", "transformers-4.44.2.dist-info", "transformers");
    struct nd_error err;
    assert_int_equal(nd_rootfs_set(root, &err), 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    struct nd_error err;
    nd_rootfs_set("/", &err);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_system_python(void **state)
{
    (void)state;
    struct nd_environ env;
    nd_environ_init(&env, "t");
    nd_environ_set(&env, "PATH", "/usr/bin:/bin");
    nd_environ_set(&env, "HOME", "/home/u");
    nd_environ_set(&env, "PYTHONPATH", "/work/src:/does/not/exist");
    struct nd_python *py = calloc(1, sizeof *py);
    nd_python_probe(NULL, &env, py);
    assert_true(py->found);
    assert_string_equal(py->exe, "/usr/bin/python3.10");
    assert_string_equal(py->version, "3.10");
    assert_string_equal(py->sys_path[0], "/work/src"); /* PYTHONPATH first, missing entries dropped */
    assert_string_equal(py->tbe_location, "/work/src");
    assert_true(py->pkg[ND_PKG_NUMPY].found);
    assert_string_equal(py->pkg[ND_PKG_NUMPY].version, "1.21.5");
    assert_true(py->pkg[ND_PKG_TRANSFORMERS].found); /* user site */
    assert_false(py->pkg[ND_PKG_TORCH].found);
    assert_int_equal(py->nothers, 1);
    free(py);
    nd_environ_release(&env);
}

static void test_venv(void **state)
{
    (void)state;
    struct nd_environ env;
    nd_environ_init(&env, "t");
    nd_environ_set(&env, "PATH", "/opt/venv/bin:/usr/bin");
    nd_environ_set(&env, "HOME", "/home/u");
    struct nd_python *py = calloc(1, sizeof *py);
    nd_python_probe(NULL, &env, py);
    assert_string_equal(py->path, "/opt/venv/bin/python3");
    assert_true(py->pkg[ND_PKG_TORCH].found);
    assert_string_equal(py->pkg[ND_PKG_TORCH].version, "2.4.0+cu121");
    assert_string_equal(py->torch_cuda, "12.1");
    assert_false(nd_python_torch_cpu_only(py));
    assert_false(py->pkg[ND_PKG_NUMPY].found);        /* system site-packages excluded */
    assert_false(py->pkg[ND_PKG_TRANSFORMERS].found); /* and the user site with them */
    /* Two python3 on PATH: the venv's (torch) and the system's (none). */
    assert_int_equal(py->nothers, 2);
    struct nd_findings f = ND_FINDINGS_INIT;
    nd_python_judge(py, false, false, false, NULL, &f);
    assert_non_null(nd_findings_find(&f, "python.interpreters-differ"));
    nd_findings_release(&f);
    free(py);
    nd_environ_release(&env);
}

static void test_pyenv_shim(void **state)
{
    (void)state;
    struct nd_environ env;
    nd_environ_init(&env, "t");
    nd_environ_set(&env, "PATH", "/root/.pyenv/shims:/usr/bin");
    nd_environ_set(&env, "PWD", "/");
    struct nd_python *py = calloc(1, sizeof *py);
    nd_python_probe(NULL, &env, py);
    assert_string_equal(py->exe, "/root/.pyenv/versions/3.11.7/bin/python3.11");
    assert_string_equal(py->how, "pyenv 3.11.7");
    assert_true(py->pkg[ND_PKG_TORCH_NPU].found);
    /* PYENV_VERSION=system: the next python3 on PATH. */
    nd_environ_set(&env, "PYENV_VERSION", "system");
    nd_python_probe(NULL, &env, py);
    assert_string_equal(py->exe, "/usr/bin/python3.10");
    assert_string_equal(py->how, "pyenv system");
    /* A version that is not installed: said so, never run. */
    nd_environ_set(&env, "PYENV_VERSION", "9.9.9");
    nd_python_probe(NULL, &env, py);
    assert_true(py->found);
    assert_true(py->error[0] != '\0');
    free(py);
    nd_environ_release(&env);
}

static void test_missing(void **state)
{
    (void)state;
    struct nd_environ env;
    nd_environ_init(&env, "t");
    nd_environ_set(&env, "PATH", "/nowhere");
    struct nd_python *py = calloc(1, sizeof *py);
    nd_python_probe(NULL, &env, py);
    assert_false(py->found);
    assert_non_null(strstr(py->error, "not on PATH"));
    nd_python_probe("/opt/none/python", &env, py);
    assert_false(py->found);
    json_t *j = nd_python_facts_json(py);
    assert_true(json_is_null(json_object_get(j, "path")));
    json_decref(j);
    free(py);
    nd_environ_release(&env);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_system_python),
        cmocka_unit_test(test_venv),
        cmocka_unit_test(test_pyenv_shim),
        cmocka_unit_test(test_missing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
