/* Arrays: the element count of a fixed array, and amortised growth of a
 * heap array that is filled one element at a time (the pattern of every
 * list in the program: a pointer, a count and a capacity). */
#ifndef ND_CORE_ARRAY_H
#define ND_CORE_ARRAY_H

#include <stddef.h>

/* Zero at compile time when cond holds; a compile error otherwise. */
#define ND_BUILD_ASSERT_OR_ZERO(cond) (sizeof(char[1 - 2 * !(cond)]) - 1)

/* Elements of the array a. Given a pointer instead of an array it does not
 * compile, where sizeof(p) / sizeof(p[0]) would silently give 1 or 0. */
#define ND_ARRAY_SIZE(a)                                                                                               \
    (sizeof(a) / sizeof((a)[0]) +                                                                                      \
     ND_BUILD_ASSERT_OR_ZERO(!__builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0]))))

/* Makes room for nr elements in ptr, whose capacity (in elements) is
 * alloc: when nr exceeds it, alloc grows geometrically and ptr is
 * reallocated (out of memory aborts, as everywhere). ptr and alloc are
 * lvalues and are evaluated more than once; the count itself is the
 * caller's. Typical use, before ptr[n++] = x: ND_ALLOC_GROW(ptr, n + 1, cap). */
#define ND_ALLOC_GROW(ptr, nr, alloc)                                                                                  \
    do {                                                                                                               \
        if ((size_t)(nr) > (size_t)(alloc)) {                                                                          \
            (alloc) = nd_alloc_nr((size_t)(alloc), (size_t)(nr));                                                      \
            (ptr) = nd_xreallocarray((ptr), (size_t)(alloc), sizeof *(ptr));                                           \
        }                                                                                                              \
    } while (0)

/* The capacity to grow to from alloc so that need elements fit: at least
 * twice alloc, at least 16; aborts when that overflows. */
size_t nd_alloc_nr(size_t alloc, size_t need);
/* realloc(p, n * size) that aborts on overflow and on out of memory. */
void *nd_xreallocarray(void *p, size_t n, size_t size);

#endif
