package org.openxet.storage;

import io.helidon.dbclient.DbClient;
import io.helidon.dbclient.DbRow;
import org.openxet.protocol.MerkleHash;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.openxet.storage.PostgresRows.bytes;
import static org.openxet.storage.PostgresRows.bytesOrNull;
import static org.openxet.storage.PostgresRows.number;
import static org.openxet.storage.Statements.get;
import static org.openxet.storage.Statements.query;

/** {@link PostgresIndex}'s whole-index walks, on the index's DB Client: a page a statement of its own. */
final class PostgresScans implements IndexScans {
    private static final List<String> TABLES = List.of("xorbs", "shards", "shard_scopes", "shard_xorbs", "files",
            "file_scopes", "dedup_chunks");
    private static final String ROW_COUNTS = "SELECT " + String.join(", ",
            TABLES.stream().map(t -> "(SELECT count(*) FROM " + t + ") AS " + t).toList());

    /** How the index runs a read: a DB Client failure becomes an {@link IndexException} naming the database. */
    interface Reads {
        <T> T read(PostgresConnections.Read<T> work) throws IndexException;
    }

    private final DbClient db;
    private final Reads reads;

    PostgresScans(DbClient db, Reads reads) {
        this.db = db;
        this.reads = reads;
    }

    private <T> T read(PostgresConnections.Read<T> work) throws IndexException {
        return reads.read(work);
    }

    @Override
    public Map<String, Long> rowCounts() throws IndexException {
        return read(() -> {
            DbRow r = get(db.execute(), ROW_COUNTS).orElseThrow();
            Map<String, Long> out = new LinkedHashMap<>();
            for (String t : TABLES) out.put(t, number(r, t));
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

    private void eachStored(String table, Consumer<Stored> each) throws IndexException {
        for (long after = 0; ; ) {
            long from = after;
            List<DbRow> rows = read(() -> {
                try (Stream<DbRow> s = query(db.execute(), "SELECT id, hash, stored_bytes FROM " + table
                        + " WHERE id > ?" + (table.equals("xorbs") ? " AND quarantined_at IS NULL" : "")
                        + " ORDER BY id LIMIT " + SCAN_PAGE, from)) {
                    return s.toList();
                }
            });
            // The caller's work (a bucket lookup per row) runs with no connection held.
            for (DbRow r : rows) {
                each.accept(new Stored(MerkleHash.fromBytes(bytes(r, "hash")), number(r, "stored_bytes")));
            }
            if (rows.size() < SCAN_PAGE) return;
            after = number(rows.getLast(), "id");
        }
    }

    @Override
    public void eachShardScope(Consumer<ShardScope> each) throws IndexException {
        long shardId = 0;
        String scope = "";
        while (true) {
            long fromShard = shardId;
            String fromScope = scope;
            List<DbRow> page = read(() -> {
                try (Stream<DbRow> s = query(db.execute(),
                        "SELECT s.id, ss.scope, s.hash, s.created_at FROM shard_scopes ss"
                        + " JOIN shards s ON s.id = ss.shard_id WHERE (ss.shard_id, ss.scope) > (?, ?)"
                        + " ORDER BY ss.shard_id, ss.scope LIMIT " + SCAN_PAGE, fromShard, fromScope)) {
                    return s.toList();
                }
            });
            for (DbRow row : page) {
                each.accept(new ShardScope(MerkleHash.fromBytes(bytes(row, "hash")),
                        row.column("scope").get(String.class), number(row, "created_at")));
            }
            if (page.size() < SCAN_PAGE) return;
            shardId = number(page.getLast(), "id");
            scope = page.getLast().column("scope").get(String.class);
        }
    }

    @Override
    public void eachFile(Consumer<FileRecord> each) throws IndexException {
        for (long after = 0; ; ) {
            long from = after;
            List<DbRow> rows = read(() -> {
                try (Stream<DbRow> s = query(db.execute(), "SELECT id, hash, size, sha256, xorb_refs, terms FROM files"
                        + " WHERE id > ? ORDER BY id LIMIT " + SCAN_PAGE, from)) {
                    return s.toList();
                }
            });
            for (DbRow r : rows) {
                each.accept(FileRecord.decode(MerkleHash.fromBytes(bytes(r, "hash")), number(r, "size"),
                        bytesOrNull(r, "sha256"), bytes(r, "xorb_refs"), bytes(r, "terms")));
            }
            if (rows.size() < SCAN_PAGE) return;
            after = number(rows.getLast(), "id");
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
            List<DbRow> page = read(() -> {
                try (Stream<DbRow> s = query(db.execute(), "SELECT s.scope, s.file_id, f.hash FROM file_scopes s"
                        + " JOIN files f ON f.id = s.file_id WHERE (s.scope, s.file_id) > (?, ?)"
                        + " ORDER BY s.scope, s.file_id LIMIT " + SCAN_PAGE, fromScope, fromFile)) {
                    return s.toList();
                }
            });
            for (DbRow row : page) {
                MerkleHash h = MerkleHash.fromBytes(bytes(row, "hash"));
                if (files.contains(h)) {
                    out.computeIfAbsent(h, k -> new ArrayList<>()).add(row.column("scope").get(String.class));
                }
            }
            if (page.size() < SCAN_PAGE) return out;
            scope = page.getLast().column("scope").get(String.class);
            fileId = number(page.getLast(), "file_id");
        }
    }

    @Override
    public List<FileInScope> sampleFiles(int n, long seed) throws IndexException {
        long max = read(() -> {
            try (Stream<DbRow> rows = query(db.execute(), "SELECT COALESCE(MAX(id), 0) AS max FROM files")) {
                return rows.findFirst().map(r -> number(r, "max")).orElse(0L);
            }
        });
        if (max <= 0) return List.of();
        SplittableRandom random = new SplittableRandom(seed);
        long[] from = new long[n];
        for (int i = 0; i < n; i++) from[i] = 1 + random.nextLong(max);
        // One statement for all of them: a round trip each cost a restarted node a quarter of its 2 s warm-up on a
        // cold JVM (256 reads, 245-267 ms), time its read path then did not warm.
        return read(() -> {
            try (Stream<DbRow> rows = query(db.execute(), SAMPLE_FILES, (Object) from)) {
                return rows.map(r -> new FileInScope(MerkleHash.fromBytes(bytes(r, "hash")),
                        r.column("scope").get(String.class))).toList();
            }
        });
    }

    /** For each id asked, in the order asked, the first file at or after it and a scope of its shard. */
    private static final String SAMPLE_FILES = "SELECT s.hash, s.scope FROM unnest(?::bigint[]) WITH ORDINALITY AS q (from_id, i)"
            + " CROSS JOIN LATERAL (SELECT f.hash, ss.scope FROM files f JOIN shard_scopes ss ON ss.shard_id = f.shard_id"
            + " WHERE f.id >= q.from_id ORDER BY f.id LIMIT 1) s ORDER BY q.i";

    @Override
    public List<MerkleHash> xorbHashes() throws IndexException {
        return read(() -> {
            try (Stream<DbRow> rows = query(db.execute(), "SELECT hash FROM xorbs")) {
                return rows.map(r -> MerkleHash.fromBytes(bytes(r, "hash"))).toList();
            }
        });
    }
}
