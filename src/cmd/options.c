/* The option-table parser and the --help text made from the same table (see
 * options.h). The grammar is getopt_long's, which every command used before:
 * "--name=value" and "--name value", "-xVALUE" and "-x VALUE", clustered
 * flags ("-qv"), unambiguous prefixes of long names, "--" to end the
 * options; a lone "-" is an operand (stdin). */
#include "cmd/options.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/exitcode.h"
#include "core/numparse.h"
#include "core/strbuf.h"
#include "core/suggest.h"
#include "core/termsafe.h"

/* Help lines stay within 80 columns: 79 characters and the newline. */
#define ND_HELP_WIDTH 79
/* Option names longer than this get their help on the next line. */
#define ND_HELP_LEFT_MAX 24

static const struct nd_option nd_help_option = {
    .name = "help",
    .short_name = 'h',
    .kind = ND_ARG_NONE,
    .help = "this help",
};

static const char *nd_cmd_label(const struct nd_cmd_spec *spec)
{
    return spec->name && spec->name[0] ? spec->name : NULL;
}

/* "npu-doctor check: " or "npu-doctor: " for the top level. */
static void nd_opts_vreport(const char *cmd, const char *hint, const char *fmt, va_list ap)
{
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_vaddf(&sb, fmt, ap);
    char *msg = nd_strbuf_detach(&sb, NULL);
    /* Option values are quoted back: one line, shown and not obeyed. */
    char *shown = nd_term_printable(msg);
    fprintf(stderr, "npu-doctor%s%s: %s\n", cmd ? " " : "", cmd ? cmd : "", shown);
    free(shown);
    free(msg);
    if (hint)
        fprintf(stderr, "did you mean '%s'?\n", hint);
    fprintf(stderr, "try 'npu-doctor%s%s --help'\n", cmd ? " " : "", cmd ? cmd : "");
}

int nd_opts_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nd_opts_vreport(cmd && cmd[0] ? cmd : NULL, NULL, fmt, ap);
    va_end(ap);
    return ND_EXIT_USAGE;
}

int nd_opts_usage_hint(const char *cmd, const char *hint, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nd_opts_vreport(cmd && cmd[0] ? cmd : NULL, hint, fmt, ap);
    va_end(ap);
    return ND_EXIT_USAGE;
}

__attribute__((format(printf, 3, 4))) static int nd_opts_error(const struct nd_cmd_spec *spec, const char *hint,
                                                               const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nd_opts_vreport(nd_cmd_label(spec), hint, fmt, ap);
    va_end(ap);
    return ND_EXIT_USAGE;
}

static size_t nd_opts_count(const struct nd_option *opts)
{
    size_t n = 0;
    while (opts && opts[n].name)
        n++;
    return n;
}

/* The table entry for index i, the implied --help last. */
static const struct nd_option *nd_opts_at(const struct nd_cmd_spec *spec, size_t i)
{
    size_t n = nd_opts_count(spec->opts);
    if (i < n)
        return &spec->opts[i];
    return i == n ? &nd_help_option : NULL;
}

/* Exact name first, then a unique prefix. *nmatch > 1: ambiguous. */
static const struct nd_option *nd_opts_find_long(const struct nd_cmd_spec *spec, const char *name, size_t len,
                                                 size_t *nmatch)
{
    const struct nd_option *o, *found = NULL;
    *nmatch = 0;
    for (size_t i = 0; (o = nd_opts_at(spec, i)); i++)
        if (strlen(o->name) == len && strncmp(o->name, name, len) == 0) {
            *nmatch = 1;
            return o;
        }
    for (size_t i = 0; len && (o = nd_opts_at(spec, i)); i++)
        if (strncmp(o->name, name, len) == 0) {
            if (!found)
                found = o;
            ++*nmatch;
        }
    return *nmatch == 1 ? found : NULL;
}

static const struct nd_option *nd_opts_find_short(const struct nd_cmd_spec *spec, char c)
{
    const struct nd_option *o;
    for (size_t i = 0; (o = nd_opts_at(spec, i)); i++)
        if (o->short_name && o->short_name == c)
            return o;
    return NULL;
}

static int nd_opts_unknown_long(const struct nd_cmd_spec *spec, const char *word, const char *name, size_t len)
{
    char key[128];
    if (len >= sizeof key)
        len = sizeof key - 1;
    memcpy(key, name, len);
    key[len] = '\0';
    size_t n = nd_opts_count(spec->opts) + 1, k = 0;
    const char **names = calloc(n, sizeof *names);
    const struct nd_option *o;
    for (size_t i = 0; names && (o = nd_opts_at(spec, i)); i++)
        if (!(o->flags & ND_OPTF_HIDDEN))
            names[k++] = o->name;
    const char *best = names ? nd_suggest(key, names, k) : NULL;
    char hint[160] = "";
    if (best)
        snprintf(hint, sizeof hint, "--%s", best);
    free(names);
    char *shown = nd_term_printable(word);
    int rc = nd_opts_error(spec, best ? hint : NULL, "unknown option '%s'", shown ? shown : "?");
    free(shown);
    return rc;
}

static int nd_opts_ambiguous(const struct nd_cmd_spec *spec, const char *name, size_t len)
{
    char list[512] = "";
    size_t used = 0;
    const struct nd_option *o;
    for (size_t i = 0; (o = nd_opts_at(spec, i)); i++)
        if (strncmp(o->name, name, len) == 0) {
            int w = snprintf(list + used, sizeof list - used, " --%s", o->name);
            if (w < 0 || (size_t)w >= sizeof list - used)
                break;
            used += (size_t)w;
        }
    return nd_opts_error(spec, NULL, "ambiguous option '--%.*s':%s", (int)len, name, list);
}

/* "a process id (1-32768)", "error, warning or never". */
static void nd_opts_describe(const struct nd_option *o, char *buf, size_t size)
{
    switch (o->kind) {
    case ND_ARG_PID: snprintf(buf, size, "a process id (1-%ld)", nd_pid_max()); break;
    case ND_ARG_SECONDS: snprintf(buf, size, "a number of seconds between %g and %g", o->min, o->max); break;
    case ND_ARG_DURATION:
        snprintf(buf, size, "a duration (90s, 30m, 2h; plain numbers are seconds) between %g s and %g s", o->min, o->max);
        break;
    case ND_ARG_NUMBER:
        if (o->flags & ND_OPTF_ABOVE_MIN)
            snprintf(buf, size, "a number above %g and at most %g", o->min, o->max);
        else
            snprintf(buf, size, "a number between %g and %g", o->min, o->max);
        break;
    case ND_ARG_COUNT: snprintf(buf, size, "a whole number between %.0f and %.0f", o->min, o->max); break;
    case ND_ARG_ENUM: {
        size_t n = 0, used = 0;
        for (const struct nd_opt_choice *c = o->choices; c && c->name; c++)
            n += !c->alias;
        buf[0] = '\0';
        size_t k = 0;
        for (const struct nd_opt_choice *c = o->choices; c && c->name; c++) {
            if (c->alias)
                continue;
            const char *sep = k == 0 ? "" : k + 1 == n ? " or " : ", ";
            int w = snprintf(buf + used, size - used, "%s%s", sep, c->name);
            if (w < 0 || (size_t)w >= size - used)
                break;
            used += (size_t)w;
            k++;
        }
        break;
    }
    default: snprintf(buf, size, "a value"); break;
    }
}

static int nd_opts_bad_value(const struct nd_cmd_spec *spec, const struct nd_option *o, const char *arg)
{
    char what[256];
    nd_opts_describe(o, what, sizeof what);
    char *shown = nd_term_printable(arg);
    int rc = nd_opts_error(spec, NULL, "--%s must be %s, not '%s'", o->name, what, shown ? shown : "?");
    free(shown);
    return rc;
}

/* Checks and stores one value, then runs the callback. */
static int nd_opts_store(const struct nd_cmd_spec *spec, const struct nd_option *o, const char *arg, void *ctx)
{
    double d;
    unsigned long u;
    pid_t pid;
    switch (o->kind) {
    case ND_ARG_NONE:
        if (o->out)
            *(bool *)o->out = true;
        break;
    case ND_ARG_STRING:
        if (o->out)
            *(const char **)o->out = arg;
        break;
    case ND_ARG_PID:
        if (nd_parse_pid(arg, &pid) < 0)
            return nd_opts_bad_value(spec, o, arg);
        if (o->out)
            *(long *)o->out = (long)pid;
        break;
    case ND_ARG_SECONDS:
    case ND_ARG_NUMBER:
        if (nd_parse_seconds(arg, &d) < 0 || d < o->min || d > o->max || ((o->flags & ND_OPTF_ABOVE_MIN) && d <= o->min))
            return nd_opts_bad_value(spec, o, arg);
        if (o->out)
            *(double *)o->out = d;
        break;
    case ND_ARG_DURATION:
        if (nd_parse_duration(arg, &d) < 0 || d < o->min || d > o->max || ((o->flags & ND_OPTF_ABOVE_MIN) && d <= o->min))
            return nd_opts_bad_value(spec, o, arg);
        if (o->out)
            *(double *)o->out = d;
        break;
    case ND_ARG_COUNT:
        if (nd_parse_count(arg, &u) < 0 || (double)u < o->min || (double)u > o->max)
            return nd_opts_bad_value(spec, o, arg);
        if (o->out)
            *(long *)o->out = (long)u;
        break;
    case ND_ARG_ENUM: {
        const struct nd_opt_choice *c = o->choices;
        while (c && c->name && strcmp(c->name, arg) != 0)
            c++;
        if (!c || !c->name)
            return nd_opts_bad_value(spec, o, arg);
        if (o->out)
            *(int *)o->out = c->value;
        break;
    }
    }
    return o->cb ? o->cb(spec->name, arg, ctx) : 0;
}

/* One "--name[=value]" word at argv[*i]; may take argv[*i + 1]. */
static int nd_opts_long(const struct nd_cmd_spec *spec, int argc, char **argv, int *i, void *ctx)
{
    const char *word = argv[*i];
    const char *name = word + 2;
    size_t len = strcspn(name, "=");
    const char *value = name[len] == '=' ? name + len + 1 : NULL;
    size_t nmatch;
    const struct nd_option *o = nd_opts_find_long(spec, name, len, &nmatch);
    if (nmatch > 1)
        return nd_opts_ambiguous(spec, name, len);
    if (!o)
        return nd_opts_unknown_long(spec, word, name, len);
    if (o->kind == ND_ARG_NONE && !(o->flags & ND_OPTF_OPTIONAL)) {
        if (value)
            return nd_opts_error(spec, NULL, "option '--%s' takes no value", o->name);
    } else if (!value && !(o->flags & ND_OPTF_OPTIONAL)) {
        if (*i + 1 >= argc)
            return nd_opts_error(spec, NULL, "option '--%s' needs a value", o->name);
        value = argv[++*i];
    }
    if (o == &nd_help_option) {
        nd_opts_help(spec, stdout);
        return ND_OPTS_HELP;
    }
    return nd_opts_store(spec, o, value, ctx);
}

/* One "-abc" / "-xVALUE" word at argv[*i]; may take argv[*i + 1]. */
static int nd_opts_short(const struct nd_cmd_spec *spec, int argc, char **argv, int *i, void *ctx)
{
    const char *word = argv[*i];
    for (size_t j = 1; word[j]; j++) {
        const struct nd_option *o = nd_opts_find_short(spec, word[j]);
        if (!o) {
            char c[2] = {word[j], '\0'};
            char *shown = nd_term_printable(c);
            int rc = nd_opts_error(spec, NULL, "unknown option '-%s'", shown ? shown : "?");
            free(shown);
            return rc;
        }
        if (o == &nd_help_option) {
            nd_opts_help(spec, stdout);
            return ND_OPTS_HELP;
        }
        if (o->kind == ND_ARG_NONE || (o->flags & ND_OPTF_OPTIONAL)) {
            int rc = nd_opts_store(spec, o, NULL, ctx);
            if (rc)
                return rc;
            continue;
        }
        const char *value = word + j + 1;
        if (!*value) {
            if (*i + 1 >= argc)
                return nd_opts_error(spec, NULL, "option '-%c' needs a value", word[j]);
            value = argv[++*i];
        }
        return nd_opts_store(spec, o, value, ctx);
    }
    return 0;
}

int nd_opts_parse(const struct nd_cmd_spec *spec, int argc, char **argv, void *ctx, int *first_operand)
{
    *first_operand = argc;
    if (argc < 1)
        return 0;
    char **words = calloc((size_t)argc, sizeof *words), **ops = calloc((size_t)argc, sizeof *ops);
    if (!words || !ops) {
        free(words);
        free(ops);
        return nd_cmd_fail(spec->name && spec->name[0] ? spec->name : "", ND_EXIT_INTERNAL, "out of memory");
    }
    int nwords = 0, nops = 0, rc = 0, i;
    for (i = 1; i < argc; i++) {
        char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            words[nwords++] = a;
            for (i++; i < argc; i++)
                ops[nops++] = argv[i];
            break;
        }
        if (a[0] != '-' || a[1] == '\0') {
            if (spec->flags & ND_SPEC_STOP_AT_OPERAND) {
                for (; i < argc; i++)
                    ops[nops++] = argv[i];
                break;
            }
            ops[nops++] = a;
            continue;
        }
        int start = i;
        rc = a[1] == '-' ? nd_opts_long(spec, argc, argv, &i, ctx) : nd_opts_short(spec, argc, argv, &i, ctx);
        if (rc)
            break;
        for (int k = start; k <= i; k++)
            words[nwords++] = argv[k];
    }
    if (rc == 0) {
        /* The options first, then the operands, each in the order given. */
        for (int k = 0; k < nwords; k++)
            argv[1 + k] = words[k];
        for (int k = 0; k < nops; k++)
            argv[1 + nwords + k] = ops[k];
        *first_operand = 1 + nwords;
        if (nops && (spec->flags & ND_SPEC_NO_OPERANDS)) {
            char *shown = nd_term_printable(ops[0]);
            rc = nd_opts_error(spec, NULL, "unexpected argument '%s'", shown ? shown : "?");
            free(shown);
        }
    }
    free(words);
    free(ops);
    return rc;
}

/* "  -l, --level N" or "      --json" or "  --pid N" (no short names in the table). */
static size_t nd_opts_left(const struct nd_option *o, bool any_short, char *buf, size_t size)
{
    const char *arg = o->kind == ND_ARG_NONE ? NULL : o->arg_name ? o->arg_name : "VALUE";
    char shortpart[8] = "";
    if (o->short_name)
        snprintf(shortpart, sizeof shortpart, "-%c, ", o->short_name);
    else if (any_short)
        snprintf(shortpart, sizeof shortpart, "    ");
    int w;
    if (!arg)
        w = snprintf(buf, size, "  %s--%s", shortpart, o->name);
    else if (o->flags & ND_OPTF_OPTIONAL)
        w = snprintf(buf, size, "  %s--%s[=%s]", shortpart, o->name, arg);
    else
        w = snprintf(buf, size, "  %s--%s %s", shortpart, o->name, arg);
    return w < 0 ? 0 : (size_t)w < size ? (size_t)w : size - 1;
}

/* Writes text wrapped at ND_HELP_WIDTH, every line from column col (the
 * cursor is there already); a '\n' in text forces a break, and blanks after
 * it indent that line. */
static void nd_opts_wrap(FILE *fp, const char *text, size_t col)
{
    size_t at = col;
    bool line_start = true;
    const char *p = text;
    while (*p) {
        if (*p == '\n') {
            p++;
            size_t ind = strspn(p, " ");
            fprintf(fp, "\n%*s", (int)(col + ind), "");
            at = col + ind;
            p += ind;
            line_start = true;
            continue;
        }
        if (*p == ' ') {
            p++;
            continue;
        }
        size_t wl = strcspn(p, " \n");
        if (!line_start && at + 1 + wl > ND_HELP_WIDTH) {
            fprintf(fp, "\n%*s", (int)col, "");
            at = col;
            line_start = true;
        }
        if (!line_start) {
            fputc(' ', fp);
            at++;
        }
        fwrite(p, 1, wl, fp);
        at += wl;
        p += wl;
        line_start = false;
    }
}

static void nd_opts_help_line(FILE *fp, const struct nd_option *o, bool any_short, size_t col)
{
    char left[128];
    size_t lw = nd_opts_left(o, any_short, left, sizeof left);
    fputs(left, fp);
    if (lw + 2 > col) {
        fprintf(fp, "\n%*s", (int)col, "");
    } else {
        fprintf(fp, "%*s", (int)(col - lw), "");
    }
    char help[1024];
    snprintf(help, sizeof help, "%s%s", o->help ? o->help : "", (o->flags & ND_OPTF_REPEAT) ? " (repeatable)" : "");
    nd_opts_wrap(fp, help, col);
    fputc('\n', fp);
}

void nd_opts_help(const struct nd_cmd_spec *spec, FILE *fp)
{
    const char *u = spec->usage ? spec->usage : "";
    for (bool first = true; *u; first = false) {
        size_t n = strcspn(u, "\n");
        fprintf(fp, "%s%.*s\n", first ? "usage: " : "       ", (int)n, u);
        u += n + (u[n] == '\n');
    }
    if (spec->about)
        fprintf(fp, "\n%s", spec->about);
    /* An about text that ends in a heading ("options:") leads straight into the list. */
    size_t al = spec->about ? strlen(spec->about) : 0;
    if (al < 2 || strcmp(spec->about + al - 2, ":\n") != 0)
        fputc('\n', fp);
    bool any_short = false;
    size_t left_max = 0;
    const struct nd_option *o;
    /* Long names line up after the short ones; with none but -h, they start at column 2. */
    for (size_t i = 0; (o = nd_opts_at(spec, i)); i++)
        any_short |= o->short_name != 0 && !(o->flags & ND_OPTF_HIDDEN) && o != &nd_help_option;
    for (size_t i = 0; (o = nd_opts_at(spec, i)); i++) {
        char left[128];
        size_t lw = nd_opts_left(o, any_short, left, sizeof left);
        if (!(o->flags & ND_OPTF_HIDDEN) && lw <= ND_HELP_LEFT_MAX && lw > left_max)
            left_max = lw;
    }
    size_t col = left_max + 2;
    for (size_t i = 0; (o = nd_opts_at(spec, i)); i++)
        if (!(o->flags & ND_OPTF_HIDDEN))
            nd_opts_help_line(fp, o, any_short, col);
    if (spec->footer)
        fprintf(fp, "\n%s", spec->footer);
}

int nd_opts_close_stdout(const char *cmd, int code)
{
    int err = 0;
    bool bad = ferror(stdout) != 0;
    errno = 0;
    if (fflush(stdout) != 0) {
        bad = true;
        err = errno;
    }
    errno = 0;
    if (fclose(stdout) != 0) {
        bad = true;
        if (!err)
            err = errno;
    }
    if (!bad || err == EPIPE)
        return code;
    const char *label = cmd && cmd[0] ? cmd : NULL;
    /* An earlier flush that failed left no errno behind: then no reason is better than a wrong one. */
    fprintf(stderr, "npu-doctor%s%s: write error on standard output%s%s\n", label ? " " : "", label ? label : "",
            err ? ": " : "", err ? strerror(err) : "");
    return ND_EXIT_INTERNAL;
}
