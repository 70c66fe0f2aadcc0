/* Unit tests for making the cache folder as root in places of another
 * user (sudo keeps HOME on some systems): nothing is made in their folder,
 * and a link they put where the parent belongs is not followed. A folder
 * of our own, missing parent and all, is made 0700. */
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

#include "core/cachedir.h"
#include "core/strbuf.h"

static char top[] = "/tmp/nd-cachedir-XXXXXX";

static char *at(const char *rel)
{
    return nd_xasprintf("%s/%s", top, rel);
}

static void test_own_folder_made(void **state)
{
    (void)state;
    char *dir = at("mine/.cache/npu-doctor");
    char *home = at("mine");
    assert_int_equal(mkdir(home, 0755), 0);
    assert_int_equal(nd_cache_dir_make(dir), 0);
    struct stat st;
    assert_int_equal(lstat(dir, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(nd_cache_dir_make(dir), 0); /* again: already there */
    free(dir);
    free(home);
}

static void test_other_users_home(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    /* Their HOME with no .cache: nothing is made in it. */
    char *home = at("theirs");
    char *dir = at("theirs/.cache/npu-doctor");
    char *parent = at("theirs/.cache");
    assert_int_equal(mkdir(home, 0755), 0);
    assert_int_equal(chown(home, 65534, 65534), 0);
    assert_true(nd_cache_dir_make(dir) < 0);
    assert_int_equal(access(parent, F_OK), -1);
    /* Their .cache a link of theirs to elsewhere: not followed. */
    char *elsewhere = at("elsewhere");
    char *made = at("elsewhere/npu-doctor");
    assert_int_equal(mkdir(elsewhere, 0755), 0);
    assert_int_equal(symlink(elsewhere, parent), 0);
    assert_int_equal(lchown(parent, 65534, 65534), 0);
    assert_true(nd_cache_dir_make(dir) < 0);
    assert_int_equal(access(made, F_OK), -1);
    free(home);
    free(dir);
    free(parent);
    free(elsewhere);
    free(made);
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(top))
        return -1;
    return chmod(top, 0755);
}

static int teardown(void **state)
{
    (void)state;
    char *cmd = nd_xasprintf("rm -rf '%s'", top);
    int rc = system(cmd);
    free(cmd);
    return rc == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_own_folder_made),
        cmocka_unit_test(test_other_users_home),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
