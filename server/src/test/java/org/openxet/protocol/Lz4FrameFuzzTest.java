package org.openxet.protocol;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Both LZ4 frame decoders (liblz4 through FFM, and lz4-java) take untrusted chunk payloads: each refuses with a
 * FormatException or decodes, they agree on which, and on the bytes; the one disagreement allowed is the fallback's
 * documented limit (a later block of a linked frame that refers back). Input: 3 bytes of the expected length
 * (little-endian, at most a chunk's 128 KiB), then the frame. Seeds: frames from the client's xorbs and the lz4 tool.
 */
class Lz4FrameFuzzTest {
    @FuzzTest(maxDuration = "10s")
    void frames(byte[] input) {
        if (input.length < 3) return;
        int expected = ((input[0] & 0xff) | (input[1] & 0xff) << 8 | (input[2] & 0xff) << 16) % (128 * 1024 + 1);
        byte[] frame = Arrays.copyOfRange(input, 3, input.length);
        byte[] viaFfm = new byte[expected];
        byte[] viaJava = new byte[expected];
        String ffm;
        String java;
        try (Lz4FrameDecoder d = Lz4.newFfmDecoder()) {
            ffm = decode(d, frame, viaFfm);
        }
        try (Lz4FrameDecoder d = Lz4.newLz4JavaDecoder()) {
            java = decode(d, frame, viaJava);
        }
        if (ffm == null && JavaLz4FrameDecoder.LINKED_BLOCK_REFUSED.equals(java)) return;
        assertEquals(ffm == null, java == null, "the decoders disagree: ffm " + ffm + ", lz4-java " + java);
        if (ffm == null) assertArrayEquals(viaFfm, viaJava);
    }

    /** null when decoded; the refusal's message otherwise. */
    private static String decode(Lz4FrameDecoder d, byte[] frame, byte[] out) {
        try {
            d.decodeFrame(frame, 0, frame.length, out, 0, out.length);
            return null;
        } catch (FormatException refused) {
            return refused.getMessage();
        }
    }
}
