package org.openxet.protocol;

import java.util.Objects;

/**
 * The byte grouping of chunk scheme 2 ({@code ByteGrouping4LZ4}, §3.3): before LZ4, the bytes at positions
 * {@code 4k+g} are gathered into group {@code g} (g = 0..3), groups laid out one after another. With
 * {@code q = n / 4} and {@code r = n % 4}, groups {@code 0..r-1} hold {@code q+1} bytes and the others {@code q}.
 * It puts the like bytes of little-endian integers side by side, which LZ4 then finds as runs.
 */
public final class ByteGrouping4 {
    private ByteGrouping4() {
    }

    /** Groups {@code src[off, off+len)} into {@code dst[dstOff, dstOff+len)}; the ranges must not overlap. */
    public static void split(byte[] src, int off, int len, byte[] dst, int dstOff) {
        Objects.checkFromIndexSize(off, len, src.length);
        Objects.checkFromIndexSize(dstOff, len, dst.length);
        int q = len >>> 2;
        int r = len & 3;
        int g1 = dstOff + q + (r > 0 ? 1 : 0);
        int g2 = g1 + q + (r > 1 ? 1 : 0);
        int g3 = g2 + q + (r > 2 ? 1 : 0);
        int s = off;
        for (int k = 0; k < q; k++, s += 4) {
            dst[dstOff + k] = src[s];
            dst[g1 + k] = src[s + 1];
            dst[g2 + k] = src[s + 2];
            dst[g3 + k] = src[s + 3];
        }
        // The r tail bytes are the last (q+1-th) member of groups 0..r-1.
        if (r > 0) dst[dstOff + q] = src[s];
        if (r > 1) dst[g1 + q] = src[s + 1];
        if (r > 2) dst[g2 + q] = src[s + 2];
    }

    /** Inverse of {@link #split}: interleaves the four groups in {@code src[off, off+len)} back into {@code dst}. */
    public static void regroup(byte[] src, int off, int len, byte[] dst, int dstOff) {
        Objects.checkFromIndexSize(off, len, src.length);
        Objects.checkFromIndexSize(dstOff, len, dst.length);
        int q = len >>> 2;
        int r = len & 3;
        int g1 = off + q + (r > 0 ? 1 : 0);
        int g2 = g1 + q + (r > 1 ? 1 : 0);
        int g3 = g2 + q + (r > 2 ? 1 : 0);
        int d = dstOff;
        for (int k = 0; k < q; k++, d += 4) {
            dst[d] = src[off + k];
            dst[d + 1] = src[g1 + k];
            dst[d + 2] = src[g2 + k];
            dst[d + 3] = src[g3 + k];
        }
        if (r > 0) dst[d] = src[off + q];
        if (r > 1) dst[d + 1] = src[g1 + q];
        if (r > 2) dst[d + 2] = src[g2 + q];
    }
}
