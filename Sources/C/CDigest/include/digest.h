#ifndef THUMBD_DIGEST_H
#define THUMBD_DIGEST_H
/*
 * SHA-256 and HMAC-SHA256 from the system's libcrypto (OpenSSL 3 on Debian 12), for cache keys,
 * file checksums, signed URLs and S3 signatures. Digests is their Swift face.
 */
#include <stddef.h>
#include <stdint.h>

/* The SHA-256 of `size` bytes at `data` into `digest` (32 bytes). */
void thumbd_sha256(const void *data, size_t size, uint8_t *digest);
/* HMAC-SHA256 (RFC 2104) of `size` bytes at `data` under a key of any length, into `code` (32 bytes). */
void thumbd_hmac_sha256(const void *key, size_t key_size, const void *data, size_t size, uint8_t *code);

#endif
