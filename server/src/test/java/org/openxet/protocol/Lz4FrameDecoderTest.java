package org.openxet.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4FrameOutputStream;
import net.jpountz.lz4.LZ4FrameOutputStream.BLOCKSIZE;
import net.jpountz.lz4.LZ4FrameOutputStream.FLG;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The liblz4 and lz4-java decoders agree with each other and with the input, on every kind of valid frame. */
class Lz4FrameDecoderTest {
    private static Lz4FrameDecoder ffm;
    private static Lz4FrameDecoder jni;
    private static Lz4FrameDecoder pureJava;

    @BeforeAll
    static void open() {
        ffm = Lz4.newFfmDecoder();
        jni = Lz4.newLz4JavaDecoder();
        pureJava = new JavaLz4FrameDecoder(LZ4Factory.safeInstance());
    }

    @AfterAll
    static void close() {
        ffm.close();
        jni.close();
        pureJava.close();
    }

    /** Decodes with one decoder at odd offsets and checks the bytes around the target range stay untouched. */
    private static void assertDecodes(Lz4FrameDecoder decoder, byte[] frame, byte[] expected, String what)
            throws FormatException {
        byte[] src = new byte[frame.length + 11];
        System.arraycopy(frame, 0, src, 5, frame.length);
        byte[] dst = new byte[expected.length + 16];
        Arrays.fill(dst, (byte) 0x5A);
        decoder.decodeFrame(src, 5, frame.length, dst, 7, expected.length);
        assertArrayEquals(expected, Arrays.copyOfRange(dst, 7, 7 + expected.length), what);
        for (int i = 0; i < 7; i++) {
            assertEquals(0x5A, dst[i], what + ": wrote before the range");
        }
        for (int i = 7 + expected.length; i < dst.length; i++) {
            assertEquals(0x5A, dst[i], what + ": wrote after the range");
        }
    }

    private static void assertAllDecode(byte[] frame, byte[] expected, String what) throws FormatException {
        assertDecodes(ffm, frame, expected, "ffm " + what);
        assertDecodes(jni, frame, expected, "lz4-java jni " + what);
        assertDecodes(pureJava, frame, expected, "lz4-java pure " + what);
    }

    /** Random chunk contents: text, random bytes, zeros, and text with random holes. */
    private static byte[] chunk(SplittableRandom r, int size, int kind) {
        return switch (kind) {
            case 0 -> TestInputs.text(r.nextLong(), size);
            case 1 -> {
                byte[] b = new byte[size];
                r.nextBytes(b);
                yield b;
            }
            case 2 -> new byte[size];
            default -> {
                byte[] b = TestInputs.text(r.nextLong(), size);
                for (int i = 0; i < size / 50; i++) {
                    b[r.nextInt(size)] = (byte) r.nextInt();
                }
                yield b;
            }
        };
    }

    @Test
    void ourEncoderRoundTripsThroughEveryDecoder() throws FormatException {
        SplittableRandom r = new SplittableRandom(11);
        List<Integer> sizes = new ArrayList<>(List.of(0, 1, 2, 3, 4, 5, 12, 13, 15, 16, 17, 65535, 65536, 65537,
                131071, 131072));
        for (int i = 0; i < 120; i++) {
            sizes.add(1 + r.nextInt(131072));
        }
        for (int size : sizes) {
            for (int kind = 0; kind < 4; kind++) {
                byte[] input = chunk(r, size, kind);
                byte[] frame = Lz4.encodeFrame(input, 0, input.length);
                assertAllDecode(frame, input, "size " + size + " kind " + kind);
            }
        }
        byte[] big = chunk(r, 5 << 20, 0); // beyond 4 MiB: a frame of two blocks
        assertAllDecode(Lz4.encodeFrame(big, 0, big.length), big, "5 MiB");
    }

    @Test
    void encoderStoresIncompressibleBlocksAndCompressesText() {
        byte[] random = chunk(new SplittableRandom(12), 70_000, 1);
        byte[] frame = Lz4.encodeFrame(random, 0, random.length);
        assertEquals(7 + 4 + random.length + 4, frame.length);
        assertTrue((Lz4Frame.readIntLE(frame, 7) & Lz4Frame.BLOCK_UNCOMPRESSED) != 0);
        assertEquals(0x60, frame[4]);
        assertEquals(0x50, frame[5]); // 70 000 bytes need the 256 KiB block size
        byte[] text = TestInputs.text(13, 65_536);
        assertTrue(Lz4.encodeFrame(text, 0, text.length).length < text.length * 0.6);
    }

    @Test
    void framesFromLz4JavaStreamEncoderWithEverySetting() throws IOException, FormatException {
        SplittableRandom r = new SplittableRandom(21);
        FLG.Bits[][] settings = {
                {FLG.Bits.BLOCK_INDEPENDENCE},
                {FLG.Bits.BLOCK_INDEPENDENCE, FLG.Bits.BLOCK_CHECKSUM},
                {FLG.Bits.BLOCK_INDEPENDENCE, FLG.Bits.CONTENT_CHECKSUM},
                {FLG.Bits.BLOCK_INDEPENDENCE, FLG.Bits.CONTENT_SIZE},
                {FLG.Bits.BLOCK_INDEPENDENCE, FLG.Bits.BLOCK_CHECKSUM, FLG.Bits.CONTENT_CHECKSUM,
                        FLG.Bits.CONTENT_SIZE},
        }; // lz4-java refuses to write linked-block frames; liblz4 builds those below
        for (BLOCKSIZE blockSize : BLOCKSIZE.values()) {
            for (FLG.Bits[] bits : settings) {
                for (int size : new int[] {0, 1, 8_000 + r.nextInt(1_000), 65_536, 131_072}) {
                    for (int kind : new int[] {0, 1}) {
                        byte[] input = chunk(r, size, kind);
                        ByteArrayOutputStream out = new ByteArrayOutputStream();
                        boolean withSize = Arrays.asList(bits).contains(FLG.Bits.CONTENT_SIZE);
                        try (LZ4FrameOutputStream lz4 = new LZ4FrameOutputStream(out, blockSize,
                                withSize ? size : -1, LZ4Factory.fastestInstance().fastCompressor(),
                                net.jpountz.xxhash.XXHashFactory.fastestInstance().hash32(), bits)) {
                            lz4.write(input);
                        }
                        String what = blockSize + " " + Arrays.toString(bits) + " size " + size + " kind " + kind;
                        assertAllDecode(out.toByteArray(), input, what);
                    }
                }
            }
        }
    }

    private static void assertFallbackRefusesLinked(byte[] frame, int length) {
        for (Lz4FrameDecoder d : List.of(jni, pureJava)) {
            FormatException e = org.junit.jupiter.api.Assertions.assertThrows(FormatException.class,
                    () -> d.decodeFrame(frame, 0, frame.length, new byte[length], 0, length));
            assertTrue(e.getMessage().contains("linked"), e.getMessage());
        }
    }

    @Test
    void framesFromLiblz4WithLinkedBlocksChecksumsAndContentSize() throws FormatException {
        SplittableRandom r = new SplittableRandom(31);
        for (int bsid = 4; bsid <= 7; bsid++) {
            for (int flags = 0; flags < 16; flags++) {
                boolean linked = (flags & 1) != 0;
                Lz4fCompressor.Options o = new Lz4fCompressor.Options(bsid, linked, (flags & 2) != 0,
                        (flags & 4) != 0, (flags & 8) != 0, flags % 3 == 0 ? 9 : 1); // some high-compression
                for (int size : new int[] {0, 1, 1 + r.nextInt(65_536), 65_536, 131_072, 300_000}) {
                    for (int kind = 0; kind < 4; kind++) {
                        byte[] input = chunk(r, size, kind);
                        byte[] frame = Lz4fCompressor.compress(input, o);
                        String what = o + " size " + size + " kind " + kind;
                        assertDecodes(ffm, frame, input, what);
                        // A linked frame of several compressed blocks (random data is stored, not compressed) is
                        // what the fallback refuses.
                        if (linked && size > Lz4Frame.blockMaxSize(bsid) && kind != 1) {
                            assertFallbackRefusesLinked(frame, input.length);
                        } else {
                            assertDecodes(jni, frame, input, "lz4-java jni " + what);
                            assertDecodes(pureJava, frame, input, "lz4-java pure " + what);
                        }
                    }
                }
            }
        }
    }

    @Test
    void storedBlocksHandBuiltIncludingSeveralInALinkedFrame() throws FormatException {
        byte[] input = chunk(new SplittableRandom(41), 100_000, 1);
        // Linked (FLG 0x40 as the JS client), 64 KiB blocks, stored blocks of 65 536, 30 000, 0 and 4 464 bytes.
        ByteArrayOutputStream f = new ByteArrayOutputStream();
        byte[] header = {0x04, 0x22, 0x4D, 0x18, 0x40, 0x40, 0};
        header[6] = (byte) (net.jpountz.xxhash.XXHashFactory.fastestInstance().hash32().hash(header, 4, 2, 0) >>> 8);
        f.writeBytes(header);
        int at = 0;
        for (int n : new int[] {65_536, 30_000, 0, 4_464}) {
            byte[] word = new byte[4];
            Lz4Frame.writeIntLE(word, 0, n | Lz4Frame.BLOCK_UNCOMPRESSED);
            f.writeBytes(word);
            f.write(input, at, n);
            at += n;
        }
        f.writeBytes(new byte[4]);
        assertAllDecode(f.toByteArray(), input, "stored blocks");
    }

    /**
     * A one-byte compressed block of no literals ({@code 00}, or {@code 03}: the last sequence's match nibble is
     * ignored) decodes to nothing. liblz4 accepts it in an empty chunk's frame and after the output is already full,
     * and so must the fallback (a fuzz finding: it refused {@code 03} when given no room).
     */
    @Test
    void compressedBlocksDecodingToNothingAreAcceptedWithNoRoomLeft() throws FormatException {
        byte[] input = chunk(new SplittableRandom(43), 300, 1);
        byte[] stored = new byte[4 + input.length];
        Lz4Frame.writeIntLE(stored, 0, input.length | Lz4Frame.BLOCK_UNCOMPRESSED);
        System.arraycopy(input, 0, stored, 4, input.length);
        for (byte flg : new byte[] {0x40, 0x60}) {
            for (byte token : new byte[] {0x00, 0x03}) {
                byte[] empty = {1, 0, 0, 0, token};
                String what = "FLG " + flg + " block " + token;
                assertAllDecode(frame(flg, new byte[0], empty), new byte[0], "empty chunk, " + what);
                assertAllDecode(frame(flg, stored, empty), input, "after a stored block, " + what);
            }
        }
    }

    /** A frame of 64 KiB blocks with the FLG given: header, the blocks' bytes as given, the empty block, end mark. */
    private static byte[] frame(byte flg, byte[] blocks, byte[] lastBlock) {
        ByteArrayOutputStream f = new ByteArrayOutputStream();
        byte[] header = {0x04, 0x22, 0x4D, 0x18, flg, 0x40, 0};
        header[6] = (byte) (net.jpountz.xxhash.XXHashFactory.fastestInstance().hash32().hash(header, 4, 2, 0) >>> 8);
        f.writeBytes(header);
        f.writeBytes(blocks);
        f.writeBytes(lastBlock);
        f.writeBytes(new byte[4]);
        return f.toByteArray();
    }

    @Test
    void oneDecoderDecodesManyFramesInARowIncludingAfterErrors() throws FormatException {
        SplittableRandom r = new SplittableRandom(51);
        for (int i = 0; i < 200; i++) {
            byte[] input = chunk(r, 1 + r.nextInt(70_000), i % 4);
            byte[] frame = Lz4.encodeFrame(input, 0, input.length);
            if (i % 7 == 0) {
                // Leave each decoder mid-frame: the next frame must still decode.
                for (Lz4FrameDecoder d : List.of(ffm, jni, pureJava)) {
                    org.junit.jupiter.api.Assertions.assertThrows(FormatException.class,
                            () -> d.decodeFrame(frame, 0, frame.length - 5, new byte[input.length], 0,
                                    input.length));
                }
            }
            assertAllDecode(frame, input, "frame " + i);
        }
    }

    @Test
    void defaultDecoderIsLiblz4WhenItLoads() {
        assertEquals("ffm", Lz4.backend());
        try (Lz4FrameDecoder d = Lz4.newDecoder()) {
            assertTrue(d instanceof FfmLz4FrameDecoder);
        }
        assertEquals("jni", JavaLz4FrameDecoder.backendOf(LZ4Factory.fastestInstance()));
        assertEquals("java", JavaLz4FrameDecoder.backendOf(LZ4Factory.safeInstance()));
    }
}
