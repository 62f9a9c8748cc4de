package org.openxet.storage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.xorb.ChunkTable;
import org.openxet.testing.PostgresServer;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link BulkLoader} writes the rows {@link Index#putXorb} and {@link Index#registerShard} write, on both backends:
 * the same xorbs and commits go into one index through the Index API and into another through the loader, and every
 * table reads back the same, ids replaced by the hashes they name and timestamps left out. After a load, the index
 * takes registrations as usual (PostgreSQL's id sequences continue after the loaded ids).
 */
class BulkLoaderTest {
    private static final Map<String, String> ROWS = new LinkedHashMap<>();

    static {
        ROWS.put("xorbs", "SELECT hash, chunk_count, unpacked_bytes, stored_bytes, chunk_hashes, layout FROM xorbs");
        ROWS.put("shards", "SELECT hash, stored_bytes FROM shards");
        ROWS.put("shard_scopes", "SELECT s.hash, c.scope FROM shard_scopes c JOIN shards s ON s.id = c.shard_id");
        ROWS.put("files", "SELECT f.hash, f.size, f.term_count, f.xorb_refs, f.terms, f.sha256, s.hash "
                + "FROM files f JOIN shards s ON s.id = f.shard_id");
        ROWS.put("file_scopes", "SELECT c.scope, f.hash FROM file_scopes c JOIN files f ON f.id = c.file_id");
        ROWS.put("shard_xorbs", "SELECT s.hash, x.hash FROM shard_xorbs c JOIN shards s ON s.id = c.shard_id "
                + "JOIN xorbs x ON x.id = c.xorb_id");
        ROWS.put("dedup_chunks", "SELECT d.chunk_hash, s.hash, x.hash FROM dedup_chunks d JOIN shards s ON s.id = d.shard_id "
                + "JOIN xorbs x ON x.id = d.xorb_id");
    }

    @TempDir
    Path dir;

    @Test
    void onSqliteTheLoaderWritesTheRowsRegistrationWrites() throws Exception {
        Path api = dir.resolve("api.sqlite");
        Path bulk = dir.resolve("bulk.sqlite");
        Fixture f = new Fixture();
        try (Index index = new SqliteIndex(api, 2)) {
            f.register(index);
        }
        new SqliteIndex(bulk, 2).close(); // the schema, as a server's first start makes it
        try (BulkLoader loader = BulkLoader.sqlite(bulk)) {
            f.load(loader);
        }
        assertSameRows(dump("jdbc:sqlite:" + api), dump("jdbc:sqlite:" + bulk));
        try (Index index = new SqliteIndex(bulk, 2)) {
            assertTrue(index.registerShard(f.later(index)), "a registration after the load");
        }
    }

    @Test
    void onPostgresTheLoaderWritesTheRowsRegistrationWritesAndIdsContinueAfterIt() throws Exception {
        String api = PostgresServer.get().createDatabase("bulk_api");
        String bulk = PostgresServer.get().createDatabase("bulk_loaded");
        Fixture f = new Fixture();
        try (Index index = new PostgresIndex(api, 2)) {
            f.register(index);
        }
        new PostgresIndex(bulk, 2).close();
        try (BulkLoader loader = BulkLoader.postgres(bulk)) {
            f.load(loader);
        }
        assertSameRows(dump(api), dump(bulk));
        try (Index index = new PostgresIndex(bulk, 2)) {
            assertTrue(index.registerShard(f.later(index)), "a registration after the load");
            assertTrue(index.file(f.laterFile.fileHash(), "later/repo").isPresent());
        }
    }

    private static void assertSameRows(Map<String, List<String>> expected, Map<String, List<String>> loaded) {
        for (String table : ROWS.keySet()) {
            assertTrue(!expected.get(table).isEmpty(), table + " has rows");
            assertEquals(expected.get(table), loaded.get(table), table);
        }
    }

    private static Map<String, List<String>> dump(String url) throws Exception {
        Map<String, List<String>> out = new LinkedHashMap<>();
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            for (Map.Entry<String, String> e : ROWS.entrySet()) {
                List<String> rows = new ArrayList<>();
                try (ResultSet r = s.executeQuery(e.getValue())) {
                    ResultSetMetaData m = r.getMetaData();
                    while (r.next()) {
                        StringBuilder row = new StringBuilder();
                        for (int k = 1; k <= m.getColumnCount(); k++) {
                            Object v = r.getObject(k);
                            row.append(k > 1 ? "|" : "").append(v instanceof byte[] b ? HexFormat.of().formatHex(b)
                                    : v instanceof Number n ? Long.toString(n.longValue()) : String.valueOf(v));
                        }
                        rows.add(row.toString());
                    }
                }
                rows.sort(null);
                out.put(e.getKey(), rows);
            }
        }
        return out;
    }

    /** Three xorbs and two shards over them (one file with a SHA-256, one xorb listed by both shards). */
    private static final class Fixture {
        final Random r = new Random(5);
        final MerkleHash[] xorbs = new MerkleHash[3];
        final ChunkTable[] tables = new ChunkTable[3];
        final List<ShardCommit> commits = new ArrayList<>();
        FileRecord laterFile;

        Fixture() {
            for (int x = 0; x < 3; x++) {
                xorbs[x] = hash();
                byte[] h = new byte[32 * 8];
                r.nextBytes(h);
                int[] be = new int[8];
                int[] ue = new int[8];
                for (int k = 0, b = 0, u = 0; k < 8; k++) {
                    be[k] = b += 8 + 100 + r.nextInt(100);
                    ue[k] = u += 200 + r.nextInt(100);
                }
                tables[x] = new ChunkTable(8, h, be, ue);
            }
            commits.add(new ShardCommit(hash(), "a/one", 1234, List.of(file(0, 1, null), file(1, 2, hash())),
                    List.of(xorbs[0], xorbs[1]), List.of(new ShardCommit.DedupChunk(tables[0].hash(0), xorbs[0]),
                    new ShardCommit.DedupChunk(tables[1].hash(3), xorbs[1]))));
            commits.add(new ShardCommit(hash(), "b/two", 999, List.of(file(2, 0, null)),
                    List.of(xorbs[1], xorbs[2]), List.of(new ShardCommit.DedupChunk(tables[2].hash(0), xorbs[2]))));
        }

        MerkleHash hash() {
            return MerkleHash.ofWords(r.nextLong(), r.nextLong(), r.nextLong(), r.nextLong());
        }

        /** A file of two terms: chunks [0, 3) of xorb {@code a}, then [2, 8) of xorb {@code b}. */
        FileRecord file(int a, int b, MerkleHash sha256) {
            int[] packed = new int[2 * FileRecord.TERM_INTS];
            MerkleHash[] refs = a == b ? new MerkleHash[]{xorbs[a]} : new MerkleHash[]{xorbs[a], xorbs[b]};
            long size = 0;
            int[][] ranges = {{0, 3}, {2, 8}};
            int[] which = {a, b};
            for (int t = 0; t < 2; t++) {
                ChunkTable c = tables[which[t]];
                int o = t * FileRecord.TERM_INTS;
                packed[o + FileRecord.XORB] = a == b ? 0 : t;
                packed[o + FileRecord.CHUNK_START] = ranges[t][0];
                packed[o + FileRecord.CHUNK_END] = ranges[t][1];
                packed[o + FileRecord.UNPACKED] = (int) c.unpackedLength(ranges[t][0], ranges[t][1]);
                packed[o + FileRecord.BYTE_START] = c.byteStart(ranges[t][0]);
                packed[o + FileRecord.BYTE_END] = c.byteEnds()[ranges[t][1] - 1];
                size += packed[o + FileRecord.UNPACKED];
            }
            return new FileRecord(hash(), size, refs, packed, sha256);
        }

        void register(Index index) throws Exception {
            for (int x = 0; x < 3; x++) index.putXorb(xorbs[x], tables[x], 5000 + x);
            for (ShardCommit c : commits) assertTrue(index.registerShard(c));
        }

        void load(BulkLoader loader) throws Exception {
            for (int x = 0; x < 3; x++) loader.xorb(x + 1, xorbs[x], tables[x], 5000 + x);
            long fileId = 1;
            for (int s = 0; s < commits.size(); s++) {
                loader.shard(s + 1, commits.get(s), fileId, h -> {
                    for (int x = 0; x < 3; x++) if (xorbs[x].equals(h)) return x + 1;
                    throw new IllegalArgumentException("no xorb " + h);
                });
                fileId += commits.get(s).files().size();
            }
        }

        /** A third shard, registered through the Index on the loaded index. */
        ShardCommit later(Index index) throws Exception {
            MerkleHash x = hash();
            index.putXorb(x, tables[0], 77);
            laterFile = new FileRecord(hash(), tables[0].unpackedLength(0, 1), new MerkleHash[]{x},
                    new int[]{0, 0, 1, (int) tables[0].unpackedLength(0, 1), 0, tables[0].byteEnds()[0]}, null);
            return new ShardCommit(hash(), "later/repo", 10, List.of(laterFile), List.of(x), List.of());
        }
    }
}
