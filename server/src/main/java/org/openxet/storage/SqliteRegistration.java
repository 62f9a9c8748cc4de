package org.openxet.storage;

import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.xorb.ChunkTable;
import org.openxet.storage.SqliteStatements.Lent;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Set;

/**
 * The write side of {@link SqliteIndex}: a xorb's row, and a shard's registration as the statements of one transaction
 * on the index's one writer connection (its lock and commit are {@link SqliteIndex}'s), each a kept statement of that
 * connection.
 */
final class SqliteRegistration {
    /** The kept statement of a connection for some SQL ({@link SqliteStatements}). */
    interface Statements {
        Lent lend(Connection c, String sql) throws SQLException;
    }

    private final Statements statements;

    SqliteRegistration(Statements statements) {
        this.statements = statements;
    }

    private Lent lend(Connection c, String sql) throws SQLException {
        return statements.lend(c, sql);
    }

    /** A xorb's row, added or (a quarantined one, in the same layout) restored: true when it was written. */
    boolean putXorb(Connection c, MerkleHash hash, ChunkTable chunks, long storedBytes, long now) throws SQLException {
        try (Lent kept = lend(c, "INSERT INTO xorbs (hash, chunk_count, unpacked_bytes, "
                + "stored_bytes, chunk_hashes, layout, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (hash) DO UPDATE SET "
                // A quarantined xorb comes back only in the layout its files' byte ranges were resolved against.
                + "quarantined_at = NULL, created_at = excluded.created_at WHERE xorbs.quarantined_at IS NOT NULL "
                + "AND xorbs.layout = excluded.layout AND xorbs.chunk_hashes = excluded.chunk_hashes")) {
            PreparedStatement p = kept.statement();
            p.setBytes(1, hash.toBytes());
            p.setInt(2, chunks.count());
            p.setLong(3, chunks.unpackedBytes());
            p.setLong(4, storedBytes);
            p.setBytes(5, chunks.hashes());
            p.setBytes(6, Packing.ints(chunks.byteEnds(), chunks.unpackedEnds()));
            p.setLong(7, now);
            return p.executeUpdate() == 1;
        }
    }

    /**
     * A shard's rows in the writer's transaction: the shard, its scope, its files and their scopes; then, for a shard
     * not registered before, its xorbs (each must have its row) and its dedup chunks. False when it was registered
     * before (its files are then only made visible in the commit's scope).
     */
    boolean registerShard(Connection c, ShardCommit commit, long now) throws SQLException {
        boolean inserted;
        try (Lent kept = lend(c, "INSERT INTO shards (hash, stored_bytes, created_at) "
                + "VALUES (?, ?, ?) ON CONFLICT (hash) DO NOTHING")) {
            PreparedStatement p = kept.statement();
            p.setBytes(1, commit.shardHash().toBytes());
            p.setLong(2, commit.storedBytes());
            p.setLong(3, now);
            inserted = p.executeUpdate() == 1;
        }
        long shardId = idOf(c, "shards", commit.shardHash());
        try (Lent kept = lend(c,
                "INSERT INTO shard_scopes (shard_id, scope) VALUES (?, ?) ON CONFLICT DO NOTHING")) {
            PreparedStatement p = kept.statement();
            p.setLong(1, shardId);
            p.setString(2, commit.scope());
            p.executeUpdate();
        }
        try (Lent kept = lend(c, "INSERT INTO files (hash, size, term_count, xorb_refs, "
                + "terms, sha256, shard_id, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (hash) DO UPDATE SET "
                + "size = excluded.size, term_count = excluded.term_count, xorb_refs = excluded.xorb_refs, "
                + "terms = excluded.terms, sha256 = coalesce(excluded.sha256, files.sha256), "
                + "shard_id = excluded.shard_id, updated_at = excluded.updated_at RETURNING id");
             Lent keptScope = lend(c,
                     "INSERT INTO file_scopes (scope, file_id) VALUES (?, ?) ON CONFLICT DO NOTHING")) {
            PreparedStatement upsert = kept.statement();
            PreparedStatement scope = keptScope.statement();
            for (FileRecord f : commit.files()) {
                long fileId;
                if (inserted) {
                    upsert.setBytes(1, f.fileHash().toBytes());
                    upsert.setLong(2, f.size());
                    upsert.setInt(3, f.termCount());
                    upsert.setBytes(4, Packing.hashes(f.xorbs()));
                    upsert.setBytes(5, f.packedTerms());
                    upsert.setBytes(6, f.sha256() == null ? null : f.sha256().toBytes());
                    upsert.setLong(7, shardId);
                    upsert.setLong(8, now);
                    try (ResultSet r = upsert.executeQuery()) {
                        r.next();
                        fileId = r.getLong(1);
                    }
                } else {
                    fileId = idOf(c, "files", f.fileHash());
                }
                scope.setString(1, commit.scope());
                scope.setLong(2, fileId);
                scope.executeUpdate();
            }
        }
        if (!inserted) {
            return false;
        }
        requireXorbs(c, commit.namedXorbs());
        try (Lent kept = lend(c, "INSERT INTO shard_xorbs (shard_id, xorb_id) "
                + "SELECT ?, id FROM xorbs WHERE hash = ? ON CONFLICT DO NOTHING")) {
            PreparedStatement p = kept.statement();
            for (MerkleHash x : commit.listedXorbs()) {
                p.setLong(1, shardId);
                p.setBytes(2, x.toBytes());
                p.executeUpdate();
            }
        }
        try (Lent kept = lend(c, "INSERT INTO dedup_chunks (chunk_hash, shard_id, xorb_id) "
                + "SELECT ?, ?, id FROM xorbs WHERE hash = ? ON CONFLICT DO NOTHING")) {
            PreparedStatement p = kept.statement();
            for (ShardCommit.DedupChunk d : commit.dedupChunks()) {
                p.setBytes(1, d.chunkHash().toBytes());
                p.setLong(2, shardId);
                p.setBytes(3, d.xorbHash().toBytes());
                p.executeUpdate();
            }
        }
        return true;
    }

    /** Inside a registration's transaction (the one writer): every named xorb has its row. */
    private void requireXorbs(Connection c, Set<MerkleHash> named) throws SQLException {
        int missing = 0;
        try (Lent kept = lend(c, "SELECT 1 FROM xorbs WHERE hash = ? AND quarantined_at IS NULL")) {
            PreparedStatement p = kept.statement();
            for (MerkleHash h : named) {
                p.setBytes(1, h.toBytes());
                try (ResultSet r = p.executeQuery()) {
                    if (!r.next()) missing++;
                }
            }
        }
        if (missing > 0) {
            throw new MissingXorbsException(missing, named);
        }
    }

    private long idOf(Connection c, String table, MerkleHash hash) throws SQLException {
        try (Lent kept = lend(c, "SELECT id FROM " + table + " WHERE hash = ?")) {
            PreparedStatement p = kept.statement();
            p.setBytes(1, hash.toBytes());
            try (ResultSet r = p.executeQuery()) {
                if (!r.next()) throw new SQLException(table + " row " + hash + " vanished inside its transaction");
                return r.getLong(1);
            }
        }
    }
}
