package org.openxet.protocol.xorb;

import org.openxet.protocol.ByteGrouping4;
import org.openxet.protocol.FormatException;
import org.openxet.protocol.HashMismatchException;
import org.openxet.protocol.Lz4;
import org.openxet.protocol.Lz4FrameDecoder;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;

import java.util.Arrays;

/**
 * Validates a xorb in one pass (§3.6): walks the chunk records, decodes and hashes every chunk exactly once, and
 * keeps that pass's hashes and offsets as the footer's chunk table. The upstream server decodes everything twice
 * (once to validate, once to build the footer: 37% of its ingest time); this is the single-pass replacement.
 */
public final class XorbValidator implements AutoCloseable {
    private final Lz4FrameDecoder lz4 = Lz4.newDecoder();
    private final byte[] scratch = new byte[XorbFormat.MAX_CHUNK_BYTES];
    private final byte[] grouped = new byte[XorbFormat.MAX_CHUNK_BYTES];

    /**
     * Validates an upload body {@code body[0, length)}: chunk records back to back, optionally followed by a footer
     * (§3.4). {@code expected} may be null (the CLI without {@code --expect}).
     */
    public ValidatedXorb validateUpload(byte[] body, int length, MerkleHash expected) throws FormatException {
        Walk walk = walkRecords(body, length);
        if (walk.count == 0) {
            throw new FormatException("a xorb must hold at least one chunk");
        }
        ChunkTable table = walk.table();
        MerkleHash hash = XetHashes.merkleRoot(table.hashes(), table.chunkSizes(), table.count());
        if (expected != null && !hash.equals(expected)) {
            throw new HashMismatchException("xorb", expected, hash);
        }
        boolean hadFooter = walk.recordEnd < length;
        if (hadFooter) {
            // A footer the client appended must describe exactly what we computed; we store our own anyway.
            XorbFooter.Parsed footer = XorbFooter.parse(body, length);
            checkFooterAgrees(footer, hash, table);
        }
        return new ValidatedXorb(hash, table, walk.schemeCounts, walk.compressedBytes, hadFooter);
    }

    /** Validates a stored object (chunks + footer, any nonce): every chunk against the footer and the xorb hash. */
    public ValidatedXorb validateStored(byte[] object, int length, MerkleHash expected) throws FormatException {
        XorbFooter.Parsed footer = XorbFooter.parse(object, length);
        Walk walk = walkRecords(object, footer.footerStart());
        if (walk.recordEnd != footer.footerStart()) {
            throw new FormatException("chunk records do not end where the footer starts");
        }
        ChunkTable table = walk.table();
        MerkleHash hash = XetHashes.merkleRoot(table.hashes(), table.chunkSizes(), table.count());
        checkFooterAgrees(footer, hash, table);
        if (expected != null && !hash.equals(expected)) {
            throw new HashMismatchException("xorb", expected, hash);
        }
        return new ValidatedXorb(hash, table, walk.schemeCounts, walk.compressedBytes, true);
    }

    private static void checkFooterAgrees(XorbFooter.Parsed footer, MerkleHash hash, ChunkTable table)
            throws FormatException {
        ChunkTable f = footer.chunks();
        if (!footer.hash().equals(hash)) {
            throw new HashMismatchException("xorb footer", footer.hash(), hash);
        }
        if (f.count() != table.count() || !Arrays.equals(f.hashes(), table.hashes())
                || !Arrays.equals(f.byteEnds(), table.byteEnds())
                || (footer.version() >= 1 && !Arrays.equals(f.unpackedEnds(), table.unpackedEnds()))) {
            throw new FormatException("xorb footer does not match its chunks");
        }
    }

    /** The state of one pass over the chunk records. */
    private static final class Walk {
        int count;
        int recordEnd;
        long compressedBytes;
        final int[] schemeCounts = new int[3];
        byte[] hashes = new byte[32 * 64];
        int[] byteEnds = new int[64];
        int[] unpackedEnds = new int[64];
        // Uncompressed chunks are hashed in one batch downcall straight from the body at the end.
        int[] rawIndex = new int[64];
        int[] rawOffsets = new int[64];
        int[] rawLengths = new int[64];
        int rawCount;

        void grow() {
            int cap = byteEnds.length * 2;
            hashes = Arrays.copyOf(hashes, 32 * cap);
            byteEnds = Arrays.copyOf(byteEnds, cap);
            unpackedEnds = Arrays.copyOf(unpackedEnds, cap);
        }

        void addRaw(int chunk, int offset, int length) {
            if (rawCount == rawIndex.length) {
                int cap = rawCount * 2;
                rawIndex = Arrays.copyOf(rawIndex, cap);
                rawOffsets = Arrays.copyOf(rawOffsets, cap);
                rawLengths = Arrays.copyOf(rawLengths, cap);
            }
            rawIndex[rawCount] = chunk;
            rawOffsets[rawCount] = offset;
            rawLengths[rawCount] = length;
            rawCount++;
        }

        ChunkTable table() {
            return new ChunkTable(count, Arrays.copyOf(hashes, 32 * count), Arrays.copyOf(byteEnds, count),
                    Arrays.copyOf(unpackedEnds, count));
        }
    }

    private Walk walkRecords(byte[] body, int length) throws FormatException {
        Walk w = new Walk();
        int p = 0;
        long unpacked = 0;
        while (p < length) {
            if (length - p >= 7 && Arrays.equals(body, p, p + 7, XorbFormat.FOOTER_IDENT, 0, 7)) {
                break;
            }
            if (length - p < XorbFormat.CHUNK_HEADER_SIZE) {
                throw new FormatException("truncated chunk header at byte " + p);
            }
            int version = body[p] & 0xFF;
            int clen = XorbFormat.u24(body, p + 1);
            int scheme = body[p + 4] & 0xFF;
            int ulen = XorbFormat.u24(body, p + 5);
            int k = w.count;
            if (version != 0) {
                throw new FormatException("chunk " + k + ": header version " + version + " (only 0 exists)");
            }
            if (scheme > XorbFormat.SCHEME_BG4_LZ4) {
                throw new FormatException("chunk " + k + ": unknown compression scheme " + scheme);
            }
            if (ulen == 0 || ulen > XorbFormat.MAX_CHUNK_BYTES) {
                throw new FormatException("chunk " + k + ": uncompressed length " + ulen + " outside 1.." + XorbFormat.MAX_CHUNK_BYTES);
            }
            if (clen == 0 || clen > XorbFormat.MAX_COMPRESSED_BYTES) {
                throw new FormatException("chunk " + k + ": compressed length " + clen + " outside 1.." + XorbFormat.MAX_COMPRESSED_BYTES);
            }
            int payload = p + XorbFormat.CHUNK_HEADER_SIZE;
            if (clen > length - payload) {
                throw new FormatException("chunk " + k + ": payload of " + clen + " bytes runs past the body end");
            }
            if (k == XorbFormat.MAX_CHUNKS) {
                throw new FormatException("a xorb holds at most " + XorbFormat.MAX_CHUNKS + " chunks");
            }
            unpacked += ulen;
            if (unpacked > XorbFormat.MAX_RAW_BYTES) {
                throw new FormatException("a xorb holds at most " + XorbFormat.MAX_RAW_BYTES + " uncompressed bytes");
            }
            if (k == w.byteEnds.length) {
                w.grow();
            }
            switch (scheme) {
                case XorbFormat.SCHEME_NONE -> {
                    if (clen != ulen) {
                        throw new FormatException("chunk " + k + ": uncompressed chunk with differing lengths " + clen + " and " + ulen);
                    }
                    w.addRaw(k, payload, ulen);
                }
                case XorbFormat.SCHEME_LZ4 -> {
                    lz4.decodeFrame(body, payload, clen, scratch, 0, ulen);
                    XetHashes.chunkHash(scratch, 0, ulen, w.hashes, 32 * k);
                }
                default -> {
                    lz4.decodeFrame(body, payload, clen, grouped, 0, ulen);
                    ByteGrouping4.regroup(grouped, 0, ulen, scratch, 0);
                    XetHashes.chunkHash(scratch, 0, ulen, w.hashes, 32 * k);
                }
            }
            w.schemeCounts[scheme]++;
            w.compressedBytes += clen;
            p = payload + clen;
            w.byteEnds[k] = p;
            w.unpackedEnds[k] = (int) unpacked;
            w.count++;
        }
        w.recordEnd = p;
        hashRawChunks(body, w);
        return w;
    }

    private static void hashRawChunks(byte[] body, Walk w) {
        if (w.rawCount == 0) {
            return;
        }
        byte[] out = new byte[32 * w.rawCount];
        XetHashes.chunkHashes(body, w.rawOffsets, w.rawLengths, w.rawCount, out);
        for (int i = 0; i < w.rawCount; i++) {
            System.arraycopy(out, 32 * i, w.hashes, 32 * w.rawIndex[i], 32);
        }
    }


    @Override
    public void close() {
        lz4.close();
    }
}
