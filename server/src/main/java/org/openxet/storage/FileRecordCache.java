package org.openxet.storage;

import org.openxet.protocol.MerkleHash;

import java.util.Optional;

/**
 * Decoded records of large files, so a file many clients download (a popular model) is read and decoded once, not
 * once per reconstruction: a 100,000-term record is a 2.4 MB BLOB whose read and decode took about 1.2 ms in SQLite
 * (4 ms from PostgreSQL) and 2.4 MB of allocation per answer. Least recently used records go first past the capacity.
 *
 * <p>An entry is only ever used for the version it was read at: the index asks its query for the file's
 * {@code shard_id} (the shard whose terms the row holds; every registration that changes the row sets it) and has the
 * database leave the BLOBs out when it equals the cached one. The scope's visibility is checked by that same query
 * every time, so a cached record never reaches a scope that cannot see the file.
 */
final class FileRecordCache {
    /** Smaller records decode in well under 0.1 ms: not worth their place. */
    static final int MIN_TERMS = 4096;

    /** A cached record and the {@code shard_id} it was read at. */
    record Entry(long shardId, FileRecord record, long bytes) {
    }

    private final long capacityBytes;
    private final BoundedLru<MerkleHash, Entry> entries;
    private long hits;

    FileRecordCache(long capacityBytes) {
        this.capacityBytes = capacityBytes;
        this.entries = new BoundedLru<>(capacityBytes, Entry::bytes);
    }

    /** Up to 256 MiB, and at most an eighth of the heap. */
    static FileRecordCache forHeap() {
        return new FileRecordCache(Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 8));
    }

    /** What an index's file query returned for the file: its BLOBs are null when they were left in the database. */
    record Row(long shardId, long size, byte[] sha256, byte[] xorbRefs, byte[] terms) {
    }

    /** An index's file query: the scope's row of the file, its BLOBs left out while its shard_id is {@code cachedShard}. */
    interface Query {
        Optional<Row> run(long cachedShard) throws IndexException;
    }

    /**
     * The file's record through {@code query}: from the cache when the row is still the cached version, else decoded
     * from the row (and kept when large). Empty when the scope does not see the file.
     */
    Optional<FileRecord> read(MerkleHash file, Query query) throws IndexException {
        Optional<Row> row = query.run(cachedShard(file));
        if (row.isPresent() && row.get().terms() == null) {
            FileRecord cached = hit(file, row.get().shardId());
            if (cached != null) return Optional.of(cached);
            // The cached version was current but left the cache meanwhile: read it whole.
            row = query.run(-1);
        }
        return row.map(r -> {
            FileRecord record = new FileRecord(file, r.size(), Packing.hashes(r.xorbRefs()),
                    Packing.ints(r.terms(), 0, r.terms().length / 4), r.sha256() == null ? null : MerkleHash.fromBytes(r.sha256()));
            put(r.shardId(), record);
            return record;
        });
    }

    /** The {@code shard_id} of the cached version of {@code file}, or -1 (never a row id) when none is cached. */
    synchronized long cachedShard(MerkleHash file) {
        Entry e = entries.get(file);
        return e == null ? -1 : e.shardId();
    }

    /** The cached record of {@code file} at {@code shardId}; the caller's query found that version current. */
    synchronized FileRecord hit(MerkleHash file, long shardId) {
        Entry e = entries.get(file);
        if (e == null || e.shardId() != shardId) {
            return null;
        }
        hits++;
        return e.record();
    }

    /** Keeps {@code record} as read at {@code shardId}, if it is large enough to be worth it and small enough to fit. */
    synchronized void put(long shardId, FileRecord record) {
        if (record.termCount() < MIN_TERMS) return;
        long size = sizeOf(record);
        if (size > capacityBytes / 4) return;
        entries.put(record.fileHash(), new Entry(shardId, record, size));
    }

    /** Records answered from the cache (tests). */
    synchronized long hits() {
        return hits;
    }

    private static long sizeOf(FileRecord r) {
        // The terms array, and per xorb a hash object (4 longs and a header) and its reference.
        return 16L + 4L * r.terms().length + 56L * r.xorbs().length + 64;
    }
}
