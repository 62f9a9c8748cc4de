package org.openxet.storage;

import org.openxet.protocol.MerkleHash;
import org.openxet.storage.Index.UnusedXorb;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The gc's queries, plain JDBC over the schema SQLite and PostgreSQL share: registered xorbs that no shard lists, no
 * dedup entry names and no file's terms use. Offline callers run them where nothing else can write: SQLite's one
 * writer connection, or PostgreSQL with every node stopped ({@link PostgresCollectorLock}); the online collector
 * only scans with them, and checks each candidate again under its locks ({@link PostgresOnlineCollection}).
 */
final class UnusedXorbs {
    private UnusedXorbs() {
    }

    static List<UnusedXorb> find(Connection c, long registeredBefore) throws SQLException {
        return List.copyOf(byId(c, registeredBefore).values());
    }

    /** Finds and deletes them in the caller's transaction, so the reference scans run once, not once per xorb. */
    static List<UnusedXorb> forget(Connection c, long registeredBefore) throws SQLException {
        Map<Long, UnusedXorb> unused = byId(c, registeredBefore);
        try (PreparedStatement p = c.prepareStatement("DELETE FROM xorbs WHERE id = ?")) {
            for (long id : unused.keySet()) {
                p.setLong(1, id);
                p.addBatch();
            }
            p.executeBatch();
        }
        return List.copyOf(unused.values());
    }

    private static Map<Long, UnusedXorb> byId(Connection c, long registeredBefore) throws SQLException {
        Map<MerkleHash, Long> ids = new HashMap<>();
        Map<Long, UnusedXorb> unused = new LinkedHashMap<>();
        // NOT IN over each whole table: SQLite builds one temporary index of it (dedup_chunks has no index on
        // xorb_id) and PostgreSQL one hash of it, instead of scanning the table once per xorb.
        try (PreparedStatement p = c.prepareStatement("SELECT id, hash, stored_bytes, created_at FROM xorbs "
                + "WHERE created_at < ? AND id NOT IN (SELECT xorb_id FROM shard_xorbs) "
                + "AND id NOT IN (SELECT xorb_id FROM dedup_chunks)")) {
            p.setLong(1, registeredBefore);
            try (ResultSet r = p.executeQuery()) {
                while (r.next()) {
                    MerkleHash h = MerkleHash.fromBytes(r.getBytes(2));
                    ids.put(h, r.getLong(1));
                    unused.put(r.getLong(1), new UnusedXorb(h, r.getLong(3), r.getLong(4)));
                }
            }
        }
        if (unused.isEmpty()) return unused;
        // A file's terms may use a xorb that none of the shards lists (registration only checks the xorb is
        // registered): every file's xorbs are read, keeping in memory only the few candidates, not every xorb. In
        // batches (a cursor on PostgreSQL, whose driver otherwise reads the whole result first).
        try (Statement s = c.createStatement()) {
            s.setFetchSize(1000);
            try (ResultSet r = s.executeQuery("SELECT xorb_refs FROM files")) {
                while (r.next() && !unused.isEmpty()) {
                    byte[] refs = r.getBytes(1);
                    for (int i = 0; i + MerkleHash.LENGTH <= refs.length; i += MerkleHash.LENGTH) {
                        Long id = ids.remove(MerkleHash.fromBytes(refs, i));
                        if (id != null) unused.remove(id);
                    }
                }
            }
        }
        return unused;
    }
}
