/* Unit tests for core/: strbuf, findings, redaction, sha256, size parsing,
 * JSON strings, spawn with deadlines, rootfs symlink resolution. */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "core/fileio.h"
#include "core/finding.h"
#include "core/json_util.h"
#include "core/redact.h"
#include "core/report.h"
#include "core/report_table.h"
#include "core/rootfs.h"
#include "core/sha256.h"
#include "core/spawn.h"
#include "core/strbuf.h"

static void test_strbuf(void **state)
{
    (void)state;
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    assert_string_equal(sb.buf, "");
    for (int i = 0; i < 1000; i++)
        nd_strbuf_addf(&sb, "%d,", i);
    assert_int_equal(strncmp(sb.buf, "0,1,2,", 6), 0);
    assert_int_equal(sb.len, strlen(sb.buf));
    nd_strbuf_release(&sb);
}

static void test_findings_exit_codes(void **state)
{
    (void)state;
    struct nd_findings l = ND_FINDINGS_INIT;
    assert_int_equal(nd_findings_exit_code(&l), 0);
    nd_findings_add(&l, "a.b", ND_CAT_CONFIG, ND_SEV_INFO, "note %d", 1);
    assert_int_equal(nd_findings_exit_code(&l), 0);
    struct nd_finding *w = nd_findings_add(&l, "a.w", ND_CAT_CONFIG, ND_SEV_WARNING, "warn");
    nd_finding_add_fix(w, "do %s", "this");
    nd_finding_add_evidence(w, "f.log", 12, "line %s", "x");
    assert_int_equal(nd_findings_exit_code(&l), 1);
    nd_findings_add(&l, "a.e", ND_CAT_ENV_NOT_LOADED, ND_SEV_ERROR, "err");
    assert_int_equal(nd_findings_exit_code(&l), 2);
    assert_ptr_equal(nd_findings_find(&l, "a.w"), w);
    assert_string_equal(w->fix[0], "do this");
    assert_int_equal(w->evidence[0].line, 12);
    nd_findings_remove(&l, 0);
    assert_int_equal(l.n, 2);
    assert_string_equal(l.v[0]->id, "a.w");
    assert_true(nd_category_is_valid("cpu-fallback"));
    assert_false(nd_category_is_valid("cpu_fallback"));
    nd_findings_release(&l);
}

static void test_sha256_known_vector(void **state)
{
    (void)state;
    char hex[65];
    nd_sha256_hex_prefix("abc", 3, hex, 64);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    nd_sha256_hex_prefix("", 0, hex, 64);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    /* Two blocks of padding. */
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    nd_sha256_hex_prefix(m, strlen(m), hex, 64);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_redaction(void **state)
{
    (void)state;
    assert_true(nd_redact_name_is_secret("HF_TOKEN"));
    assert_true(nd_redact_name_is_secret("AWS_SECRET_ACCESS_KEY"));
    assert_true(nd_redact_name_is_secret("WANDB_API_KEY"));
    assert_true(nd_redact_name_is_secret("db_password"));
    assert_false(nd_redact_name_is_secret("LD_LIBRARY_PATH"));
    assert_false(nd_redact_name_is_secret("SSH_AUTH_SOCK"));
    assert_false(nd_redact_name_is_secret("ASCEND_HOME_PATH"));
    assert_false(nd_redact_name_is_secret("RANK"));

    char *v = nd_redact_value("HF_TOKEN", "hf_abcdef");
    assert_true(nd_redact_is_marker(v));
    assert_null(strstr(v, "hf_abcdef"));
    char *v2 = nd_redact_value("HF_TOKEN", "hf_abcdef");
    assert_string_equal(v, v2); /* equal secrets compare equal */
    free(v);
    free(v2);

    v = nd_redact_value("MASTER_URL", "http://user:pass@host:8080/x");
    assert_null(strstr(v, "pass@"));
    assert_non_null(strstr(v, "http://user:<redacted:"));
    assert_non_null(strstr(v, "@host:8080/x"));
    free(v);

    v = nd_redact_text("launch HF_TOKEN=hf_secret1 WANDB_API_KEY='k 2' RANK=3 git https://a:b@c/d");
    assert_null(strstr(v, "hf_secret1"));
    assert_null(strstr(v, "k 2"));
    assert_non_null(strstr(v, "RANK=3"));
    assert_null(strstr(v, "a:b@"));
    free(v);

    struct nd_error err;
    assert_int_equal(nd_redact_add_pattern("^MY_ODD_NAME$", &err), 0);
    assert_true(nd_redact_name_is_secret("MY_ODD_NAME"));
    assert_true(nd_redact_add_pattern("([", &err) < 0);
    nd_redact_reset();
    assert_false(nd_redact_name_is_secret("MY_ODD_NAME"));
}

/* What a reporter wrote to a stream, as a string (free it). */
static char *captured(void (*write)(FILE *fp, void *arg), void *arg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    write(fp, arg);
    fclose(fp);
    return buf;
}

static void write_table(FILE *fp, void *arg)
{
    (void)arg;
    static const struct nd_table_col cols[] = {{"ID", false, 4, 1}, {"N", true, 0, 0}, {"WHAT", false, 0, 0}};
    struct nd_table *t = nd_table_new(cols, 3);
    const char *a[] = {"x", "7", "HF_TOKEN=hf_secret_value"};
    const char *b[] = {"longer", "1234", "last column unpadded"};
    nd_table_add(t, a);
    nd_table_add(t, b);
    assert_int_equal(nd_table_rows(t), 2);
    nd_table_print(t, fp);
    nd_table_free(t);
}

/* Widths follow the widest cell (at least min_width), numbers align right,
 * gaps are as asked, and a secret in a cell never reaches the output. */
static void test_report_table(void **state)
{
    (void)state;
    char *out = captured(write_table, NULL);
    assert_null(strstr(out, "hf_secret_value"));
    char *red = nd_redact_text("HF_TOKEN=hf_secret_value");
    char *want = nd_xasprintf("ID        N  WHAT\n"
                              "x         7  %s\n"
                              "longer 1234  last column unpadded\n",
                              red);
    assert_string_equal(out, want);
    free(want);
    free(red);
    free(out);
}

static void write_ranked(FILE *fp, void *arg)
{
    struct nd_findings *fs = arg;
    nd_findings_print_ranked(fs, false, "2 inputs (10 lines)", fp);
}

static void write_note(FILE *fp, void *arg)
{
    nd_report_note(fp, "%d of %d shown; %s", 1, 2, (const char *)arg);
}

/* explain's view: root cause first with where it began, the rest one line
 * each (titles redacted too), the summary over the scope. */
static void test_report_ranked(void **state)
{
    (void)state;
    struct nd_findings fs = ND_FINDINGS_INIT;
    struct nd_finding *root = nd_findings_add(&fs, "a.oom", "device-oom", ND_SEV_ERROR, "Out of memory");
    root->rank = 5;
    root->first_file = nd_xstrdup("rank_5.log");
    root->first_line = 204;
    struct nd_finding *other = nd_findings_add(&fs, "b.net", "distributed", ND_SEV_WARNING,
                                               "cannot reach MASTER_URL=http://u:pw@host");
    other->count = 8;
    char *out = captured(write_ranked, &fs);
    assert_true(strncmp(out, "Root cause (rank 5, rank_5.log:204):\nerror: Out of memory", 57) == 0);
    assert_non_null(
        strstr(out, "\nAlso found (1):\n  warning  distributed       cannot reach MASTER_URL=http://u:<redacted:"));
    assert_non_null(strstr(out, " (x8)\n"));
    assert_null(strstr(out, "pw@"));
    assert_non_null(strstr(out, "\n1 error, 1 warning, 0 notes in 2 inputs (10 lines)\n"));
    free(out);
    nd_findings_release(&fs);
    out = captured(write_ranked, &fs);
    assert_string_equal(out, "No known problem found in 2 inputs (10 lines).\n");
    free(out);
    out = captured(write_note, "AWS_SECRET_ACCESS_KEY=abc123");
    assert_true(strncmp(out, "1 of 2 shown; AWS_SECRET_ACCESS_KEY=<redacted:", 46) == 0);
    free(out);
}

static void test_parse_size(void **state)
{
    (void)state;
    assert_int_equal(nd_parse_size("64M"), 64LL * 1024 * 1024);
    assert_int_equal(nd_parse_size("1G"), 1024LL * 1024 * 1024);
    assert_int_equal(nd_parse_size("512"), 512);
    assert_int_equal(nd_parse_size("2KiB"), 2048);
    assert_int_equal(nd_parse_size("x"), -1);
    assert_int_equal(nd_parse_size("5Q"), -1);
    char buf[32];
    nd_format_bytes(64ULL * 1024 * 1024, buf, sizeof buf);
    assert_string_equal(buf, "64 MiB");
    nd_format_bytes(1536ULL * 1024 * 1024, buf, sizeof buf);
    assert_string_equal(buf, "1.5 GiB");
}

static void test_json_str_invalid_utf8(void **state)
{
    (void)state;
    json_t *j = nd_json_strn("ok\xff\xfe"
                             "x\0y",
                             7);
    assert_non_null(j);
    assert_string_equal(json_string_value(j), "ok\xEF\xBF\xBD\xEF\xBF\xBDxy");
    json_decref(j);
}

static void test_spawn_timeout_and_crash(void **state)
{
    (void)state;
    struct nd_spawn_result r;
    struct nd_error err;
    char *sleep_argv[] = {"sleep", "30", NULL};
    assert_int_equal(nd_spawn_capture(sleep_argv, NULL, 0.3, 4096, &r, &err), 0);
    assert_true(r.timed_out);
    char desc[128];
    nd_spawn_describe(&r, 0.3, desc, sizeof desc);
    assert_string_equal(desc, "timed out after 0.3 s");
    nd_spawn_result_release(&r);

    char *sh_argv[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
    assert_int_equal(nd_spawn_capture(sh_argv, NULL, 10, 4096, &r, &err), 0);
    assert_true(r.exited);
    assert_int_equal(r.exit_code, 3);
    assert_string_equal(r.out, "out\n");
    assert_string_equal(r.err, "err\n");
    nd_spawn_result_release(&r);

    char *crash_argv[] = {"sh", "-c", "kill -SEGV $$", NULL};
    assert_int_equal(nd_spawn_capture(crash_argv, NULL, 10, 4096, &r, &err), 0);
    nd_spawn_describe(&r, 10, desc, sizeof desc);
    assert_string_equal(desc, "crashed with SIGSEGV");
    nd_spawn_result_release(&r);

    char *missing_argv[] = {"/nonexistent/binary", NULL};
    assert_int_equal(nd_spawn_capture(missing_argv, NULL, 10, 4096, &r, &err), 0);
    assert_false(r.started);
    nd_spawn_result_release(&r);
}

static int guarded_hang(void *arg, int fd)
{
    (void)arg;
    (void)fd;
    for (;;)
        pause();
    return 0;
}

static int guarded_ok(void *arg, int fd)
{
    const char *msg = arg;
    printf("noise from a vendor library\n");
    return nd_write_full(fd, msg, strlen(msg)) == 0 ? 0 : 1;
}

static void test_guard_call(void **state)
{
    (void)state;
    struct nd_spawn_result r;
    struct nd_error err;
    assert_int_equal(nd_guard_call(guarded_ok, "payload", 5, 1024, &r, &err), 0);
    assert_true(nd_spawn_ok(&r));
    assert_string_equal(r.out, "payload");
    assert_non_null(strstr(r.err, "noise"));
    nd_spawn_result_release(&r);
    assert_int_equal(nd_guard_call(guarded_hang, NULL, 0.2, 1024, &r, &err), 0);
    assert_true(r.timed_out);
    nd_spawn_result_release(&r);
}

static void *blocked_thread(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

/* How a process calling nd_assert_fork_safe ends (its wait status), with a
 * second thread running or not. The check runs in a child of the test, so
 * the thread and a possible abort stay there. */
static int fork_safe_status(bool second_thread)
{
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 2);
        pthread_t t;
        if (second_thread && pthread_create(&t, NULL, blocked_thread, NULL) != 0)
            _exit(2);
        nd_assert_fork_safe("the unit test");
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

/* A child running our code forked while a second thread exists could inherit
 * a held lock: debug builds (the sanitizer run) stop at once; release builds
 * check nothing. */
static void test_fork_safety_check(void **state)
{
    (void)state;
    int st = fork_safe_status(false);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    st = fork_safe_status(true);
#ifdef NDEBUG
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
#else
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
#endif
}

static int run_shell(const char *fmt, const char *a, const char *b)
{
    char *cmd = nd_xasprintf(fmt, a, b);
    int rc = system(cmd);
    free(cmd);
    return rc;
}

static void test_rootfs_symlinks_stay_inside(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/nd-rootfs-XXXXXX";
    char *root = mkdtemp(tmpl);
    assert_non_null(root);
    char p[512];
    snprintf(p, sizeof p, "%s/usr/local/Ascend/cann-9.0.0", root);
    assert_int_equal(run_shell("mkdir -p %s && echo v=1 > %s/version.cfg", p, p), 0);
    snprintf(p, sizeof p, "%s/usr/local/Ascend/cann", root);
    assert_int_equal(symlink("/usr/local/Ascend/cann-9.0.0", p), 0); /* absolute: must stay in root */
    snprintf(p, sizeof p, "%s/usr/local/Ascend/latest", root);
    assert_int_equal(symlink("cann", p), 0);
    struct nd_error err;
    assert_int_equal(nd_rootfs_set(root, &err), 0);
    char out[512];
    assert_int_equal(nd_rootfs_realpath("/usr/local/Ascend/latest/version.cfg", out, sizeof out), 0);
    assert_string_equal(out, "/usr/local/Ascend/cann-9.0.0/version.cfg");
    assert_true(nd_rootfs_is_file("/usr/local/Ascend/latest/version.cfg"));
    char *buf;
    size_t len;
    assert_int_equal(nd_rootfs_read("/usr/local/Ascend/latest/version.cfg", 1024, &buf, &len, &err), 0);
    assert_string_equal(buf, "v=1\n");
    free(buf);
    snprintf(p, sizeof p, "%s/loop", root);
    assert_int_equal(symlink("/loop", p), 0);
    assert_int_equal(nd_rootfs_realpath("/loop", out, sizeof out), -ELOOP);
    assert_true(nd_rootfs_set("/nonexistent-root-dir", &err) < 0);
    assert_int_equal(nd_rootfs_set("/", &err), 0);
    assert_int_equal(run_shell("rm -rf %s%s", root, ""), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strbuf),
        cmocka_unit_test(test_findings_exit_codes),
        cmocka_unit_test(test_sha256_known_vector),
        cmocka_unit_test(test_redaction),
        cmocka_unit_test(test_report_table),
        cmocka_unit_test(test_report_ranked),
        cmocka_unit_test(test_parse_size),
        cmocka_unit_test(test_json_str_invalid_utf8),
        cmocka_unit_test(test_spawn_timeout_and_crash),
        cmocka_unit_test(test_guard_call),
        cmocka_unit_test(test_fork_safety_check),
        cmocka_unit_test(test_rootfs_symlinks_stay_inside),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
