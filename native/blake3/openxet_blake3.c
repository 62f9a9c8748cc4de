#include "openxet_blake3.h"

#include "blake3.h"

void oxb3_keyed_hash(const uint8_t key[32], const uint8_t *in, size_t len, uint8_t out[32]) {
    blake3_hasher hasher;
    blake3_hasher_init_keyed(&hasher, key);
    blake3_hasher_update(&hasher, in, len);
    blake3_hasher_finalize(&hasher, out, 32);
}

void oxb3_keyed_hash_batch(const uint8_t key[32], const uint8_t *buf, const int32_t *offsets,
                           const int32_t *lengths, size_t n, uint8_t *out) {
    for (size_t i = 0; i < n; i++) {
        oxb3_keyed_hash(key, buf + offsets[i], (size_t) lengths[i], out + 32 * i);
    }
}

void oxb3_hash(const uint8_t *in, size_t len, uint8_t out[32]) {
    blake3_hasher hasher;
    blake3_hasher_init(&hasher);
    blake3_hasher_update(&hasher, in, len);
    blake3_hasher_finalize(&hasher, out, 32);
}

const char *oxb3_version(void) {
    return blake3_version();
}
