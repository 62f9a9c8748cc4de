package org.openxet.protocol;

/** TEMPORARY stand-in. */
public final class ByteGrouping4 {
    private ByteGrouping4() {
    }

    public static void split(byte[] src, int off, int len, byte[] dst, int dstOff) {
        int q = len / 4, r = len % 4, pos = dstOff;
        for (int g = 0; g < 4; g++) {
            for (int i = g; i < len; i += 4) {
                dst[pos++] = src[off + i];
            }
        }
    }

    public static void regroup(byte[] src, int off, int len, byte[] dst, int dstOff) {
        int q = len / 4, r = len % 4, pos = off;
        for (int g = 0; g < 4; g++) {
            int size = q + (g < r ? 1 : 0);
            for (int k = 0; k < size; k++) {
                dst[dstOff + 4 * k + g] = src[pos++];
            }
        }
    }
}
