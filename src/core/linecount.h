/* Newlines in a buffer, at memory speed: run's passthrough counts every
 * byte the job prints, and its matcher counts the lines of each block. */
#ifndef ND_CORE_LINECOUNT_H
#define ND_CORE_LINECOUNT_H

#include <stddef.h>

size_t nd_count_newlines(const char *p, size_t n);

#endif
