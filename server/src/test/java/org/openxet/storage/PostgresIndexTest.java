package org.openxet.storage;

import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.xorb.ChunkTable;
import org.openxet.testing.PostgresServer;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.openxet.storage.IndexContractTest.chunkOf;
import static org.openxet.storage.IndexContractTest.chunks;
import static org.openxet.storage.IndexContractTest.dedup;
import static org.openxet.storage.IndexContractTest.file;
import static org.openxet.storage.IndexContractTest.hash;
import static org.openxet.storage.IndexContractTest.shard;

/** What only a shared PostgreSQL index has to get right: several nodes at once, and a server that goes away. */
class PostgresIndexTest {
    static final int THREADS = 8;

    /** Runs every task on its own thread, all released at once; returns their results in order. */
    static <T> List<T> race(List<Callable<T>> tasks) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<T>> futures = new ArrayList<>();
            for (Callable<T> task : tasks) {
                futures.add(pool.submit(() -> {
                    start.await();
                    return task.call();
                }));
            }
            start.countDown();
            List<T> out = new ArrayList<>();
            for (Future<T> f : futures) out.add(f.get()); // rethrows a task's exception: none is expected
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    static long trues(List<Boolean> results, int from, int count) {
        return results.subList(from, from + count).stream().filter(b -> b).count();
    }

    /**
     * Two nodes (two indexes, two pools) registering the same xorbs and shards from several threads: each identical
     * registration has exactly one winner, none fails, and the rows add up exactly. Distinct shards share files,
     * listed in opposite orders, so their file rows are contended too.
     */
    @Test
    void twoNodesRacingOnTheSameRegistrationsGetExactlyOneWinnerEach() throws Exception {
        String url = PostgresServer.get().createDatabase("race");
        int n = 24;
        int racers = 4;
        try (PostgresIndex a = new PostgresIndex(url, 4); PostgresIndex b = new PostgresIndex(url, 4)) {
            PostgresIndex[] nodes = {a, b};
            List<Callable<Boolean>> xorbTasks = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                MerkleHash x = hash("same xorb " + i);
                ChunkTable layout = chunks("same xorb " + i, 3);
                for (int r = 0; r < racers; r++) {
                    PostgresIndex node = nodes[r % 2];
                    xorbTasks.add(() -> node.putXorb(x, layout, 1000));
                }
            }
            for (int i = 0; i < n; i++) {
                PostgresIndex node = nodes[i % 2];
                MerkleHash x = hash("distinct xorb " + i);
                ChunkTable layout = chunks("distinct xorb " + i, 3);
                xorbTasks.add(() -> node.putXorb(x, layout, 1000));
            }
            List<Boolean> put = race(xorbTasks);
            for (int i = 0; i < n; i++) {
                assertEquals(1, trues(put, i * racers, racers), "xorb " + i + ": " + put.subList(i * racers, (i + 1) * racers));
            }
            assertEquals(n, trues(put, n * racers, n), "every distinct xorb is new");

            MerkleHash x0 = hash("same xorb 0");
            MerkleHash x1 = hash("same xorb 1");
            List<Callable<Boolean>> shardTasks = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                // The same shard body from two scopes on both nodes.
                ShardCommit[] scoped = new ShardCommit[2];
                for (int s = 0; s < 2; s++) {
                    scoped[s] = shard("same " + i, "scope/" + s, List.of(file("same " + i, null, x0)), List.of(x0),
                            List.of(dedup(chunkOf("same xorb 0", 0), x0)));
                }
                for (int r = 0; r < racers; r++) {
                    PostgresIndex node = nodes[r % 2];
                    ShardCommit c = scoped[r / 2];
                    shardTasks.add(() -> node.registerShard(c));
                }
            }
            for (int i = 0; i < n; i++) {
                PostgresIndex node = nodes[i % 2];
                List<FileRecord> files = List.of(file("shared 1", null, x0), file("shared 2", null, x1));
                ShardCommit c = shard("distinct " + i, "scope/" + (i % 2), i % 2 == 0 ? files : files.reversed(),
                        List.of(x0, x1), List.of(dedup(chunkOf("same xorb 1", 2), x1)));
                shardTasks.add(() -> node.registerShard(c));
            }
            List<Boolean> registered = race(shardTasks);
            for (int i = 0; i < n; i++) {
                assertEquals(1, trues(registered, i * racers, racers), "shard " + i + ": "
                        + registered.subList(i * racers, (i + 1) * racers));
            }
            assertEquals(n, trues(registered, n * racers, n), "every distinct shard is new");

            Map<String, Long> counts = a.scans().rowCounts();
            assertEquals(b.scans().rowCounts(), counts);
            assertEquals(2L * n, counts.get("xorbs"));
            assertEquals(2L * n, counts.get("shards"));
            assertEquals(2L * n + n, counts.get("shard_scopes"), "identical shards: both scopes; distinct: one");
            assertEquals(n + 2L * n, counts.get("shard_xorbs"));
            assertEquals(n + 2L, counts.get("files"));
            assertEquals(2L * n + 4, counts.get("file_scopes"), "identical shards' files in 2 scopes; shared files in 2");
            assertEquals(2L * n, counts.get("dedup_chunks"));
            for (int s = 0; s < 2; s++) {
                assertTrue(a.file(hash("file same 0"), "scope/" + s).isPresent());
                assertTrue(b.file(hash("file shared 2"), "scope/" + s).isPresent());
            }
        }
    }

    /**
     * The warm-up's rehearsal of an upload runs a registration's statements, new xorbs' rows included, and rolls them
     * back: every row count is as before, and the same registration afterwards is new.
     */
    @Test
    void aRehearsedRegistrationWritesNothing() throws Exception {
        String url = PostgresServer.get().createDatabase("rehearsal");
        try (PostgresIndex index = new PostgresIndex(url, 2)) {
            MerkleHash kept = hash("kept xorb");
            assertTrue(index.putXorb(kept, chunks("kept xorb", 3), 1000));
            Map<String, Long> before = index.scans().rowCounts();
            MerkleHash x = hash("rehearsed xorb");
            XorbLayout layout = new XorbLayout(x, chunks("rehearsed xorb", 3), 1000);
            ShardCommit commit = shard("rehearsed", "scope/r", List.of(file("rehearsed", null, x, kept)),
                    List.of(x), List.of(dedup(chunkOf("rehearsed xorb", 1), x)));

            for (int i = 0; i < 3; i++) index.rehearseRegistration(List.of(layout), commit);

            assertEquals(before, index.scans().rowCounts());
            assertFalse(index.hasXorb(x));
            assertFalse(index.hasShard(commit.shardHash()));
            assertTrue(index.putXorb(x, layout.chunks(), 1000));
            assertTrue(index.registerShard(commit), "not registered by the rehearsal");
            assertTrue(index.file(hash("file rehearsed"), "scope/r").isPresent());
        }
    }

    /**
     * File lookups answered in batches (what a node falling behind does, LookupBatcher): each answer is the one a
     * lookup of its own gets, whatever sits beside it in the batch: a file in its scope, the same file twice, a file
     * asked in a scope that does not list it, a file never registered.
     */
    @Test
    void aBatchOfFileLookupsAnswersEachAsAlone() throws Exception {
        String url = PostgresServer.get().createDatabase("file_batches");
        try (PostgresIndex index = new PostgresIndex(url, 2)) {
            List<FileRecord> files = registerFiles(index, 12);
            List<PostgresFileLookups.FileKey> keys = new ArrayList<>();
            for (int i = 0; i < files.size(); i++) {
                keys.add(new PostgresFileLookups.FileKey(files.get(i).fileHash(), "scope/" + (i % 2)));
                keys.add(new PostgresFileLookups.FileKey(files.get(i).fileHash(), "scope/" + ((i + 1) % 2)));
            }
            keys.add(new PostgresFileLookups.FileKey(files.get(3).fileHash(), "scope/1"));
            keys.add(new PostgresFileLookups.FileKey(hash("never registered"), "scope/0"));

            List<FileRecord> batch = index.fileLookups().load(keys);

            assertEquals(keys.size(), batch.size());
            for (int k = 0; k < keys.size(); k++) {
                Optional<FileRecord> alone = index.file(keys.get(k).hash(), keys.get(k).scope());
                assertSameRecord(alone.orElse(null), batch.get(k), "lookup " + k);
            }
            assertSameRecord(files.get(3), batch.get(2 * 3), "file 3 in its scope");
            assertEquals(null, batch.get(2 * 3 + 1), "file 3 in the other scope");
            assertSameRecord(files.get(3), batch.get(keys.size() - 2), "file 3 asked twice");
            assertEquals(null, batch.getLast(), "a file never registered");
        }
    }

    /** Many lookups at once on a pool of two (one lane): they queue, are batched, and each gets its own answer. */
    @Test
    void concurrentFileLookupsGetTheirOwnAnswers() throws Exception {
        String url = PostgresServer.get().createDatabase("file_lookup_race");
        try (PostgresIndex index = new PostgresIndex(url, 2)) {
            List<FileRecord> files = registerFiles(index, 12);
            List<Callable<Boolean>> lookups = new ArrayList<>();
            for (int n = 0; n < 400; n++) {
                int i = n % files.size();
                boolean ownScope = n % 3 != 0;
                FileRecord f = files.get(i);
                String scope = "scope/" + (ownScope ? i % 2 : (i + 1) % 2);
                lookups.add(() -> {
                    Optional<FileRecord> got = index.file(f.fileHash(), scope);
                    if (!ownScope) return got.isEmpty();
                    assertSameRecord(f, got.orElse(null), "file " + i);
                    return true;
                });
            }
            try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<Boolean>> answers = threads.invokeAll(lookups);
                for (Future<Boolean> a : answers) assertTrue(a.get());
            }
        }
    }

    /** {@code n} files of 1–3 xorbs, file i in scope {@code scope/(i % 2)}, registered by two shards. */
    private static List<FileRecord> registerFiles(PostgresIndex index, int n) throws IndexException {
        List<FileRecord> files = new ArrayList<>();
        List<List<FileRecord>> byScope = List.of(new ArrayList<>(), new ArrayList<>());
        List<MerkleHash> xorbs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            MerkleHash[] named = new MerkleHash[1 + i % 3];
            for (int x = 0; x < named.length; x++) {
                named[x] = hash("batch xorb " + i + "/" + x);
                assertTrue(index.putXorb(named[x], chunks("batch xorb " + i + "/" + x, 3), 1000));
                xorbs.add(named[x]);
            }
            FileRecord f = file("batched " + i, i % 4 == 0 ? null : hash("sha " + i), named);
            files.add(f);
            byScope.get(i % 2).add(f);
        }
        for (int s = 0; s < 2; s++) {
            assertTrue(index.registerShard(shard("batch shard " + s, "scope/" + s, byScope.get(s), xorbs, List.of())));
        }
        return files;
    }

    private static void assertSameRecord(FileRecord expected, FileRecord actual, String what) {
        if (expected == null) {
            assertEquals(null, actual, what);
            return;
        }
        assertTrue(actual != null, what + ": no record");
        assertEquals(expected.fileHash(), actual.fileHash(), what);
        assertEquals(expected.size(), actual.size(), what);
        assertEquals(expected.sha256(), actual.sha256(), what);
        assertArrayEquals(expected.xorbs(), actual.xorbs(), what);
        assertArrayEquals(expected.terms(), actual.terms(), what);
    }

    /** A serving node opens its upload locks' connections before ready: all of them, and none left holding a lock. */
    @Test
    void theUploadLocksConnectionsOpenBeforeTheFirstUploadAndHoldNothing() throws Exception {
        String url = PostgresServer.get().createDatabase("upload_connections");
        try (PostgresIndex index = new PostgresIndex(url, 3)) {
            PostgresOnlineCollection online = (PostgresOnlineCollection) index.onlineCollection();
            assertEquals(0, online.openUploadConnectionCount(), "opened on first use");

            online.openUploadConnections();

            assertEquals(3, online.openUploadConnectionCount());
            try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'")) {
                assertTrue(r.next());
                assertEquals(0, r.getLong(1), "no advisory lock left held");
            }
            MerkleHash x = hash("uploaded after");
            try (OnlineCollection.UploadLock held = online.lockForUpload(x)) {
                assertTrue(index.putXorb(x, chunks("uploaded after", 3), 1000));
            }
            assertEquals(3, online.openUploadConnectionCount(), "the upload reused one of them");
        }
    }

    /** Nodes starting together on an empty database: one creates the schema, the others wait and use it. */
    @Test
    void nodesOpeningAnEmptyDatabaseAtOnceCreateTheSchemaOnce() throws Exception {
        String url = PostgresServer.get().createDatabase("schema_race");
        List<Callable<PostgresIndex>> opens = new ArrayList<>();
        for (int i = 0; i < 4; i++) opens.add(() -> new PostgresIndex(url, 1));
        List<PostgresIndex> nodes = race(opens);
        try {
            for (PostgresIndex node : nodes) {
                assertEquals(0L, node.scans().rowCounts().get("xorbs"));
            }
            assertTrue(nodes.get(0).putXorb(hash("x"), chunks("x", 3), 1));
            assertTrue(nodes.get(3).hasXorb(hash("x")));
        } finally {
            nodes.forEach(PostgresIndex::close);
        }
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT count(*), max(version) FROM schema_migrations")) {
            assertTrue(r.next());
            assertEquals(Migrations.POSTGRES.size(), r.getInt(1));
            assertEquals(Migrations.POSTGRES.size(), r.getInt(2));
        }
    }

    /** The first node's key fingerprint is what every node (racing or later) gets back; it survives a reopen. */
    @Test
    void theFirstRecordedKeyFingerprintIsEveryNodes() throws Exception {
        String url = PostgresServer.get().createDatabase("key_fingerprint");
        List<byte[]> prints = new ArrayList<>();
        for (int i = 0; i < 8; i++) prints.add(hash("keys " + i).toBytes());
        List<Callable<byte[]>> claims = new ArrayList<>();
        try (PostgresIndex a = new PostgresIndex(url, 4); PostgresIndex b = new PostgresIndex(url, 4)) {
            for (int i = 0; i < prints.size(); i++) {
                PostgresIndex node = i % 2 == 0 ? a : b;
                byte[] mine = prints.get(i);
                claims.add(() -> node.keyFingerprint(mine));
            }
            List<byte[]> answers = race(claims);
            byte[] winner = answers.get(0);
            assertTrue(prints.stream().anyMatch(p -> java.util.Arrays.equals(p, winner)));
            for (byte[] answer : answers) assertArrayEquals(winner, answer);
        }
        try (PostgresIndex reopened = new PostgresIndex(url, 1)) {
            byte[] recorded = reopened.keyFingerprint(hash("a newcomer").toBytes());
            assertFalse(java.util.Arrays.equals(hash("a newcomer").toBytes(), recorded));
            assertTrue(prints.stream().anyMatch(p -> java.util.Arrays.equals(p, recorded)));
        }
    }

    /** Terms are read whole on every reconstruction: stored uncompressed, where pglz would cost more than it saves. */
    @Test
    void fileTermsAreStoredUncompressed() throws Exception {
        String url = PostgresServer.get().createDatabase("terms_storage");
        MerkleHash[] xorbs = new MerkleHash[2_000];
        for (int i = 0; i < xorbs.length; i++) xorbs[i] = hash("x" + i);
        FileRecord f = file("repetitive", null, xorbs); // 48 KB of terms that pglz would shrink to a fraction
        try (PostgresIndex index = new PostgresIndex(url, 1)) {
            for (MerkleHash x : xorbs) index.putXorb(x, IndexContractTest.chunks(x.hex(), 3), 1000);
            assertTrue(index.registerShard(shard("s", "scope", List.of(f), List.of(), List.of())));
            assertEquals(f.termCount(), index.file(f.fileHash(), "scope").orElseThrow().termCount());
        }
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT pg_column_compression(terms), pg_column_size(terms), length(terms) FROM files")) {
            assertTrue(r.next());
            assertEquals(null, r.getString(1));
            assertEquals(FileRecord.TERM_INTS * 4 * xorbs.length, r.getInt(3));
            assertTrue(r.getInt(2) >= r.getInt(3), r.getInt(2) + " bytes stored for " + r.getInt(3));
        }
    }

    @Test
    void anIndexNewerThanThisServerIsRefused() throws Exception {
        String url = PostgresServer.get().createDatabase("newer");
        new PostgresIndex(url, 1).close();
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'from the future', 0)");
        }
        IndexException e = assertThrows(IndexException.class, () -> new PostgresIndex(url, 1));
        assertTrue(e.getMessage().contains("newer than this openxet"), e.getMessage());
    }

    @Test
    void anUnreachableServerIsAnIndexExceptionAtOpen() {
        IndexException e = assertThrows(IndexException.class,
                () -> new PostgresIndex("jdbc:postgresql://127.0.0.1:1/none?connectTimeout=2", 1, Duration.ofSeconds(1)));
        assertTrue(e.getMessage().startsWith("cannot open PostgreSQL index at jdbc:postgresql://127.0.0.1:1/none:"),
                e.getMessage());
    }

    /**
     * The server stops (really: the test cluster is shut down): every call fails with an IndexException after the
     * connection timeout and nothing is half-written; once the server is back, the same index works again by itself
     * (the pool retries with a backoff of at most 5 s, so the first call after the restart may still fail).
     */
    @Test
    void whileTheServerIsDownCallsFailAndAfterwardsTheIndexRecoversByItself() throws Exception {
        PostgresServer server = PostgresServer.get();
        String url = server.createDatabase("outage");
        try (PostgresIndex index = new PostgresIndex(url, 2, Duration.ofMillis(250))) {
            MerkleHash x = hash("x");
            assertTrue(index.putXorb(x, chunks("x", 3), 1));
            ShardCommit commit = shard("s", "user/repo", List.of(file("f", null, x)), List.of(x),
                    List.of(dedup(chunkOf("x", 0), x)));
            try (PostgresServer.Outage outage = server.outage(PostgresServer.databaseOf(url))) {
                long t0 = System.nanoTime();
                assertThrows(IndexException.class, () -> index.hasXorb(x));
                assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(5).toNanos(), "fails within the timeout");
                assertThrows(IndexException.class, () -> index.file(hash("file f"), "user/repo"));
                assertThrows(IndexException.class, () -> index.putXorb(hash("y"), chunks("y", 3), 1));
                assertThrows(IndexException.class, () -> index.registerShard(commit));
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (true) {
                try {
                    assertTrue(index.hasXorb(x));
                    break;
                } catch (IndexException stillDown) {
                    if (System.nanoTime() > deadline) throw stillDown;
                    Thread.sleep(50);
                }
            }
            assertEquals(Map.of("xorbs", 1L, "shards", 0L, "shard_scopes", 0L, "shard_xorbs", 0L, "files", 0L,
                    "file_scopes", 0L, "dedup_chunks", 0L), index.scans().rowCounts());
            assertTrue(index.registerShard(commit));
            assertTrue(index.file(hash("file f"), "user/repo").isPresent());
            assertTrue(index.putXorb(hash("y"), chunks("y", 3), 1));
        }
    }
}
