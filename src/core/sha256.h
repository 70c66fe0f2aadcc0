/* SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104): cache keys, and the
 * keyed fingerprints of redacted secrets (equal secrets compare equal, a
 * dictionary cannot confirm one without the key). */
#ifndef ND_CORE_SHA256_H
#define ND_CORE_SHA256_H

#include <stddef.h>
#include <stdint.h>

void nd_sha256(const void *data, size_t len, uint8_t out[32]);
/* The first hex_chars (<= 64) hex digits of SHA-256(data), NUL-terminated. */
void nd_sha256_hex_prefix(const void *data, size_t len, char *out, size_t hex_chars);

/* HMAC-SHA-256(key, data). */
void nd_hmac_sha256(const void *key, size_t klen, const void *data, size_t len, uint8_t out[32]);

#endif
