package org.openxet.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.shard.Shard;
import org.openxet.protocol.shard.ShardParser;
import org.openxet.service.Access;
import org.openxet.service.XorbIngest;
import org.openxet.testing.LogCapture;
import org.openxet.testing.MiniClient;
import org.openxet.testing.S3Server;
import org.openxet.testing.TestServer;
import org.openxet.testing.Vectors;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A real server whose blobs live in S3 (s3proxy over loopback): both paths end to end, and an outage of the store. */
class S3BucketServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void uploadsDownloadsAndDedupAnswersWorkWithTheBlobsInS3() throws Exception {
        S3Server s3 = S3Server.shared();
        String bucket = s3.createBucket();
        try (TestServer s = new TestServer(c -> c.withStorage(s3.storage("s3://" + bucket + "/cas")))) {
            UploadPathTest.uploadScenario(s, "single-r3m", s.writeToken());
            JsonNode capture = Vectors.capture("single-r3m");
            String xorb = capture.get("xorbs").get(0).get("xorb_hash").asText();
            String shard = s.services().bucket().list("shards").getFirst();
            // Beside the shard and the xorb, the shard's registration record (S3 cannot append: one object each).
            String record = s.services().bucket().list("registrations").getFirst();
            assertEquals(List.of("cas/" + record, "cas/" + shard, "cas/" + XorbIngest.key(MerkleHash.of(xorb))),
                    s3.client().listObjectsV2(b -> b.bucket(bucket)).contents().stream().map(S3Object::key).sorted().toList());
            assertFalse(Files.exists(s.dataDir().resolve("bucket")), "nothing stored in the data dir");

            JsonNode file = capture.get("files").get(0);
            byte[] input = Vectors.inputBytes(file.get("input").asText());
            MiniClient client = new MiniClient(s, s.token("user/repo", Access.READ));
            assertArrayEquals(input, client.download(2, file.get("client_xet_hash").asText(), null));
            assertArrayEquals(MiniClient.range(input, 70_000, 1_500_000),
                    client.download(2, file.get("client_xet_hash").asText(), "bytes=70000-1500000"));
            // Every signed URL of the answer serves exactly the stored object's bytes of each of its ranges.
            byte[] stored = s3.client().getObjectAsBytes(b -> b.bucket(bucket).key("cas/" + XorbIngest.key(MerkleHash.of(xorb))))
                    .asByteArray();
            MiniClient.Answer answer = client.reconstruction(2, file.get("client_xet_hash").asText(), null);
            int fetched = 0;
            for (JsonNode entry : answer.json().get("xorbs").get(xorb)) {
                for (JsonNode r : entry.get("ranges")) {
                    long start = r.get("bytes").get("start").asLong();
                    long end = r.get("bytes").get("end").asLong();
                    assertArrayEquals(MiniClient.range(stored, start, end), client.fetch(entry.get("url").asText(), r.get("bytes")));
                    fetched++;
                }
            }
            assertTrue(fetched > 0);

            String firstChunk = capture.get("xorbs").get(0).get("chunks").get(0).get("hash").asText();
            HttpResponse<byte[]> dedup = s.sendBytes(s.request("/v1/chunks/default/" + firstChunk,
                    s.token("other/repo", Access.READ)).GET().build());
            assertEquals(200, dedup.statusCode());
            Shard answerShard = ShardParser.parse(dedup.body());
            assertEquals(xorb, answerShard.xorbs().getFirst().xorbHash().hex());
        }
    }

    /**
     * With the store gone, an upload gets a 503 with Retry-After (which the clients retry and load balancers route
     * around) in the server's JSON error form, logged as one line, and leaves no index row behind; a fetch gets the
     * same 503; reconstructions, answered from the index alone, still work.
     */
    @Test
    void aStoreOutageAnswersRetryable5xxAndRegistersNothing() throws Exception {
        try (S3Server own = S3Server.start()) {
            String bucket = own.createBucket();
            try (TestServer s = new TestServer(c -> c.withStorage(own.storage("s3://" + bucket)))) {
                String write = s.writeToken();
                UploadPathTest.uploadScenario(s, "single-r1m", write);
                String fileId = Vectors.capture("single-r1m").get("files").get(0).get("client_xet_hash").asText();
                MiniClient client = new MiniClient(s, s.token("user/repo", Access.READ));
                JsonNode entry = client.reconstruction(2, fileId, null).json().get("xorbs").fields().next().getValue().get(0);

                own.close();

                JsonNode x = Vectors.capture("single-r3m").get("xorbs").get(0);
                try (LogCapture log = new LogCapture()) {
                    HttpResponse<String> upload = s.post("/v1/xorbs/default/" + x.get("xorb_hash").asText(), write,
                            Vectors.bytes(x.get("file").asText()));
                    assertEquals(503, upload.statusCode(), upload.body());
                    assertEquals("storage_unavailable", JSON.readTree(upload.body()).get("error").asText(), upload.body());
                    assertEquals("10", upload.headers().firstValue("retry-after").orElse(null));
                    assertFalse(s.services().index().hasXorb(MerkleHash.of(x.get("xorb_hash").asText())));
                    assertEquals(1L, s.services().index().scans().rowCounts().get("xorbs"));

                    HttpResponse<String> fetch = s.send(HttpRequest.newBuilder(URI.create(entry.get("url").asText())).GET().build());
                    assertEquals(503, fetch.statusCode(), fetch.body());
                    assertEquals("the server's object store is unavailable; retry later",
                            JSON.readTree(fetch.body()).get("message").asText());
                    assertEquals(200, client.reconstruction(2, fileId, null).status());
                    List<String> lines = log.warnings();
                    assertEquals(2, lines.size(), lines.toString());
                    assertTrue(lines.stream().allMatch(l -> l.contains("-> 503 storage_unavailable: ")
                            && l.contains("S3 bucket")), lines.toString());
                    assertEquals(0, log.withStacks("org.openxet"));
                }
            }
        }
    }
}
