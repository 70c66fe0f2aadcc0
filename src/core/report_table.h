/* Aligned text tables for the reporters (`ps` lists devices and processes
 * this way): cells are redacted when added, so widths match what prints. */
#ifndef ND_CORE_REPORT_TABLE_H
#define ND_CORE_REPORT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct nd_table_col {
    const char *head;
    bool right;         /* right-aligned (numbers) */
    unsigned min_width; /* at least this wide (0: the heading's width) */
    unsigned gap;       /* spaces after the column (0: two) */
};

struct nd_table;

struct nd_table *nd_table_new(const struct nd_table_col *cols, size_t ncols);
/* Appends a row of ncols cells (copied, secrets redacted). */
void nd_table_add(struct nd_table *t, const char *const *cells);
size_t nd_table_rows(const struct nd_table *t);
/* The heading, then every row; the last column is never padded. */
void nd_table_print(const struct nd_table *t, FILE *fp);
void nd_table_free(struct nd_table *t);

#endif
