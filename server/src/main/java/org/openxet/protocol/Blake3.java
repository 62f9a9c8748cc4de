package org.openxet.protocol;

/**
 * BLAKE3 in keyed mode, 32-byte output: the only hash the protocol uses (§1.2). Two backends: the official C
 * library through FFM ({@link NativeBlake3}) and BouncyCastle ({@link JavaBlake3}), used only when the native library
 * cannot be loaded and as the test oracle.
 */
public interface Blake3 {
    /** Keyed hash of {@code data[offset, offset + length)} written as 32 raw bytes at {@code out[outOffset]}. */
    void keyedHash(byte[] key, byte[] data, int offset, int length, byte[] out, int outOffset);

    /**
     * Hashes {@code count} slices of one buffer with one key: slice {@code i} is
     * {@code data[offsets[i], offsets[i] + lengths[i])}, its hash lands at {@code out[32 * i]}. The native backend
     * does this in one downcall.
     */
    void keyedHashBatch(byte[] key, byte[] data, int[] offsets, int[] lengths, int count, byte[] out);

    /** "ffm" or "java", as reported by {@code openxet version}. */
    String backend();

    default MerkleHash keyedHash(byte[] key, byte[] data, int offset, int length) {
        byte[] out = new byte[32];
        keyedHash(key, data, offset, length, out, 0);
        return MerkleHash.fromBytes(out, 0);
    }

    /** The process-wide backend: native when it loads, else BouncyCastle (with one warning line). */
    static Blake3 get() {
        return Blake3Holder.INSTANCE;
    }
}
