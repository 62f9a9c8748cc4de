package org.openxet.protocol.shard;

import java.util.Arrays;
import java.util.List;
import org.openxet.protocol.MerkleHash;

/**
 * Serializes a {@link Shard} (§4). {@link #write} reproduces the shard as its header and footer describe it; for a body
 * {@link ShardParser} accepted, the result is byte-identical as long as the body had zeros in the padding the records do
 * not keep (bookend tails, {@code _unused} fields, footer reserved words; every known client writes zeros there) and,
 * if it carried lookup tables, listed equal truncated keys in section order. {@link #stored} builds the form we keep
 * on disk (§4.7): footer, all three lookup tables, exact offsets and byte totals.
 */
public final class ShardWriter {
    /** Largest array the JVM hands out, with room to spare; real shards stay under 64 MiB (§4.6). */
    private static final long MAX_BYTES = Integer.MAX_VALUE - 16;
    private static final int FOOTER = ShardFooter.SIZE;

    private ShardWriter() {
    }

    /**
     * Serializes the shard as described: no footer when the header says footer_size 0; otherwise sections, the lookup
     * tables the footer announces (each rebuilt from the sections, §4.4) and the footer fields as given.
     *
     * @throws IllegalArgumentException if the footer does not describe this shard (wrong offsets or counts)
     */
    public static byte[] write(Shard shard) {
        long xorbStart = shard.xorbInfoOffset();
        long xorbEnd = shard.xorbSectionEnd();
        ShardFooter f = shard.footer();
        LookupTables tables = null;
        long total = xorbEnd;
        if (f != null) {
            if (f.announcesLookupTables()) {
                tables = LookupTables.of(shard.files(), shard.xorbs(), shard.totalChunks());
                requireCount("file", f.fileLookupNumEntry(), tables.files.length);
                requireCount("xorb", f.xorbLookupNumEntry(), tables.xorbs.length);
                requireCount("chunk", f.chunkLookupNumEntry(), tables.chunks.length);
                total += f.fileLookupNumEntry() * ShardFooter.FILE_LOOKUP_ENTRY
                        + f.xorbLookupNumEntry() * ShardFooter.XORB_LOOKUP_ENTRY
                        + f.chunkLookupNumEntry() * ShardFooter.CHUNK_LOOKUP_ENTRY;
            }
            total += FOOTER;
            try {
                ShardParser.checkFooterLayout(f, total, xorbStart, xorbEnd);
            } catch (ShardFormatException e) {
                throw new IllegalArgumentException("footer does not describe this shard: " + e.getMessage(), e);
            }
        }
        if (total > MAX_BYTES) {
            throw new IllegalArgumentException("shard of " + total + " bytes is too large to serialize");
        }
        byte[] out = new byte[(int) total];
        shard.header().writeTo(out, 0);
        int p = writeSections(shard, out);
        if (f != null) {
            if (tables != null) {
                if (f.fileLookupNumEntry() != 0) {
                    LookupTables.writeKeyIndex(tables.files, out, (int) f.fileLookupOffset());
                }
                if (f.xorbLookupNumEntry() != 0) {
                    LookupTables.writeKeyIndex(tables.xorbs, out, (int) f.xorbLookupOffset());
                }
                if (f.chunkLookupNumEntry() != 0) {
                    LookupTables.writeChunks(tables.chunks, out, (int) f.chunkLookupOffset());
                }
            }
            f.writeTo(out, out.length - FOOTER);
        }
        assert f != null || p == out.length;
        return out;
    }

    /**
     * The stored form of a shard (§4.7): header footer_size 200, the same files and xorbs in the same order, all three
     * lookup tables, HMAC key zero, byte totals computed (§4.5: stored_bytes_on_disk = Σ num_bytes_on_disk,
     * materialized_bytes = Σ term bytes, stored_bytes = Σ num_bytes_in_xorb).
     *
     * @param keyExpiry Unix seconds; {@code -1L} is u64::MAX, "never", what xet-core writes for local shards
     */
    public static Shard stored(Shard shard, long creationTimestamp, long keyExpiry) {
        return withLookupTables(shard.files(), shard.xorbs(), MerkleHash.ZERO, creationTimestamp, keyExpiry);
    }

    /** {@code write(stored(shard, creationTimestamp, keyExpiry))}. */
    public static byte[] writeStored(Shard shard, long creationTimestamp, long keyExpiry) {
        return write(stored(shard, creationTimestamp, keyExpiry));
    }

    /** A shard with a footer and every lookup table laid out after the xorb bookend (§4.4, §4.5). */
    static Shard withLookupTables(List<FileEntry> files, List<XorbBlock> xorbs, MerkleHash hmacKey,
                                  long creationTimestamp, long keyExpiry) {
        Shard bare = new Shard(ShardHeader.withoutFooter(), files, xorbs, null);
        long xorbStart = bare.xorbInfoOffset();
        long fileLookup = bare.xorbSectionEnd();
        long xorbLookup = fileLookup + (long) files.size() * ShardFooter.FILE_LOOKUP_ENTRY;
        long chunkLookup = xorbLookup + (long) xorbs.size() * ShardFooter.XORB_LOOKUP_ENTRY;
        long chunks = bare.totalChunks();
        long footerOffset = chunkLookup + chunks * ShardFooter.CHUNK_LOOKUP_ENTRY;
        long onDisk = 0;
        long inXorbs = 0;
        for (XorbBlock x : xorbs) {
            onDisk += x.numBytesOnDiskUnsigned();
            inXorbs += x.numBytesInXorbUnsigned();
        }
        long materialized = 0;
        for (FileEntry fe : files) {
            for (FileTerm t : fe.terms()) {
                materialized += t.unpackedBytesUnsigned();
            }
        }
        ShardFooter footer = new ShardFooter(ShardFooter.VERSION, ShardHeader.SIZE, xorbStart,
                fileLookup, files.size(), xorbLookup, xorbs.size(), chunkLookup, chunks,
                hmacKey, creationTimestamp, keyExpiry, onDisk, materialized, inXorbs, footerOffset);
        return new Shard(ShardHeader.withFooter(), files, xorbs, footer);
    }

    private static void requireCount(String table, long announced, int actual) {
        if (announced != 0 && announced != actual) {
            throw new IllegalArgumentException("footer announces " + Long.toUnsignedString(announced) + " " + table
                    + " lookup entries, the sections call for " + actual);
        }
    }

    /** Writes both sections and their bookends from byte 48; returns the position after the xorb bookend. */
    private static int writeSections(Shard shard, byte[] out) {
        int p = ShardHeader.SIZE;
        for (FileEntry f : shard.files()) {
            p = record(out, p, f.fileHash(), f.flags(), f.terms().size(), 0);
            for (FileTerm t : f.terms()) {
                p = record(out, p, t.xorbHash(), t.xorbFlags(), t.unpackedBytes(), t.chunkStart(), t.chunkEnd());
            }
            for (MerkleHash v : f.verificationHashes()) {
                p = record(out, p, v, 0, 0, 0, 0);
            }
            if (f.sha256() != null) {
                p = record(out, p, f.sha256(), 0, 0, 0, 0);
            }
        }
        p = bookend(out, p);
        for (XorbBlock x : shard.xorbs()) {
            p = record(out, p, x.xorbHash(), x.flags(), x.chunks().size(), x.numBytesInXorb(), x.numBytesOnDisk());
            for (XorbChunkEntry c : x.chunks()) {
                p = record(out, p, c.chunkHash(), c.byteRangeStart(), c.unpackedBytes(), c.flags(), 0);
            }
        }
        return bookend(out, p);
    }

    /** A file header record: hash, two u32, then a u64 that writers leave 0 (§4.2 {@code _unused}). */
    private static int record(byte[] out, int p, MerkleHash h, int a, int b, long unused) {
        h.writeTo(out, p);
        Le.putU32(out, p + 32, a);
        Le.putU32(out, p + 36, b);
        Le.putU64(out, p + 40, unused);
        return p + ShardParser.RECORD;
    }

    /** Every other record: hash then four u32 (zeros where the record has padding). */
    private static int record(byte[] out, int p, MerkleHash h, int a, int b, int c, int d) {
        h.writeTo(out, p);
        Le.putU32(out, p + 32, a);
        Le.putU32(out, p + 36, b);
        Le.putU32(out, p + 40, c);
        Le.putU32(out, p + 44, d);
        return p + ShardParser.RECORD;
    }

    /** 32 × 0xFF then 16 zero bytes (§4). */
    private static int bookend(byte[] out, int p) {
        Arrays.fill(out, p, p + MerkleHash.LENGTH, (byte) 0xFF);
        return p + ShardParser.RECORD;
    }
}
