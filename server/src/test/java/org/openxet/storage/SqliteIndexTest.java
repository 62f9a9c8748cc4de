package org.openxet.storage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.xorb.ChunkTable;
import org.openxet.testing.DiskFull;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SqliteIndexTest {
    @TempDir
    Path dir;

    static MerkleHash hash(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return XetHashes.chunkHash(b, 0, b.length);
    }

    /** A one-chunk xorb layout (the index stores layouts; no bytes needed). */
    static ChunkTable oneChunk(MerkleHash chunk) {
        return new ChunkTable(1, chunk.toBytes(), new int[]{108}, new int[]{100});
    }

    /** A shard registering one file made of {@code xorb}'s only chunk, with that chunk as a dedup entry. */
    static ShardCommit shard(String name, MerkleHash xorb, MerkleHash chunk) {
        FileRecord file = new FileRecord(hash("file " + name), 100, new MerkleHash[]{xorb},
                new int[]{0, 0, 1, 100, 0, 108}, null);
        return new ShardCommit(hash("shard " + name), "user/repo", 123, List.of(file), List.of(xorb),
                List.of(new ShardCommit.DedupChunk(chunk, xorb)));
    }

    static void sql(Path db, String statement) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }

    static void assertNoShardRows(Map<String, Long> counts) {
        for (String t : List.of("shards", "shard_scopes", "shard_xorbs", "files", "file_scopes", "dedup_chunks")) {
            assertEquals(0L, counts.get(t), t + " holds rows of a registration that failed: " + counts);
        }
    }

    /**
     * When SQLite ends a transaction by itself (as it does on SQLITE_FULL or SQLITE_IOERR; here a trigger raises
     * ROLLBACK just before the registration's last insert), the writer must come back in a good state: the next
     * failing registration is still all-or-nothing, and the next good one commits.
     */
    @Test
    void aWriteTransactionThatSqliteRolledBackLeavesTheWriterTransactional() throws Exception {
        Path db = dir.resolve("index.sqlite");
        MerkleHash chunk = hash("chunk");
        MerkleHash xorb = hash("xorb");
        try (SqliteIndex index = new SqliteIndex(db, 2)) {
            assertTrue(index.putXorb(xorb, oneChunk(chunk), 108));
            try (DiskFull full = DiskFull.on(db, "dedup_chunks")) {
                assertThrows(IndexException.class, () -> index.registerShard(shard("a", xorb, chunk)));
                assertNoShardRows(index.scans().rowCounts());
                // The second failure is the one a broken writer gets wrong: it would write row by row in autocommit.
                assertThrows(IndexException.class, () -> index.registerShard(shard("b", xorb, chunk)));
                assertNoShardRows(index.scans().rowCounts());
            }
            assertTrue(index.registerShard(shard("b", xorb, chunk)));
            Map<String, Long> counts = index.scans().rowCounts();
            for (String t : List.of("shards", "shard_scopes", "shard_xorbs", "files", "file_scopes", "dedup_chunks")) {
                assertEquals(1L, counts.get(t), t + ": " + counts);
            }
            assertTrue(index.file(hash("file b"), "user/repo").isPresent());
            assertEquals(List.of(xorb), index.dedup(chunk, "user/repo", 8).stream().map(XorbLayout::hash).toList());
        }
    }

    /** A statement that fails inside the transaction (SQLite keeps it open) undoes the statements before it. */
    @Test
    void aFailedStatementUndoesTheWholeRegistration() throws Exception {
        Path db = dir.resolve("index.sqlite");
        MerkleHash chunk = hash("chunk");
        MerkleHash xorb = hash("xorb");
        try (SqliteIndex index = new SqliteIndex(db, 2)) {
            assertTrue(index.putXorb(xorb, oneChunk(chunk), 108));
            sql(db, "CREATE TRIGGER refuse BEFORE INSERT ON dedup_chunks BEGIN SELECT RAISE(ABORT, 'refused'); END");
            assertThrows(IndexException.class, () -> index.registerShard(shard("a", xorb, chunk)));
            assertNoShardRows(index.scans().rowCounts());
            sql(db, "DROP TRIGGER refuse");
            assertTrue(index.registerShard(shard("a", xorb, chunk)));
            assertEquals(1L, index.scans().rowCounts().get("dedup_chunks"));
        }
    }

    @Test
    void aReUploadRenewsAXorbsGracePeriodAtMostHourly() throws Exception {
        Path db = dir.resolve("index.sqlite");
        try (SqliteIndex index = new SqliteIndex(db, 1); Collector gc = index.collector()) {
            MerkleHash x = hash("xorb");
            index.putXorb(x, oneChunk(hash("chunk")), 108);
            sql(db, "UPDATE xorbs SET created_at = 1000"); // the first upload, long ago; nothing registered it since
            long now = System.currentTimeMillis() / 1000;
            long aWeekAgo = now - 7 * 86_400;
            assertEquals(List.of(x), gc.unusedXorbs(aWeekAgo).stream().map(Index.UnusedXorb::hash).toList(),
                    "gc --older-than 7d would take it");
            index.renewXorb(x, now);
            assertEquals(List.of(), gc.unusedXorbs(aWeekAgo), "uploaded again just now: its grace starts over");
            assertEquals(now, gc.unusedXorbs(now + 1).get(0).registeredAt());
            // Renewed less than an hour ago: another re-upload writes nothing.
            index.renewXorb(x, now + 600);
            assertEquals(now, gc.unusedXorbs(now + 3600).get(0).registeredAt());
        }
    }

    /**
     * Statements are kept per connection (SqliteStatements), so a kept read must neither see an old snapshot nor hold
     * one: one reader connection reads a file before and after a registration, and between reads nothing it did keeps
     * the WAL from being checkpointed to its end.
     */
    @Test
    void aKeptReadStatementSeesEachCommitAndHoldsNoReadOpen() throws Exception {
        Path db = dir.resolve("index.sqlite");
        MerkleHash chunk = hash("chunk");
        MerkleHash xorb = hash("xorb");
        try (SqliteIndex index = new SqliteIndex(db, 1)) {
            assertTrue(index.putXorb(xorb, oneChunk(chunk), 108));
            assertTrue(index.file(hash("file a"), "user/repo").isEmpty());
            assertTrue(index.xorbs(List.of(xorb)).containsKey(xorb));
            assertTrue(index.registerShard(shard("a", xorb, chunk)));
            assertEquals(100, index.file(hash("file a"), "user/repo").orElseThrow().size());
            assertTrue(index.registerShard(shard("b", xorb, chunk)));
            assertTrue(index.file(hash("file b"), "other/repo").isEmpty());
            // The last read finds its row and stops there: only closing its result set ends that read.
            assertEquals(100, index.file(hash("file b"), "user/repo").orElseThrow().size());
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
                 Statement s = c.createStatement();
                 java.sql.ResultSet r = s.executeQuery("PRAGMA wal_checkpoint(TRUNCATE)")) {
                assertTrue(r.next());
                assertEquals(0, r.getInt(1), "the checkpoint was blocked: a kept statement still holds a read");
            }
        }
    }
}
