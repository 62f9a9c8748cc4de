package org.openxet.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleHash;
import org.openxet.service.Access;
import org.openxet.service.ReconstructionPlanner;
import org.openxet.service.SignedUrls;
import org.openxet.service.XorbIngest;
import org.openxet.storage.FileRecord;
import org.openxet.testing.TestServer;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Large answers over real HTTP: every answer's terms the bytes of the sequential rendering, its JSON whole, its
 * Content-Length exact (the client reads to it), its signed URLs good.
 */
class LargeAnswerTest {
    private static final String SCOPE = "user/large";

    /** The answer's bytes up to its xorbs section: the head and every term, which carry no signature or expiry. */
    private static byte[] termsPart(byte[] answer) {
        byte[] marker = "],\"xorbs\":{".getBytes(StandardCharsets.US_ASCII);
        byte[] v1Marker = "],\"fetch_info\":{".getBytes(StandardCharsets.US_ASCII);
        int at = indexOf(answer, marker);
        if (at < 0) at = indexOf(answer, v1Marker);
        assertTrue(at > 0, "no xorbs or fetch_info section");
        return Arrays.copyOf(answer, at);
    }

    private static int indexOf(byte[] b, byte[] m) {
        outer:
        for (int i = 0; i + m.length <= b.length; i++) {
            for (int k = 0; k < m.length; k++) {
                if (b[i + k] != m[k]) continue outer;
            }
            return i;
        }
        return -1;
    }

    private static byte[] get(TestServer s, String path, String token, String range) throws Exception {
        var request = s.request(path, token);
        if (range != null) request.header("Range", range);
        HttpResponse<byte[]> r = s.sendBytes(request.build());
        assertEquals(200, r.statusCode(), new String(r.body(), StandardCharsets.UTF_8));
        new ObjectMapper().readTree(r.body());
        return r.body();
    }

    @Test
    void aBatchAnswerIsBoundedByTheTermsItWouldHold() throws Exception {
        try (TestServer s = new TestServer()) {
            FileRecord file = LargeFileFixture.register(s.services().index(), SCOPE, 50, 256);
            String token = s.token(SCOPE, Access.READ);
            // The same 40,000-term file by its own route, and, past BatchPlan.MAX_TERMS, in a batch.
            get(s, "/v1/reconstructions/" + file.fileHash().hex(), token, null);
            HttpResponse<String> batch = s.get("/v1/reconstructions?file_id=" + file.fileHash().hex(), token);
            assertEquals(400, batch.statusCode());
            assertTrue(batch.body().contains("more than 32768 terms"), batch.body());
        }
    }

    @Test
    void largeAnswersCarryTheSequentialRenderingsTermsAndSignedUrlsThatFetch() throws Exception {
        try (TestServer s = new TestServer()) {
            FileRecord file = LargeFileFixture.register(s.services().index(), SCOPE, 50, 256);
            String token = s.token(SCOPE, Access.READ);
            String range = "bytes=12345-" + (file.size() - 54321);
            ReconstructionPlanner planner = new ReconstructionPlanner(s.services().index());
            SignedUrls urls = new SignedUrls(new byte[32], 3600, Clock.systemUTC());
            byte[][] expected = new byte[2][];
            String[] ranges = {null, range};
            for (int i = 0; i < 2; i++) {
                ReconstructionPlanner.Plan plan = planner.plan(file, RangeHeader.single(ranges[i]));
                assertTrue(AnswerLayout.large(plan));
                JsonBytes json = new JsonBytes(null, 1024);
                ReconstructionJson.writeV2(json, plan, new UrlSigner(urls, "http://h", SCOPE, urls.expiry()));
                expected[i] = termsPart(json.toByteArray());
            }
            String path = "/v2/reconstructions/" + file.fileHash().hex();
            // Each answer rendered anew, streamed by several threads: the full file twice, a range trimmed at both
            // ends, and the v1 answer's terms.
            assertArrayEquals(expected[0], termsPart(get(s, path, token, null)));
            byte[] answer = get(s, path, token, null);
            assertArrayEquals(expected[0], termsPart(answer));
            assertArrayEquals(expected[1], termsPart(get(s, path, token, range)));
            assertArrayEquals(expected[0], termsPart(get(s, "/v1/reconstructions/" + file.fileHash().hex(), token, null)));
            // A URL of the answer fetches: its signature and expiry verify. The fixture registered no xorb objects, so
            // store one (random bytes past any granted range) for the first xorb of the answer.
            JsonNode xorbs = new ObjectMapper().readTree(answer).get("xorbs");
            String xorb = xorbs.fieldNames().next();
            JsonNode entry = xorbs.get(xorb).get(0);
            JsonNode bytes = entry.get("ranges").get(0).get("bytes");
            long start = bytes.get("start").asLong();
            long end = bytes.get("end").asLong();
            byte[] object = new byte[1 << 20];
            new Random(5).nextBytes(object);
            s.services().bucket().put(XorbIngest.key(MerkleHash.parse(xorb)), object);
            HttpResponse<byte[]> fetched = s.sendBytes(HttpRequest.newBuilder(URI.create(entry.get("url").asText()))
                    .header("Range", "bytes=" + start + "-" + end).build());
            assertEquals(206, fetched.statusCode(), new String(fetched.body(), StandardCharsets.UTF_8));
            assertArrayEquals(Arrays.copyOfRange(object, (int) start, (int) end + 1), fetched.body());
        }
    }
}
