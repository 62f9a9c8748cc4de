package org.openxet.protocol;

/**
 * Constants and small readers of the LZ4 frame format (lz4 doc/lz4_Frame_format.md), shared by our frame parser,
 * our encoder and the pre-checks of the liblz4 decoder. Xet chunk payloads of schemes 1 and 2 are LZ4 frames
 * (§3.3), not raw LZ4 blocks.
 */
final class Lz4Frame {
    /** 04 22 4D 18 on the wire. */
    static final int MAGIC = 0x184D2204;
    /** FLG bits. The version field (bits 7-6) must be 01. */
    static final int FLG_VERSION_MASK = 0xC0;
    static final int FLG_VERSION_01 = 0x40;
    static final int FLG_BLOCK_INDEPENDENCE = 0x20;
    static final int FLG_BLOCK_CHECKSUM = 0x10;
    static final int FLG_CONTENT_SIZE = 0x08;
    static final int FLG_CONTENT_CHECKSUM = 0x04;
    static final int FLG_RESERVED = 0x02;
    static final int FLG_DICT_ID = 0x01;
    /** BD: bits 6-4 are the block max size id (4..7); bit 7 and bits 3-0 are reserved. */
    static final int BD_RESERVED = 0x8F;
    /** Block size word: high bit set means the block is stored uncompressed. */
    static final int BLOCK_UNCOMPRESSED = 0x80000000;
    /** Magic, FLG, BD, header checksum. */
    static final int MIN_HEADER = 7;

    private Lz4Frame() {
    }

    /** Block max size for BD id 4..7: 64 KiB, 256 KiB, 1 MiB, 4 MiB. */
    static int blockMaxSize(int id) {
        return 1 << (8 + 2 * id);
    }

    static int readIntLE(byte[] b, int off) {
        return (b[off] & 0xFF) | (b[off + 1] & 0xFF) << 8 | (b[off + 2] & 0xFF) << 16 | (b[off + 3] & 0xFF) << 24;
    }

    static long readLongLE(byte[] b, int off) {
        return (readIntLE(b, off) & 0xFFFFFFFFL) | (long) readIntLE(b, off + 4) << 32;
    }

    static void writeIntLE(byte[] b, int off, int v) {
        b[off] = (byte) v;
        b[off + 1] = (byte) (v >>> 8);
        b[off + 2] = (byte) (v >>> 16);
        b[off + 3] = (byte) (v >>> 24);
    }

    /**
     * Checks bounds and argument sanity common to every decoder; these are caller bugs, hence unchecked.
     */
    static void checkArguments(byte[] src, int srcOffset, int srcLength, byte[] dst, int dstOffset,
                               int expectedLength) {
        java.util.Objects.checkFromIndexSize(srcOffset, srcLength, src.length);
        java.util.Objects.checkFromIndexSize(dstOffset, expectedLength, dst.length);
    }
}
