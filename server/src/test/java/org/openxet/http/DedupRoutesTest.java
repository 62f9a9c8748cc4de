package org.openxet.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.shard.Shard;
import org.openxet.protocol.shard.ShardParser;
import org.openxet.protocol.shard.XorbChunkEntry;
import org.openxet.service.Access;
import org.openxet.service.Users;
import org.openxet.testing.TestServer;
import org.openxet.testing.Vectors;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Global dedup answers (§4.8, §5.7) and the scope-isolation switch; the token routes are in TokenRoutesTest. */
class DedupRoutesTest {
    static final JsonNode R3M = Vectors.capture("single-r3m");
    static final String R3M_XORB = R3M.get("xorbs").get(0).get("xorb_hash").asText();
    static final String FIRST_CHUNK = R3M.get("xorbs").get(0).get("chunks").get(0).get("hash").asText();

    @Test
    void aDedupHitAnswersAKeyedShardTheClientCanUse() throws Exception {
        try (TestServer s = new TestServer()) {
            UploadPathTest.uploadScenario(s, "single-r3m", s.writeToken());
            String read = s.token("other/repo", Access.READ);
            HttpResponse<byte[]> r = s.sendBytes(s.request("/v1/chunks/default/" + FIRST_CHUNK, read).GET().build());
            assertEquals(200, r.statusCode());
            assertEquals("application/octet-stream", r.headers().firstValue("content-type").orElseThrow());
            Shard shard = ShardParser.parse(r.body());
            assertTrue(shard.files().isEmpty());
            assertEquals(1, shard.xorbs().size());
            assertEquals(R3M_XORB, shard.xorbs().get(0).xorbHash().hex());
            assertEquals(51 + 6, shard.xorbs().get(0).chunks().size());
            byte[] key = s.services().secrets().dedupKey();
            assertEquals(MerkleHash.fromBytes(key), shard.footer().chunkHashHmacKey());
            XorbChunkEntry first = shard.xorbs().get(0).chunks().get(0);
            assertEquals(XetHashes.keyedChunkHash(key, MerkleHash.of(FIRST_CHUNK)), first.chunkHash());
            assertEquals(0, first.byteRangeStart());
            // The JS client reads xorbs up to file_lookup_offset: it must be the end of the xorb section, never 0.
            assertEquals(shard.xorbSectionEnd(), shard.footer().fileLookupOffset());
            assertEquals(r.body().length - 200, shard.footer().footerOffset());
            assertTrue(shard.footer().shardKeyExpiry() > shard.footer().shardCreationTimestamp());
            // The prefix of the spec works too; a miss is a 404; a bad hash a 400.
            assertEquals(200, s.sendBytes(s.request("/v1/chunks/default-merkledb/" + FIRST_CHUNK, read).GET().build()).statusCode());
            assertEquals(404, s.get("/v1/chunks/default/" + R3M.get("xorbs").get(0).get("chunks").get(1).get("hash").asText(), read).statusCode());
            assertEquals(400, s.get("/v1/chunks/default/xyz", read).statusCode());
            assertEquals(401, s.get("/v1/chunks/default/" + FIRST_CHUNK, null).statusCode());
        }
    }

    @Test
    void withIsolationOnlyTheUploadingScopeGetsDedupAnswers() throws Exception {
        try (TestServer s = new TestServer(c -> c.withDedupIsolate(true))) {
            UploadPathTest.uploadScenario(s, "single-r3m", s.writeToken());
            assertEquals(200, s.get("/v1/chunks/default/" + FIRST_CHUNK, s.token("user/repo", Access.READ)).statusCode());
            HttpResponse<String> other = s.get("/v1/chunks/default/" + FIRST_CHUNK, s.token("other/repo", Access.READ));
            assertEquals(404, other.statusCode());
            assertTrue(other.body().startsWith("{\"error\":\"not_found\""));
            // Nor does HEAD on the xorb tell another scope that the content is here.
            HttpRequest.Builder head = s.request("/v1/xorbs/default/" + R3M_XORB, s.token("user/repo", Access.READ))
                    .method("HEAD", HttpRequest.BodyPublishers.noBody());
            assertEquals(200, s.send(head.build()).statusCode());
            assertEquals(404, s.send(s.request("/v1/xorbs/default/" + R3M_XORB, s.token("other/repo", Access.READ))
                    .method("HEAD", HttpRequest.BodyPublishers.noBody()).build()).statusCode());
        }
        // Without isolation any reader may ask (the content-addressed default, as for dedup).
        try (TestServer s = new TestServer()) {
            UploadPathTest.uploadScenario(s, "single-r3m", s.writeToken());
            assertEquals(200, s.send(s.request("/v1/xorbs/default/" + R3M_XORB, s.token("other/repo", Access.READ))
                    .method("HEAD", HttpRequest.BodyPublishers.noBody()).build()).statusCode());
        }
    }

    @Test
    void theEditedFileDedupsAgainstItsBase() throws Exception {
        // edit-after-base: the JS client got a dedup hit for the edited file's first chunk and only uploaded one xorb.
        try (TestServer s = new TestServer()) {
            String write = s.writeToken();
            UploadPathTest.uploadScenario(s, "single-r3m", write);
            JsonNode edit = Vectors.capture("edit-after-base");
            String queried = edit.get("requests").get(0).get("path").asText();
            assertEquals(200, s.sendBytes(s.request(queried, write).GET().build()).statusCode());
            UploadPathTest.uploadScenario(s, "edit-after-base", write);
        }
    }
}
