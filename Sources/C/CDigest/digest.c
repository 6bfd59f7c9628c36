/*
 * The low-level SHA-256 calls, deprecated in OpenSSL 3 in favour of EVP, on purpose: EVP looks the
 * digest up in a provider and allocates a context for every call, and a cache key is hashed on
 * every request. SHA256_Init/Update/Final run the same assembly (SHA-NI or AVX2) on the stack.
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "digest.h"

#include <string.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>

void thumbd_sha256(const void *data, size_t size, uint8_t *digest) {
    SHA256_CTX context;
    SHA256_Init(&context);
    SHA256_Update(&context, data, size);
    SHA256_Final(digest, &context);
    OPENSSL_cleanse(&context, sizeof context);
}

void thumbd_hmac_sha256(const void *key, size_t key_size, const void *data, size_t size, uint8_t *code) {
    uint8_t block[SHA256_CBLOCK];
    memset(block, 0, sizeof block);
    /* A key longer than a block is hashed first (RFC 2104, section 2). */
    if (key_size > sizeof block) {
        thumbd_sha256(key, key_size, block);
    } else if (key_size > 0) {
        memcpy(block, key, key_size);
    }
    uint8_t pad[SHA256_CBLOCK];
    uint8_t inner[SHA256_DIGEST_LENGTH];
    SHA256_CTX context;

    for (size_t i = 0; i < sizeof pad; i++) pad[i] = block[i] ^ 0x36;
    SHA256_Init(&context);
    SHA256_Update(&context, pad, sizeof pad);
    SHA256_Update(&context, data, size);
    SHA256_Final(inner, &context);

    for (size_t i = 0; i < sizeof pad; i++) pad[i] = block[i] ^ 0x5c;
    SHA256_Init(&context);
    SHA256_Update(&context, pad, sizeof pad);
    SHA256_Update(&context, inner, sizeof inner);
    SHA256_Final(code, &context);

    OPENSSL_cleanse(block, sizeof block);
    OPENSSL_cleanse(pad, sizeof pad);
    OPENSSL_cleanse(inner, sizeof inner);
    OPENSSL_cleanse(&context, sizeof context);
}
