/* The command-line layer: each command describes its options once, in a
 * table, and both the parser and the --help text are made from it (as git's
 * parse-options does). One error format for every command:
 *
 *   npu-doctor CMD: <what is wrong>
 *   did you mean '--level'?            (only when a known option is close)
 *   try 'npu-doctor CMD --help'
 *
 * on stderr, exit 64. Values are checked by kind with the strict parsers of
 * core/numparse.h, so every pid, every number of seconds is read alike. */
#ifndef ND_CMD_OPTIONS_H
#define ND_CMD_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

/* What an option takes, and what its out pointer points to. */
enum nd_arg_kind {
    ND_ARG_NONE,     /* a flag: bool */
    ND_ARG_STRING,   /* const char * (the argv word itself) */
    ND_ARG_PID,      /* long: 1..pid_max */
    ND_ARG_SECONDS,  /* double: decimal with an optional fraction, within [min, max] */
    ND_ARG_DURATION, /* double: seconds as SECONDS, or with a unit: 90s, 30m, 2h */
    ND_ARG_NUMBER,   /* double: as seconds, for quantities like cores */
    ND_ARG_COUNT,    /* long: whole number within [min, max] */
    ND_ARG_ENUM,     /* int: the value of the choice named */
};

#define ND_OPTF_REPEAT 0x1u    /* every occurrence counts (the callback collects); help says so */
#define ND_OPTF_HIDDEN 0x2u    /* parsed but left out of --help (test switches) */
#define ND_OPTF_OPTIONAL 0x4u  /* --opt or --opt=VALUE; never takes the next word */
#define ND_OPTF_ABOVE_MIN 0x8u /* the value must be above min, not min itself */

struct nd_opt_choice {
    const char *name; /* NULL ends the list */
    int value;
    bool alias; /* accepted, not named in messages ("errors" for "error") */
};

struct nd_option {
    const char *name; /* long name without "--"; NULL ends the table */
    char short_name;  /* 0: none */
    enum nd_arg_kind kind;
    unsigned flags;
    void *out;                           /* may be NULL when cb does the work */
    double min, max;                     /* SECONDS, NUMBER, COUNT */
    const struct nd_opt_choice *choices; /* ENUM */
    /* Called after the value was checked and stored: 0, or the exit code
     * after printing one line (nd_cmd_fail). arg is NULL for a flag or an
     * optional value not given. */
    int (*cb)(const char *cmd, const char *arg, void *ctx);
    const char *arg_name; /* "N", "DIR" in --help; "VALUE" when NULL */
    const char *help;     /* wrapped to the terminal-safe 80 columns; '\n' forces a break */
};

#define ND_SPEC_STOP_AT_OPERAND 0x1u /* options end at the first operand (run CMD ARGS) */
#define ND_SPEC_NO_OPERANDS 0x2u     /* any operand is an "unexpected argument" */

/* A command: its synopsis, the prose around the options, and the table.
 * -h/--help is implied in every table and listed last. */
struct nd_cmd_spec {
    const char *name;  /* "check"; "" for the top level */
    const char *usage; /* synopsis lines, each without "usage: " (the first gets it) */
    const char *about; /* paragraph(s) before the options, or NULL */
    const struct nd_option *opts;
    const char *footer; /* text after the options (exit status, examples), or NULL */
    unsigned flags;
};

/* Result of nd_opts_parse that is not an exit code: --help was printed. */
#define ND_OPTS_HELP (-1)

/* Parses argv[1..argc-1] against spec. Operands are moved behind the
 * options (in their order) and *first_operand is set to the first one, so
 * argv[*first_operand..argc-1] are the operands. Returns 0, ND_OPTS_HELP
 * when --help was asked (and printed to stdout), or the exit code after
 * printing the error (ND_EXIT_USAGE, or what a callback returned).
 * Long options may be abbreviated to any unambiguous prefix, as getopt_long
 * allowed; "--" ends the options. */
int nd_opts_parse(const struct nd_cmd_spec *spec, int argc, char **argv, void *ctx, int *first_operand);

/* Writes the --help text made from spec. */
void nd_opts_help(const struct nd_cmd_spec *spec, FILE *fp);

/* A usage error in the common format: the line, then the "try" line; returns ND_EXIT_USAGE. */
int nd_opts_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same with "did you mean 'HINT'?" between the two lines (hint NULL: none). */
int nd_opts_usage_hint(const char *cmd, const char *hint, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Flushes and closes stdout at exit. On a write error: one line
 * "npu-doctor CMD: write error on standard output: <reason>" (no reason
 * when an earlier flush failed and its errno is gone) and
 * ND_EXIT_INTERNAL. EPIPE (the reader left, with SIGPIPE ignored) stays
 * silent and keeps code, as the default SIGPIPE death would have been. */
int nd_opts_close_stdout(const char *cmd, int code);

#endif
