/* Unit tests for the compiled-rules cache: a stored database loads back,
 * a corrupt one is ignored, only the most recently used few are kept, and
 * a database that is a link to a file elsewhere, or that others may write,
 * is never loaded (a database is code for the matcher). */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/fileio.h"
#include "core/strbuf.h"
#include "kb/kb_internal.h"

static char cache_dir[] = "/tmp/nd-kb-cache-XXXXXX";

static void key_of(int k, char key[33])
{
    snprintf(key, 33, "%032d", k);
}

static char *path_of(int k)
{
    char key[33];
    key_of(k, key);
    return nd_xasprintf("%s/rules-%s.hsdb", cache_dir, key);
}

static bool cached(int k)
{
    char *p = path_of(k);
    bool there = access(p, F_OK) == 0;
    free(p);
    return there;
}

/* Marks database k as last used at time t. */
static void set_used(int k, time_t t)
{
    char *p = path_of(k);
    struct timespec ts[2] = {{t, 0}, {t, 0}};
    assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
    free(p);
}

static hs_database_t *tiny_db(void)
{
    hs_database_t *db = NULL;
    hs_compile_error_t *cerr = NULL;
    assert_int_equal(hs_compile("EC0010", 0, HS_MODE_BLOCK, NULL, &db, &cerr), HS_SUCCESS);
    return db;
}

static void test_store_load_and_corrupt(void **state)
{
    (void)state;
    hs_database_t *db = tiny_db();
    char key[33];
    key_of(100, key);
    assert_null(nd_kb_cache_load(key));
    nd_kb_cache_store(db, key);
    hs_database_t *back = nd_kb_cache_load(key);
    assert_non_null(back);
    size_t a = 0, b = 0;
    hs_database_size(db, &a);
    hs_database_size(back, &b);
    assert_int_equal(a, b);
    hs_free_database(back);
    /* A truncated file (a disk that filled up) is a miss, not a crash. */
    char *p = path_of(100);
    assert_int_equal(nd_write_file_atomic(p, "garbage", 7, NULL), 0);
    assert_null(nd_kb_cache_load(key));
    unlink(p);
    free(p);
    hs_free_database(db);
}

/* The database's name as a link to a valid database outside the cache,
 * and a database that others can write: neither is loaded. */
static void test_untrusted_db_not_loaded(void **state)
{
    (void)state;
    hs_database_t *db = tiny_db();
    char key[33];
    key_of(200, key);
    nd_kb_cache_store(db, key);
    char *p = path_of(200);
    char *outside = nd_xasprintf("%s.outside", cache_dir);
    assert_int_equal(rename(p, outside), 0);
    assert_int_equal(symlink(outside, p), 0);
    hs_database_t *back = nd_kb_cache_load(key);
    if (back)
        hs_free_database(back);
    assert_null(back);
    unlink(p);
    assert_int_equal(rename(outside, p), 0);
    assert_int_equal(chmod(p, 0666), 0);
    back = nd_kb_cache_load(key);
    if (back)
        hs_free_database(back);
    assert_null(back);
    unlink(p);
    free(outside);
    free(p);
    hs_free_database(db);
}

static void test_prune_least_recently_used(void **state)
{
    (void)state;
    hs_database_t *db = tiny_db();
    time_t base = time(NULL) - 1000;
    char key[33];
    for (int k = 0; k < 10; k++) {
        key_of(k, key);
        nd_kb_cache_store(db, key);
        set_used(k, base + k);
    }
    /* Ten written, eight kept: the two used longest ago are gone. */
    assert_false(cached(0));
    assert_false(cached(1));
    for (int k = 2; k < 10; k++)
        assert_true(cached(k));
    /* A load counts as a use: 2 survives the next store, 3 goes instead. */
    key_of(2, key);
    hs_database_t *hit = nd_kb_cache_load(key);
    assert_non_null(hit);
    hs_free_database(hit);
    key_of(10, key);
    nd_kb_cache_store(db, key);
    assert_true(cached(2));
    assert_false(cached(3));
    assert_true(cached(10));
    /* Files that are not databases of ours are left alone. */
    char *other = nd_xasprintf("%s/notes.txt", cache_dir);
    assert_int_equal(nd_write_file_atomic(other, "x", 1, NULL), 0);
    key_of(11, key);
    nd_kb_cache_store(db, key);
    assert_int_equal(access(other, F_OK), 0);
    unlink(other);
    free(other);
    /* A database's name on a file of another user (only root can make one
     * here) is not ours to remove, even when it is the least recently used. */
    if (geteuid() == 0) {
        char *theirs = path_of(99);
        assert_int_equal(nd_write_file_atomic(theirs, "x", 1, NULL), 0);
        assert_int_equal(chown(theirs, 65534, 65534), 0);
        set_used(99, base - 500);
        key_of(12, key);
        nd_kb_cache_store(db, key);
        assert_int_equal(access(theirs, F_OK), 0);
        assert_true(cached(12));
        unlink(theirs);
        free(theirs);
    }
    hs_free_database(db);
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(cache_dir))
        return -1;
    return setenv("NPU_DOCTOR_CACHE_DIR", cache_dir, 1);
}

static int teardown(void **state)
{
    (void)state;
    char *cmd = nd_xasprintf("rm -rf '%s'", cache_dir);
    int rc = system(cmd);
    free(cmd);
    return rc == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_load_and_corrupt),
        cmocka_unit_test(test_prune_least_recently_used),
        cmocka_unit_test(test_untrusted_db_not_loaded),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
