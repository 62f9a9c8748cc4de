package org.openxet.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.xorb.XorbValidator;
import org.openxet.service.XorbIngest;
import org.openxet.testing.TestServer;
import org.openxet.testing.Vectors;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every captured client upload, over real HTTP on loopback into a real SQLite index and local bucket. */
class UploadPathTest {
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    /** Singles first: edit-after-base's shard refers to the xorb of single-r3m. */
    static List<String> scenariosInUploadOrder() {
        List<String> out = new ArrayList<>(Vectors.scenarioNames().stream().filter(s -> s.startsWith("single-")).toList());
        Vectors.scenarioNames().stream().filter(s -> !s.startsWith("single-")).forEach(out::add);
        return out;
    }

    static void uploadScenario(TestServer s, String scenario, String token) throws Exception {
        s.uploadScenario(scenario, token);
    }

    @Test
    void everyCapturedClientUploadIsAcceptedAndRepeatsAreIdempotent() throws Exception {
        String token = server.writeToken();
        for (String scenario : scenariosInUploadOrder()) {
            JsonNode capture = Vectors.capture(scenario);
            uploadScenario(server, scenario, token);
            Map<String, Long> before = server.storedCounts();
            for (JsonNode x : capture.get("xorbs")) {
                String path = "/v1/xorbs/default/" + x.get("xorb_hash").asText();
                HttpResponse<String> again = server.post(path, token, Vectors.bytes(x.get("file").asText()));
                assertEquals(200, again.statusCode());
                assertEquals("{\"was_inserted\":false}", again.body());
                HttpResponse<String> head = server.send(server.request(path, token)
                        .method("HEAD", HttpRequest.BodyPublishers.noBody()).build());
                assertEquals(200, head.statusCode());
                long stored = server.services().bucket().size(XorbIngest.key(MerkleHash.of(x.get("xorb_hash").asText()))).orElseThrow();
                assertEquals(Long.toString(stored), head.headers().firstValue("content-length").orElseThrow());
                // The stored object is chunks + a footer that validates to the same hash.
                byte[] object = server.services().bucket().read(XorbIngest.key(MerkleHash.of(x.get("xorb_hash").asText())));
                try (XorbValidator v = new XorbValidator()) {
                    assertEquals(x.get("xorb_hash").asText(), v.validateStored(object, object.length, null).hash().hex());
                }
            }
            for (JsonNode sh : capture.get("shards")) {
                HttpResponse<String> again = server.post("/v1/shards", token, Vectors.bytes(sh.get("file").asText()));
                assertEquals("{\"result\":0}", again.body(), scenario);
            }
            assertEquals(before, server.storedCounts(), scenario + ": repeats must store nothing new");
            for (JsonNode f : capture.get("files")) {
                MerkleHash file = MerkleHash.of(f.get("client_xet_hash").asText());
                assertTrue(server.services().index().file(file, "user/repo").isPresent(), scenario);
                assertEquals(f.get("size").asLong(), server.services().index().file(file, "user/repo").get().size());
            }
        }
        HttpResponse<String> unknown = server.send(server.request("/v1/xorbs/default/" + MerkleHash.ZERO.hex(), token)
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build());
        assertEquals(404, unknown.statusCode());
    }

    @Test
    void v2ShardUploadStreamsProgressFramesEndingInResult() throws Exception {
        try (TestServer s = new TestServer()) {
            String token = s.writeToken();
            JsonNode capture = Vectors.capture("single-r1m");
            JsonNode x = capture.get("xorbs").get(0);
            assertEquals(200, s.post("/v1/xorbs/default/" + x.get("xorb_hash").asText(), token,
                    Vectors.bytes(x.get("file").asText())).statusCode());
            HttpResponse<String> r = s.post("/v2/shards", token, Vectors.bytes(capture.get("shards").get(0).get("file").asText()));
            assertEquals(200, r.statusCode());
            assertEquals("application/x-ndjson", r.headers().firstValue("content-type").orElseThrow());
            String[] lines = r.body().strip().split("\n");
            assertEquals("{\"type\":\"validating\",\"verified\":0,\"total\":1}", lines[0]);
            assertEquals("{\"type\":\"validating\",\"verified\":1,\"total\":1}", lines[1]);
            assertEquals("{\"type\":\"committing\",\"stage\":\"uploading\"}", lines[2]);
            assertEquals("{\"type\":\"committing\",\"stage\":\"syncing\"}", lines[3]);
            assertEquals("{\"type\":\"result\"}", lines[lines.length - 1]);
        }
    }

    @Test
    void concurrentUploadsOfOneXorbBothSucceedAndStoreOneObject() throws Exception {
        try (TestServer s = new TestServer()) {
            String token = s.writeToken();
            JsonNode x = Vectors.capture("single-r3m").get("xorbs").get(0);
            byte[] body = Vectors.bytes(x.get("file").asText());
            String path = "/v1/xorbs/default/" + x.get("xorb_hash").asText();
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<HttpResponse<String>>> results = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    results.add(pool.submit(() -> s.post(path, token, body)));
                }
                int inserted = 0;
                for (Future<HttpResponse<String>> f : results) {
                    assertEquals(200, f.get().statusCode());
                    if (f.get().body().contains("true")) inserted++;
                }
                assertEquals(1, inserted);
            }
            assertEquals(1, s.services().bucket().list("xorbs").size());
            assertEquals(1L, s.services().index().scans().rowCounts().get("xorbs"));
        }
    }

    @Test
    void theShardHashIsTheBodyHash() throws Exception {
        byte[] shard = Vectors.bytes("scenarios/single-empty/shard-0.bin");
        try (TestServer s = new TestServer()) {
            assertEquals(200, s.post("/v1/shards", s.writeToken(), shard).statusCode());
            assertEquals(List.of("shards/" + XetHashes.chunkHash(shard, 0, shard.length).hex()), s.services().bucket().list("shards"));
        }
    }
}
