/* SHA-256 (FIPS 180-4), used only to fingerprint redacted secrets so two
 * snapshots can be compared for equality without revealing the value. */
#ifndef ND_CORE_SHA256_H
#define ND_CORE_SHA256_H

#include <stddef.h>
#include <stdint.h>

void nd_sha256(const void *data, size_t len, uint8_t out[32]);
/* The first hex_chars (<= 64) hex digits of SHA-256(data), NUL-terminated. */
void nd_sha256_hex_prefix(const void *data, size_t len, char *out, size_t hex_chars);

#endif
