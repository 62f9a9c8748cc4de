package org.openxet.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.openxet.service.Access;
import org.openxet.testing.TestServer;
import org.openxet.testing.Vectors;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Older hf_xet releases' paths (the table in {@link ClientPaths}) upload and download through the same routes as the
 * current ones: a client's captured r3m upload sent as each generation sends it, then read back on each spelling.
 */
class ClientPathsTest {
    static final JsonNode R3M = Vectors.capture("single-r3m");
    static final String XORB = R3M.get("xorbs").get(0).get("xorb_hash").asText();
    static final String FILE = R3M.get("files").get(0).get("client_xet_hash").asText();
    static final String FIRST_CHUNK = R3M.get("xorbs").get(0).get("chunks").get(0).get("hash").asText();
    static final String SECOND_CHUNK = R3M.get("xorbs").get(0).get("chunks").get(1).get("hash").asText();
    static final ObjectMapper JSON = new ObjectMapper();

    static byte[] xorbBody() {
        return Vectors.bytes(R3M.get("xorbs").get(0).get("file").asText());
    }

    static byte[] shardBody() {
        return Vectors.bytes(R3M.get("shards").get(0).get("file").asText());
    }

    @Test
    void hfXet10To119UploadsWithSingularPathsAndAShardPutAndReadsThemBack() throws Exception {
        try (TestServer s = new TestServer()) {
            String write = s.writeToken();
            assertEquals(404, head(s, "/xorb/default/" + XORB, write).statusCode());
            HttpResponse<String> xorb = s.post("/xorb/default/" + XORB, write, xorbBody());
            assertEquals(200, xorb.statusCode());
            assertEquals("{\"was_inserted\":true}", xorb.body());
            assertEquals(200, head(s, "/xorb/default/" + XORB, write).statusCode());
            // The path's hash is the shard's; the route reads the body alone, as /v1/shards does.
            HttpResponse<String> shard = s.send(s.request("/shard/default-merkledb/" + R3M.get("shards").get(0)
                    .get("sha256").asText(), write).PUT(HttpRequest.BodyPublishers.ofByteArray(shardBody())).build());
            assertEquals(200, shard.statusCode(), shard.body());
            assertEquals("{\"result\":1}", shard.body());
            assertEquals("{\"result\":0}", s.post("/shard/default-merkledb/" + XORB, write, shardBody()).body());

            String read = s.token("user/repo", Access.READ);
            assertSameReconstruction(s.get("/v1/reconstructions/" + FILE, read), s.get("/reconstruction/" + FILE, read));
            assertSameDedupAnswer(s, "/chunk/default-merkledb/", read);
            assertSameBatch(s, "/reconstructions?file_id=" + FILE, read);
        }
    }

    @Test
    void hfXet1110To12UploadsWithPluralPathsAndReadsThemBack() throws Exception {
        try (TestServer s = new TestServer()) {
            String write = s.writeToken();
            assertEquals("{\"was_inserted\":true}", s.post("/xorbs/default/" + XORB, write, xorbBody()).body());
            assertEquals(200, head(s, "/xorbs/default/" + XORB, write).statusCode());
            assertEquals("{\"result\":1}", s.post("/shards", write, shardBody()).body());

            String read = s.token("user/repo", Access.READ);
            assertSameReconstruction(s.get("/v1/reconstructions/" + FILE, read), s.get("/reconstructions/" + FILE, read));
            assertSameDedupAnswer(s, "/chunks/default/", read);
            assertSameBatch(s, "/reconstructions?file_id=" + FILE, read);
        }
    }

    /** hf_xet 1.3.0 to 1.5.1: /v1/ for xorbs and reconstructions, but the shard still goes to /shards. */
    @Test
    void hfXet13To151CommitsItsShardThroughUnversionedShards() throws Exception {
        try (TestServer s = new TestServer()) {
            String write = s.writeToken();
            assertEquals(200, s.post("/v1/xorbs/default/" + XORB, write, xorbBody()).statusCode());
            assertEquals("{\"result\":1}", s.post("/shards", write, shardBody()).body());
            assertEquals(200, s.get("/v1/reconstructions/" + FILE, s.token("user/repo", Access.READ)).statusCode());
        }
    }

    /** The older spellings keep the current routes' guards and refusals, and store nothing when they refuse. */
    @Test
    void olderPathsRefuseAsTheCurrentOnesDo() throws Exception {
        try (TestServer s = new TestServer()) {
            Map<String, Long> before = s.storedCounts();
            String read = s.token("user/repo", Access.READ);
            assertEquals(403, s.post("/shards", read, shardBody()).statusCode());
            assertEquals(403, s.post("/xorb/default/" + XORB, read, xorbBody()).statusCode());
            assertEquals(401, s.post("/xorbs/default/" + XORB, null, xorbBody()).statusCode());
            HttpResponse<String> wrongHash = s.post("/xorbs/default/" + FIRST_CHUNK, s.writeToken(), xorbBody());
            assertEquals(400, wrongHash.statusCode());
            assertEquals(before, s.storedCounts());
            assertEquals(404, s.get("/reconstruction/" + FILE, read).statusCode());
            assertEquals(404, s.get("/reconstructions/" + FILE, read).statusCode());
            // Still no route for shapes no client sends: a JSON 404, not a 405.
            assertEquals(404, s.get("/shards", read).statusCode());
        }
    }

    static HttpResponse<String> head(TestServer s, String path, String token) throws Exception {
        return s.send(s.request(path, token).method("HEAD", HttpRequest.BodyPublishers.noBody()).build());
    }

    /** The same answer but for the signed URLs, which are signed per request. */
    static void assertSameReconstruction(HttpResponse<String> current, HttpResponse<String> older) throws Exception {
        assertEquals(200, current.statusCode(), current.body());
        assertEquals(200, older.statusCode(), older.body());
        assertEquals(withoutUrls(JSON.readTree(current.body())), withoutUrls(JSON.readTree(older.body())));
        assertEquals(1, JSON.readTree(older.body()).get("terms").size());
    }

    static void assertSameDedupAnswer(TestServer s, String olderPrefix, String read) throws Exception {
        HttpResponse<byte[]> current = s.sendBytes(s.request("/v1/chunks/default/" + FIRST_CHUNK, read).GET().build());
        HttpResponse<byte[]> older = s.sendBytes(s.request(olderPrefix + FIRST_CHUNK, read).GET().build());
        assertEquals(200, current.statusCode());
        assertEquals(200, older.statusCode());
        assertEquals(current.body().length, older.body().length);
        assertNotEquals(0, older.body().length);
        assertEquals(404, s.get(olderPrefix + SECOND_CHUNK, read).statusCode());
    }

    static void assertSameBatch(TestServer s, String olderPath, String read) throws Exception {
        HttpResponse<String> current = s.get("/v1/reconstructions?file_id=" + FILE, read);
        HttpResponse<String> older = s.get(olderPath, read);
        assertEquals(200, current.statusCode(), current.body());
        assertEquals(200, older.statusCode(), older.body());
        JsonNode answer = withoutUrls(JSON.readTree(older.body()));
        assertEquals(withoutUrls(JSON.readTree(current.body())), answer);
        assertEquals(1, answer.get("files").get(FILE).size());
    }

    private static JsonNode withoutUrls(JsonNode answer) {
        answer.get("fetch_info").forEach(entries -> entries.forEach(e -> ((ObjectNode) e).remove("url")));
        return answer;
    }
}
