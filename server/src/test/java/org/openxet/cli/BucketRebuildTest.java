package org.openxet.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleHash;
import org.openxet.service.Access;
import org.openxet.service.BucketChanges;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;
import org.openxet.service.Users;
import org.openxet.testing.MiniClient;
import org.openxet.testing.PostgresServer;
import org.openxet.testing.S3Server;
import org.openxet.testing.SyntheticFile;
import org.openxet.testing.TestServer;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lose the index, keep the buckets: creates and batches (adds, overwrites, deletes, copies from a model repository
 * and within buckets, a line that fails) through the real HTTP routes, the index deleted, the real
 * {@code openxet index rebuild}, and every bucket row, path row and file grant is what it was, column for column, and
 * every listing, info and paths-info answer byte for byte; the copies download with the bucket's read token. On
 * SQLite with the local bucket, and on PostgreSQL + S3 with two nodes writing batches to one bucket at once.
 */
class BucketRebuildTest {
    private static final int FILES = 6;
    /** Two creates, six batches, two deletes (a third finds nothing), and 16 concurrent batches. */
    private static final int WRITES = 2 + 6 + 2 + 16;
    private static final List<String> BUCKETS = List.of("alice/data", "alice/made", "alice/shared", "alice/gone",
            "alice/forgotten");

    /** The rows a rebuild must give back, one line each, every column (hashes in hex), in a fixed order. */
    private static final List<String> DUMPS = List.of(
            "SELECT name, private, created_at, updated_at, size, total_files, seq, deleted_at FROM bucket_repos ORDER BY name",
            "SELECT b.name, f.path, f.xet_hash, f.size, f.mtime, f.content_type, f.uploaded_at FROM bucket_repo_files f"
                    + " JOIN bucket_repos b ON b.id = f.repo_id ORDER BY b.name, f.path",
            "SELECT s.scope, f.hash FROM file_scopes s JOIN files f ON f.id = s.file_id ORDER BY s.scope, f.hash");

    private static String dump(Connection c) throws Exception {
        StringBuilder out = new StringBuilder();
        try (Statement s = c.createStatement()) {
            for (String sql : DUMPS) {
                try (ResultSet r = s.executeQuery(sql)) {
                    ResultSetMetaData m = r.getMetaData();
                    while (r.next()) {
                        for (int i = 1; i <= m.getColumnCount(); i++) {
                            Object v = r.getObject(i);
                            out.append(v instanceof byte[] b ? HexFormat.of().formatHex(b) : String.valueOf(v)).append('|');
                        }
                        out.append('\n');
                    }
                }
                out.append("--\n");
            }
        }
        return out.toString();
    }

    private static String dumpSqlite(Path data) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + data.resolve("index.sqlite"))) {
            return dump(c);
        }
    }

    private static String dumpPostgres(String url) throws Exception {
        try (Connection c = DriverManager.getConnection(url)) {
            return dump(c);
        }
    }

    private static String user(TestServer s) throws Exception {
        return new Users(s.dataDir(), Services.authStore(s.services().index(), s.dataDir()))
                .add("alice", List.of("buckets/alice/*", "models/alice/*"), Access.WRITE);
    }

    private static HttpResponse<String> batch(TestServer s, String bucket, String token, String... lines) throws Exception {
        return s.send(s.request("/api/buckets/" + bucket + "/batch", token).header("Content-Type", "application/x-ndjson")
                .POST(HttpRequest.BodyPublishers.ofString(String.join("\n", lines) + "\n")).build());
    }

    private static String add(String path, SyntheticFile f, boolean withTimes) {
        return "{\"type\":\"addFile\",\"path\":\"" + path + "\",\"xetHash\":\"" + f.file().hex() + "\""
                + (withTimes ? ",\"mtime\":1727278262346,\"contentType\":\"text/csv\"" : "") + "}";
    }

    private static String copy(String path, MerkleHash hash, String type, String from) {
        return "{\"type\":\"copyFile\",\"path\":\"" + path + "\",\"xetHash\":\"" + hash.hex() + "\",\"sourceRepoType\":\""
                + type + "\",\"sourceRepoId\":\"" + from + "\"}";
    }

    private static String delete(String path) {
        return "{\"type\":\"deleteFile\",\"path\":\"" + path + "\"}";
    }

    private static void ok(int status, HttpResponse<String> r) {
        assertEquals(status, r.statusCode(), r.body());
    }

    /**
     * The writes: files 0..FILES-2 uploaded to alice/data's scope, the last to a model repository; an explicit public
     * create; batches that add (with and without times, the empty file), overwrite, delete, copy from the model and
     * between buckets, and one with a line that fails.
     */
    private static void write(TestServer s, String alice) throws Exception {
        for (int i = 0; i < FILES - 1; i++) SyntheticFile.of(i).upload(s, s.token("buckets/alice/data", Access.WRITE));
        SyntheticFile inModel = SyntheticFile.of(FILES - 1);
        inModel.upload(s, s.token("models/alice/m", Access.WRITE));
        ok(200, s.post("/api/buckets/alice/made", alice, "{\"private\": false}".getBytes()));
        ok(200, batch(s, "alice/data", alice, add("a.csv", SyntheticFile.of(0), true), add("d/b.bin", SyntheticFile.of(1), false),
                add("d/e/c.bin", SyntheticFile.of(2), true), "{\"type\":\"addFile\",\"path\":\"empty\",\"xetHash\":\""
                        + MerkleHash.ZERO.hex() + "\"}", add("gone.bin", SyntheticFile.of(3), false)));
        ok(200, batch(s, "alice/data", alice, add("a.csv", SyntheticFile.of(4), false), delete("gone.bin"),
                delete("never.bin"), copy("from-model.bin", inModel.file(), "model", "alice/m"),
                copy("d/again.bin", SyntheticFile.of(1).file(), "bucket", "alice/data")));
        ok(422, batch(s, "alice/made", alice, copy("copied.bin", SyntheticFile.of(2).file(), "bucket", "alice/data"),
                copy("from-model.bin", inModel.file(), "model", "alice/m"), add("not-uploaded-here.bin",
                        SyntheticFile.of(0), true)));
        ok(200, batch(s, "alice/made", alice, delete("from-model.bin")));
        // A bucket deleted and made again by a batch, and one created and deleted.
        ok(200, batch(s, "alice/gone", alice, copy("x", SyntheticFile.of(0).file(), "bucket", "alice/data")));
        ok(200, s.send(s.request("/api/buckets/alice/gone", alice).DELETE().build()));
        ok(404, s.send(s.request("/api/buckets/alice/gone", alice).DELETE().build()));
        ok(200, batch(s, "alice/gone", alice, copy("y", SyntheticFile.of(1).file(), "bucket", "alice/data")));
        ok(200, s.post("/api/buckets/alice/forgotten", alice, new byte[0]));
        ok(200, s.send(s.request("/api/buckets/alice/forgotten", alice).DELETE().build()));
    }

    /** Batches on one bucket, several at once (from two nodes when {@code other} is another one). */
    private static void writeConcurrently(TestServer s, TestServer other, String alice, String aliceThere) throws Exception {
        SyntheticFile.of(0).upload(s, s.token("buckets/alice/shared", Access.WRITE));
        SyntheticFile.of(1).upload(other, other.token("buckets/alice/shared", Access.WRITE));
        List<Callable<Integer>> writes = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            int n = i;
            TestServer node = i % 2 == 0 ? s : other;
            String token = i % 2 == 0 ? alice : aliceThere;
            // Every batch sets "same.bin" (which one wins is the index's commit order) and adds one path of its own.
            writes.add(() -> batch(node, "alice/shared", token, add("same.bin", SyntheticFile.of(n % 2), n % 3 == 0),
                    add("own/" + n, SyntheticFile.of(n % 2), false), n % 4 == 3 ? delete("own/" + (n - 2)) : delete("x"))
                    .statusCode());
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            for (Future<Integer> f : pool.invokeAll(writes)) assertEquals(200, f.get());
        } finally {
            pool.shutdown();
        }
    }

    /** Every answer a client reads about the buckets: info, the recursive and top-level listings, paths-info. */
    private static String answers(TestServer s, String alice) throws Exception {
        StringBuilder out = new StringBuilder();
        for (String b : BUCKETS) {
            for (String path : List.of("/api/buckets/" + b, "/api/buckets/" + b + "/tree?recursive=true",
                    "/api/buckets/" + b + "/tree", "/api/buckets/" + b + "/tree/d?recursive=false")) {
                HttpResponse<String> r = s.get(path, alice);
                out.append(path).append(' ').append(r.statusCode()).append(' ').append(r.body()).append('\n');
            }
            HttpResponse<String> r = s.post("/api/buckets/" + b + "/paths-info", alice,
                    "{\"paths\":[\"a.csv\",\"d/b.bin\",\"empty\",\"from-model.bin\",\"copied.bin\",\"same.bin\"]}".getBytes());
            out.append(r.statusCode()).append(' ').append(r.body()).append('\n');
        }
        return out.toString();
    }

    private static JsonNode rebuild(String... args) throws Exception {
        CliTest.Run run = CliTest.run(args);
        assertEquals(0, run.exit(), run.out() + "\n" + run.err());
        return run.lastJson();
    }

    /** The copied files download with the read token of the bucket they were copied into. */
    private static void copiesDownload(TestServer s) throws Exception {
        MiniClient made = new MiniClient(s, s.token("buckets/alice/made", Access.READ));
        assertArrayEquals(SyntheticFile.of(2).content(), made.download(2, SyntheticFile.of(2).file().hex(), null));
        MiniClient data = new MiniClient(s, s.token("buckets/alice/data", Access.READ));
        assertArrayEquals(SyntheticFile.of(FILES - 1).content(), data.download(2, SyntheticFile.of(FILES - 1).file().hex(), null));
        assertEquals(404, made.reconstruction(2, SyntheticFile.of(3).file().hex(), null).status(), "never copied there");
    }

    /**
     * On SQLite the writes go through a backup first ({@code openxet backup} of the running server): its index holds
     * the bucket tables as they were and its bucket the records, so the copy is also what is rebuilt.
     */
    @Test
    void aBackupHoldsTheBucketsAndItsDeletedIndexIsRebuiltWithEveryBucketPathAndGrant() throws Exception {
        Path copy = Files.createTempDirectory("openxet-bucket-rebuild").resolve("data");
        String rows;
        String answers;
        String alice;
        try (TestServer s = new TestServer()) {
            alice = user(s);
            write(s, alice);
            writeConcurrently(s, s, alice, alice);
            answers = answers(s, alice);
            assertEquals(1, s.services().bucket().list("bucket-changes").size(), "one log for this server process");
            rows = dumpSqlite(s.dataDir());
            assertEquals(0, CliTest.run("backup", copy.toString(), "--data", s.dataDir().toString()).exit());
        }
        assertTrue(rows.contains("alice/made|0|"), "alice/made is public: " + rows);
        assertEquals(rows, dumpSqlite(copy), "the backup's index has every bucket row");
        for (String f : List.of("index.sqlite", "index.sqlite-wal", "index.sqlite-shm")) Files.deleteIfExists(copy.resolve(f));

        JsonNode r = rebuild("index", "rebuild", "--data", copy.toString());
        assertEquals(BUCKETS.size(), r.get("buckets").asLong(), "a deleted bucket's tombstone too");
        assertEquals(WRITES, r.get("bucket_writes").asLong(), "every create, batch with a change and delete");
        assertEquals(0, r.get("skipped").size());
        assertEquals(rows, dumpSqlite(copy));
        try (TestServer restored = new TestServer(c -> c.withDataDir(copy))) {
            assertEquals(answers, answers(restored, alice));
            copiesDownload(restored);
            // And it goes on: the next batch takes the next number of its bucket.
            ok(200, batch(restored, "alice/made", alice, delete("copied.bin")));
            assertEquals(4, BucketChanges.inOrder(restored.services().bucket()).records().stream()
                    .filter(c -> c.bucket().equals("alice/made")).mapToLong(BucketChanges.Record::seq).max().orElse(0));
        }
    }

    @Test
    void anIndexLostOnPostgresIsRebuiltFromTheS3RecordsOfTwoNodesWritingOneBucketAtOnce() throws Exception {
        String lost = PostgresServer.get().createDatabase("bucket_rebuild_lost");
        String empty = PostgresServer.get().createDatabase("bucket_rebuild_new");
        try (S3Server s3 = S3Server.start()) {
            String bucketUrl = "s3://" + s3.createBucket();
            var before = new ServerConfig.Storage(lost, bucketUrl, s3.endpoint(), S3Server.REGION);
            var after = new ServerConfig.Storage(empty, bucketUrl, s3.endpoint(), S3Server.REGION);
            String rows;
            String answers;
            try (TestServer first = new TestServer(c -> c.withStorage(before));
                 TestServer second = new TestServer(c -> c.withStorage(before), first)) {
                String alice = user(first);
                write(first, alice);
                writeConcurrently(first, second, alice, alice);
                answers = answers(second, alice);
                // S3 cannot append: one object per write, named by its bucket and number.
                assertEquals(WRITES, first.services().bucket().list("bucket-changes").size());
                rows = dumpPostgres(lost);

                Path config = Files.writeString(Files.createTempFile("openxet-rebuild", ".yaml"), "openxet:\n  index:\n"
                        + "    url: \"" + empty + "\"\n  bucket:\n    url: " + bucketUrl + "\n  s3:\n    endpoint: "
                        + s3.endpoint() + "\n    region: " + S3Server.REGION + "\n");
                JsonNode r = rebuild("index", "rebuild", "--config", config.toString(), "--data", first.dataDir().toString());
                assertEquals(BUCKETS.size(), r.get("buckets").asLong(), "a deleted bucket's tombstone too");
                assertEquals(0, r.get("skipped").size());
            }
            assertEquals(rows, dumpPostgres(empty));
            try (TestServer restored = new TestServer(c -> c.withStorage(after))) {
                // The users lived in the lost database: added again, with a new token; the answers are the same.
                String alice = user(restored);
                assertEquals(answers, answers(restored, alice));
                copiesDownload(restored);
            }
        }
    }

    /** The records are where a backup can take them from: the S3 objects' names and a local log's lines. */
    @Test
    void everyAcknowledgedWriteHasItsRecordBeforeTheAnswer() throws Exception {
        try (TestServer s = new TestServer()) {
            String alice = user(s);
            SyntheticFile.of(0).upload(s, s.token("buckets/alice/data", Access.WRITE));
            for (int i = 1; i <= 3; i++) {
                ok(200, batch(s, "alice/data", alice, add("p" + i, SyntheticFile.of(0), false)));
                List<BucketChanges.Record> records = BucketChanges.inOrder(s.services().bucket()).records();
                assertEquals(i, records.size());
                assertEquals(i, records.getLast().seq());
                assertEquals("p" + i, records.getLast().changes().getFirst().path());
            }
        }
    }
}
