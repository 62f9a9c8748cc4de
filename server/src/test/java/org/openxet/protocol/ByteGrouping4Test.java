package org.openxet.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Arrays;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

class ByteGrouping4Test {
    /** §3.3 written as literally as possible: group g is the bytes at 4k+g, groups concatenated in order. */
    private static byte[] referenceSplit(byte[] in) {
        byte[] out = new byte[in.length];
        int o = 0;
        for (int g = 0; g < 4; g++) {
            for (int i = g; i < in.length; i += 4) {
                out[o++] = in[i];
            }
        }
        return out;
    }

    private static void assertRoundTrip(byte[] in, int srcOff, int dstOff) {
        int n = in.length;
        byte[] src = new byte[srcOff + n + 3];
        System.arraycopy(in, 0, src, srcOff, n);
        byte[] grouped = new byte[dstOff + n + 5];
        ByteGrouping4.split(src, srcOff, n, grouped, dstOff);
        assertArrayEquals(referenceSplit(in), Arrays.copyOfRange(grouped, dstOff, dstOff + n), "split " + n);
        byte[] back = new byte[n + 2];
        ByteGrouping4.regroup(grouped, dstOff, n, back, 1);
        assertArrayEquals(in, Arrays.copyOfRange(back, 1, 1 + n), "regroup " + n);
    }

    @Test
    void roundTripsEveryLengthUpTo67() {
        SplittableRandom r = new SplittableRandom(1);
        for (int n = 0; n <= 67; n++) {
            byte[] in = new byte[n];
            r.nextBytes(in);
            assertRoundTrip(in, n % 5, n % 3);
        }
    }

    @Test
    void roundTripsLargeRandomInputs() {
        SplittableRandom r = new SplittableRandom(2);
        for (int i = 0; i < 20; i++) {
            byte[] in = new byte[r.nextInt(1 << 20)];
            r.nextBytes(in);
            assertRoundTrip(in, r.nextInt(8), r.nextInt(8));
        }
    }

    @Test
    void groupsLittleEndianIntegersByteOfSameSignificance() {
        byte[] ramp = TestInputs.u32Ramp(0, 1, 10); // 00 00 00 00 01 00 00 00 02 00
        byte[] grouped = new byte[10];
        ByteGrouping4.split(ramp, 0, 10, grouped, 0);
        assertArrayEquals(new byte[] {0, 1, 2, 0, 0, 0, 0, 0, 0, 0}, grouped);
    }
}
