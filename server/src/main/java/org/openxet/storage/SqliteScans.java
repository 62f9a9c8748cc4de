package org.openxet.storage;

import org.openxet.protocol.MerkleHash;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/** {@link SqliteIndex}'s whole-index walks, on the index's pooled reader connections: a page a read. */
final class SqliteScans implements IndexScans {
    /** How the index runs a read: on a pooled reader connection, a failure an {@link IndexException}. */
    interface Reads {
        <T> T read(SqliteIndex.Read<T> work) throws IndexException;
    }

    private final Reads reads;

    SqliteScans(Reads reads) {
        this.reads = reads;
    }

    private <T> T read(SqliteIndex.Read<T> work) throws IndexException {
        return reads.read(work);
    }

    @Override
    public Map<String, Long> rowCounts() throws IndexException {
        return read(c -> {
            Map<String, Long> out = new LinkedHashMap<>();
            for (String t : List.of("xorbs", "shards", "shard_scopes", "shard_xorbs", "files", "file_scopes",
                    "dedup_chunks")) {
                try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT COUNT(*) FROM " + t)) {
                    r.next();
                    out.put(t, r.getLong(1));
                }
            }
            return out;
        });
    }

    @Override
    public void eachXorb(Consumer<Stored> each) throws IndexException {
        eachStored("xorbs", each);
    }

    @Override
    public void eachShard(Consumer<Stored> each) throws IndexException {
        eachStored("shards", each);
    }

    /** A page of a scan: its rows, and the id of the last, where the next page starts after. */
    private record Page<T>(List<T> rows, long lastId) {
    }

    private void eachStored(String table, Consumer<Stored> each) throws IndexException {
        for (long after = 0; ; ) {
            long from = after;
            Page<Stored> page = read(c -> {
                try (PreparedStatement p = c.prepareStatement("SELECT id, hash, stored_bytes FROM " + table
                        + " WHERE id > ?" + (table.equals("xorbs") ? " AND quarantined_at IS NULL" : "")
                        + " ORDER BY id LIMIT " + SCAN_PAGE)) {
                    p.setLong(1, from);
                    List<Stored> rows = new ArrayList<>();
                    long last = from;
                    try (ResultSet r = p.executeQuery()) {
                        while (r.next()) {
                            last = r.getLong(1);
                            rows.add(new Stored(MerkleHash.fromBytes(r.getBytes(2)), r.getLong(3)));
                        }
                    }
                    return new Page<>(rows, last);
                }
            });
            // The caller's work (a bucket lookup per row) runs with no connection held.
            page.rows().forEach(each);
            if (page.rows().size() < SCAN_PAGE) return;
            after = page.lastId();
        }
    }

    @Override
    public void eachShardScope(Consumer<ShardScope> each) throws IndexException {
        long shardId = 0;
        String scope = "";
        while (true) {
            long fromShard = shardId;
            String fromScope = scope;
            List<Object[]> page = read(c -> {
                try (PreparedStatement p = c.prepareStatement("SELECT s.id, ss.scope, s.hash, s.created_at"
                        + " FROM shard_scopes ss JOIN shards s ON s.id = ss.shard_id"
                        + " WHERE (ss.shard_id, ss.scope) > (?, ?)"
                        + " ORDER BY ss.shard_id, ss.scope LIMIT " + SCAN_PAGE)) {
                    p.setLong(1, fromShard);
                    p.setString(2, fromScope);
                    List<Object[]> rows = new ArrayList<>();
                    try (ResultSet r = p.executeQuery()) {
                        while (r.next()) {
                            rows.add(new Object[]{r.getLong(1), r.getString(2), r.getBytes(3), r.getLong(4)});
                        }
                    }
                    return rows;
                }
            });
            for (Object[] row : page) {
                each.accept(new ShardScope(MerkleHash.fromBytes((byte[]) row[2]), (String) row[1], (Long) row[3]));
            }
            if (page.size() < SCAN_PAGE) return;
            shardId = (Long) page.getLast()[0];
            scope = (String) page.getLast()[1];
        }
    }

    @Override
    public void eachFile(Consumer<FileRecord> each) throws IndexException {
        for (long after = 0; ; ) {
            long from = after;
            Page<FileRecord> page = read(c -> {
                try (PreparedStatement p = c.prepareStatement("SELECT id, hash, size, sha256, xorb_refs, terms"
                        + " FROM files WHERE id > ? ORDER BY id LIMIT " + SCAN_PAGE)) {
                    p.setLong(1, from);
                    List<FileRecord> rows = new ArrayList<>();
                    long last = from;
                    try (ResultSet r = p.executeQuery()) {
                        while (r.next()) {
                            last = r.getLong(1);
                            rows.add(FileRecord.decode(MerkleHash.fromBytes(r.getBytes(2)), r.getLong(3), r.getBytes(4),
                                    r.getBytes(5), r.getBytes(6)));
                        }
                    }
                    return new Page<>(rows, last);
                }
            });
            page.rows().forEach(each);
            if (page.rows().size() < SCAN_PAGE) return;
            after = page.lastId();
        }
    }

    @Override
    public Map<MerkleHash, List<String>> scopesOf(Set<MerkleHash> files) throws IndexException {
        Map<MerkleHash, List<String>> out = new HashMap<>();
        if (files.isEmpty()) return out;
        String scope = "";
        long fileId = 0;
        while (true) {
            String fromScope = scope;
            long fromFile = fileId;
            // Keyset paging on the table's own key (scope, file_id): each page is one short read.
            List<Object[]> page = read(c -> {
                try (PreparedStatement p = c.prepareStatement("SELECT s.scope, s.file_id, f.hash FROM file_scopes s"
                        + " JOIN files f ON f.id = s.file_id WHERE (s.scope, s.file_id) > (?, ?)"
                        + " ORDER BY s.scope, s.file_id LIMIT " + SCAN_PAGE)) {
                    p.setString(1, fromScope);
                    p.setLong(2, fromFile);
                    List<Object[]> rows = new ArrayList<>();
                    try (ResultSet r = p.executeQuery()) {
                        while (r.next()) rows.add(new Object[]{r.getString(1), r.getLong(2), r.getBytes(3)});
                    }
                    return rows;
                }
            });
            for (Object[] row : page) {
                MerkleHash h = MerkleHash.fromBytes((byte[]) row[2]);
                if (files.contains(h)) out.computeIfAbsent(h, k -> new ArrayList<>()).add((String) row[0]);
            }
            if (page.size() < SCAN_PAGE) return out;
            scope = (String) page.getLast()[0];
            fileId = (Long) page.getLast()[1];
        }
    }

    @Override
    public List<FileInScope> sampleFiles(int n, long seed) throws IndexException {
        return read(c -> {
            long max;
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT MAX(id) FROM files")) {
                max = r.next() ? r.getLong(1) : 0;
            }
            List<FileInScope> out = new ArrayList<>();
            if (max <= 0) return out;
            SplittableRandom random = new SplittableRandom(seed);
            try (PreparedStatement p = c.prepareStatement("SELECT f.hash, ss.scope FROM files f JOIN shard_scopes ss"
                    + " ON ss.shard_id = f.shard_id WHERE f.id >= ? ORDER BY f.id LIMIT 1")) {
                for (int i = 0; i < n; i++) {
                    p.setLong(1, 1 + random.nextLong(max));
                    try (ResultSet r = p.executeQuery()) {
                        if (r.next()) out.add(new FileInScope(MerkleHash.fromBytes(r.getBytes(1)), r.getString(2)));
                    }
                }
            }
            return out;
        });
    }

    @Override
    public List<MerkleHash> xorbHashes() throws IndexException {
        return read(c -> {
            List<MerkleHash> out = new ArrayList<>();
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT hash FROM xorbs")) {
                while (r.next()) out.add(MerkleHash.fromBytes(r.getBytes(1)));
            }
            return out;
        });
    }
}
