package org.openxet.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleHash;
import org.openxet.service.ShardRegistration;
import org.openxet.service.XorbIngest;
import org.openxet.storage.LocalBucket;
import org.openxet.testing.PostgresServer;
import org.openxet.testing.S3Server;
import org.openxet.testing.TestServer;
import org.openxet.testing.Vectors;

import java.nio.channels.FileChannel;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code openxet fsck} on real storage with real client uploads, then real damage: a flipped byte in a xorb on disk,
 * a deleted xorb, a deleted shard, an object the index does not know; on SQLite with the local bucket, and on
 * PostgreSQL with s3proxy. The report names each object and each file (with its scope) that can no longer be
 * reconstructed, and the exit code says so.
 */
class FsckCommandTest {
    private static final String SCOPE = "user/repo";
    /** Three captured uploads: one xorb, one shard and one file each. */
    private static final List<String> SCENARIOS = List.of("single-r1m", "single-r3m", "single-words-512k");

    static CliTest.Run fsck(String... args) {
        List<String> all = new ArrayList<>(List.of("fsck"));
        all.addAll(List.of(args));
        return CliTest.run(all.toArray(String[]::new));
    }

    private static MerkleHash xorbOf(String scenario) throws Exception {
        return MerkleHash.parse(Vectors.capture(scenario).get("xorbs").get(0).get("xorb_hash").asText());
    }

    private static String fileOf(String scenario) {
        return Vectors.capture(scenario).get("files").get(0).get("client_xet_hash").asText();
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    /** A data dir whose index was lost: fsck and repair say so and leave no empty index that would pass for it. */
    @Test
    void aDataDirWithoutItsIndexIsRefusedNotReportedClean(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path data = dir.resolve("data");
        Files.createDirectories(data.resolve("bucket/xorbs/default/ab"));
        Files.write(data.resolve("bucket/xorbs/default/ab/ab" + "0".repeat(62)), new byte[]{1});
        for (String command : List.of("fsck", "repair")) {
            CliTest.Run r = CliTest.run(command, "--data", data.toString());
            assertEquals(2, r.exit(), r.err());
            assertEquals("openxet " + command + ": " + data.resolve("index.sqlite").toAbsolutePath() + ": no index here;"
                    + " a data dir whose index was lost is rebuilt from its bucket by `openxet index rebuild`", r.err());
            assertFalse(Files.exists(data.resolve("index.sqlite")));
        }
    }

    /** fsck runs beside the serving node, as an operator runs it: the server stays up throughout. */
    @Test
    void aCleanStoreIsCleanAndEveryKindOfDamageIsNamedOnSqlite() throws Exception {
        try (TestServer s = new TestServer()) {
            for (String scenario : SCENARIOS) s.uploadScenario(scenario, s.token(SCOPE, org.openxet.service.Access.WRITE));
            Path data = s.dataDir();
            LocalBucket bucket = (LocalBucket) s.services().bucket();
            MerkleHash shard = MerkleHash.parse(bucket.list("shards").getFirst().substring("shards/".length()));
            CliTest.Run clean = fsck("--data", data.toString(), "--deep", "--rate", "0");
            assertEquals(0, clean.exit(), String.join("\n", clean.lines()));
            assertEquals(3, clean.lastJson().get("xorbs_checked").asLong());
            assertEquals(3, clean.lastJson().get("shards_checked").asLong());
            assertEquals(3, clean.lastJson().get("files_checked").asLong());
            assertTrue(clean.lastJson().get("bytes_read").asLong() > 3_000_000, "deep reads every object");
            assertEquals(List.of(), texts(clean.lastJson().get("damaged")));

            // One flipped byte in the middle of the first xorb's object, on disk: its size is unchanged.
            Path flipped = bucket.path(XorbIngest.key(xorbOf("single-r1m")));
            try (FileChannel ch = FileChannel.open(flipped, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.allocate(1);
                long at = ch.size() / 2;
                ch.read(b, at);
                b.put(0, (byte) (b.get(0) ^ 0x40)).rewind();
                ch.write(b, at);
            }
            Files.delete(bucket.path(XorbIngest.key(xorbOf("single-words-512k"))));
            Files.delete(bucket.path(ShardRegistration.key(shard)));
            bucket.put("xorbs/default/" + "ab".repeat(32), new byte[100]);

            // Without --deep the flipped byte is not seen (sizes agree); the deleted objects are.
            CliTest.Run shallow = fsck("--data", data.toString());
            assertEquals(1, shallow.exit(), String.join("\n", shallow.lines()));
            assertEquals(List.of(), texts(shallow.lastJson().get("damaged")));
            assertEquals(List.of(xorbOf("single-words-512k").hex(), shard.hex()), texts(shallow.lastJson().get("missing")));
            assertEquals(List.of(fileOf("single-words-512k")), texts(shallow.lastJson().get("files_affected")));
            assertEquals(List.of("xorbs/default/" + "ab".repeat(32)), texts(shallow.lastJson().get("unknown_objects")));

            CliTest.Run deep = fsck("--data", data.toString(), "--deep");
            assertEquals(1, deep.exit());
            assertEquals(List.of(xorbOf("single-r1m").hex()), texts(deep.lastJson().get("damaged")));
            assertEquals(List.of(fileOf("single-r1m"), fileOf("single-words-512k")),
                    texts(deep.lastJson().get("files_affected")));
            assertTrue(deep.lines().contains("file " + fileOf("single-r1m") + " (" + SCOPE + ") cannot be reconstructed:"
                    + " term 0 reads xorb " + xorbOf("single-r1m") + ", which is damaged or missing"),
                    String.join("\n", deep.lines()));
            JsonNode finding = deep.lastJson().get("findings").get(2);
            assertEquals("xorb", finding.get("kind").asText());
            assertTrue(finding.get("why").asText().startsWith("invalid: "), finding.toString());
        }
    }

    @Test
    void aDeletedObjectIsMissingOnPostgresAndS3() throws Exception {
        String url = PostgresServer.get().createDatabase("fsck");
        try (S3Server s3 = S3Server.start()) {
            var storage = new org.openxet.service.ServerConfig.Storage(url, "s3://" + s3.createBucket(), s3.endpoint(),
                    S3Server.REGION);
            try (TestServer s = new TestServer(c -> c.withStorage(storage))) {
                for (String scenario : SCENARIOS) s.uploadScenario(scenario, s.token(SCOPE, org.openxet.service.Access.WRITE));
                s.services().bucket().delete(XorbIngest.key(xorbOf("single-r3m")));
                Path config = Files.writeString(Files.createTempFile("openxet-fsck", ".yaml"), "openxet:\n  index:\n"
                        + "    url: \"" + url + "\"\n  bucket:\n    url: " + storage.bucketUrl() + "\n  s3:\n    endpoint: "
                        + storage.s3Endpoint() + "\n    region: " + storage.s3Region() + "\n");
                CliTest.Run run = fsck("--config", config.toString(), "--data", s.dataDir().toString(), "--deep", "--rate", "0");
                assertEquals(1, run.exit(), String.join("\n", run.lines()));
                assertEquals(List.of(xorbOf("single-r3m").hex()), texts(run.lastJson().get("missing")));
                assertEquals(List.of(), texts(run.lastJson().get("damaged")), "every other object reads back valid");
                assertEquals(List.of(fileOf("single-r3m")), texts(run.lastJson().get("files_affected")));
                assertEquals(3, run.lastJson().get("shards_checked").asLong());
            }
        }
    }

    /**
     * A bucket repository's paths are checked too: one naming a file its bucket can read is clean, one naming a file
     * registered only elsewhere (its downloads would 404) or at a wrong size is named, and fsck exits 1.
     */
    @Test
    void aBucketPathWhoseFileItsBucketCannotReadIsNamed() throws Exception {
        try (TestServer s = new TestServer()) {
            s.uploadScenario("single-r1m", s.token("buckets/alice/data", org.openxet.service.Access.WRITE));
            MerkleHash file = MerkleHash.parse(fileOf("single-r1m"));
            long size = s.services().index().bucketRepos().visibleSizes("buckets/alice/data", List.of(file)).get(file);
            var repos = s.services().index().bucketRepos();
            repos.apply("alice/data", List.of(new org.openxet.storage.BucketRepos.Put("ok.bin", file, size, 1L, null,
                    false), new org.openxet.storage.BucketRepos.Put("empty.bin", MerkleHash.ZERO, 0, 1L, null, false)), 1L, s.services().bucketChanges()::write);
            CliTest.Run clean = fsck("--data", s.dataDir().toString());
            assertEquals(0, clean.exit(), String.join("\n", clean.lines()));
            assertEquals(2, clean.lastJson().get("bucket_entries_checked").asLong());

            repos.apply("alice/other", List.of(new org.openxet.storage.BucketRepos.Put("elsewhere.bin", file, size, 1L,
                    null, false)), 1L, s.services().bucketChanges()::write);
            repos.apply("alice/data", List.of(new org.openxet.storage.BucketRepos.Put("wrong-size.bin", file, size + 1,
                    1L, null, false)), 1L, s.services().bucketChanges()::write);
            CliTest.Run broken = fsck("--data", s.dataDir().toString());
            assertEquals(1, broken.exit(), String.join("\n", broken.lines()));
            JsonNode entries = broken.lastJson().get("broken_bucket_entries");
            assertEquals(2, entries.size());
            assertEquals("alice/data", entries.get(0).get("bucket").asText());
            assertEquals("wrong-size.bin", entries.get(0).get("path").asText());
            assertEquals("alice/other", entries.get(1).get("bucket").asText());
            assertTrue(entries.get(1).get("why").asText().contains("not registered in buckets/alice/other"));
        }
    }
}
