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
        JsonBytes u64 = new JsonBytes(null, 8);
        u64.num(-1L);
        assertEquals("18446744073709551615", new String(u64.toByteArray(), StandardCharsets.US_ASCII));
    }
}
