/* Unit tests for the output-file helper (refusals, atomic replace, stdout),
 * the input opener (devices refused) and terminal escaping. */
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
#include <dirent.h>

#include "core/fileio.h"
#include "core/termsafe.h"

static char nd_dir[64];

static int nd_setup(void **state)
{
    (void)state;
    snprintf(nd_dir, sizeof nd_dir, "/tmp/nd-outfile.XXXXXX");
    return mkdtemp(nd_dir) ? 0 : -1;
}

static int nd_teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", nd_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static char *nd_path(const char *name)
{
    static char buf[4][160];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", nd_dir, name);
    return buf[k];
}

static void test_refuses_non_regular(void **state)
{
    (void)state;
    struct nd_error err = {0};
    assert_int_equal(symlink("/etc/hostname", nd_path("link")), 0);
    assert_true(nd_write_file_atomic(nd_path("link"), "x", 1, &err) < 0);
    assert_non_null(strstr(err.msg, "symbolic link"));
    struct stat st;
    assert_int_equal(lstat(nd_path("link"), &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(mkfifo(nd_path("fifo"), 0600), 0);
    assert_true(nd_write_file_atomic(nd_path("fifo"), "x", 1, &err) < 0);
    assert_int_equal(mkdir(nd_path("dir"), 0700), 0);
    assert_true(nd_write_file_atomic(nd_path("dir"), "x", 1, &err) < 0);
    assert_true(nd_output_check(nd_path("link"), &err) < 0);
    assert_int_equal(nd_output_check(nd_path("new-file"), &err), 0);
    assert_true(nd_output_check(nd_path("no/such/dir/f"), &err) < 0);
}

static void test_replaces_regular_atomically(void **state)
{
    (void)state;
    struct nd_error err = {0};
    const char *p = nd_path("out.json");
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0640);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "old", 3), 3);
    close(fd);
    chmod(p, 0640);
    struct nd_outfile *o;
    assert_int_equal(nd_outfile_open(p, &o, &err), 0);
    fputs("new", nd_outfile_stream(o));
    char buf[16] = "";
    fd = open(p, O_RDONLY);
    assert_int_equal(read(fd, buf, sizeof buf - 1), 3);
    close(fd);
    assert_string_equal(buf, "old"); /* nothing visible before commit */
    assert_int_equal(nd_outfile_commit(o, &err), 0);
    memset(buf, 0, sizeof buf);
    fd = open(p, O_RDONLY);
    assert_int_equal(read(fd, buf, sizeof buf - 1), 3);
    close(fd);
    assert_string_equal(buf, "new");
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    /* A discarded file leaves nothing behind. */
    assert_int_equal(nd_outfile_open(nd_path("gone.json"), &o, &err), 0);
    nd_outfile_discard(o);
    assert_int_equal(access(nd_path("gone.json"), F_OK), -1);
}

/* Entries of folder d other than . and .. */
static int nd_count_entries(const char *d)
{
    DIR *dir = opendir(d);
    assert_non_null(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(dir);
    return n;
}

static void test_nameless_until_commit(void **state)
{
    (void)state;
    struct nd_error err = {0};
    char sub[200];
    snprintf(sub, sizeof sub, "%s/sub", nd_dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    char p[240];
    snprintf(p, sizeof p, "%s/report.json", sub);
    struct nd_outfile *o;
    assert_int_equal(nd_outfile_open(p, &o, &err), 0);
    fputs("{}", nd_outfile_stream(o));
    fflush(nd_outfile_stream(o));
    /* Written but not committed: no name in the folder (a kill now leaves nothing). */
    assert_int_equal(nd_count_entries(sub), 0);
    assert_int_equal(nd_outfile_commit(o, &err), 0);
    assert_int_equal(nd_count_entries(sub), 1);
    assert_int_equal(access(p, R_OK), 0);
}

static void test_swapped_in_while_written(void **state)
{
    (void)state;
    struct nd_error err = {0};
    struct stat st;
    /* A new path that becomes a FIFO before commit: the FIFO stays. */
    const char *p = nd_path("late-fifo");
    struct nd_outfile *o;
    assert_int_equal(nd_outfile_open(p, &o, &err), 0);
    fputs("data", nd_outfile_stream(o));
    assert_int_equal(mkfifo(p, 0600), 0);
    assert_true(nd_outfile_commit(o, &err) < 0);
    assert_non_null(strstr(err.msg, "FIFO"));
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    /* A regular file swapped for a symlink before commit: the link and its target stay. */
    const char *target = nd_path("victim");
    int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "precious", 8), 8);
    close(fd);
    const char *q = nd_path("was-regular");
    fd = open(q, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(nd_outfile_open(q, &o, &err), 0);
    fputs("data", nd_outfile_stream(o));
    assert_int_equal(unlink(q), 0);
    assert_int_equal(symlink(target, q), 0);
    assert_true(nd_outfile_commit(o, &err) < 0);
    assert_int_equal(lstat(q, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    char buf[16] = "";
    fd = open(target, O_RDONLY);
    assert_int_equal(read(fd, buf, sizeof buf - 1), 8);
    close(fd);
    assert_string_equal(buf, "precious");
    /* No temp file left beside them. */
    DIR *dir = opendir(nd_dir);
    assert_non_null(dir);
    struct dirent *e;
    while ((e = readdir(dir)))
        assert_null(strstr(e->d_name, ".tmp-"));
    closedir(dir);
}

static void test_dash_is_stdout(void **state)
{
    (void)state;
    struct nd_outfile *o;
    struct nd_error err = {0};
    assert_int_equal(nd_outfile_open("-", &o, &err), 0);
    assert_ptr_equal(nd_outfile_stream(o), stdout);
    assert_int_equal(nd_outfile_commit(o, &err), 0);
    assert_int_equal(access("-", F_OK), -1);
}

static void test_input_refuses_devices(void **state)
{
    (void)state;
    int fd;
    struct nd_error err = {0};
    assert_int_equal(nd_open_input("/dev/zero", &fd, &err), -ENODEV);
    assert_non_null(strstr(err.msg, "is a device"));
    assert_int_equal(nd_open_input(nd_dir, &fd, &err), -EISDIR);
}

static void test_term_printable(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"plain text", "plain text"},
        {"tab\tstays", "tab\tstays"},
        {"\x1b]0;title\x07", "\\x1b]0;title\\x07"},
        {"two\nlines", "two\\nlines"},
        {"bad \xff byte", "bad \\xff byte"},
        {"caf\xc3\xa9 \xe2\x9c\x93", "caf\xc3\xa9 \xe2\x9c\x93"},
        {"rtl \xe2\x80\xae override", "rtl \\u202e override"},
        {"c1 \xc2\x9b csi", "c1 \\u009b csi"},
        {"overlong \xc0\xaf", "overlong \\xc0\\xaf"},
        {"surrogate \xed\xa0\x80", "surrogate \\xed\\xa0\\x80"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *r = nd_term_printable(cases[i].in);
        assert_string_equal(r, cases[i].out);
        assert_true(nd_term_is_printable(r));
        free(r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refuses_non_regular),      cmocka_unit_test(test_replaces_regular_atomically),
        cmocka_unit_test(test_dash_is_stdout),           cmocka_unit_test(test_input_refuses_devices),
        cmocka_unit_test(test_term_printable),           cmocka_unit_test(test_nameless_until_commit),
        cmocka_unit_test(test_swapped_in_while_written),
    };
    return cmocka_run_group_tests(tests, nd_setup, nd_teardown);
}
