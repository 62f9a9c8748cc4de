package org.openxet.protocol;

import org.bouncycastle.crypto.digests.Blake3Digest;
import org.bouncycastle.crypto.params.Blake3Parameters;

/** BouncyCastle's BLAKE3: the fallback when the native library is missing, and the oracle in tests. */
public final class JavaBlake3 implements Blake3 {
    public static final JavaBlake3 INSTANCE = new JavaBlake3();

    @Override
    public void keyedHash(byte[] key, byte[] data, int offset, int length, byte[] out, int outOffset) {
        Blake3Digest digest = new Blake3Digest(256);
        digest.init(Blake3Parameters.key(key));
        digest.update(data, offset, length);
        digest.doFinal(out, outOffset);
    }

    @Override
    public void keyedHashBatch(byte[] key, byte[] data, int[] offsets, int[] lengths, int count, byte[] out) {
        for (int i = 0; i < count; i++) {
            keyedHash(key, data, offsets[i], lengths[i], out, 32 * i);
        }
    }

    @Override
    public String backend() {
        return "java";
    }
}
