package org.openxet.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleHash;
import org.openxet.service.Access;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;
import org.openxet.service.Users;
import org.openxet.storage.OnlineCollection;
import org.openxet.testing.LogCapture;
import org.openxet.testing.MiniClient;
import org.openxet.testing.PostgresServer;
import org.openxet.testing.TestServer;
import org.openxet.testing.Vectors;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two real servers ({@code index.url} set) on one PostgreSQL database, each with its own data dir: what one node
 * registers, the other plans reconstructions from and knows as already uploaded. (Each node still has its own local
 * bucket, so only the node that stored the xorb can serve its bytes.)
 */
class SharedPostgresIndexTest {
    static final String SCENARIO = "single-r1m";

    @Test
    void aSecondNodeAnswersFromTheIndexTheFirstNodeWrote() throws Exception {
        String url = PostgresServer.get().createDatabase("shared_index");
        ServerConfig.Storage storage = new ServerConfig.Storage(url, "", "", "us-east-1");
        JsonNode capture = Vectors.capture(SCENARIO);
        JsonNode file = capture.get("files").get(0);
        String fileId = file.get("client_xet_hash").asText();
        byte[] content = Vectors.inputBytes(file.get("input").asText());
        try (TestServer first = new TestServer(c -> c.withStorage(storage));
             TestServer second = new TestServer(c -> c.withStorage(storage), first)) {
            UploadPathTest.uploadScenario(first, SCENARIO, first.writeToken());
            MiniClient firstReader = new MiniClient(first, first.token("user/repo", Access.READ));
            for (int version : new int[]{1, 2}) {
                assertArrayEquals(content, firstReader.download(version, fileId, null), "v" + version);
                assertArrayEquals(MiniClient.range(content, 1000, 300_000),
                        firstReader.download(version, fileId, "bytes=1000-300000"), "v" + version + " range");
            }

            MiniClient secondReader = new MiniClient(second, second.token("user/repo", Access.READ));
            for (int version : new int[]{1, 2}) {
                for (String range : new String[]{null, "bytes=1000-300000"}) {
                    MiniClient.Answer there = firstReader.reconstruction(version, fileId, range);
                    MiniClient.Answer here = secondReader.reconstruction(version, fileId, range);
                    assertEquals(200, here.status(), here.body());
                    assertEquals(there.json().get("terms"), here.json().get("terms"), "v" + version + " " + range);
                    assertEquals(there.json().get("offset_into_first_range"), here.json().get("offset_into_first_range"));
                }
            }
            assertEquals(404, new MiniClient(second, second.token("other/repo", Access.READ))
                    .reconstruction(2, fileId, null).status(), "scopes are shared too");

            // The second node knows the uploads: repeats are no-ops there as well.
            String write = second.writeToken();
            for (JsonNode x : capture.get("xorbs")) {
                HttpResponse<String> r = second.post("/v1/xorbs/default/" + x.get("xorb_hash").asText(), write,
                        Vectors.bytes(x.get("file").asText()));
                assertEquals("{\"was_inserted\":false}", r.body());
            }
            for (JsonNode s : capture.get("shards")) {
                assertEquals("{\"result\":0}", second.post("/v1/shards", write, Vectors.bytes(s.get("file").asText())).body());
            }
            assertEquals(first.services().index().scans().rowCounts(), second.services().index().scans().rowCounts());
            assertEquals(1L, second.services().index().scans().rowCounts().get("shards"));

            // A token one node mints is good on the other: they hold the same keys.
            assertEquals(200, new MiniClient(second, first.token("user/repo", Access.READ)).reconstruction(2, fileId, null).status());
        }
    }

    /**
     * The users of the token routes live in the shared index: one imported from a node's users.json at its start, and
     * one added later through another node, both get tokens from every node.
     */
    @Test
    void usersAreSharedByEveryNodeOfTheIndex() throws Exception {
        String url = PostgresServer.get().createDatabase("shared_users");
        ServerConfig.Storage storage = new ServerConfig.Storage(url, "", "", "us-east-1");
        Path legacy = Files.createTempDirectory("openxet-legacy");
        // A node that kept its users in its users.json before its index was shared.
        String alice = new Users(legacy).add("alice", List.of("models/alice/*"), Access.WRITE);
        Services.open(ServerConfig.defaults(legacy).withStorage(storage)).close();
        try (TestServer first = new TestServer(c -> c.withStorage(storage), legacy);
             TestServer second = new TestServer(c -> c.withStorage(storage), legacy)) {
            for (TestServer node : List.of(first, second)) {
                assertEquals(200, node.get("/api/models/alice/x/xet-write-token/main", alice).statusCode());
            }
            // Added as `openxet user add` does with an index.url: in another process, so no node's copy knows it yet.
            String bob = new Users(first.dataDir(), first.services().index().shared().orElseThrow().authStore()).add("bob", List.of("models/bob/*"), Access.READ);
            assertFalse(Files.exists(first.dataDir().resolve(Users.FILE)), "a shared index keeps the user, not the node");
            for (TestServer node : List.of(first, second)) {
                // An unknown token re-reads the users (at most every 100 ms): the new user works at once, or nearly.
                assertEquals(200, eventually200(node, "/api/models/bob/x/xet-read-token/main", bob, Duration.ofSeconds(2)));
                assertEquals(403, node.get("/api/models/bob/x/xet-write-token/main", bob).statusCode());
            }
            // Replacing a user (a new token) retires the old one on every node.
            String alice2 = new Users(second.dataDir(), second.services().index().shared().orElseThrow().authStore()).add("alice", List.of("models/alice/*"), Access.WRITE);
            Thread.sleep(Users.REFRESH.toMillis() + 200);
            for (TestServer node : List.of(first, second)) {
                assertEquals(401, node.get("/api/models/alice/x/xet-write-token/main", alice).statusCode());
                assertEquals(200, node.get("/api/models/alice/x/xet-write-token/main", alice2).statusCode());
            }
            // A restart of the legacy node imports nothing over the newer alice.
            Services.open(ServerConfig.defaults(legacy).withStorage(storage)).close();
            Thread.sleep(Users.REFRESH.toMillis() + 200);
            assertEquals(401, first.get("/api/models/alice/x/xet-write-token/main", alice).statusCode());
        }
    }

    /** The status of {@code path}, asked again for up to {@code wait} while it is not 200. */
    private static int eventually200(TestServer node, String path, String token, Duration wait) throws Exception {
        long deadline = System.nanoTime() + wait.toNanos();
        int status;
        while ((status = node.get(path, token).statusCode()) != 200 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        return status;
    }

    /**
     * The index's database goes away: a request that needs it gets a 503 with Retry-After (clients retry it, load
     * balancers route around it) and one WARNING line without a stack, not a 500; once the database is back the node
     * answers again by itself.
     */
    @Test
    void anIndexOutageAnswers503UntilTheDatabaseIsBack() throws Exception {
        String url = PostgresServer.get().createDatabase("outage_http");
        ServerConfig.Storage storage = new ServerConfig.Storage(url, "", "", "us-east-1");
        String fileId = Vectors.capture(SCENARIO).get("files").get(0).get("client_xet_hash").asText();
        try (TestServer node = new TestServer(c -> c.withStorage(storage))) {
            UploadPathTest.uploadScenario(node, SCENARIO, node.writeToken());
            String read = node.token("user/repo", Access.READ);
            String path = "/v2/reconstructions/" + fileId;
            assertEquals(200, node.get(path, read).statusCode());
            try (LogCapture log = new LogCapture()) {
                try (PostgresServer.Outage outage = PostgresServer.get().outage(PostgresServer.databaseOf(url))) {
                    HttpResponse<String> down = node.get(path, read);
                    assertEquals(503, down.statusCode(), down.body());
                    assertEquals("{\"error\":\"storage_unavailable\",\"message\":\"the server's index is unavailable; retry "
                            + "later\"}", down.body());
                    assertEquals("10", down.headers().firstValue("retry-after").orElse(null));
                }
                assertTrue(log.warnings().stream().anyMatch(l -> l.contains("GET " + path + " -> 503 storage_unavailable: ")),
                        log.warnings().toString());
                assertEquals(0, log.withStacks("org.openxet"), log.messages().toString());
            }
            assertEquals(200, eventually200(node, path, read, Duration.ofSeconds(20)));
        }
    }

    /**
     * Every connection of the index busy (an overloaded node, not a lost database): an upload that waited the pool's
     * timeout for one gets 503 busy with Retry-After, logged as a refusal rather than as an index outage, and nothing
     * is stored; once connections are free the same upload is stored.
     */
    @Test
    void anUploadThatFindsEveryIndexConnectionInUseIsRefusedAsBusyNotAsAnOutage() throws Exception {
        String url = PostgresServer.get().createDatabase("pool_busy");
        ServerConfig.Storage storage = new ServerConfig.Storage(url, "", "", "us-east-1");
        JsonNode xorb = Vectors.capture(SCENARIO).get("xorbs").get(0);
        String path = "/v1/xorbs/default/" + xorb.get("xorb_hash").asText();
        byte[] body = Vectors.bytes(xorb.get("file").asText());
        try (TestServer node = new TestServer(c -> c.withStorage(storage))) {
            OnlineCollection locks = node.services().index().shared().orElseThrow().onlineCollection();
            List<OnlineCollection.UploadLock> held = new ArrayList<>();
            try (LogCapture log = new LogCapture()) {
                // Uploads of other xorbs in flight, one per connection of the pool (index.readers + 1).
                for (int i = 0; i <= node.services().config().indexReaders(); i++) {
                    held.add(locks.lockForUpload(MerkleHash.of(String.format("%064x", i + 1))));
                }
                HttpResponse<String> refused = node.post(path, node.writeToken(), body);
                assertEquals(503, refused.statusCode(), refused.body());
                assertEquals("{\"error\":\"busy\",\"message\":\"the server's index connections were all in use; retry "
                        + "later\"}", refused.body());
                assertEquals("10", refused.headers().firstValue("retry-after").orElse(null));
                assertEquals(List.of(), log.warnings());
                assertTrue(log.messages().stream().anyMatch(l -> l.contains("POST " + path + " -> 503 busy: ")),
                        log.messages().toString());
                assertEquals(0, log.withStacks("org.openxet"), log.messages().toString());
            } finally {
                for (OnlineCollection.UploadLock lock : held) lock.close();
            }
            assertFalse(node.services().index().hasXorb(MerkleHash.of(xorb.get("xorb_hash").asText())));
            HttpResponse<String> stored = node.post(path, node.writeToken(), body);
            assertEquals(200, stored.statusCode(), stored.body());
            assertEquals("{\"was_inserted\":true}", stored.body());
        }
    }

    /** A node started with keys of its own would refuse its peers' tokens and URLs: it does not start at all. */
    @Test
    void aNodeWithOtherKeysThanItsPeersRefusesToStart() throws Exception {
        String url = PostgresServer.get().createDatabase("shared_keys");
        ServerConfig.Storage storage = new ServerConfig.Storage(url, "", "", "us-east-1");
        try (TestServer first = new TestServer(c -> c.withStorage(storage))) {
            Path stranger = Files.createTempDirectory("openxet-stranger");
            Services.KeysDiffer e = assertThrows(Services.KeysDiffer.class,
                    () -> Services.open(ServerConfig.defaults(stranger).withStorage(storage)));
            assertEquals("the token and URL keys in " + stranger.resolve("secrets.properties") + " differ from those of "
                    + "the other nodes sharing this index, which would refuse this node's tokens and signed URLs: copy "
                    + "secrets.properties from a node of the index (docs/DESIGN.md, \"PostgreSQL index\")", e.getMessage());
            // The keys the first node recorded stay: a restart of that node is fine, and so is a node with a copy.
            Files.copy(first.dataDir().resolve("secrets.properties"), stranger.resolve("secrets.properties"),
                    StandardCopyOption.REPLACE_EXISTING);
            Services.open(ServerConfig.defaults(stranger).withStorage(storage)).close();
        }
    }
}
