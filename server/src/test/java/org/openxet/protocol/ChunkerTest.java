package org.openxet.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.openxet.testing.Vectors;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class ChunkerTest {
    static List<String> inputs() {
        return Vectors.inputNames();
    }

    private static int[] expectedLengths(JsonNode block) {
        int[] out = new int[block.get("chunks").size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = block.get("chunks").get(i).get("length").asInt();
        }
        return out;
    }

    @ParameterizedTest
    @MethodSource("inputs")
    void xetCoreRuleReproducesTheReferenceBoundaries(String name) {
        byte[] data = Vectors.inputBytes(name);
        int[] expected = expectedLengths(Vectors.input(name).get("xet_core_reference"));
        assertArrayEquals(expected, Chunker.chunkLengths(data, Chunker.Rule.XET_CORE));
    }

    @ParameterizedTest
    @MethodSource("inputs")
    void hubClientRuleReproducesTheJsClientBoundaries(String name) {
        byte[] data = Vectors.inputBytes(name);
        int[] expected = expectedLengths(Vectors.input(name).get("hub_client"));
        assertArrayEquals(expected, Chunker.chunkLengths(data, Chunker.Rule.HUB_CLIENT));
    }

    @ParameterizedTest
    @MethodSource("inputs")
    void feedingAnyBlockSizeGivesTheSameBoundaries(String name) throws IOException {
        byte[] data = Vectors.inputBytes(name);
        int[] oneShot = Chunker.chunkLengths(data, Chunker.Rule.XET_CORE);
        for (int block : new int[]{1000, 8191, 65536, 1048576}) {
            List<Integer> lengths = new ArrayList<>();
            Chunker c = new Chunker(Chunker.Rule.XET_CORE);
            for (int p = 0; p < data.length; p += block) {
                c.update(data, p, Math.min(block, data.length - p), (off, len) -> lengths.add(len));
            }
            c.finish((off, len) -> lengths.add(len));
            assertArrayEquals(oneShot, lengths.stream().mapToInt(Integer::intValue).toArray(), "block " + block);
        }
        List<Integer> streamed = new ArrayList<>();
        List<byte[]> bytes = new ArrayList<>();
        Chunker.chunkStream(new ByteArrayInputStream(data), Chunker.Rule.XET_CORE, (buf, off, len) -> {
            streamed.add(len);
            bytes.add(Arrays.copyOfRange(buf, off, off + len));
        });
        assertArrayEquals(oneShot, streamed.stream().mapToInt(Integer::intValue).toArray());
        int p = 0;
        for (byte[] b : bytes) {
            assertArrayEquals(Arrays.copyOfRange(data, p, p + b.length), b);
            p += b.length;
        }
        assertEquals(data.length, p);
    }

    /** chunking.rs: 1 000 000 bytes of 0x3B cut only at the maximum chunk size. */
    @Test
    void constantInputCutsAtTheMaximum() {
        byte[] data = new byte[1_000_000];
        Arrays.fill(data, (byte) 0x3B);
        int[] lengths = Chunker.chunkLengths(data, Chunker.Rule.XET_CORE);
        assertArrayEquals(new int[]{131072, 131072, 131072, 131072, 131072, 131072, 131072, 1000000 - 7 * 131072}, lengths);
    }

    @Test
    void emptyInputHasNoChunks() {
        assertEquals(0, Chunker.chunkLengths(new byte[0], Chunker.Rule.XET_CORE).length);
    }
}
