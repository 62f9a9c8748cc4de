package org.openxet.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.SplittableRandom;

import org.bouncycastle.crypto.digests.Blake3Digest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The FFM BLAKE3 against BouncyCastle, the official test vectors and the protocol's own values (§1.9). */
class NativeBlake3Test {
    private static final int MAX = 204_800;
    private static NativeBlake3 ffm;
    private static byte[] data;
    private final JavaBlake3 bc = JavaBlake3.INSTANCE;

    @BeforeAll
    static void load() {
        ffm = NativeBlake3.load(); // fails the class with the list of places looked at when not built
        data = new byte[MAX + 64];
        new SplittableRandom(7).nextBytes(data);
    }

    private void assertAgree(byte[] key, int offset, int length) {
        byte[] expected = new byte[32];
        byte[] actual = new byte[40];
        bc.keyedHash(key, data, offset, length, expected, 0);
        ffm.keyedHash(key, data, offset, length, actual, 8);
        assertArrayEquals(expected, java.util.Arrays.copyOfRange(actual, 8, 40), "length " + length);
    }

    @Test
    void agreesWithBouncyCastleOnEveryLengthUpTo2048() {
        SplittableRandom r = new SplittableRandom(1);
        byte[] key = new byte[32];
        for (int length = 0; length <= 2048; length++) {
            r.nextBytes(key);
            assertAgree(key, r.nextInt(64), length);
        }
    }

    @Test
    void agreesWithBouncyCastleOnSampledLengthsUpTo200KiB() {
        SplittableRandom r = new SplittableRandom(2);
        byte[] key = new byte[32];
        // A prime stride covers every residue mod 64 (BLAKE3's block) and 1024 (its chunk) over the range.
        for (int length = 2049; length <= MAX; length += 211) {
            r.nextBytes(key);
            assertAgree(key, r.nextInt(64), length);
        }
        // Tree shape changes at chunk (1 KiB) boundaries: one below, at and above each multiple of 1 KiB.
        for (int k = 2; k * 1024 + 1 <= MAX; k += 1 + r.nextInt(4)) {
            r.nextBytes(key);
            for (int length = k * 1024 - 1; length <= k * 1024 + 1; length++) {
                assertAgree(key, r.nextInt(64), length);
            }
        }
        r.nextBytes(key);
        assertAgree(key, 0, MAX);
    }

    @Test
    void batchEqualsIndividualHashes() {
        SplittableRandom r = new SplittableRandom(3);
        byte[] key = new byte[32];
        r.nextBytes(key);
        int n = 300;
        int[] offsets = new int[n + 5];
        int[] lengths = new int[n + 5];
        for (int i = 0; i < n; i++) {
            lengths[i] = i % 10 == 0 ? 0 : r.nextInt(i % 3 == 0 ? 131_073 : 2_000);
            offsets[i] = r.nextInt(data.length - lengths[i] + 1); // slices may overlap
        }
        byte[] out = new byte[32 * n];
        ffm.keyedHashBatch(key, data, offsets, lengths, n, out);
        byte[] oracle = new byte[32 * n];
        bc.keyedHashBatch(key, data, offsets, lengths, n, oracle);
        assertArrayEquals(oracle, out);
    }

    @Test
    void batchChecksEverySliceBeforeCallingC() {
        byte[] key = new byte[32];
        int[] offsets = {0, data.length - 10};
        int[] lengths = {10, 11};
        assertThrows(IndexOutOfBoundsException.class,
                () -> ffm.keyedHashBatch(key, data, offsets, lengths, 2, new byte[64]));
        assertThrows(IndexOutOfBoundsException.class,
                () -> ffm.keyedHashBatch(key, data, offsets, lengths, 2, new byte[63]));
        assertThrows(IndexOutOfBoundsException.class,
                () -> ffm.keyedHashBatch(key, data, offsets, lengths, 3, new byte[96]));
        assertThrows(IllegalArgumentException.class,
                () -> ffm.keyedHash(new byte[31], data, 0, 1, new byte[32], 0));
        assertThrows(IndexOutOfBoundsException.class,
                () -> ffm.keyedHash(key, data, 1, data.length, new byte[32], 0));
    }

    @Test
    void matchesTheOfficialTestVectors() {
        // BLAKE3's test_vectors.json: input byte i is i % 251, this key, these lengths.
        byte[] key = "whats the Elvish word for friend".getBytes(StandardCharsets.US_ASCII);
        int[] lengths = {0, 1, 2, 3, 4, 5, 6, 7, 8, 63, 64, 65, 127, 128, 129, 1023, 1024, 1025, 2048, 2049, 3072,
                3073, 4096, 4097, 5120, 5121, 6144, 6145, 7168, 7169, 8192, 8193, 16384, 31744, 102400};
        byte[] input = new byte[102400];
        for (int i = 0; i < input.length; i++) {
            input[i] = (byte) (i % 251);
        }
        for (int length : lengths) {
            byte[] expected = new byte[32];
            byte[] actual = new byte[32];
            bc.keyedHash(key, input, 0, length, expected, 0);
            ffm.keyedHash(key, input, 0, length, actual, 0);
            assertArrayEquals(expected, actual, "keyed, length " + length);
            Blake3Digest plain = new Blake3Digest(256);
            plain.update(input, 0, length);
            plain.doFinal(expected, 0);
            ffm.hash(input, 0, length, actual);
            assertArrayEquals(expected, actual, "unkeyed, length " + length);
        }
        byte[] out = new byte[32];
        ffm.hash(input, 0, 0, out);
        assertTrue(HexFormat.of().formatHex(out).startsWith("af1349b9"), "unkeyed hash of empty input");
        ffm.keyedHash(key, input, 0, 0, out, 0);
        assertTrue(HexFormat.of().formatHex(out).startsWith("92b2b756"), "keyed hash of empty input");
    }

    @Test
    void reproducesTheProtocolChunkHashes() {
        byte[] hello = "hello world".getBytes(StandardCharsets.US_ASCII);
        assertEquals("4e39378b9d359f118190557a1f44130219a54e5fcfa07bd96cf50b466fe651b1",
                ffm.keyedHash(TestInputs.DATA_KEY, hello, 0, hello.length).hex());
        assertEquals("e0f2cf784e7e5f10c34f84af150e9a5ff9664216debad915364d741049870f67",
                ffm.keyedHash(TestInputs.DATA_KEY, new byte[0], 0, 0).hex());
    }

    @Test
    void isTheProcessWideBackendWhenBuilt() {
        assertEquals("ffm", Blake3.get().backend());
        assertTrue(ffm.libraryVersion().matches("\\d+\\.\\d+\\.\\d+.*"), ffm.libraryVersion());
    }
}
