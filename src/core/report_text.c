/* Human text output: check lines grouped by area, then findings as blocks
 * with evidence, cause and fix. Aligned and short; colour only on a TTY. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/redact.h"
#include "core/array.h"
#include "core/report.h"
#include "core/strbuf.h"
#include "core/term.h"
#include "core/termsafe.h"

#define C_RED "\033[31m"
#define C_YEL "\033[33m"
#define C_GRN "\033[32m"
#define C_DIM "\033[2m"
#define C_BLD "\033[1m"
#define C_OFF "\033[0m"

/* Text reaches people who paste it into public issues, and a root terminal:
 * every string that a probe or a log line filled in is redacted and made
 * printable on the way out (no escape sequence of another user's reaches the
 * screen). */
static char *nd_out_text(const char *s);

static void nd_put(FILE *fp, const char *s)
{
    char *r = nd_out_text(s);
    fputs(r, fp);
    free(r);
}

/* Prose (check lines, causes) wraps to the terminal; titles, evidence and
 * fix lines do not: a title is one line, the others are quoted data and
 * commands to copy whole. */
static size_t nd_put_wrap(FILE *fp, const char *s, size_t col, const char *lead, size_t indent)
{
    char *r = nd_out_text(s);
    size_t end = nd_term_wrap(fp, r, col, lead, indent, nd_term_width(fp));
    free(r);
    return end;
}

/* A non-UTF-8 locale (LANG=C) would show the glyphs as mojibake: ASCII stand-ins. */
static const struct {
    const char *glyph, *ascii;
} nd_ascii_glyphs[] = {
    {"\xe2\x80\xa6", "..."}, {"\xe2\x86\x94", "<->"}, {"\xe2\x86\x92", "->"}, {"\xc2\xb7", "-"},
    {"\xe2\x9c\x93", "ok"},  {"\xe2\x9c\x97", "!!"},  {"\xe2\x80\x94", "--"}, {"\xe2\x80\x93", "-"},
    {"\xe2\x89\xa5", ">="},  {"\xe2\x89\xa4", "<="},  {"\xc3\x97", "x"},
};

/* Redacted (secrets never reach the terminal), and in ASCII where the
 * locale is not UTF-8: known glyphs get stand-ins, other bytes above 0x7f '?'. */
static char *nd_out_text(const char *s)
{
    char *red = nd_redact_text(s ? s : "");
    char *r = nd_term_printable(red);
    free(red);
    if (nd_term_utf8())
        return r;
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    for (const char *p = r; *p;) {
        if ((unsigned char)*p < 0x80) {
            nd_strbuf_addf(&sb, "%c", *p++);
            continue;
        }
        bool done = false;
        for (size_t i = 0; i < ND_ARRAY_SIZE(nd_ascii_glyphs) && !done; i++) {
            size_t gl = strlen(nd_ascii_glyphs[i].glyph);
            if (strncmp(p, nd_ascii_glyphs[i].glyph, gl) == 0) {
                nd_strbuf_adds(&sb, nd_ascii_glyphs[i].ascii);
                p += gl;
                done = true;
            }
        }
        if (!done) {
            nd_strbuf_adds(&sb, "?");
            p++;
            while (((unsigned char)*p & 0xc0) == 0x80)
                p++;
        }
    }
    free(r);
    size_t len;
    return nd_strbuf_detach(&sb, &len);
}

static const char *nd_status_mark(enum nd_check_status s)
{
    if (!nd_term_utf8()) {
        switch (s) {
        case ND_CHECK_OK: return "ok";
        case ND_CHECK_WARN: return "! ";
        case ND_CHECK_FAIL: return "!!";
        default: return "--";
        }
    }
    switch (s) {
    case ND_CHECK_OK: return "\xe2\x9c\x93"; /* ✓ */
    case ND_CHECK_WARN: return "!";
    case ND_CHECK_FAIL: return "\xe2\x9c\x97"; /* ✗ */
    default: return "\xc2\xb7";                /* · */
    }
}

static const char *nd_status_color(enum nd_check_status s)
{
    switch (s) {
    case ND_CHECK_OK: return C_GRN;
    case ND_CHECK_WARN: return C_YEL;
    case ND_CHECK_FAIL: return C_RED;
    default: return C_DIM;
    }
}

static const char *nd_sev_color(enum nd_severity s)
{
    return s == ND_SEV_ERROR ? C_RED : s == ND_SEV_WARNING ? C_YEL : C_DIM;
}

void nd_findings_summary(const struct nd_findings *list, char *buf, size_t size)
{
    size_t n[3] = {0, 0, 0};
    for (size_t i = 0; i < list->n; i++)
        n[list->v[i]->severity]++;
    if (n[ND_SEV_ERROR] + n[ND_SEV_WARNING] + n[ND_SEV_INFO] == 0) {
        snprintf(buf, size, "no problems found");
        return;
    }
    snprintf(buf, size, "%zu error%s, %zu warning%s, %zu note%s", n[ND_SEV_ERROR], n[ND_SEV_ERROR] == 1 ? "" : "s",
             n[ND_SEV_WARNING], n[ND_SEV_WARNING] == 1 ? "" : "s", n[ND_SEV_INFO], n[ND_SEV_INFO] == 1 ? "" : "s");
}

void nd_report_note(FILE *fp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    nd_strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    nd_put(fp, sb.buf);
    fputc('\n', fp);
    nd_strbuf_release(&sb);
}

void nd_finding_print_text(const struct nd_finding *f, FILE *fp, bool color, const char *prefix)
{
    const char *p = prefix ? prefix : "";
    const char *sc = color ? nd_sev_color(f->severity) : "";
    const char *off = color ? C_OFF : "";
    const char *bold = color ? C_BLD : "";
    const char *dim = color ? C_DIM : "";
    fprintf(fp, "%s%s%s%s%s: %s", p, sc, bold, nd_severity_name(f->severity), off, bold);
    nd_put(fp, f->title); /* a title is one line: people and scripts grep for it */
    fprintf(fp, "%s  %s[%s]%s\n", off, dim, f->id, off);
    for (size_t i = 0; i < f->nevidence; i++) {
        const struct nd_evidence *e = &f->evidence[i];
        if (e->file) {
            fprintf(fp, "%s    %s", p, dim);
            nd_put(fp, e->file);
            if (e->line > 0)
                fprintf(fp, ":%ld", e->line);
            fprintf(fp, ":%s ", off);
        } else
            fprintf(fp, "%s    - ", p);
        nd_put(fp, e->text);
        fputc('\n', fp);
    }
    if (f->count > 1)
        fprintf(fp, "%s    (seen %ld times)\n", p, f->count);
    if (f->cause) {
        fprintf(fp, "%s  %swhy:%s ", p, bold, off);
        nd_put_wrap(fp, f->cause, nd_term_columns(p) + 7, p, 7);
        fputc('\n', fp);
    }
    for (size_t i = 0; i < f->nfix; i++) {
        fprintf(fp, "%s  %s%s%s ", p, bold, i == 0 ? "fix:" : "    ", off);
        nd_put(fp, f->fix[i]);
        fputc('\n', fp);
    }
}

void nd_report_print_text(const struct nd_report *rep, FILE *fp, const struct nd_text_options *opt)
{
    bool color = opt && opt->color;
    bool quiet = opt && opt->quiet;
    const char *off = color ? C_OFF : "";

    if (!quiet && rep->nlines) {
        /* Areas in first-seen order; lines within an area in insertion order. */
        for (size_t i = 0; i < rep->nlines; i++) {
            bool seen = false;
            for (size_t j = 0; j < i; j++)
                if (strcmp(rep->lines[j].area, rep->lines[i].area) == 0) {
                    seen = true;
                    break;
                }
            if (seen)
                continue;
            fprintf(fp, "%s%s%s\n", color ? C_BLD : "", rep->lines[i].area, off);
            for (size_t j = i; j < rep->nlines; j++) {
                const struct nd_check_line *l = &rep->lines[j];
                if (strcmp(l->area, rep->lines[i].area) != 0)
                    continue;
                const char *mark = nd_status_mark(l->status);
                fprintf(fp, "  %s%s%s ", color ? nd_status_color(l->status) : "", mark, off);
                nd_put_wrap(fp, l->text, 3 + nd_term_columns(mark), NULL, 3 + nd_term_columns(mark));
                fputc('\n', fp);
            }
        }
    }

    size_t shown = 0;
    for (size_t i = 0; i < rep->findings.n; i++) {
        const struct nd_finding *f = rep->findings.v[i];
        if (f->severity == ND_SEV_INFO && (quiet || !(opt && opt->verbose)))
            continue;
        if (shown++ == 0 && !quiet)
            fprintf(fp, "\n");
        nd_finding_print_text(f, fp, color, NULL);
        fprintf(fp, "\n");
    }
    if (!quiet) {
        char sum[128];
        nd_findings_summary(&rep->findings, sum, sizeof sum);
        fprintf(fp, "%s%s\n", shown ? "" : "\n", sum);
    }
}

void nd_findings_print_ranked(const struct nd_findings *fs, bool all, const char *scope, FILE *fp)
{
    bool color = nd_term_wants_color(fp);
    if (fs->n == 0) {
        fprintf(fp, "No known problem found in %s.\n", scope);
        return;
    }
    const struct nd_finding *root = fs->v[0];
    /* Only an error is called a root cause; warnings alone are just the
     * most important thing seen. */
    fprintf(fp, "%s%s%s", color ? C_BLD : "", root->severity == ND_SEV_ERROR ? "Root cause" : "Top finding",
            color ? C_OFF : "");
    if (root->rank >= 0)
        fprintf(fp, " (rank %d", root->rank);
    else
        fprintf(fp, " (");
    if (root->first_file) {
        fputs(root->rank >= 0 ? ", " : "", fp);
        nd_put(fp, root->first_file);
        fprintf(fp, ":%ld", root->first_line);
    }
    fprintf(fp, "):\n");
    nd_finding_print_text(root, fp, color, NULL);
    if (fs->n > 1) {
        fprintf(fp, "\n%s (%zu):\n", all ? "Everything else" : "Also found", fs->n - 1);
        for (size_t i = 1; i < fs->n; i++) {
            const struct nd_finding *f = fs->v[i];
            if (all) {
                nd_finding_print_text(f, fp, color, "  ");
                continue;
            }
            fprintf(fp, "  %-7s  %-16s  ", nd_severity_name(f->severity), f->category);
            nd_put(fp, f->title); /* a table row: one line per finding, never wrapped */
            if (f->count > 1)
                fprintf(fp, " (x%ld)", f->count);
            if (f->first_file) {
                fputs("  ", fp);
                nd_put(fp, f->first_file);
                fprintf(fp, ":%ld", f->first_line);
            }
            fputc('\n', fp);
        }
    }
    char sum[128];
    nd_findings_summary(fs, sum, sizeof sum);
    fprintf(fp, "\n%s in %s\n", sum, scope);
}
