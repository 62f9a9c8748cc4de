package org.openxet.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import net.jpountz.lz4.LZ4Factory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Untrusted payloads: whatever the bytes, every decoder either decodes or throws {@link FormatException} — no other
 * exception, no hang, no byte written outside the destination range.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class Lz4MalformedFrameTest {
    private static final byte GUARD = (byte) 0xA5;
    private static List<Lz4FrameDecoder> decoders;

    @BeforeAll
    static void open() {
        decoders = List.of(Lz4.newFfmDecoder(), Lz4.newLz4JavaDecoder(),
                new JavaLz4FrameDecoder(LZ4Factory.safeInstance()));
    }

    @AfterAll
    static void close() {
        decoders.forEach(Lz4FrameDecoder::close);
    }

    /** A valid frame and the bytes it decodes to. */
    private record Case(String name, byte[] frame, byte[] content, boolean checksummed) {
    }

    private static List<Case> cases() {
        byte[] text = TestInputs.text(5, 3_000);
        byte[] random = new byte[900];
        new SplittableRandom(6).nextBytes(random);
        byte[] textBig = TestInputs.text(7, 70_000);
        return List.of(
                new Case("ours, text", Lz4.encodeFrame(text, 0, text.length), text, false),
                new Case("ours, stored", Lz4.encodeFrame(random, 0, random.length), random, false),
                new Case("ours, empty", Lz4.encodeFrame(new byte[0], 0, 0), new byte[0], false),
                new Case("liblz4, all checksums and size", Lz4fCompressor.compress(text,
                        new Lz4fCompressor.Options(4, false, true, true, true, 1)), text, true),
                new Case("liblz4, two independent blocks, content checksum", Lz4fCompressor.compress(textBig,
                        new Lz4fCompressor.Options(4, false, false, true, false, 1)), textBig, true));
    }

    /**
     * Runs one decode of possibly bad input; returns true if it decoded. Fails the test on any exception other
     * than FormatException, or on a write outside the target range.
     */
    private static boolean attempt(Lz4FrameDecoder d, byte[] frame, int srcLength, int expectedLength, String what) {
        byte[] src = new byte[srcLength + 6];
        Arrays.fill(src, (byte) 0x5C); // bytes past the range must not be read as part of the frame
        System.arraycopy(frame, 0, src, 3, Math.min(srcLength, frame.length));
        byte[] dst = new byte[expectedLength + 10];
        Arrays.fill(dst, GUARD);
        boolean ok;
        try {
            d.decodeFrame(src, 3, srcLength, dst, 5, expectedLength);
            ok = true;
        } catch (FormatException e) {
            ok = false;
        } catch (RuntimeException | Error e) {
            throw new AssertionError(what + ": " + d.getClass().getSimpleName() + " threw " + e, e);
        }
        for (int i = 0; i < 5; i++) {
            assertEquals(GUARD, dst[i], what + ": wrote before dst range");
        }
        for (int i = 5 + expectedLength; i < dst.length; i++) {
            assertEquals(GUARD, dst[i], what + ": wrote after dst range");
        }
        return ok;
    }

    private static void assertRejected(byte[] frame, int expectedLength, String what) {
        for (Lz4FrameDecoder d : decoders) {
            if (attempt(d, frame, frame.length, expectedLength, what)) {
                fail(what + ": " + d.getClass().getSimpleName() + " accepted it");
            }
        }
    }

    @Test
    void everyTruncationIsRejected() {
        for (Case c : cases()) {
            for (int cut = 0; cut < c.frame().length; cut++) {
                for (Lz4FrameDecoder d : decoders) {
                    if (attempt(d, c.frame(), cut, c.content().length, c.name() + " cut at " + cut)) {
                        fail(c.name() + " cut at " + cut + ": " + d.getClass().getSimpleName() + " accepted it");
                    }
                }
            }
        }
    }

    @Test
    void bitFlipsDecodeOrFailTyped() {
        for (Case c : cases()) {
            // Every bit of the first 64 bytes (header, first block word, early sequences), then a sample.
            SplittableRandom r = new SplittableRandom(c.frame().length);
            int flips = 0;
            for (int pos = 0; pos < c.frame().length; pos = pos < 64 ? pos + 1 : pos + 1 + r.nextInt(120)) {
                for (int bit = 0; bit < 8; bit++, flips++) {
                    byte[] bad = c.frame().clone();
                    bad[pos] ^= (byte) (1 << bit);
                    for (Lz4FrameDecoder d : decoders) {
                        String what = c.name() + " flip " + pos + "." + bit;
                        if (attempt(d, bad, bad.length, c.content().length, what) && c.checksummed()) {
                            // With checksums a flip that still decodes must be one that changes nothing decoded,
                            // e.g. in a reserved-but-ignored field; the content must be the original.
                            byte[] out = new byte[c.content().length];
                            try {
                                d.decodeFrame(bad, 0, bad.length, out, 0, out.length);
                            } catch (FormatException e) {
                                fail(what + ": decoded once, then not: " + e);
                            }
                            assertArrayEquals(c.content(), out, what);
                        }
                    }
                }
            }
            assertEquals(true, flips >= 8 * Math.min(64, c.frame().length), "flipped every bit of the first 64 bytes");
        }
    }

    @Test
    void structuralDamageIsRejected() {
        for (Case c : cases()) {
            byte[] f = c.frame();
            int n = c.content().length;
            byte[] magic = f.clone();
            magic[0] = 0x05;
            assertRejected(magic, n, c.name() + " wrong magic");
            byte[] skippable = f.clone();
            Lz4Frame.writeIntLE(skippable, 0, 0x184D2A50);
            assertRejected(skippable, n, c.name() + " skippable frame magic");
            byte[] legacy = f.clone();
            Lz4Frame.writeIntLE(legacy, 0, 0x184C2102);
            assertRejected(legacy, n, c.name() + " legacy frame magic");
            int headerEnd = 7 + ((f[4] & Lz4Frame.FLG_CONTENT_SIZE) != 0 ? 8 : 0);
            byte[] checksum = f.clone();
            checksum[headerEnd - 1] ^= 0x01;
            assertRejected(checksum, n, c.name() + " bad header checksum");
            byte[] oversized = f.clone();
            if (n > 0) {
                // Block size word just above the 64 KiB / 256 KiB block max these frames declare.
                int max = Lz4Frame.blockMaxSize((f[5] >> 4) & 7);
                Lz4Frame.writeIntLE(oversized, headerEnd, max + 1);
                assertRejected(oversized, n, c.name() + " block larger than block max size");
                Lz4Frame.writeIntLE(oversized, headerEnd, 0x7FFFFFFF);
                assertRejected(oversized, n, c.name() + " block size 2^31-1");
            }
            byte[] trailingByte = Arrays.copyOf(f, f.length + 1);
            assertRejected(trailingByte, n, c.name() + " one trailing byte");
            byte[] twoFrames = Arrays.copyOf(f, 2 * f.length);
            System.arraycopy(f, 0, twoFrames, f.length, f.length);
            assertRejected(twoFrames, n, c.name() + " a second frame after the first");
            assertRejected(f, n + 1, c.name() + " expected one byte more");
            assertRejected(f, n + 100_000, c.name() + " expected far more");
            if (n > 0) {
                assertRejected(f, n - 1, c.name() + " expected one byte less");
                assertRejected(f, 0, c.name() + " expected nothing");
            }
            byte[] version = f.clone();
            version[4] = (byte) ((version[4] & 0x3F) | 0x80);
            assertRejected(version, n, c.name() + " frame version 10");
        }
    }

    @Test
    void declaredContentSizeMustBeTheExpectedLength() {
        byte[] text = TestInputs.text(9, 2_000);
        byte[] sized = Lz4fCompressor.compress(text, new Lz4fCompressor.Options(4, false, false, false, true, 1));
        assertRejected(sized, 1_999, "content size 2000, expected 1999");
        // Content size 0 with data: liblz4 alone would read 0 as "unknown"; rebuild the header checksum so only
        // the size is wrong.
        byte[] zero = sized.clone();
        Arrays.fill(zero, 6, 14, (byte) 0);
        zero[14] = (byte) (net.jpountz.xxhash.XXHashFactory.fastestInstance().hash32().hash(zero, 4, 10, 0) >>> 8);
        assertRejected(zero, 2_000, "content size 0 for 2000 bytes");
    }

    @Test
    void randomGarbageAfterAValidHeaderFailsTyped() {
        SplittableRandom r = new SplittableRandom(77);
        byte[] header = Arrays.copyOf(Lz4.encodeFrame(new byte[0], 0, 0), 7); // magic, FLG 0x60, BD 0x40, HC
        for (int i = 0; i < 3_000; i++) {
            byte[] f = Arrays.copyOf(header, 7 + 4 + r.nextInt(300));
            for (int j = 7; j < f.length; j++) {
                f[j] = (byte) r.nextInt();
            }
            // Mostly plausible block sizes, so the garbage reaches the block decoders.
            int size = r.nextInt(4) == 0 ? r.nextInt() : r.nextInt(f.length - 7);
            Lz4Frame.writeIntLE(f, 7, r.nextBoolean() ? size : size & 0x7FFFFFFF);
            int expected = r.nextInt(2_000);
            for (Lz4FrameDecoder d : decoders) {
                attempt(d, f, f.length, expected, "garbage " + i);
            }
        }
    }

    @Test
    void argumentBugsAreUncheckedNotFormatErrors() {
        byte[] f = Lz4.encodeFrame(new byte[10], 0, 10);
        for (Lz4FrameDecoder d : decoders) {
            assertThrows(IndexOutOfBoundsException.class, () -> d.decodeFrame(f, 1, f.length, new byte[10], 0, 10));
            assertThrows(IndexOutOfBoundsException.class, () -> d.decodeFrame(f, 0, f.length, new byte[10], 1, 10));
            assertThrows(IndexOutOfBoundsException.class, () -> d.decodeFrame(f, 0, f.length, new byte[10], 0, -1));
        }
    }
}
