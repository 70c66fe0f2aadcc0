/* One entry point per subcommand; main.c dispatches here. Each parses its
 * options with its table (cmd/options.h), which also answers --help, and
 * returns the process exit code; main closes stdout after it. */
#ifndef ND_CMD_CMD_H
#define ND_CMD_CMD_H

int cmd_check(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_ps(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_rules(int argc, char **argv);

/* Prints "npu-doctor <cmd>: <msg>" on stderr (one line) and returns code. */
int nd_cmd_fail(const char *cmd, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Handles a --redact REGEX option: adds the operator pattern, or prints the
 * regex error (and the try line) and returns ND_EXIT_USAGE. */
int nd_cmd_add_redact(const char *cmd, const char *regex);

#endif
