/*
 * openxet's thin layer over the official BLAKE3 C library: one downcall from Java does a whole keyed hash
 * (or a batch of them), so the FFM call cost is paid once per chunk, not once per init/update/finalize.
 */
#ifndef OPENXET_BLAKE3_H
#define OPENXET_BLAKE3_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Keyed BLAKE3 of in[0, len) with a 32-byte key; 32 bytes of output. */
void oxb3_keyed_hash(const uint8_t key[32], const uint8_t *in, size_t len, uint8_t out[32]);

/*
 * Keyed BLAKE3 of n slices of one buffer: slice i is buf[offsets[i], offsets[i] + lengths[i]), its hash goes
 * to out[32 * i]. The caller guarantees the slices lie inside buf (the Java side checks before the call).
 */
void oxb3_keyed_hash_batch(const uint8_t key[32], const uint8_t *buf, const int32_t *offsets,
                           const int32_t *lengths, size_t n, uint8_t *out);

/* Plain (unkeyed) BLAKE3, 32 bytes: only for checking against the published test vectors. */
void oxb3_hash(const uint8_t *in, size_t len, uint8_t out[32]);

/* Version string of the BLAKE3 C library this was built against. */
const char *oxb3_version(void);

#ifdef __cplusplus
}
#endif

#endif
