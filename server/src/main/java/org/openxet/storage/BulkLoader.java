package org.openxet.storage;

import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.xorb.ChunkTable;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.ToLongFunction;

/**
 * Writes index rows in bulk: the rows {@link Index#putXorb} and {@link Index#registerShard} write for the same
 * xorbs and commits, with ids the caller chooses, in large batches and one transaction per {@link #flush}, without
 * the per-row lookups and durable commits a live registration needs. For building index fixtures of 10^7 files (the
 * release rig) into a new, empty index whose schema exists (open it once with {@link SqliteIndex} or
 * {@link PostgresIndex} first); never for an index a server uses. {@code BulkLoaderTest} registers the same shard
 * through {@code POST /v1/shards} and compares every row.
 *
 * <p>What it assumes of its input, which registration would check: xorb and file hashes are new and distinct, every
 * xorb a commit names was loaded first under the id {@code xorbId} gives, and a commit lists each file once.
 */
public final class BulkLoader implements AutoCloseable {
    private static final int BATCH = 10_000;

    private final Connection c;
    private final boolean postgres;
    private final PreparedStatement xorbs;
    private final PreparedStatement shards;
    private final PreparedStatement shardScopes;
    private final PreparedStatement files;
    private final PreparedStatement fileScopes;
    private final PreparedStatement shardXorbs;
    private final PreparedStatement dedup;
    private int pending;
    private final long now = System.currentTimeMillis() / 1000;

    private BulkLoader(Connection c, boolean postgres) throws SQLException {
        this.c = c;
        this.postgres = postgres;
        c.setAutoCommit(false);
        // PostgreSQL's ids are GENERATED ALWAYS: explicit ones need the override (the sequences are set at close).
        String override = postgres ? " OVERRIDING SYSTEM VALUE" : "";
        xorbs = c.prepareStatement("INSERT INTO xorbs (id, hash, chunk_count, unpacked_bytes, stored_bytes, chunk_hashes, "
                + "layout, created_at)" + override + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
        shards = c.prepareStatement("INSERT INTO shards (id, hash, stored_bytes, created_at)" + override
                + " VALUES (?, ?, ?, ?)");
        shardScopes = c.prepareStatement("INSERT INTO shard_scopes (shard_id, scope) VALUES (?, ?)");
        files = c.prepareStatement("INSERT INTO files (id, hash, size, term_count, xorb_refs, terms, sha256, shard_id, "
                + "updated_at)" + override + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
        fileScopes = c.prepareStatement("INSERT INTO file_scopes (scope, file_id) VALUES (?, ?)");
        shardXorbs = c.prepareStatement("INSERT INTO shard_xorbs (shard_id, xorb_id) VALUES (?, ?) ON CONFLICT DO NOTHING");
        dedup = c.prepareStatement("INSERT INTO dedup_chunks (chunk_hash, shard_id, xorb_id) VALUES (?, ?, ?) "
                + "ON CONFLICT DO NOTHING");
    }

    /**
     * The SQLite index at {@code file}. Its durability is off while loading (synchronous off, no journal: a crash
     * leaves a fixture to build again) and restored when the loader closes.
     */
    public static BulkLoader sqlite(java.nio.file.Path file) throws SQLException {
        Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA journal_mode = OFF");
            s.execute("PRAGMA synchronous = OFF");
            s.execute("PRAGMA cache_size = -1048576"); // 1 GiB of page cache: the unique indexes stay in memory longer
        }
        return new BulkLoader(c, false);
    }

    /** The PostgreSQL index at {@code jdbcUrl} (as {@code index.url} names it). */
    public static BulkLoader postgres(String jdbcUrl) throws SQLException {
        Connection c = DriverManager.getConnection(jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?")
                + "reWriteBatchedInserts=true");
        try (Statement s = c.createStatement()) {
            s.execute("SET synchronous_commit = off");
        }
        return new BulkLoader(c, true);
    }

    /** The row {@link Index#putXorb} writes. */
    public void xorb(long id, MerkleHash hash, ChunkTable chunks, long storedBytes) throws SQLException {
        xorbs.setLong(1, id);
        xorbs.setBytes(2, hash.toBytes());
        xorbs.setInt(3, chunks.count());
        xorbs.setLong(4, chunks.unpackedBytes());
        xorbs.setLong(5, storedBytes);
        xorbs.setBytes(6, chunks.hashes());
        xorbs.setBytes(7, Packing.ints(chunks.byteEnds(), chunks.unpackedEnds()));
        xorbs.setLong(8, now);
        xorbs.addBatch();
        counted();
    }

    /**
     * The rows {@link Index#registerShard} writes for a new shard: the shard under {@code shardId}, its scope, its files
     * under ids {@code firstFileId, firstFileId + 1, ...} in order, their scope, the xorbs it lists and its dedup chunks.
     */
    public void shard(long shardId, ShardCommit commit, long firstFileId, ToLongFunction<MerkleHash> xorbId)
            throws SQLException {
        shards.setLong(1, shardId);
        shards.setBytes(2, commit.shardHash().toBytes());
        shards.setLong(3, commit.storedBytes());
        shards.setLong(4, now);
        shards.addBatch();
        shardScopes.setLong(1, shardId);
        shardScopes.setString(2, commit.scope());
        shardScopes.addBatch();
        long fileId = firstFileId;
        for (FileRecord f : commit.files()) {
            files.setLong(1, fileId);
            files.setBytes(2, f.fileHash().toBytes());
            files.setLong(3, f.size());
            files.setInt(4, f.termCount());
            files.setBytes(5, Packing.hashes(f.xorbs()));
            files.setBytes(6, f.packedTerms());
            files.setBytes(7, f.sha256() == null ? null : f.sha256().toBytes());
            files.setLong(8, shardId);
            files.setLong(9, now);
            files.addBatch();
            fileScopes.setString(1, commit.scope());
            fileScopes.setLong(2, fileId);
            fileScopes.addBatch();
            fileId++;
            counted();
        }
        for (MerkleHash x : commit.listedXorbs()) {
            shardXorbs.setLong(1, shardId);
            shardXorbs.setLong(2, xorbId.applyAsLong(x));
            shardXorbs.addBatch();
        }
        for (ShardCommit.DedupChunk d : commit.dedupChunks()) {
            dedup.setBytes(1, d.chunkHash().toBytes());
            dedup.setLong(2, shardId);
            dedup.setLong(3, xorbId.applyAsLong(d.xorbHash()));
            dedup.addBatch();
        }
        counted();
    }

    private void counted() throws SQLException {
        if (++pending >= BATCH) {
            flush();
        }
    }

    /** Sends every batched row and commits them. */
    public void flush() throws SQLException {
        // Parents before children: file_scopes and the others name ids of rows in the earlier batches.
        for (PreparedStatement p : new PreparedStatement[]{xorbs, shards, shardScopes, files, fileScopes, shardXorbs, dedup}) {
            p.executeBatch();
        }
        c.commit();
        pending = 0;
    }

    @Override
    public void close() throws SQLException {
        try {
            flush();
            try (Statement s = c.createStatement()) {
                if (postgres) {
                    // The next registration's ids continue after the loaded ones.
                    for (String table : new String[]{"xorbs", "shards", "files"}) {
                        s.execute("SELECT setval(pg_get_serial_sequence('" + table + "', 'id'), "
                                + "coalesce((SELECT max(id) FROM " + table + "), 0) + 1, false)");
                    }
                    s.execute("ANALYZE");
                } else {
                    // No ANALYZE: an index that grew by registration has no statistics either.
                    c.setAutoCommit(true);
                    s.execute("PRAGMA journal_mode = WAL");
                }
            }
            if (postgres) c.commit();
        } finally {
            c.close();
        }
    }
}
