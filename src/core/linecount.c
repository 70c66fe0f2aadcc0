/* Counting newlines fast (see linecount.h). */
#include "core/linecount.h"

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Newlines in a block, 16 bytes at a time where SSE2 exists (every x86-64),
 * else 8 at a time with exact zero-byte arithmetic: the flood path must cost
 * less than the copy it rides on. */
size_t nd_count_newlines(const char *p, size_t n)
{
    size_t c = 0, i = 0;
#ifdef __SSE2__
    /* Byte counters in a vector (each compare gives -1 per newline), summed
     * with SAD before they can overflow. */
    const __m128i nl16 = _mm_set1_epi8('\n'), zero16 = _mm_setzero_si128();
    while (i + 16 <= n) {
        __m128i acc = zero16;
        for (unsigned k = 0; k < 255 && i + 16 <= n; k++, i += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, nl16));
        }
        __m128i sad = _mm_sad_epu8(acc, zero16);
        c += (size_t)_mm_cvtsi128_si32(sad) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(sad, 8));
    }
#endif
    const uint64_t nl = 0x0a0a0a0a0a0a0a0aULL, lo7 = 0x7f7f7f7f7f7f7f7fULL;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        uint64_t x = w ^ nl;                            /* newline bytes become 0 */
        uint64_t zero = ~(((x & lo7) + lo7) | x | lo7); /* 0x80 in each zero byte, exactly */
        c += (size_t)(((zero >> 7) * 0x0101010101010101ULL) >> 56);
    }
    for (; i < n; i++)
        c += p[i] == '\n';
    return c;
}
