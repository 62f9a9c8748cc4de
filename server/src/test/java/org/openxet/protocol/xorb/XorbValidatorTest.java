package org.openxet.protocol.xorb;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.openxet.protocol.Chunker;
import org.openxet.protocol.FormatException;
import org.openxet.protocol.HashMismatchException;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.testing.Vectors;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class XorbValidatorTest {
    static List<String> scenariosWithXorbs() {
        List<String> out = new ArrayList<>();
        for (String s : Vectors.scenarioNames()) {
            if (Vectors.capture(s).get("xorbs").size() > 0) {
                out.add(s);
            }
        }
        return out;
    }

    @ParameterizedTest
    @MethodSource("scenariosWithXorbs")
    void everyCapturedClientXorbValidatesToItsHashAndLayout(String scenario) throws FormatException {
        JsonNode x = Vectors.capture(scenario).get("xorbs").get(0);
        byte[] body = Vectors.bytes(x.get("file").asText());
        MerkleHash expected = MerkleHash.of(x.get("xorb_hash").asText());
        ValidatedXorb v;
        try (XorbValidator validator = new XorbValidator()) {
            v = validator.validateUpload(body, body.length, expected);
        }
        assertEquals(expected, v.hash());
        assertFalse(v.hadFooter());
        JsonNode chunks = x.get("chunks");
        assertEquals(chunks.size(), v.chunks().count());
        int[] schemes = new int[3];
        for (int k = 0; k < chunks.size(); k++) {
            JsonNode c = chunks.get(k);
            assertEquals(c.get("hash").asText(), v.chunks().hash(k).hex());
            assertEquals(c.get("byte_start").asInt(), v.chunks().byteStart(k));
            assertEquals(c.get("byte_end_exclusive").asInt(), v.chunks().byteEnds()[k]);
            assertEquals(c.get("unpacked_start").asInt(), v.chunks().unpackedStart(k));
            assertEquals(c.get("uncompressed_length").asInt(), v.chunks().unpackedLength(k));
            schemes[c.get("compression_scheme").asInt()]++;
        }
        assertArrayEquals(schemes, v.schemeCounts());
        assertEquals(body.length, v.chunks().recordBytes());
    }

    @ParameterizedTest
    @MethodSource("scenariosWithXorbs")
    void storedObjectWithFooterValidatesAndMatchesTheUploadPass(String scenario) throws FormatException {
        JsonNode x = Vectors.capture(scenario).get("xorbs").get(0);
        byte[] body = Vectors.bytes(x.get("file").asText());
        try (XorbValidator validator = new XorbValidator()) {
            ValidatedXorb up = validator.validateUpload(body, body.length, null);
            byte[] stored = concat(body, up.footer());
            assertEquals(up.storedSize(), stored.length);
            ValidatedXorb st = validator.validateStored(stored, stored.length, up.hash());
            assertEquals(up.hash(), st.hash());
            assertArrayEquals(up.chunks().hashes(), st.chunks().hashes());
            // A client may already append the footer (§3.4): accepted, and flagged.
            assertTrue(validator.validateUpload(stored, stored.length, up.hash()).hadFooter());
            // A uniqueness nonce in the footer's reserved buffer does not change anything.
            byte[] withNonce = stored.clone();
            int nonceAt = stored.length - 4 - 16;
            withNonce[nonceAt] = 0x5a;
            withNonce[nonceAt + 3] = 0x11;
            assertEquals(up.hash(), validator.validateStored(withNonce, withNonce.length, up.hash()).hash());
            XorbFooter.Parsed parsed = XorbFooter.parse(withNonce, withNonce.length);
            assertEquals(0x5a, parsed.nonce()[0]);
        }
    }

    @Test
    void footerLayoutMatchesTheProtocolCard() throws FormatException {
        byte[] body = Vectors.bytes("scenarios/single-r131073/xorb-0.bin");
        try (XorbValidator validator = new XorbValidator()) {
            ValidatedXorb v = validator.validateUpload(body, body.length, null);
            byte[] f = v.footer();
            int n = 4;
            assertEquals(96 + 40 * n, f.length);
            assertEquals("XETBLOB", new String(f, 0, 7));
            assertEquals(1, f[7]);
            assertEquals(v.hash(), MerkleHash.fromBytes(f, 8));
            assertEquals("XBLBHSH", new String(f, 40, 7));
            int d = 52 + 32 * n;
            assertEquals("XBLBBND", new String(f, d, 7));
            assertEquals(92 + 40 * n, u32(f, f.length - 4));
            assertEquals(40 + 8 * n, u32(f, f.length - 24)); // boundary offset, 24 bytes before the end
            assertEquals(69020, u32(f, d + 12));
            assertEquals(69012, u32(f, d + 12 + 4 * n));
        }
    }

    @Test
    void anyChunkLengthFromOneToTheMaximumIsAccepted() throws FormatException {
        byte[] data = Vectors.splitmix(7, 1 << 20);
        int[] lengths = {1, 2, 3, 8127, 8128, 8191, 8192, 65536, 131071, 131072, 100};
        for (XorbBuilder.Compression c : XorbBuilder.Compression.values()) {
            XorbBuilder b = new XorbBuilder(c);
            byte[] raw = new byte[32 * lengths.length];
            long[] sizes = new long[lengths.length];
            int p = 0;
            for (int k = 0; k < lengths.length; k++) {
                // Half-compressible data so every scheme is exercised.
                byte[] chunk = Arrays.copyOfRange(data, p, p + lengths[k]);
                for (int i = 0; i < chunk.length; i += 2) chunk[i] = (byte) (i & 0x7);
                b.add(chunk, 0, chunk.length);
                XetHashes.chunkHash(chunk, 0, chunk.length, raw, 32 * k);
                sizes[k] = lengths[k];
                p += lengths[k];
            }
            MerkleHash expected = XetHashes.merkleRoot(raw, sizes, lengths.length);
            byte[] body = b.build();
            try (XorbValidator validator = new XorbValidator()) {
                ValidatedXorb v = validator.validateUpload(body, body.length, expected);
                assertEquals(lengths.length, v.chunks().count());
                assertArrayEquals(raw, v.chunks().hashes());
            }
        }
    }

    @Test
    void wrongExpectedHashIsAMismatch() {
        byte[] body = Vectors.bytes("scenarios/single-r1m/xorb-0.bin");
        try (XorbValidator validator = new XorbValidator()) {
            HashMismatchException e = assertThrows(HashMismatchException.class,
                    () -> validator.validateUpload(body, body.length, MerkleHash.ZERO));
            assertEquals(MerkleHash.ZERO, e.expected());
        }
    }

    @Test
    void limitsAreEnforced() {
        try (XorbValidator validator = new XorbValidator()) {
            assertThrows(FormatException.class, () -> validator.validateUpload(new byte[0], 0, null), "empty xorb");
            // 8 193 one-byte chunks.
            XorbBuilder many = new XorbBuilder(XorbBuilder.Compression.NONE);
            for (int i = 0; i <= XorbFormat.MAX_CHUNKS; i++) many.add(new byte[]{(byte) i}, 0, 1);
            byte[] body = many.build();
            assertThrows(FormatException.class, () -> validator.validateUpload(body, body.length, null), "too many chunks");
            // 513 chunks of 128 KiB: more than 64 MiB raw.
            XorbBuilder big = new XorbBuilder(XorbBuilder.Compression.NONE);
            byte[] chunk = new byte[XorbFormat.MAX_CHUNK_BYTES];
            for (int i = 0; i < 513; i++) big.add(chunk, 0, chunk.length);
            byte[] bigBody = big.build();
            assertThrows(FormatException.class, () -> validator.validateUpload(bigBody, bigBody.length, null), "too many bytes");
        }
    }

    /** Truncations at every record boundary, header edits, bit flips: always a FormatException, never another type. */
    @Test
    void malformedBodiesGiveTypedErrorsOnly() throws FormatException {
        byte[] body = Vectors.bytes("scenarios/single-words-512k/xorb-0.bin");
        byte[] bg4 = Vectors.bytes("scenarios/single-u32ramp-256k/xorb-0.bin");
        MerkleHash expected = MerkleHash.of(Vectors.capture("single-words-512k").get("xorbs").get(0).get("xorb_hash").asText());
        List<byte[]> corpus = new ArrayList<>();
        try (XorbValidator validator = new XorbValidator()) {
            ChunkTable t = validator.validateUpload(body, body.length, null).chunks();
            for (int k = 0; k < t.count(); k++) {
                int start = t.byteStart(k);
                for (int cut : new int[]{start + 1, start + 4, start + 7, start + 8, start + 9, t.byteEnds()[k] - 1}) {
                    corpus.add(Arrays.copyOf(body, cut));
                }
                // Header fields: version, lengths, scheme.
                corpus.add(edit(body, start, 1));
                corpus.add(edit(body, start + 1, 0xFF, 0xFF, 0xFF));
                corpus.add(edit(body, start + 1, 0, 0, 0));
                corpus.add(edit(body, start + 4, 3));
                corpus.add(edit(body, start + 4, 99));
                corpus.add(edit(body, start + 4, 0));
                corpus.add(edit(body, start + 5, 0xFF, 0xFF, 0x01));
                corpus.add(edit(body, start + 5, 0, 0, 0));
                corpus.add(edit(body, start + 5, body[start + 5] + 1));
                corpus.add(edit(body, start + 1, body[start + 1] - 1));
                // LZ4 frame: magic, FLG, BD, header checksum, block size, end mark.
                for (int off = 8; off < 16; off++) corpus.add(flip(body, start + off, 0x40));
                corpus.add(flip(body, t.byteEnds()[k] - 1, 0x01));
                corpus.add(flip(body, t.byteEnds()[k] - 5, 0x80));
            }
            Random r = new Random(1);
            for (int i = 0; i < 400; i++) {
                byte[] src = i % 2 == 0 ? body : bg4;
                corpus.add(flip(src, r.nextInt(src.length), 1 << r.nextInt(8)));
            }
            corpus.add(concat(body, new byte[]{1, 2, 3}));
            corpus.add(concat(body, "XETBLOB garbage".getBytes()));
            for (byte[] bad : corpus) {
                try {
                    ValidatedXorb v = validator.validateUpload(bad, bad.length, expected);
                    // Flips inside an uncompressed payload change the hash; only a flip to an identical value passes.
                    assertEquals(expected, v.hash());
                } catch (FormatException expectedError) {
                    // the only allowed failure
                }
            }
        }
    }

    @Test
    void chunkRangeToByteRangeFollowsTheFooter() throws FormatException {
        byte[] body = Vectors.bytes("scenarios/single-r1m/xorb-0.bin");
        try (XorbValidator validator = new XorbValidator()) {
            ChunkTable t = validator.validateUpload(body, body.length, null).chunks();
            assertEquals(0, t.byteRangeStart(0));
            assertEquals(t.byteEnds()[4], t.byteRangeEnd(5));
            assertEquals(t.byteEnds()[2], t.byteRangeStart(3));
            assertEquals(1048576, t.unpackedLength(0, t.count()));
            assertEquals(t.unpackedEnds()[5] - t.unpackedEnds()[2], t.unpackedLength(3, 6));
        }
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    static byte[] edit(byte[] src, int at, int... values) {
        byte[] out = src.clone();
        for (int i = 0; i < values.length; i++) out[at + i] = (byte) values[i];
        return out;
    }

    static byte[] flip(byte[] src, int at, int mask) {
        byte[] out = src.clone();
        out[at] ^= (byte) mask;
        return out;
    }

    static long u32(byte[] b, int p) {
        return (b[p] & 0xFFL) | (b[p + 1] & 0xFFL) << 8 | (b[p + 2] & 0xFFL) << 16 | (b[p + 3] & 0xFFL) << 24;
    }
}
