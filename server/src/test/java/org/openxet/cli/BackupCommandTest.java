package org.openxet.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.openxet.service.Access;
import org.openxet.testing.MiniClient;
import org.openxet.testing.TestServer;
import org.openxet.testing.Vectors;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code openxet backup} of a data dir whose server keeps serving: the copy is a data dir that a new server serves
 * with the old server's tokens, every file registered before the backup downloads byte for byte, a file uploaded
 * after it is not there, and fsck finds the copy clean.
 */
class BackupCommandTest {
    private static final String SCOPE = "user/repo";

    /** The CLI in this JVM; it must succeed; its JSON summary. */
    private static JsonNode run(String... args) throws Exception {
        CliTest.Run r = CliTest.run(args);
        assertEquals(0, r.exit(), r.out() + "\n" + r.err());
        return r.lastJson();
    }

    @Test
    void aBackupTakenWhileServingIsADataDirThatServesTheSameFiles() throws Exception {
        Path dest = Files.createTempDirectory("openxet-backup").resolve("copy");
        List<String> before = List.of("single-r1m", "single-words-512k");
        String token;
        try (TestServer s = new TestServer()) {
            for (String scenario : before) s.uploadScenario(scenario, s.token(SCOPE, Access.WRITE));
            token = s.token(SCOPE, Access.READ);
            JsonNode r = run("backup", dest.toString(), "--data", s.dataDir().toString());
            assertEquals(2, r.get("xorbs").asLong());
            assertEquals(2, r.get("shards").asLong());
            assertTrue(r.get("object_bytes").asLong() > 1_000_000);
            assertEquals(0, r.get("missing").size());
            // After the backup: not in the copy.
            s.uploadScenario("single-r3m", s.token(SCOPE, Access.WRITE));
            assertEquals(200, new MiniClient(s, token).reconstruction(2, fileOf("single-r3m"), null).status());
        }
        JsonNode fsck = FsckCommandTest.fsck("--data", dest.toString(), "--deep", "--rate", "0").lastJson();
        assertEquals(0, fsck.get("damaged").size() + fsck.get("missing").size() + fsck.get("files_affected").size(),
                fsck.toString());
        try (TestServer restored = new TestServer(c -> c.withDataDir(dest))) {
            MiniClient client = new MiniClient(restored, token); // the old server's token: the keys came along
            for (String scenario : before) {
                JsonNode file = Vectors.capture(scenario).get("files").get(0);
                byte[] content = Vectors.inputBytes(file.get("input").asText());
                assertArrayEquals(content, client.download(2, fileOf(scenario), null), scenario);
            }
            assertEquals(404, client.reconstruction(2, fileOf("single-r3m"), null).status());
        }
    }

    /** Uploads keep landing while the copy is taken: whatever the copy's index names, its bucket holds. */
    @Test
    void aBackupTakenDuringUploadsIsConsistent() throws Exception {
        List<String> scenarios = List.of("single-r65536", "single-r131073", "single-u32ramp-256k", "single-zeros-1m",
                "single-repeat-2m", "model-flow-r131073", "single-r8192", "single-r8191");
        Path dest = Files.createTempDirectory("openxet-backup").resolve("copy");
        try (TestServer s = new TestServer()) {
            String write = s.token(SCOPE, Access.WRITE);
            Thread uploads = Thread.ofPlatform().start(() -> {
                try {
                    for (String scenario : scenarios) s.uploadScenario(scenario, write);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(50);
            JsonNode r = run("backup", dest.toString(), "--data", s.dataDir().toString());
            uploads.join();
            assertEquals(0, r.get("missing").size());
        }
        JsonNode fsck = FsckCommandTest.fsck("--data", dest.toString(), "--deep", "--rate", "0").lastJson();
        assertEquals(0, fsck.get("damaged").size() + fsck.get("missing").size() + fsck.get("files_affected").size(),
                fsck.toString());
    }

    /** A backup that fails part-way leaves no DEST (serve would take it for a data dir, with new keys), nor a stage. */
    @Test
    void aBackupThatFailsPartWayLeavesNothingThatLooksLikeADataDir() throws Exception {
        Path parent = Files.createTempDirectory("openxet-backup");
        Path dest = parent.resolve("copy");
        try (TestServer s = new TestServer()) {
            s.uploadScenario("single-r1m", s.token(SCOPE, Access.WRITE));
            // An object that cannot be read: its file replaced by a directory.
            String xorb = Vectors.capture("single-r1m").get("xorbs").get(0).get("xorb_hash").asText();
            Path object = ((org.openxet.storage.LocalBucket) s.services().bucket())
                    .path(org.openxet.service.XorbIngest.key(org.openxet.protocol.MerkleHash.of(xorb)));
            Files.delete(object);
            Files.createDirectory(object);
            CliTest.Run r = CliTest.run("backup", dest.toString(), "--data", s.dataDir().toString());
            assertEquals(2, r.exit(), r.err());
            assertTrue(r.err().startsWith("openxet backup: ") && !r.err().contains("\tat "), r.err());
            assertFalse(Files.exists(dest), "a partial backup was left as " + dest);
            try (var left = Files.list(parent)) {
                assertEquals(List.of(), left.toList(), "the stage was not removed");
            }
        }
        // The index itself cannot be read (none there): one line and exit 2, not a stack trace and exit 1.
        Path empty = Files.createDirectories(parent.resolve("empty"));
        CliTest.Run noIndex = CliTest.run("backup", dest.toString(), "--data", empty.toString());
        assertEquals(2, noIndex.exit(), noIndex.err());
        assertTrue(noIndex.err().startsWith("openxet backup: ") && !noIndex.err().contains("\tat "), noIndex.err());
        assertFalse(Files.exists(dest));
    }

    @Test
    void aBackupRefusesADestinationThatIsNotEmpty() throws Exception {
        Path dest = Files.createTempDirectory("openxet-backup");
        Files.writeString(dest.resolve("something"), "x");
        try (TestServer s = new TestServer()) {
            assertEquals(2, Main.run("backup", dest.toString(), "--data", s.dataDir().toString()));
        }
    }

    private static String fileOf(String scenario) {
        return Vectors.capture(scenario).get("files").get(0).get("client_xet_hash").asText();
    }
}
