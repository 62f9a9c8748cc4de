package org.openxet.protocol.shard;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.openxet.protocol.MerkleHash;

/**
 * Parses an untrusted shard body (§4, §4.9, §6.1) into a {@link Shard}, or fails with a
 * {@link ShardFormatException} and nothing else.
 *
 * <p>Two shapes are accepted. {@code footer_size} 0: the body ends right after the xorb bookend (hf_xet uploads,
 * §4.6). {@code footer_size} 200: sections, optional lookup tables, then the footer in the last 200 bytes (JS-client
 * uploads, §11, and every shard we store or serve, §4.7, §4.8); its offsets must describe this very body.
 *
 * <p>Memory: every count is checked against the bytes left before anything is sized from it, so the objects built
 * are bounded by a small multiple of the body, whatever the counts claim.
 */
public final class ShardParser {
    /** Every section record is 48 bytes: headers, entries, verification, metadata extension, bookends (§4.2, §4.3). */
    static final int RECORD = 48;

    private final byte[] b;
    private final int limit;
    private int pos;

    private ShardParser(byte[] b, int offset, int limit) {
        this.b = b;
        this.limit = limit;
        this.pos = offset + ShardHeader.SIZE;
    }

    public static Shard parse(byte[] body) throws ShardFormatException {
        return parse(body, 0, body.length);
    }

    /**
     * Checks the 48-byte header alone (size, tag, version), allocating nothing: what the upload path asks before it
     * reserves memory for a full parse, so a body that is no shard at all costs no reservation.
     */
    public static void checkHeader(byte[] body, int offset, int length) throws ShardFormatException {
        Objects.checkFromIndexSize(offset, length, body.length);
        if (length < ShardHeader.SIZE) {
            throw new ShardFormatException("shard of " + length + " bytes is shorter than its 48-byte header (§4.1)");
        }
        if (!ShardHeader.tagMatches(body, offset)) {
            throw new ShardFormatException("not a shard: wrong header tag (§4.1)");
        }
        long version = Le.u64(body, offset + 32);
        if (version != ShardHeader.VERSION) {
            throw new ShardFormatException("shard header version " + Long.toUnsignedString(version)
                    + ", expected 2 (§4.1)");
        }
    }

    /** Parses {@code body[offset, offset + length)}; the range itself is the caller's and must lie in the array. */
    public static Shard parse(byte[] body, int offset, int length) throws ShardFormatException {
        checkHeader(body, offset, length);
        long footerSize = Le.u64(body, offset + 40);
        ShardFooter footer = null;
        int end = offset + length;
        int limit = end;
        if (footerSize == ShardFooter.SIZE) {
            // Header, two bookends and the footer are the least a shard with a footer can hold.
            if (length < ShardHeader.SIZE + 2 * RECORD + ShardFooter.SIZE) {
                throw new ShardFormatException("shard of " + length + " bytes is too short for its 200-byte footer (§4.5)");
            }
            limit = end - ShardFooter.SIZE;
            footer = ShardFooter.read(body, limit);
            if (footer.version() != ShardFooter.VERSION) {
                throw new ShardFormatException("shard footer version " + Long.toUnsignedString(footer.version())
                        + ", expected 1 (§4.5)");
            }
        } else if (footerSize != 0) {
            throw new ShardFormatException("footer_size " + Long.toUnsignedString(footerSize)
                    + ", expected 0 or 200 (§4.1)");
        }

        ShardParser p = new ShardParser(body, offset, limit);
        List<FileEntry> files = p.fileSection();
        long xorbStart = p.pos - offset;
        List<XorbBlock> xorbs = p.xorbSection();
        long xorbEnd = p.pos - offset;
        ShardHeader header = new ShardHeader(ShardHeader.VERSION, footerSize);

        if (footer == null) {
            if (p.pos != end) {
                throw new ShardFormatException((end - p.pos) + " bytes after the xorb bookend, but the header announces "
                        + "no footer (§4.6, §4.9)");
            }
            return new Shard(header, files, xorbs, null);
        }
        checkFooterLayout(footer, length, xorbStart, xorbEnd);
        if (footer.announcesLookupTables()) {
            long chunks = 0;
            for (XorbBlock x : xorbs) {
                chunks += x.chunks().size();
            }
            LookupTables.read(body, offset, footer).checkAgainst(LookupTables.of(files, xorbs, chunks));
        }
        return new Shard(header, files, xorbs, footer);
    }

    /**
     * The footer must describe the body it ends (§4.5): footer_offset = length − 200, file info at 48, xorb info right
     * after the file bookend, and the lookup fields either all zero with nothing between the xorb bookend and the
     * footer (JS client, §11), or laid out back to back from the xorb bookend to the footer (xet-core, §4.4). Every
     * count is bounded by the bytes available before any arithmetic that could overflow.
     */
    static void checkFooterLayout(ShardFooter f, long length, long xorbStart, long xorbEnd) throws ShardFormatException {
        long footerStart = length - ShardFooter.SIZE;
        if (f.footerOffset() != footerStart) {
            throw lie("footer_offset", f.footerOffset(), footerStart);
        }
        if (f.fileInfoOffset() != ShardHeader.SIZE) {
            throw lie("file_info_offset", f.fileInfoOffset(), ShardHeader.SIZE);
        }
        if (f.xorbInfoOffset() != xorbStart) {
            throw lie("xorb_info_offset", f.xorbInfoOffset(), xorbStart);
        }
        if (!f.announcesLookupTables()) {
            if (xorbEnd != footerStart) {
                throw new ShardFormatException((footerStart - xorbEnd) + " bytes between the xorb bookend and the footer, "
                        + "but the footer announces no lookup tables (§4.4, §4.9)");
            }
            return;
        }
        if (f.fileLookupOffset() != xorbEnd) {
            throw lie("file_lookup_offset", f.fileLookupOffset(), xorbEnd);
        }
        long at = tableEnd("file", xorbEnd, f.fileLookupNumEntry(), ShardFooter.FILE_LOOKUP_ENTRY, footerStart);
        if (f.xorbLookupOffset() != at) {
            throw lie("xorb_lookup_offset", f.xorbLookupOffset(), at);
        }
        at = tableEnd("xorb", at, f.xorbLookupNumEntry(), ShardFooter.XORB_LOOKUP_ENTRY, footerStart);
        if (f.chunkLookupOffset() != at) {
            throw lie("chunk_lookup_offset", f.chunkLookupOffset(), at);
        }
        at = tableEnd("chunk", at, f.chunkLookupNumEntry(), ShardFooter.CHUNK_LOOKUP_ENTRY, footerStart);
        if (at != footerStart) {
            throw new ShardFormatException((footerStart - at) + " bytes between the chunk lookup table and the footer (§4.4)");
        }
    }

    private static long tableEnd(String name, long start, long count, int entrySize, long footerStart)
            throws ShardFormatException {
        if (Long.compareUnsigned(count, (footerStart - start) / entrySize) > 0) {
            throw new ShardFormatException(name + " lookup table of " + Long.toUnsignedString(count)
                    + " entries does not fit before the footer (§4.4)");
        }
        return start + count * entrySize;
    }

    private static ShardFormatException lie(String field, long got, long expected) {
        return new ShardFormatException("footer " + field + " is " + Long.toUnsignedString(got) + ", the body puts it at "
                + expected + " (§4.5)");
    }

    /** File-info section (§4.2), up to and including its bookend. */
    private List<FileEntry> fileSection() throws ShardFormatException {
        List<FileEntry> files = new ArrayList<>(); // grows per parsed record, never sized from a count
        int verification = -1; // -1 unknown, else 0/1: all files carry verification entries or none do (§4.6)
        while (true) {
            if (limit - pos < RECORD) {
                throw new ShardFormatException("file section has no bookend (§4.2)");
            }
            if (isBookend(pos)) {
                pos += RECORD;
                return files;
            }
            MerkleHash fileHash = MerkleHash.fromBytes(b, pos);
            int flags = Le.u32(b, pos + 32);
            long n = Integer.toUnsignedLong(Le.u32(b, pos + 36));
            pos += RECORD;
            boolean hasVerification = FileEntry.hasVerification(flags);
            boolean hasExt = FileEntry.hasMetadataExt(flags);
            long records = n * (hasVerification ? 2 : 1) + (hasExt ? 1 : 0); // ≤ 2^33, no overflow in a long
            if (records > (limit - pos) / RECORD) {
                throw new ShardFormatException("file " + fileHash + " claims " + n + " terms (" + records
                        + " records) but only " + (limit - pos) + " bytes are left (§4.2, §4.9)");
            }
            int bit = hasVerification ? 1 : 0;
            if (verification >= 0 && verification != bit) {
                throw new ShardFormatException("only some files carry verification entries (§4.6, §6.1)");
            }
            verification = bit;
            int terms = (int) n; // bounded by the check above
            FileTerm[] t = new FileTerm[terms];
            for (int i = 0; i < terms; i++, pos += RECORD) {
                t[i] = new FileTerm(MerkleHash.fromBytes(b, pos), Le.u32(b, pos + 32), Le.u32(b, pos + 36),
                        Le.u32(b, pos + 40), Le.u32(b, pos + 44));
            }
            List<MerkleHash> ver = List.of();
            if (hasVerification) {
                MerkleHash[] v = new MerkleHash[terms];
                for (int i = 0; i < terms; i++, pos += RECORD) {
                    v[i] = MerkleHash.fromBytes(b, pos);
                }
                ver = Arrays.asList(v);
            }
            MerkleHash sha256 = null;
            if (hasExt) {
                sha256 = MerkleHash.fromBytes(b, pos);
                pos += RECORD;
            }
            files.add(new FileEntry(fileHash, flags, Arrays.asList(t), ver, sha256));
        }
    }

    /** Xorb-info section (§4.3), up to and including its bookend. */
    private List<XorbBlock> xorbSection() throws ShardFormatException {
        List<XorbBlock> xorbs = new ArrayList<>();
        while (true) {
            if (limit - pos < RECORD) {
                throw new ShardFormatException("xorb section has no bookend (§4.3)");
            }
            if (isBookend(pos)) {
                pos += RECORD;
                return xorbs;
            }
            MerkleHash xorbHash = MerkleHash.fromBytes(b, pos);
            int flags = Le.u32(b, pos + 32);
            long n = Integer.toUnsignedLong(Le.u32(b, pos + 36));
            int inXorb = Le.u32(b, pos + 40);
            int onDisk = Le.u32(b, pos + 44);
            pos += RECORD;
            if (n > (limit - pos) / RECORD) {
                throw new ShardFormatException("xorb " + xorbHash + " claims " + n + " chunks but only " + (limit - pos)
                        + " bytes are left (§4.3, §4.9)");
            }
            XorbChunkEntry[] c = new XorbChunkEntry[(int) n];
            for (int i = 0; i < c.length; i++, pos += RECORD) {
                c[i] = new XorbChunkEntry(MerkleHash.fromBytes(b, pos), Le.u32(b, pos + 32), Le.u32(b, pos + 36),
                        Le.u32(b, pos + 40));
            }
            xorbs.add(new XorbBlock(xorbHash, flags, inXorb, onDisk, Arrays.asList(c)));
        }
    }

    /** A bookend is recognised by its 32 × 0xFF hash alone, as xet-core does; the 16 bytes after it are ignored. */
    private boolean isBookend(int at) {
        return (Le.u64(b, at) & Le.u64(b, at + 8) & Le.u64(b, at + 16) & Le.u64(b, at + 24)) == -1L;
    }
}
