package org.openxet.http;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

class JsonBytesTest {
    @Test
    void numbersPrintAsDecimalAndDigitsCountWhatIsWritten() {
        long[] values = {0, 1, 9, 10, 99, 100, 12345, Integer.MAX_VALUE - 1, Integer.MAX_VALUE, 1L << 31,
                999_999_999_999L, 1_000_000_000_000L, 4_294_967_295L, Long.MAX_VALUE};
        for (long v : values) {
            JsonBytes out = new JsonBytes(null, 8);
            out.num(v);
            assertEquals(Long.toString(v), new String(out.toByteArray(), StandardCharsets.US_ASCII));
            assertEquals(Long.toString(v).length(), JsonBytes.digits(v), "digits of " + v);
        }
        // Every power of ten and its neighbours: where a bit-length estimate of the digit count can be off by one.
        for (long p = 1; ; p *= 10) {
            for (long v : new long[]{p - 1, p, p + 1, 2 * p - 1}) {
                assertEquals(Long.toString(v).length(), JsonBytes.digits(v), "digits of " + v);
            }
            if (p > Long.MAX_VALUE / 10) break;
        }
        for (int bits = 0; bits < 63; bits++) {
            long v = 1L << bits;
            assertEquals(Long.toString(v).length(), JsonBytes.digits(v), "digits of 2^" + bits);
            assertEquals(Long.toString(v - 1).length(), JsonBytes.digits(v - 1), "digits of 2^" + bits + " - 1");
        }
        // Random values of every length, each written right after a marker byte and at the very end of a buffer's
        // reservation: the digits are exact, nothing before them is touched, and the word stores stay in bounds.
        java.util.SplittableRandom r = new java.util.SplittableRandom(7);
        for (int i = 0; i < 200_000; i++) {
            long v = r.nextLong(Long.MAX_VALUE) >>> r.nextInt(64);
            String want = Long.toString(v);
            JsonBytes out = new JsonBytes(null, 1);
            out.ch('[').num(v);
            assertEquals("[" + want, new String(out.toByteArray(), StandardCharsets.US_ASCII));
            byte[] tight = new byte[1 + 19 + JsonBytes.SLACK];
            int end = JsonBytes.putNum(tight, 1, v);
            assertEquals(want, new String(tight, 1, end - 1, StandardCharsets.US_ASCII));
            assertEquals(0, tight[0]);
        }
        JsonBytes u64 = new JsonBytes(null, 8);
        u64.num(-1L);
        assertEquals("18446744073709551615", new String(u64.toByteArray(), StandardCharsets.US_ASCII));
    }
}
