package org.openxet.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.openxet.service.Access;
import org.openxet.service.Registrations;
import org.openxet.storage.Bucket;
import org.openxet.storage.LocalBucket;
import org.openxet.service.ServerConfig;
import org.openxet.testing.MiniClient;
import org.openxet.testing.PostgresServer;
import org.openxet.testing.S3Server;
import org.openxet.testing.SyntheticFile;
import org.openxet.testing.TestServer;
import org.openxet.testing.Vectors;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lose the index, lose nothing: files registered through the real upload path under several scopes (one shard under
 * two), the index deleted, {@code openxet index rebuild} from the bucket alone, and every file downloads byte for
 * byte in the scopes that registered it and no other. Also the one-time backfill of records for an older bucket.
 */
class IndexRebuildTest {
    private static final String A = "user/a";
    private static final String B = "user/b";
    private static final String C = "org/c";
    private static final int MANY = 30;

    private static String scopeOf(int i) {
        return List.of(A, B, C).get(i % 3);
    }

    private static JsonNode cli(int expectedExit, String... args) throws Exception {
        CliTest.Run run = CliTest.run(args);
        assertEquals(expectedExit, run.exit(), run.out() + "\n" + run.err());
        return run.out().isEmpty() ? null : run.lastJson();
    }

    /** Every registration record in the bucket, as (shard, scope). */
    private static List<String> records(Bucket bucket) throws Exception {
        List<String> out = new ArrayList<>();
        Registrations.each(bucket, r -> out.add(r.shard() + " " + r.scope()));
        return out;
    }

    private static String fileOf(String scenario) {
        return Vectors.capture(scenario).get("files").get(0).get("client_xet_hash").asText();
    }

    private static byte[] contentOf(String scenario) {
        return Vectors.inputBytes(Vectors.capture(scenario).get("files").get(0).get("input").asText());
    }

    @Test
    void aDeletedIndexIsRebuiltFromTheBucketWithEveryFileInItsScopesAndNoOther() throws Exception {
        Path copy = Files.createTempDirectory("openxet-rebuild").resolve("data");
        try (TestServer s = new TestServer()) {
            s.uploadScenario("single-r1m", s.token(A, Access.WRITE));
            s.uploadScenario("single-words-512k", s.token(B, Access.WRITE));
            s.uploadScenario("single-r1m", s.token(B, Access.WRITE)); // the same shard, now also B's
            s.uploadScenario("single-r3m", s.token(A, Access.WRITE));
            // And many more, each in one of three scopes, through the same upload routes.
            for (int i = 0; i < MANY; i++) SyntheticFile.of(i).upload(s, s.token(scopeOf(i), Access.WRITE));
            Bucket bucket = s.services().bucket();
            List<String> written = records(bucket);
            assertEquals(4 + MANY, written.size(), "one record per (shard, scope)");
            assertEquals(4 + MANY, new HashSet<>(written).size());

            // A bucket from before the records: the first start writes them from the index, once.
            for (String key : bucket.list("registrations")) bucket.delete(key);
            for (String key : bucket.list("meta")) bucket.delete(key);
            try (Registrations again = new Registrations(bucket)) {
                assertEquals(4 + MANY, again.backfill(s.services().index()));
                assertEquals(0, again.backfill(s.services().index()), "the marker: once per bucket");
            }
            assertEquals(new HashSet<>(written), new HashSet<>(records(bucket)));
            // A crash cuts the last record short: never an acknowledged one (each is flushed before the answer), and
            // the reader skips it.
            String log = bucket.list("registrations").getLast();
            Files.writeString(((LocalBucket) bucket).path(log), "{\"shard\":\"ab", StandardOpenOption.APPEND);
            cli(0, "backup", copy.toString(), "--data", s.dataDir().toString());
        }
        for (String f : List.of("index.sqlite", "index.sqlite-wal", "index.sqlite-shm")) Files.deleteIfExists(copy.resolve(f));
        cli(2, "index", "rebuild", "--data", copy.resolveSibling("no such dir").toString());
        // A stray file among the xorbs is listed and passed over (it used to stop the rebuild part-way).
        Path stray = copy.resolve("bucket/xorbs/default/no/notes.txt");
        Files.createDirectories(stray.getParent());
        Files.writeString(stray, "not a xorb");
        JsonNode r = cli(1, "index", "rebuild", "--data", copy.toString());
        Files.delete(stray);
        assertEquals(3 + MANY, r.get("xorbs").asLong());
        assertEquals(3 + MANY, r.get("shards").asLong());
        assertEquals(4 + MANY, r.get("registrations").asLong());
        assertEquals(1, r.get("unreadable_records").asLong(), "the line the crash cut");
        assertEquals(0, r.get("orphan_records").asLong());
        assertEquals(1, r.get("skipped").size(), r.toString());
        assertTrue(r.get("skipped").get(0).asText()
                .endsWith("notes.txt: not a xorb's key (its name does not end in a hash)"), r.toString());
        cli(2, "index", "rebuild", "--data", copy.toString()); // the index exists now: refused

        try (TestServer restored = new TestServer(c -> c.withDataDir(copy))) {
            MiniClient a = new MiniClient(restored, restored.token(A, Access.READ));
            MiniClient b = new MiniClient(restored, restored.token(B, Access.READ));
            assertArrayEquals(contentOf("single-r1m"), a.download(2, fileOf("single-r1m"), null));
            assertArrayEquals(contentOf("single-r3m"), a.download(2, fileOf("single-r3m"), null));
            assertArrayEquals(contentOf("single-r1m"), b.download(1, fileOf("single-r1m"), null));
            assertArrayEquals(contentOf("single-words-512k"), b.download(2, fileOf("single-words-512k"), null));
            assertEquals(404, a.reconstruction(2, fileOf("single-words-512k"), null).status(), "not A's");
            assertEquals(404, b.reconstruction(2, fileOf("single-r3m"), null).status(), "not B's");
            Map<String, MiniClient> readers = Map.of(A, a, B, b, C, new MiniClient(restored, restored.token(C, Access.READ)));
            for (int i = 0; i < MANY; i++) {
                SyntheticFile f = SyntheticFile.of(i);
                for (Map.Entry<String, MiniClient> reader : readers.entrySet()) {
                    if (reader.getKey().equals(scopeOf(i))) {
                        assertArrayEquals(f.content(), reader.getValue().download(2, f.file().hex(), null));
                    } else {
                        assertEquals(404, reader.getValue().reconstruction(2, f.file().hex(), null).status());
                    }
                }
            }
            JsonNode fsck = FsckCommandTest.fsck("--data", copy.toString(), "--deep", "--rate", "0").json();
            assertEquals(0, fsck.get("damaged").size() + fsck.get("missing").size() + fsck.get("files_affected").size()
                    + fsck.get("unknown_objects").size(), fsck.toString());
        }
    }

    @Test
    void anIndexLostOnPostgresIsRebuiltFromTheS3BucketIntoAnEmptyDatabase() throws Exception {
        String lost = PostgresServer.get().createDatabase("rebuild_lost");
        String empty = PostgresServer.get().createDatabase("rebuild_new");
        try (S3Server s3 = S3Server.start()) {
            String bucketUrl = "s3://" + s3.createBucket();
            var before = new ServerConfig.Storage(lost, bucketUrl, s3.endpoint(), S3Server.REGION);
            var after = new ServerConfig.Storage(empty, bucketUrl, s3.endpoint(), S3Server.REGION);
            try (TestServer s = new TestServer(c -> c.withStorage(before))) {
                s.uploadScenario("single-r1m", s.token(A, Access.WRITE));
                s.uploadScenario("single-r1m", s.token(B, Access.WRITE));
                s.uploadScenario("single-words-512k", s.token(B, Access.WRITE));
                // S3 cannot append: one object per (shard, scope).
                assertEquals(3, s.services().bucket().list("registrations").size());

                Path config = Files.writeString(Files.createTempFile("openxet-rebuild", ".yaml"), "openxet:\n  index:\n"
                        + "    url: \"" + empty + "\"\n  bucket:\n    url: " + bucketUrl + "\n  s3:\n    endpoint: "
                        + s3.endpoint() + "\n    region: " + S3Server.REGION + "\n");
                JsonNode r = cli(0, "index", "rebuild", "--config", config.toString(), "--data", s.dataDir().toString());
                assertEquals(2, r.get("shards").asLong());
                assertEquals(3, r.get("registrations").asLong());
                cli(2, "index", "rebuild", "--config", config.toString(), "--data", s.dataDir().toString());

                try (TestServer restored = new TestServer(c -> c.withStorage(after), s)) {
                    MiniClient a = new MiniClient(restored, restored.token(A, Access.READ));
                    MiniClient b = new MiniClient(restored, restored.token(B, Access.READ));
                    assertArrayEquals(contentOf("single-r1m"), a.download(2, fileOf("single-r1m"), null));
                    assertArrayEquals(contentOf("single-r1m"), b.download(2, fileOf("single-r1m"), null));
                    assertArrayEquals(contentOf("single-words-512k"), b.download(2, fileOf("single-words-512k"), null));
                    assertEquals(404, a.reconstruction(2, fileOf("single-words-512k"), null).status(), "not A's");
                }
            }
        }
    }
}
