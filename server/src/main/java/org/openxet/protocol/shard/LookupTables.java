package org.openxet.protocol.shard;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The three lookup tables of a stored shard (§4.4), derived from the sections: file lookup (truncated file hash →
 * record index of the file header), xorb lookup (truncated xorb hash → record index of the xorb header) and chunk
 * lookup (truncated chunk hash as it appears in the section, keyed or not → xorb header record index and position
 * of the chunk in that xorb). Record indices count 48-byte records from the start of their section. Each table is
 * sorted by its u64 key, unsigned; equal keys keep section order, which is what xet-core's writer produces.
 */
final class LookupTables {
    record KeyIndex(long key, int index) {
    }

    record ChunkRef(long key, int xorbIndex, int chunkOffset) {
    }

    private static final Comparator<KeyIndex> KEY_INDEX_ORDER = (a, b) -> {
        int c = Long.compareUnsigned(a.key, b.key);
        return c != 0 ? c : Integer.compareUnsigned(a.index, b.index);
    };
    private static final Comparator<ChunkRef> CHUNK_ORDER = (a, b) -> {
        int c = Long.compareUnsigned(a.key, b.key);
        if (c != 0) return c;
        c = Integer.compareUnsigned(a.xorbIndex, b.xorbIndex);
        return c != 0 ? c : Integer.compareUnsigned(a.chunkOffset, b.chunkOffset);
    };

    final KeyIndex[] files;
    final KeyIndex[] xorbs;
    final ChunkRef[] chunks;

    private LookupTables(KeyIndex[] files, KeyIndex[] xorbs, ChunkRef[] chunks) {
        this.files = files;
        this.xorbs = xorbs;
        this.chunks = chunks;
    }

    /** Builds the tables the sections call for. Callers keep record counts below 2^31 (shards are ≤ 2 GiB). */
    static LookupTables of(List<FileEntry> fileList, List<XorbBlock> xorbList, long totalChunks) {
        KeyIndex[] files = new KeyIndex[fileList.size()];
        long record = 0;
        for (int i = 0; i < files.length; i++) {
            FileEntry f = fileList.get(i);
            files[i] = new KeyIndex(f.fileHash().word0(), (int) record);
            record += f.recordCount();
        }
        KeyIndex[] xorbs = new KeyIndex[xorbList.size()];
        ChunkRef[] chunks = new ChunkRef[Math.toIntExact(totalChunks)];
        record = 0;
        int c = 0;
        for (int i = 0; i < xorbs.length; i++) {
            XorbBlock x = xorbList.get(i);
            xorbs[i] = new KeyIndex(x.xorbHash().word0(), (int) record);
            List<XorbChunkEntry> entries = x.chunks();
            for (int k = 0; k < entries.size(); k++) {
                chunks[c++] = new ChunkRef(entries.get(k).chunkHash().word0(), (int) record, k);
            }
            record += x.recordCount();
        }
        Arrays.sort(files, KEY_INDEX_ORDER);
        Arrays.sort(xorbs, KEY_INDEX_ORDER);
        Arrays.sort(chunks, CHUNK_ORDER);
        return new LookupTables(files, xorbs, chunks);
    }

    /**
     * Reads the tables a footer announces. The caller has already checked that the announced byte ranges lie inside
     * the body, so every count here is bounded by the body size.
     */
    static LookupTables read(byte[] b, int base, ShardFooter f) {
        KeyIndex[] files = readKeyIndex(b, base + (int) f.fileLookupOffset(), (int) f.fileLookupNumEntry());
        KeyIndex[] xorbs = readKeyIndex(b, base + (int) f.xorbLookupOffset(), (int) f.xorbLookupNumEntry());
        int n = (int) f.chunkLookupNumEntry();
        ChunkRef[] chunks = new ChunkRef[n];
        int p = base + (int) f.chunkLookupOffset();
        for (int i = 0; i < n; i++, p += ShardFooter.CHUNK_LOOKUP_ENTRY) {
            chunks[i] = new ChunkRef(Le.u64(b, p), Le.u32(b, p + 8), Le.u32(b, p + 12));
        }
        return new LookupTables(files, xorbs, chunks);
    }

    private static KeyIndex[] readKeyIndex(byte[] b, int p, int n) {
        KeyIndex[] out = new KeyIndex[n];
        for (int i = 0; i < n; i++, p += ShardFooter.FILE_LOOKUP_ENTRY) {
            out[i] = new KeyIndex(Le.u64(b, p), Le.u32(b, p + 8));
        }
        return out;
    }

    /**
     * Checks tables read from a body against the ones the sections call for. A table with count 0 is absent and
     * fine (the client then scans the section, §4.4); a present one must be sorted by key and hold exactly the
     * expected entries (equal keys may come in any order).
     */
    void checkAgainst(LookupTables expected) throws ShardFormatException {
        checkTable("file", files, expected.files, KEY_INDEX_ORDER, KeyIndex::key);
        checkTable("xorb", xorbs, expected.xorbs, KEY_INDEX_ORDER, KeyIndex::key);
        checkTable("chunk", chunks, expected.chunks, CHUNK_ORDER, ChunkRef::key);
    }

    private static <T> void checkTable(String name, T[] given, T[] expected, Comparator<T> order,
                                       java.util.function.ToLongFunction<T> key) throws ShardFormatException {
        if (given.length == 0) {
            return;
        }
        if (given.length != expected.length) {
            throw new ShardFormatException(name + " lookup table has " + given.length + " entries, the sections call for "
                    + expected.length + " (§4.4)");
        }
        for (int i = 1; i < given.length; i++) {
            if (Long.compareUnsigned(key.applyAsLong(given[i - 1]), key.applyAsLong(given[i])) > 0) {
                throw new ShardFormatException(name + " lookup table is not sorted at entry " + i + " (§4.4)");
            }
        }
        T[] sorted = given.clone();
        Arrays.sort(sorted, order);
        if (!Arrays.equals(sorted, expected)) {
            throw new ShardFormatException(name + " lookup table points at the wrong records (§4.4)");
        }
    }

    static void writeKeyIndex(KeyIndex[] table, byte[] out, int p) {
        for (KeyIndex e : table) {
            Le.putU64(out, p, e.key);
            Le.putU32(out, p + 8, e.index);
            p += ShardFooter.FILE_LOOKUP_ENTRY;
        }
    }

    static void writeChunks(ChunkRef[] table, byte[] out, int p) {
        for (ChunkRef e : table) {
            Le.putU64(out, p, e.key);
            Le.putU32(out, p + 8, e.xorbIndex);
            Le.putU32(out, p + 12, e.chunkOffset);
            p += ShardFooter.CHUNK_LOOKUP_ENTRY;
        }
    }
}
