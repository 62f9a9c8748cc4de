package org.openxet.protocol;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MerkleHashTest {
    @Test
    void hexFormReversesBytesInsideEachWord() {
        byte[] raw = new byte[32];
        for (int i = 0; i < 32; i++) {
            raw[i] = (byte) i;
        }
        MerkleHash h = MerkleHash.fromBytes(raw);
        assertEquals("07060504030201000f0e0d0c0b0a090817161514131211101f1e1d1c1b1a1918", h.hex());
        assertEquals(0x0706050403020100L, h.word0());
        assertEquals(0x1f1e1d1c1b1a1918L, h.word3());
    }

    @Test
    void upstreamEndiannessExampleRoundTrips() {
        int[] bytes = {22, 175, 58, 132, 4, 75, 131, 214, 190, 153, 138, 66, 226, 3, 153, 242, 204, 86, 80, 234, 249,
                153, 80, 99, 159, 80, 65, 138, 236, 231, 149, 78};
        byte[] raw = new byte[32];
        for (int i = 0; i < 32; i++) {
            raw[i] = (byte) bytes[i];
        }
        MerkleHash h = MerkleHash.fromBytes(raw);
        assertEquals("d6834b04843aaf16f29903e2428a99be635099f9ea5056cc4e95e7ec8a41509f", h.hex());
        assertEquals(h, MerkleHash.of(h.hex()));
        assertEquals(h, MerkleHash.of(h.hex().toUpperCase()));
        assertTrue(java.util.Arrays.equals(raw, h.toBytes()));
    }

    @Test
    void malformedHexIsATypedError() {
        String good = "d6834b04843aaf16f29903e2428a99be635099f9ea5056cc4e95e7ec8a41509f";
        assertThrows(InvalidHashException.class, () -> MerkleHash.parse(good.substring(1)));
        assertThrows(InvalidHashException.class, () -> MerkleHash.parse(good + "0"));
        assertThrows(InvalidHashException.class, () -> MerkleHash.parse("g" + good.substring(1)));
        assertThrows(InvalidHashException.class, () -> MerkleHash.parse(" " + good.substring(1)));
        assertThrows(InvalidHashException.class, () -> MerkleHash.parse("+" + good.substring(1)));
        assertThrows(InvalidHashException.class, () -> MerkleHash.parse(""));
        assertThrows(InvalidHashException.class, () -> MerkleHash.parse(null));
        // Non-ASCII digits that Character.digit would accept.
        assertThrows(InvalidHashException.class, () -> MerkleHash.parse("\u0661" + good.substring(1)));
    }

    @Test
    void ordersByWord0Unsigned() {
        MerkleHash small = MerkleHash.ofWords(1, 0, 0, 0);
        MerkleHash big = MerkleHash.ofWords(-1L, 0, 0, 0);
        assertTrue(small.compareTo(big) < 0);
        assertTrue(MerkleHash.MARKER.isMarker());
        assertTrue(MerkleHash.ZERO.isZero());
    }
}
