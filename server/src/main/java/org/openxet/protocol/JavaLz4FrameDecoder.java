package org.openxet.protocol;

import static org.openxet.protocol.Lz4Frame.BD_RESERVED;
import static org.openxet.protocol.Lz4Frame.BLOCK_UNCOMPRESSED;
import static org.openxet.protocol.Lz4Frame.FLG_BLOCK_CHECKSUM;
import static org.openxet.protocol.Lz4Frame.FLG_BLOCK_INDEPENDENCE;
import static org.openxet.protocol.Lz4Frame.FLG_CONTENT_CHECKSUM;
import static org.openxet.protocol.Lz4Frame.FLG_CONTENT_SIZE;
import static org.openxet.protocol.Lz4Frame.FLG_DICT_ID;
import static org.openxet.protocol.Lz4Frame.FLG_RESERVED;
import static org.openxet.protocol.Lz4Frame.FLG_VERSION_01;
import static org.openxet.protocol.Lz4Frame.FLG_VERSION_MASK;
import static org.openxet.protocol.Lz4Frame.MAGIC;
import static org.openxet.protocol.Lz4Frame.MIN_HEADER;
import static org.openxet.protocol.Lz4Frame.readIntLE;
import static org.openxet.protocol.Lz4Frame.readLongLE;

import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import net.jpountz.xxhash.XXHash32;
import net.jpountz.xxhash.XXHashFactory;

/**
 * LZ4 frame decoder used when the system liblz4 cannot be loaded: our own frame parser, with each block decoded by
 * lz4-java's safe block decompressor (its JNI build when that loads, else pure Java).
 *
 * <p>Not lz4-java's {@code LZ4FrameInputStream}: that refuses every frame whose FLG says "linked blocks", and the JS
 * client writes exactly such frames (FLG 0x40) — harmlessly, since each chunk is one block. It also costs a stream
 * object per chunk.
 *
 * <p><b>Limitation:</b> lz4-java's block decoder cannot see earlier output, so in a linked-block frame only the
 * blocks that decode on their own are accepted; a later compressed block that refers back is refused with a
 * {@link FormatException} ({@link #LINKED_BLOCK_REFUSED}). Stored blocks need no history and are always accepted.
 * The liblz4 decoder has no such limit. Frames with a dictionary id are decoded without a dictionary (nothing here
 * knows one); a block that refers into it fails as malformed, as it does with liblz4.
 */
final class JavaLz4FrameDecoder implements Lz4FrameDecoder {
    /** The refusal of a later block in a linked frame that does not decode on its own (the limitation above). */
    static final String LINKED_BLOCK_REFUSED = "LZ4 block malformed, or in a frame of linked blocks refers to an"
            + " earlier block's output, which the lz4-java fallback cannot supply";
    private final LZ4SafeDecompressor blocks;
    private final XXHash32 xxhash;
    private final String backend;
    /** Where a block is decoded when the output has less than a whole block's room left; grows to fit. */
    private byte[] scratch = new byte[0];

    JavaLz4FrameDecoder(LZ4Factory factory) {
        this.blocks = factory.safeDecompressor();
        this.xxhash = XXHashFactory.fastestInstance().hash32();
        this.backend = backendOf(factory);
    }

    /** "jni" or "java": lz4-java names its factories "LZ4Factory:JNI", "LZ4Factory:JavaSafe", ... */
    static String backendOf(LZ4Factory factory) {
        return factory.toString().endsWith(":JNI") ? "jni" : "java";
    }

    String backend() {
        return backend;
    }

    @Override
    public void decodeFrame(byte[] src, int srcOffset, int srcLength, byte[] dst, int dstOffset, int expectedLength)
            throws FormatException {
        Lz4Frame.checkArguments(src, srcOffset, srcLength, dst, dstOffset, expectedLength);
        final int end = srcOffset + srcLength;
        int p = srcOffset;

        // Header: magic, FLG, BD, [content size], [dict id], header checksum.
        if (srcLength < MIN_HEADER) {
            throw new FormatException("LZ4 frame truncated: " + srcLength + " bytes, a header needs at least 7");
        }
        if (readIntLE(src, p) != MAGIC) {
            throw new FormatException("not an LZ4 frame: bad magic");
        }
        int flg = src[p + 4] & 0xFF;
        int bd = src[p + 5] & 0xFF;
        if ((flg & FLG_VERSION_MASK) != FLG_VERSION_01 || (flg & FLG_RESERVED) != 0 || (bd & BD_RESERVED) != 0) {
            throw new FormatException("LZ4 frame header has an unknown version or reserved bits set");
        }
        int blockSizeId = (bd >> 4) & 7;
        if (blockSizeId < 4) {
            throw new FormatException("LZ4 frame block max size id " + blockSizeId + " is invalid");
        }
        int blockMax = Lz4Frame.blockMaxSize(blockSizeId);
        int headerLength = MIN_HEADER + ((flg & FLG_CONTENT_SIZE) != 0 ? 8 : 0) + ((flg & FLG_DICT_ID) != 0 ? 4 : 0);
        if (srcLength < headerLength) {
            throw new FormatException("LZ4 frame truncated inside its header");
        }
        int checksum = (xxhash.hash(src, p + 4, headerLength - 5, 0) >>> 8) & 0xFF;
        if (checksum != (src[p + headerLength - 1] & 0xFF)) {
            throw new FormatException("LZ4 frame header checksum mismatch");
        }
        if ((flg & FLG_CONTENT_SIZE) != 0) {
            long contentSize = readLongLE(src, p + 6);
            if (contentSize != expectedLength) {
                throw new FormatException("LZ4 frame declares " + Long.toUnsignedString(contentSize)
                        + " content bytes, expected " + expectedLength);
            }
        }
        boolean linked = (flg & FLG_BLOCK_INDEPENDENCE) == 0;
        int blockChecksumSize = (flg & FLG_BLOCK_CHECKSUM) != 0 ? 4 : 0;
        p += headerLength;

        // Blocks until the end mark (a zero size word).
        final int dstEnd = dstOffset + expectedLength;
        int out = dstOffset;
        while (true) {
            if (end - p < 4) {
                throw new FormatException("LZ4 frame truncated: no end mark");
            }
            int word = readIntLE(src, p);
            p += 4;
            if (word == 0) {
                break;
            }
            int size = word & ~BLOCK_UNCOMPRESSED;
            if (size > blockMax) {
                throw new FormatException("LZ4 block of " + size + " bytes exceeds the frame's block max size "
                        + blockMax);
            }
            if (end - p < size + blockChecksumSize) {
                throw new FormatException("LZ4 frame truncated inside a block");
            }
            if (blockChecksumSize != 0 && xxhash.hash(src, p, size, 0) != readIntLE(src, p + size)) {
                throw new FormatException("LZ4 block checksum mismatch");
            }
            if ((word & BLOCK_UNCOMPRESSED) != 0) {
                if (size > dstEnd - out) {
                    throw tooLong(expectedLength);
                }
                System.arraycopy(src, p, dst, out, size);
                out += size;
            } else {
                out += decodeBlock(src, p, size, dst, out, dstEnd - out, blockMax, linked && out > dstOffset,
                        expectedLength);
            }
            p += size + blockChecksumSize;
        }

        if ((flg & FLG_CONTENT_CHECKSUM) != 0) {
            if (end - p < 4) {
                throw new FormatException("LZ4 frame truncated: no content checksum");
            }
            if (xxhash.hash(dst, dstOffset, out - dstOffset, 0) != readIntLE(src, p)) {
                throw new FormatException("LZ4 frame content checksum mismatch");
            }
            p += 4;
        }
        if (p != end) {
            throw new FormatException((end - p) + " trailing bytes after the LZ4 frame");
        }
        if (out != dstEnd) {
            throw new FormatException("LZ4 frame decodes to " + (out - dstOffset) + " bytes, expected "
                    + expectedLength);
        }
    }

    /**
     * Decodes one compressed block with room for a whole block, as liblz4's frame decoder does (into a buffer of its
     * own when the output has less room left). The block decoder's end-of-output rules then never apply to a block
     * that fits; decoding straight into the remaining room would apply them, and refuse what liblz4 accepts (a fuzz
     * finding: the block {@code 03}, a last sequence of no literals, once the output is full). Room for 64 bytes
     * more than the output has left is as good as a whole block: those rules look at most 12 bytes from the end.
     */
    private int decodeBlock(byte[] src, int p, int size, byte[] dst, int out, int room, int blockMax,
                            boolean mayReferBack, int expectedLength) throws FormatException {
        try {
            if (room >= blockMax) {
                return blocks.decompress(src, p, size, dst, out, blockMax);
            }
            int capacity = Math.min(blockMax, room + 64);
            if (scratch.length < capacity) {
                scratch = new byte[capacity];
            }
            int n = blocks.decompress(src, p, size, scratch, 0, capacity);
            if (n > room) {
                throw tooLong(expectedLength);
            }
            System.arraycopy(scratch, 0, dst, out, n);
            return n;
        } catch (LZ4Exception e) {
            throw new FormatException(mayReferBack ? LINKED_BLOCK_REFUSED
                    : room < blockMax ? "LZ4 block malformed or decoding to more than the expected " + expectedLength
                            + " bytes"
                    : "LZ4 block malformed", e);
        }
    }

    private static FormatException tooLong(int expectedLength) {
        return new FormatException("LZ4 frame decodes to more than the expected " + expectedLength + " bytes");
    }

    @Override
    public void close() {
        // Holds no native resources of its own.
    }
}
