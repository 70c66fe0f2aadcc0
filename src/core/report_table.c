/* nd_table: rows of redacted cells, widths taken as rows come in. */
#include "core/report_table.h"

#include <stdlib.h>
#include <string.h>

#include "core/redact.h"
#include "core/strbuf.h"
#include "core/termsafe.h"

struct nd_table {
    const struct nd_table_col *cols;
    size_t ncols;
    size_t *width;
    char **cells; /* nrows * ncols */
    size_t nrows, caprows;
};

struct nd_table *nd_table_new(const struct nd_table_col *cols, size_t ncols)
{
    struct nd_table *t = nd_xcalloc(1, sizeof *t);
    t->cols = cols;
    t->ncols = ncols;
    t->width = nd_xcalloc(ncols ? ncols : 1, sizeof *t->width);
    for (size_t c = 0; c < ncols; c++) {
        size_t h = strlen(cols[c].head);
        t->width[c] = cols[c].min_width > h ? cols[c].min_width : h;
    }
    return t;
}

void nd_table_add(struct nd_table *t, const char *const *cells)
{
    if (t->nrows == t->caprows) {
        t->caprows = t->caprows ? t->caprows * 2 : 16;
        t->cells = nd_xrealloc(t->cells, t->caprows * t->ncols * sizeof *t->cells);
    }
    char **row = t->cells + t->nrows * t->ncols;
    for (size_t c = 0; c < t->ncols; c++) {
        char *r = nd_redact_text(cells[c] ? cells[c] : "");
        row[c] = nd_term_printable(r); /* command lines of other users' processes */
        free(r);
        size_t n = strlen(row[c]);
        if (n > t->width[c])
            t->width[c] = n;
    }
    t->nrows++;
}

size_t nd_table_rows(const struct nd_table *t)
{
    return t->nrows;
}

static void nd_table_line(const struct nd_table *t, const char *const *cells, FILE *fp)
{
    for (size_t c = 0; c < t->ncols; c++) {
        if (c == t->ncols - 1) {
            fprintf(fp, "%s\n", cells[c]);
            break;
        }
        int gap = t->cols[c].gap ? (int)t->cols[c].gap : 2;
        fprintf(fp, t->cols[c].right ? "%*s%*s" : "%-*s%*s", (int)t->width[c], cells[c], gap, "");
    }
}

void nd_table_print(const struct nd_table *t, FILE *fp)
{
    const char **head = nd_xcalloc(t->ncols ? t->ncols : 1, sizeof *head);
    for (size_t c = 0; c < t->ncols; c++)
        head[c] = t->cols[c].head;
    nd_table_line(t, head, fp);
    free(head);
    for (size_t r = 0; r < t->nrows; r++)
        nd_table_line(t, (const char *const *)(t->cells + r * t->ncols), fp);
}

void nd_table_free(struct nd_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    free(t->width);
    free(t);
}
