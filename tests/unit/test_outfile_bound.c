/* Unit tests for where an output file lands when its folder is swapped
 * while it is written: the folder is opened once, so a folder renamed away
 * and replaced by a link to somewhere else (a race another user can run in
 * a folder of theirs) gets the file, and the link's target gets nothing. */
#include <errno.h>
#include <fcntl.h>
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

#include "core/fileio.h"

static char nd_root[64];

static char *nd_at(const char *rel)
{
    char *p = malloc(strlen(nd_root) + strlen(rel) + 2);
    sprintf(p, "%s/%s", nd_root, rel);
    return p;
}

static void test_swapped_folder(void **state)
{
    (void)state;
    snprintf(nd_root, sizeof nd_root, "/tmp/nd-bound.XXXXXX");
    assert_non_null(mkdtemp(nd_root));
    char *a = nd_at("a"), *moved = nd_at("a.moved"), *else_ = nd_at("elsewhere");
    assert_int_equal(mkdir(a, 0755), 0);
    assert_int_equal(mkdir(else_, 0755), 0);
    char *path = nd_at("a/x.json");
    struct nd_outfile *o;
    struct nd_error err = {0};
    assert_int_equal(nd_outfile_open(path, &o, &err), 0);
    fputs("{}\n", nd_outfile_stream(o));
    /* The swap, between open and commit. */
    assert_int_equal(rename(a, moved), 0);
    assert_int_equal(symlink(else_, a), 0);
    int rc = nd_outfile_commit(o, &err);
    char *in_moved = nd_at("a.moved/x.json"), *in_else = nd_at("elsewhere/x.json");
    struct stat st;
    assert_int_not_equal(stat(in_else, &st), 0);
    assert_int_equal(rc, 0);
    assert_int_equal(stat(in_moved, &st), 0);

    unlink(in_moved);
    unlink(a);
    rmdir(moved);
    rmdir(else_);
    rmdir(nd_root);
    free(a), free(moved), free(else_), free(path), free(in_moved), free(in_else);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_swapped_folder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
