package org.openxet.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.openxet.service.ServerConfig;
import org.junit.jupiter.api.io.TempDir;
import org.openxet.service.Access;
import org.openxet.service.DataDirLock;
import org.openxet.service.Grant;
import org.openxet.service.Secrets;
import org.openxet.service.Services;
import org.openxet.service.Tokens;
import org.openxet.testing.S3Server;
import org.openxet.testing.Vectors;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The CLI users debug their uploads with: exit codes and one-line JSON outputs. */
class CliTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode json(String line) {
        try {
            return JSON.readTree(line);
        } catch (Exception e) {
            throw new AssertionError(line, e);
        }
    }

    record Run(int exit, String out, String err) {
        JsonNode json() throws Exception {
            return JSON.readTree(out);
        }

        java.util.List<String> lines() {
            return out.lines().toList();
        }

        /** The last line, as the commands that report line by line print their JSON summary. */
        JsonNode lastJson() throws Exception {
            return JSON.readTree(lines().getLast());
        }
    }

    /** The command line of an {@code openxet serve} child on a free loopback port, on this test JVM's classpath. */
    static List<String> serveCommand(Path data) {
        return serveCommand(data, List.of());
    }

    /** {@link #serveCommand(Path)} with {@code jvmOptions} given to the child's JVM. */
    static List<String> serveCommand(Path data, List<String> jvmOptions) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-Dopenxet.native.dir=" + System.getProperty("openxet.native.dir", "")));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "org.openxet.cli.Main", "serve",
                "--host", "127.0.0.1", "--port", "0", "--data", data.toString()));
        return cmd;
    }

    /**
     * Polls a {@code serve} process's {@code /ready} every 20 ms, as a balancer does, until it answers 200 or
     * {@code within} has passed; returns the last answer for the caller to assert on.
     */
    static HttpResponse<String> awaitReady(int port, Duration within) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ready")).build();
        long deadline = System.nanoTime() + within.toNanos();
        HttpResponse<String> answer = http.send(ready, HttpResponse.BodyHandlers.ofString());
        while (answer.statusCode() != 200 && System.nanoTime() < deadline) {
            Thread.sleep(20);
            answer = http.send(ready, HttpResponse.BodyHandlers.ofString());
        }
        return answer;
    }

    static synchronized Run run(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            int exit = Main.run(args);
            return new Run(exit, out.toString(StandardCharsets.UTF_8).strip(), err.toString(StandardCharsets.UTF_8).strip());
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }

    @Test
    void versionReportsTheBackendsThatLoaded() throws Exception {
        Run r = run("version");
        assertEquals(0, r.exit());
        JsonNode v = r.json();
        assertEquals(Runtime.version().toString(), v.get("jdk").asText());
        assertTrue(v.get("blake3").asText().matches("ffm|java"));
        assertTrue(v.get("lz4").asText().matches("ffm|jni|java"));
        assertTrue(v.get("version").asText().length() > 0);
    }

    @Test
    void aNamedCommandIsModelledAloneWhileHelpAndMisspeltNamesSeeEveryCommand() {
        assertEquals(java.util.List.of(ServeCommand.class), Main.commandsFor("serve", "--data", "d"));
        assertEquals(java.util.List.of(UserCommand.class), Main.commandsFor("user", "add"));
        assertEquals(Main.COMMANDS, Main.commandsFor("help", "serve"));
        assertEquals(Main.COMMANDS, Main.commandsFor("serv"));
        assertEquals(Main.COMMANDS, Main.commandsFor("--help"));
        assertEquals(Main.COMMANDS, Main.commandsFor());

        Run help = run("--help");
        assertEquals(0, help.exit());
        for (String name : new String[]{"serve", "token", "user", "keys", "version", "gc", "fsck", "repair", "backup"}) {
            assertTrue(help.out().contains("\n  " + name + " "), name + " missing from:\n" + help.out());
        }
        Run serveHelp = run("help", "serve");
        assertEquals(0, serveHelp.exit());
        assertTrue(serveHelp.out().startsWith("Usage: openxet serve "), serveHelp.out());
        Run typo = run("serv");
        assertEquals(2, typo.exit());
        assertTrue(typo.err().contains("Did you mean: openxet serve"), typo.err());
    }

    @Test
    void hashPrintsTheXetCoreFileHash(@TempDir Path dir) throws Exception {
        for (String input : new String[]{"r3m", "empty", "r131073"}) {
            Path f = dir.resolve(input);
            Files.write(f, Vectors.inputBytes(input));
            Run r = run("hash", f.toString());
            assertEquals(0, r.exit(), r.err());
            JsonNode ref = Vectors.input(input).get("xet_core_reference");
            assertEquals(ref.get("file_hash").asText(), r.json().get("file_hash").asText());
            assertEquals(ref.get("chunk_count").asInt(), r.json().get("chunks").asInt());
            assertEquals(Vectors.input(input).get("size").asLong(), r.json().get("size").asLong());
        }
    }

    @Test
    void xorbInfoValidatesAndExplainsFailures(@TempDir Path dir) throws Exception {
        JsonNode x = Vectors.capture("single-u32ramp-256k").get("xorbs").get(0);
        Path body = Vectors.dir().resolve(x.get("file").asText());
        Run ok = run("xorb-info", "--expect", x.get("xorb_hash").asText(), body.toString());
        assertEquals(0, ok.exit(), ok.err());
        assertEquals(x.get("xorb_hash").asText(), ok.json().get("xorb_hash").asText());
        assertEquals(6, ok.json().get("compression").get("bg4_lz4").asInt());
        assertEquals(Files.size(body), ok.json().get("body_bytes").asLong());

        Run mismatch = run("xorb-info", "--expect", "00".repeat(32), body.toString());
        assertEquals(1, mismatch.exit());
        assertTrue(mismatch.err().contains("hash mismatch"), mismatch.err());
        assertEquals(1, mismatch.err().lines().count());

        Path bad = dir.resolve("bad");
        Files.write(bad, new byte[]{0, 1, 2});
        assertEquals(1, run("xorb-info", bad.toString()).exit());
        assertEquals(2, run("xorb-info", "--expect", "nothex", body.toString()).exit());
    }

    @Test
    void shardInfoPrintsTheShardAsJson(@TempDir Path dir) throws Exception {
        Path shard = Vectors.dir().resolve("scenarios/model-flow-r131073/shard-0.bin");
        Run r = run("shard-info", shard.toString());
        assertEquals(0, r.exit(), r.err());
        JsonNode files = r.json().get("files");
        assertEquals(Vectors.capture("model-flow-r131073").get("files").get(0).get("client_xet_hash").asText(),
                files.get(0).get("hash").asText());
        assertTrue(files.get(0).get("sha256").isTextual());
        Path bad = dir.resolve("bad");
        Files.write(bad, Vectors.splitmix(3, 500));
        Run fail = run("shard-info", bad.toString());
        assertEquals(1, fail.exit());
        assertTrue(fail.err().contains("invalid shard"));
    }

    @Test
    void tokenMintsAVerifiableTokenAndKeysArePrivate(@TempDir Path dir) throws Exception {
        Run r = run("token", "--data", dir.toString(), "--repo", "models/a/b", "--read", "--ttl", "30m");
        assertEquals(0, r.exit(), r.err());
        Grant g = new Tokens(Secrets.loadOrCreate(dir).tokenKey()).verify(r.out());
        assertEquals("models/a/b", g.scope());
        assertEquals(Access.READ, g.access());
        long left = g.expiresAt() - System.currentTimeMillis() / 1000;
        assertTrue(left > 29 * 60 && left <= 30 * 60, "ttl " + left);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(Secrets.FILE))));
        assertEquals(2, run("token", "--data", dir.toString(), "--repo", "x").exit(), "--read or --write is required");
    }

    @Test
    void keysRotateByIdAndTokensCarryTheSigningKeysId(@TempDir Path dir) throws Exception {
        Run before = run("token", "--data", dir.toString(), "--repo", "models/a/b", "--read");
        assertEquals(0, before.exit(), before.err());
        Run list = run("keys", "list", "--data", dir.toString());
        assertEquals(0, list.exit(), list.err());
        java.util.List<JsonNode> keys = list.out().lines().map(CliTest::json).toList();
        assertEquals(java.util.List.of("token", "url"), keys.stream().map(k -> k.get("use").asText()).toList());
        assertEquals("imported from secrets.properties", keys.get(0).get("created").asText());
        assertTrue(keys.get(0).get("signs").asBoolean());
        assertFalse(list.out().contains("\"k\""), "no key material is printed");
        String imported = keys.get(0).get("kid").asText();

        Run add = run("keys", "add", "--data", dir.toString(), "--algorithm", "EdDSA");
        assertEquals(0, add.exit(), add.err());
        JsonNode added = add.json();
        assertEquals("EdDSA", added.get("algorithm").asText());
        Run after = run("token", "--data", dir.toString(), "--repo", "models/a/b", "--write");
        assertEquals(added.get("kid").asText(), com.nimbusds.jwt.SignedJWT.parse(after.out()).getHeader().getKeyID());
        assertEquals(0, run("keys", "retire", "--data", dir.toString(), imported).exit());
        Run only = run("keys", "retire", "--data", dir.toString(), added.get("kid").asText());
        assertEquals(2, only.exit());
        assertEquals("openxet keys retire: " + added.get("kid").asText() + " is the only token key in use: add another first",
                only.err());
        Run unknown = run("keys", "retire", "--data", dir.toString(), "token-nope");
        assertEquals("openxet keys retire: no key token-nope (openxet keys list shows them)", unknown.err());
        assertEquals(2, run("keys", "add", "--data", dir.toString(), "--use", "url", "--algorithm", "HS256").exit());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("keys.json"))));
        // A served data dir uses that key set: the old token is refused, the new one works.
        try (var services = org.openxet.service.Services.open(org.openxet.service.ServerConfig.defaults(dir))) {
            assertEquals("token key '" + imported + "' is retired", org.junit.jupiter.api.Assertions.assertThrows(
                    org.openxet.service.AuthException.class, () -> services.tokens().verify(before.out())).getMessage());
            assertEquals(Access.WRITE, services.tokens().verify(after.out()).access());
        }
    }

    @Test
    void userRevokeAndReissueChangeWhichTokenAuthenticates(@TempDir Path dir) throws Exception {
        Run add = run("user", "add", "--data", dir.toString(), "--name", "erin", "--repos", "models/erin/*");
        assertEquals(0, add.exit(), add.err());
        Run revoke = run("user", "revoke", "--data", dir.toString(), "erin");
        assertEquals(0, revoke.exit(), revoke.err());
        assertEquals("openxet user revoke: erin revoked; `openxet user reissue erin` gives it a new token", revoke.err());
        var users = new org.openxet.service.Users(dir);
        assertEquals(null, users.authenticate(add.out()));
        Run reissue = run("user", "reissue", "--data", dir.toString(), "erin");
        assertEquals(0, reissue.exit(), reissue.err());
        assertEquals("erin", users.authenticate(reissue.out()).name());
        assertEquals(null, users.authenticate(add.out()));
        Run list = run("user", "list", "--data", dir.toString());
        assertEquals("{\"name\":\"erin\",\"repos\":[\"models/erin/*\"],\"access\":\"read\",\"revoked\":false,\"generation\":2}",
                list.out());
        Run nobody = run("user", "revoke", "--data", dir.toString(), "nobody");
        assertEquals(2, nobody.exit());
        assertEquals("openxet user revoke: no user nobody", nobody.err());
    }

    @Test
    void userAddPrintsATokenOnce(@TempDir Path dir) throws Exception {
        Run r = run("user", "add", "--data", dir.toString(), "--name", "alice", "--repos", "models/alice/*", "--write");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("hf_openxet_"));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("users.json"))));
    }

    @Test
    void serveRefusesATakenPortAndALockedDataDirAtOnceWithOneLine(@TempDir Path dir) throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Run r = run("serve", "--host", "127.0.0.1", "--port", Integer.toString(taken.getLocalPort()),
                    "--data", dir.resolve("a").toString());
            assertEquals(1, r.exit(), r.err());
            assertTrue(r.err().contains("openxet serve: cannot listen on 127.0.0.1:" + taken.getLocalPort()), r.err());
            // Nothing was served, so the next start is not mistaken for a crash recovery.
            assertFalse(Files.exists(dir.resolve("a").resolve("RUNNING")));
        }
        try (DataDirLock held = DataDirLock.acquire(dir.resolve("b"))) {
            Run r = run("serve", "--host", "127.0.0.1", "--port", "0", "--data", dir.resolve("b").toString());
            assertEquals(1, r.exit(), r.err());
            assertTrue(r.err().startsWith("openxet serve: data dir " + dir.resolve("b").toAbsolutePath()
                    + " is in use by another openxet server"), r.err());
            assertFalse(Files.exists(dir.resolve("b").resolve("RUNNING")), "the locked dir was not touched");
        }
        assertEquals(2, run("serve", "--port", "99999", "--data", dir.resolve("c").toString()).exit());
    }

    @Test
    void serveStopsAtStartWithOneLineWhenItsS3BucketIsNotThere(@TempDir Path dir) throws Exception {
        S3Server s3 = S3Server.shared();
        Path yaml = dir.resolve("openxet.yaml");
        Files.writeString(yaml, "openxet:\n  bucket:\n    url: s3://no-such-bucket/cas\n  s3:\n    endpoint: " + s3.endpoint() + "\n");
        Run r = run("serve", "--host", "127.0.0.1", "--port", "0", "--data", dir.resolve("d").toString(),
                "--config", yaml.toString());
        assertEquals(2, r.exit(), r.err());
        assertEquals("openxet serve: cannot open storage: S3 bucket s3://no-such-bucket/cas (" + s3.endpoint()
                + ", region us-east-1) is not reachable: no such bucket", r.err());
        assertFalse(Files.exists(dir.resolve("d").resolve("RUNNING")));
    }

    /**
     * After an unclean stop a node on a shared bucket does not scan it (every unregistered object there might be
     * another node's upload in flight, so reconciling could only keep them): it says so, and the object stays.
     */
    @Test
    void afterAnUncleanStopANodeOnASharedBucketSkipsTheScan(@TempDir Path dir) throws Exception {
        S3Server s3 = S3Server.shared();
        String bucket = s3.createBucket();
        s3.client().putObject(b -> b.bucket(bucket).key("xorbs/default/" + "ab".repeat(32)),
                software.amazon.awssdk.core.sync.RequestBody.fromBytes(new byte[]{1}));
        Path data = Files.createDirectories(dir.resolve("d"));
        Files.writeString(data.resolve("RUNNING"), "4242"); // what kill -9 leaves behind
        Path yaml = dir.resolve("openxet.yaml");
        Files.writeString(yaml, "openxet:\n  bucket:\n    url: s3://" + bucket + "\n  s3:\n    endpoint: " + s3.endpoint() + "\n");
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            // A taken port stops serve right after recovery, so the test sees what it printed.
            Run r = run("serve", "--host", "127.0.0.1", "--port", Integer.toString(taken.getLocalPort()),
                    "--data", data.toString(), "--config", yaml.toString());
            assertEquals(1, r.exit(), r.err());
            assertTrue(r.out().contains("openxet: the previous run did not stop cleanly; the bucket is shared, so objects "
                    + "of uploads it never acknowledged stay in it (nothing else to reconcile)"), r.out());
            assertFalse(r.out().contains("reconciling"), r.out());
        }
        assertEquals(java.util.List.of("xorbs/default/" + "ab".repeat(32)), s3.client().listObjectsV2(b -> b.bucket(bucket)
                .prefix("xorbs/")).contents().stream().map(software.amazon.awssdk.services.s3.model.S3Object::key).toList(),
                "the unregistered object stays");
    }

    @Test
    void serveNotesASharedIndexOverALocalBucket() {
        assertEquals("the index is shared (index.url) but the bucket is this node's own: other nodes cannot serve the "
                        + "bytes stored here; give every node the same bucket.url",
                ServeCommand.storageNote(new ServerConfig.Storage("jdbc:postgresql://db/x", "", "", "us-east-1")).orElseThrow());
        assertTrue(ServeCommand.storageNote(ServerConfig.Storage.EMBEDDED).isEmpty());
        assertTrue(ServeCommand.storageNote(new ServerConfig.Storage("jdbc:postgresql://db/x", "s3://blobs", "", "us-east-1")).isEmpty());
        assertTrue(ServeCommand.storageNote(new ServerConfig.Storage("", "s3://blobs", "", "us-east-1")).isEmpty());
    }

    @Test
    void userAddWithASharedIndexStoresTheUserThereForEveryNode(@TempDir Path dir) throws Exception {
        String url = org.openxet.testing.PostgresServer.get().createDatabase("cli_users");
        Path yaml = dir.resolve("openxet.yaml");
        Files.writeString(yaml, "openxet:\n  index:\n    url: " + url + "\n");
        Run r = run("user", "add", "--data", dir.toString(), "--config", yaml.toString(), "--name", "dora",
                "--repos", "models/dora/*", "--write");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("hf_openxet_"), r.out());
        assertEquals("openxet user add: stored in the shared index; every node sharing it knows within 1 s", r.err());
        assertFalse(Files.exists(dir.resolve(org.openxet.service.Users.FILE)), "not in this data dir's users.json");
        try (org.openxet.storage.PostgresIndex index = new org.openxet.storage.PostgresIndex(url, 1)) {
            var user = new org.openxet.service.Users(dir, index.authStore()).authenticate(r.out());
            assertEquals("dora", user.name());
            assertTrue(user.allows("models/dora/x", Access.WRITE));
        }
        // The data dir of a node on that index: user add without the index's URL refuses to write a users.json.
        Path node = dir.resolve("node");
        Files.createDirectories(node);
        org.openxet.service.Services.open(org.openxet.service.ServerConfig.defaults(node)
                .withStorage(new org.openxet.service.ServerConfig.Storage(url, "", "", "us-east-1"))).close();
        Run forgot = run("user", "add", "--data", node.toString(), "--name", "eve", "--repos", "models/eve/*");
        assertEquals(2, forgot.exit());
        assertEquals("openxet user add: the server of " + node + " keeps its users and keys in its shared index, not in "
                + "users.json or keys.json: pass its --config, or set OPENXET_INDEX_URL as it has it", forgot.err());
        assertFalse(Files.exists(node.resolve(org.openxet.service.Users.FILE)));
        Files.writeString(yaml, "openxet:\n  index:\n    url: jdbc:postgresql://127.0.0.1:1/nowhere\n");
        Run down = run("user", "add", "--data", dir.toString(), "--config", yaml.toString(), "--name", "dora",
                "--repos", "models/dora/*");
        assertEquals(2, down.exit());
        assertTrue(down.err().startsWith("openxet user add: ") && !down.err().contains("\tat "), down.err());
    }

    @Test
    void gcPrintsOneJsonLineAndRefusesARunningServerAndSharedStorage(@TempDir Path dir) throws Exception {
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        Services.open(ServerConfig.defaults(data)).close(); // a data dir as a stopped server leaves it
        Run dry = run("gc", "--data", data.toString(), "--dry-run", "--older-than", "36h");
        assertEquals(0, dry.exit(), dry.err());
        JsonNode j = dry.json();
        assertEquals(0, j.get("unused_xorbs").asInt());
        assertEquals(0, j.get("removed").asInt());
        assertTrue(j.get("dry_run").asBoolean());
        assertTrue(java.time.Instant.parse(j.get("registered_before").asText()).isBefore(java.time.Instant.now().minusSeconds(35 * 3600)));
        assertFalse(Files.exists(data.resolve("RUNNING")), "gc ended cleanly");

        // After a crash, a dry run changes nothing either: the unregistered object and the crash's marker stay for the
        // real run, which removes the object first (as serve would).
        Files.writeString(data.resolve("RUNNING"), "12345");
        Path orphan = data.resolve("bucket/xorbs/default/ab/ab" + "0".repeat(62));
        Files.createDirectories(orphan.getParent());
        Files.write(orphan, new byte[]{1, 2, 3});
        assertEquals(0, run("gc", "--data", data.toString(), "--dry-run").exit());
        assertTrue(Files.exists(orphan), "a dry run removed an object");
        assertTrue(Files.exists(data.resolve("RUNNING")), "a dry run cleared the crash's marker");
        Run real = run("gc", "--data", data.toString());
        assertEquals(0, real.exit(), real.err());
        assertFalse(Files.exists(orphan), "the real run reconciles first");
        assertFalse(Files.exists(data.resolve("RUNNING")));

        try (DataDirLock held = DataDirLock.acquire(data)) {
            Run r = run("gc", "--data", data.toString());
            assertEquals(1, r.exit(), r.err());
            assertEquals("openxet gc: data dir " + data.toAbsolutePath() + " is in use by a running openxet server: stop it"
                    + " before gc", r.err());
        }
        Path yaml = dir.resolve("openxet.yaml");
        Files.writeString(yaml, "openxet:\n  bucket:\n    url: s3://elsewhere/cas\n");
        Run shared = run("gc", "--data", data.toString(), "--config", yaml.toString());
        assertEquals(2, shared.exit());
        assertTrue(shared.err().startsWith("openxet gc: an S3 bucket is collected only with the PostgreSQL index its"
                + " nodes share"), shared.err());
        Run badGrace = run("gc", "--data", data.toString(), "--older-than", "a week");
        assertEquals(2, badGrace.exit());
        assertEquals("openxet gc: --older-than 'a week' is not a duration (e.g. 36h, 7d, 30d)", badGrace.err());
        Run noData = run("gc", "--data", dir.resolve("elsewhere").toString());
        assertEquals(2, noData.exit());
        assertTrue(noData.err().contains("no such data directory"), noData.err());
        assertFalse(Files.exists(dir.resolve("elsewhere")));
    }

    @Test
    void gcOnASharedIndexRunsOnlyWhileNoNodeIsConnected(@TempDir Path dir) throws Exception {
        String url = org.openxet.testing.PostgresServer.get().createDatabase("gc_cli");
        ServerConfig.Storage storage = new ServerConfig.Storage(url, "", "", "us-east-1");
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        Path yaml = dir.resolve("openxet.yaml");
        Files.writeString(yaml, "openxet:\n  index:\n    url: " + url + "\n");
        // The node's services on the same data dir (so the same keys), without its lock: it stands for a node that
        // runs elsewhere with a copy of this data dir's secrets.
        try (Services node = Services.open(ServerConfig.defaults(data).withStorage(storage))) {
            Run refused = run("gc", "--data", data.toString(), "--config", yaml.toString());
            assertEquals(1, refused.exit(), refused.err());
            assertTrue(refused.err().startsWith("openxet gc: ") && refused.err().endsWith(": stop every node before gc")
                    && !refused.err().contains("\tat "), refused.err());
            assertTrue(refused.err().contains(" of running openxet nodes (from "), refused.err());
            assertFalse(Files.exists(data.resolve("RUNNING")), "a refused gc still ends cleanly");
        }
        Files.writeString(dir.resolve("down.yaml"), "openxet:\n  index:\n    url: jdbc:postgresql://127.0.0.1:1/nowhere\n");
        Run down = run("gc", "--data", data.toString(), "--config", dir.resolve("down.yaml").toString());
        assertEquals(2, down.exit());
        assertTrue(down.err().startsWith("openxet gc: cannot open PostgreSQL index at ") && !down.err().contains("\tat "),
                down.err());
        Run ran = run("gc", "--data", data.toString(), "--config", yaml.toString(), "--older-than", "0s");
        assertEquals(0, ran.exit(), ran.err());
        assertEquals(0, ran.json().get("unused_xorbs").asInt());
        assertFalse(ran.json().get("dry_run").asBoolean());
    }

    @Test
    void everySubcommandHasHelpAndOperatorMistakesAreOneLine(@TempDir Path dir) throws Exception {
        for (String[] help : new String[][]{{"serve", "--help"}, {"token", "--help"}, {"user", "add", "--help"},
                {"hash", "-h"}, {"xorb-info", "--help"}, {"shard-info", "--help"}, {"version", "--help"}, {"gc", "--help"}, {"help", "serve"}}) {
            Run r = run(help);
            assertEquals(0, r.exit(), String.join(" ", help) + ": " + r.err());
            assertTrue(r.out().startsWith("Usage: openxet "), String.join(" ", help) + ": " + r.out());
        }
        Run missing = run("hash", dir.resolve("nope").toString());
        assertEquals(2, missing.exit());
        assertEquals("openxet hash: no such file or directory: " + dir.resolve("nope"), missing.err());
        Run noData = run("token", "--data", dir.resolve("elsewhere").toString(), "--repo", "models/a/b", "--read");
        assertEquals(2, noData.exit());
        assertTrue(noData.err().contains("no such data directory"), noData.err());
        assertFalse(Files.exists(dir.resolve("elsewhere")), "no stray data dir with fresh keys");
        Run badTtl = run("token", "--data", dir.toString(), "--repo", "models/a/b", "--read", "--ttl", "1w");
        assertEquals(2, badTtl.exit());
        assertEquals("openxet token: --ttl '1w' is not a duration (e.g. 90s, 30m, 1h, 7d)", badTtl.err());
        Run tooLong = run("token", "--data", dir.toString(), "--repo", "models/a/b", "--read", "--ttl", "25h");
        assertEquals(2, tooLong.exit());
        assertEquals("openxet token: --ttl must be at most 24h (openxet.auth.max-lifetime)", tooLong.err());
        assertEquals(0, run("token", "--data", dir.toString(), "--repo", "models/a/b", "--read", "--ttl", "24h").exit());
        assertEquals(2, run("user", "add", "--data", dir.resolve("elsewhere").toString(), "--name", "a", "--repos", "*").exit());
    }

    @Test
    void serveWarnsWhenItListensBeyondLoopbackWithoutAPublicUrl(@TempDir Path dir) {
        ServerConfig wide = ServerConfig.defaults(dir);
        assertEquals("listening on 0.0.0.0 without public.url: casUrl and signed fetch URLs follow each request's Host"
                + " header; set public.url (--public-url) to the URL clients reach", ServeCommand.publicUrlWarning(wide).orElseThrow());
        assertTrue(ServeCommand.publicUrlWarning(wide.withPublicUrl("https://cas.example.org")).isEmpty());
        assertTrue(ServeCommand.publicUrlWarning(wide.withHost("127.0.0.1")).isEmpty());
        assertTrue(ServeCommand.publicUrlWarning(wide.withHost("::1")).isEmpty());
    }
}
