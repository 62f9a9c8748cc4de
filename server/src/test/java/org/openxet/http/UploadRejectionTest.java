package org.openxet.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.shard.FileEntry;
import org.openxet.protocol.shard.FileTerm;
import org.openxet.protocol.shard.Shard;
import org.openxet.protocol.shard.ShardParser;
import org.openxet.protocol.shard.ShardWriter;
import org.openxet.service.Access;
import org.openxet.service.Tokens;
import org.openxet.testing.DiskFull;
import org.openxet.testing.LogCapture;
import org.openxet.testing.TestServer;
import org.openxet.testing.Vectors;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The upload rows of §5.10: each bad request gets its status and a JSON error body, and afterwards the bucket objects
 * and index rows are exactly what they were.
 */
class UploadRejectionTest {
    static TestServer server;
    static String write;
    Map<String, Long> before;

    static final JsonNode R1M = Vectors.capture("single-r1m");
    static final String R1M_HASH = R1M.get("xorbs").get(0).get("xorb_hash").asText();
    static final byte[] R1M_BODY = Vectors.bytes(R1M.get("xorbs").get(0).get("file").asText());
    static final byte[] R1M_SHARD = Vectors.bytes(R1M.get("shards").get(0).get("file").asText());

    @BeforeAll
    static void start() throws Exception {
        // A short pace window so the slow-body case runs in seconds.
        server = new TestServer(c -> c.withUpload(4096, Duration.ofSeconds(2)));
        write = server.writeToken();
        // One xorb already stored: shards about it can then fail for other reasons than a missing xorb.
        assertEquals(200, server.post("/v1/xorbs/default/" + R1M_HASH, write, R1M_BODY).statusCode());
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    @BeforeEach
    void snapshot() throws Exception {
        before = server.storedCounts();
    }

    private void assertRejected(HttpResponse<String> r, int status, String code) throws Exception {
        assertEquals(status, r.statusCode(), r.body());
        assertTrue(r.body().startsWith("{\"error\":\"" + code + "\",\"message\":\""), r.body());
        assertEquals("application/json", r.headers().firstValue("content-type").orElse(""));
        assertEquals(before, server.storedCounts(), "a rejected request must store nothing");
    }

    @Test
    void malformedHashInPathIs400() throws Exception {
        assertRejected(server.post("/v1/xorbs/default/not-a-hash", write, R1M_BODY), 400, "invalid_hash");
        assertRejected(server.post("/v1/xorbs/default/" + R1M_HASH.substring(2), write, R1M_BODY), 400, "invalid_hash");
    }

    @Test
    void unknownPrefixIs400() throws Exception {
        assertRejected(server.post("/v1/xorbs/other/" + R1M_HASH, write, R1M_BODY), 400, "bad_request");
    }

    @Test
    void xorbHashMismatchIs400() throws Exception {
        String other = Vectors.capture("single-r8192").get("xorbs").get(0).get("xorb_hash").asText();
        assertRejected(server.post("/v1/xorbs/default/" + other, write, R1M_BODY), 400, "hash_mismatch");
    }

    @Test
    void truncatedBodyIs400() throws Exception {
        byte[] cut = Arrays.copyOf(R1M_BODY, R1M_BODY.length - 1000);
        String other = Vectors.capture("single-r3m").get("xorbs").get(0).get("xorb_hash").asText();
        assertRejected(server.post("/v1/xorbs/default/" + other, write, cut), 400, "invalid_format");
        // A body shorter than its Content-Length: the connection ends early.
        String response = raw("POST /v1/xorbs/default/" + other + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + write
                + "\r\nContent-Length: 5000\r\nConnection: close\r\n\r\n", new byte[100], true, 0);
        assertTrue(response.isEmpty() || response.startsWith("HTTP/1.1 400"), response);
        assertEquals(before, server.storedCounts());
    }

    @Test
    void corruptLz4FrameIs400() throws Exception {
        JsonNode x = Vectors.capture("single-words-512k").get("xorbs").get(0);
        byte[] body = Vectors.bytes(x.get("file").asText());
        body[8 + 4] ^= (byte) 0x80; // the first chunk's LZ4 frame descriptor (FLG version bits)
        assertRejected(server.post("/v1/xorbs/default/" + x.get("xorb_hash").asText(), write, body), 400, "invalid_format");
    }

    @Test
    void oversizedBodyIs413() throws Exception {
        String response = raw("POST /v1/xorbs/default/" + R1M_HASH + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + write
                + "\r\nContent-Length: " + (200L << 20) + "\r\n\r\n", new byte[0], false, 0);
        assertTrue(response.startsWith("HTTP/1.1 413"), response);
        assertTrue(response.contains("\"error\":\"payload_too_large\""), response);
        assertEquals(before, server.storedCounts());
    }

    @Test
    void shardNamingAMissingXorbIs400() throws Exception {
        // r3m's xorb was never uploaded to this server.
        JsonNode r3m = Vectors.capture("single-r3m");
        assertRejected(server.post("/v1/shards", write, Vectors.bytes(r3m.get("shards").get(0).get("file").asText())), 400,
                "invalid_format");
        // v2: the body parses, so the answer is a 200 stream that ends in an error frame; still nothing stored.
        HttpResponse<String> v2 = server.post("/v2/shards", write, Vectors.bytes(r3m.get("shards").get(0).get("file").asText()));
        assertEquals(200, v2.statusCode());
        String[] frames = v2.body().strip().split("\n");
        assertTrue(frames[frames.length - 1].startsWith("{\"type\":\"error\",\"message\":\"shard references xorb"), v2.body());
        assertTrue(frames[frames.length - 1].endsWith("\"retryable\":false}"), v2.body());
        assertEquals(before, server.storedCounts());
    }

    @Test
    void shardWithAWrongVerificationHashIs400() throws Exception {
        Shard s = ShardParser.parse(R1M_SHARD);
        FileEntry f = s.files().get(0);
        List<MerkleHash> v = new ArrayList<>(f.verificationHashes());
        v.set(0, MerkleHash.ofWords(1, 2, 3, 4));
        Shard bad = new Shard(s.header(), List.of(new FileEntry(f.fileHash(), f.flags(), f.terms(), v, f.sha256())), s.xorbs(), s.footer());
        assertRejected(server.post("/v1/shards", write, ShardWriter.write(bad)), 400, "invalid_format");
    }

    @Test
    void shardWithAWrongFileHashIs400() throws Exception {
        Shard s = ShardParser.parse(R1M_SHARD);
        FileEntry f = s.files().get(0);
        Shard bad = new Shard(s.header(), List.of(new FileEntry(MerkleHash.ofWords(9, 9, 9, 9), f.flags(), f.terms(),
                f.verificationHashes(), f.sha256())), s.xorbs(), s.footer());
        assertRejected(server.post("/v1/shards", write, ShardWriter.write(bad)), 400, "invalid_format");
    }

    @Test
    void shardWithWrongTermSizesOrRangesIs400() throws Exception {
        Shard s = ShardParser.parse(R1M_SHARD);
        FileEntry f = s.files().get(0);
        FileTerm t = f.terms().get(0);
        for (FileTerm badTerm : List.of(
                new FileTerm(t.xorbHash(), 0, t.unpackedBytes() + 1, t.chunkStart(), t.chunkEnd()),
                new FileTerm(t.xorbHash(), 0, t.unpackedBytes(), t.chunkStart(), t.chunkEnd() + 1),
                new FileTerm(t.xorbHash(), 0, t.unpackedBytes(), t.chunkEnd(), t.chunkStart()))) {
            Shard bad = new Shard(s.header(), List.of(new FileEntry(f.fileHash(), f.flags(), List.of(badTerm),
                    f.verificationHashes(), f.sha256())), s.xorbs(), s.footer());
            assertRejected(server.post("/v1/shards", write, ShardWriter.write(bad)), 400, "invalid_format");
        }
    }

    @Test
    void garbageShardIs400OnBothVersions() throws Exception {
        byte[] garbage = Vectors.splitmix(5, 1000);
        assertRejected(server.post("/v1/shards", write, garbage), 400, "invalid_format");
        assertRejected(server.post("/v2/shards", write, garbage), 400, "invalid_format");
        assertRejected(server.post("/v1/shards", write, new byte[0]), 400, "invalid_format");
    }

    @Test
    void missingMalformedAndExpiredTokensAre401() throws Exception {
        assertRejected(server.post("/v1/xorbs/default/" + R1M_HASH, null, R1M_BODY), 401, "unauthorized");
        assertRejected(server.post("/v1/xorbs/default/" + R1M_HASH, "garbage.token.here", R1M_BODY), 401, "unauthorized");
        Tokens past = new Tokens(server.services().secrets().tokenKey(),
                Clock.fixed(Instant.now().minus(Duration.ofHours(2)), ZoneOffset.UTC));
        String expired = past.mint("user/repo", Access.WRITE, Duration.ofHours(1));
        assertRejected(server.post("/v1/shards", expired, R1M_SHARD), 401, "unauthorized");
        Tokens otherKey = new Tokens(new byte[32]);
        assertRejected(server.post("/v1/shards", otherKey.mint("user/repo", Access.WRITE, Duration.ofHours(1)), R1M_SHARD),
                401, "unauthorized");
    }

    @Test
    void readTokenOnAWriteRouteIs403() throws Exception {
        String read = server.token("user/repo", Access.READ);
        assertRejected(server.post("/v1/xorbs/default/" + R1M_HASH, read, R1M_BODY), 403, "forbidden");
        assertRejected(server.post("/v1/shards", read, R1M_SHARD), 403, "forbidden");
        assertRejected(server.post("/v2/shards", read, R1M_SHARD), 403, "forbidden");
    }

    @Test
    void slowBodyIs408() throws Exception {
        String other = Vectors.capture("single-r65536").get("xorbs").get(0).get("xorb_hash").asText();
        byte[] body = Vectors.bytes(Vectors.capture("single-r65536").get("xorbs").get(0).get("file").asText());
        // 100 bytes every 100 ms: 1 KB/s against a floor of 4 KiB/s over a 2 s window.
        String response = raw("POST /v1/xorbs/default/" + other + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + write
                + "\r\nContent-Length: " + body.length + "\r\n\r\n", body, false, 100);
        assertTrue(response.startsWith("HTTP/1.1 408"), response);
        assertTrue(response.contains("\"error\":\"request_timeout\""), response);
        assertEquals(before, server.storedCounts());
    }

    @Test
    void aBodyThatStopsArrivingEndsTheConnectionAfterTheWindow() throws Exception {
        String other = Vectors.capture("single-r65536").get("xorbs").get(0).get("xorb_hash").asText();
        try (LogCapture log = new LogCapture()) {
            try (Socket sock = new Socket("127.0.0.1", server.port())) {
                sock.setSoTimeout(30_000);
                OutputStream out = sock.getOutputStream();
                out.write(("POST /v1/xorbs/default/" + other + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + write
                        + "\r\nContent-Length: 100000\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(new byte[10]);
                out.flush();
                long t0 = System.nanoTime();
                // No byte for the whole 2 s window: the server closes the connection (the client retries),
                // where it used to wait for as long as the sender kept the connection open.
                int first;
                try {
                    first = sock.getInputStream().read();
                } catch (java.net.SocketException reset) {
                    first = -1;
                }
                double seconds = (System.nanoTime() - t0) / 1e9;
                assertEquals(-1, first, "the connection ends without an answer");
                assertTrue(seconds < 10, seconds + " s");
            }
            assertEquals(before, server.storedCounts());
            assertEquals(200, server.get("/health", null).statusCode());
            assertTrue(log.messages().stream().anyMatch(m -> m.contains("request body stalled: no byte for 2 s after 10 bytes")),
                    "no stall logged");
            assertEquals(List.of(), log.warnings());
        }
    }

    @Test
    void aRequestCannotForgeLogLines() throws Exception {
        try (LogCapture log = new LogCapture()) {
            String forged = "/v1/fetch/zz%0a2026-11-30T10:09:00.000%20INFO%20FORGED%00LINE?r=0-1&s=a&e=1&t=00";
            assertEquals(403, server.get(forged, null).statusCode());
            // The error line (decoded path, escaped) and the access log line (raw path) both name it, on one line each.
            List<String> mentioning = log.messages().stream().filter(m -> m.contains("FORGED")).toList();
            assertTrue(mentioning.stream().anyMatch(m -> m.contains("zz%0A2026-11-30T10:09:00.000 INFO FORGED%00LINE")),
                    mentioning.toString());
            assertTrue(mentioning.stream().allMatch(m -> m.chars().noneMatch(c -> c < 0x20)), mentioning.toString());
        }
    }

    @Test
    void aFullDiskIs507AndStoresNothing() throws Exception {
        String other = Vectors.capture("single-r65536").get("xorbs").get(0).get("xorb_hash").asText();
        byte[] body = Vectors.bytes(Vectors.capture("single-r65536").get("xorbs").get(0).get("file").asText());
        try (DiskFull full = DiskFull.on(server.dataDir().resolve("index.sqlite"), "xorbs")) {
            HttpResponse<String> r = server.post("/v1/xorbs/default/" + other, write, body);
            assertEquals(507, r.statusCode(), r.body());
            assertTrue(r.body().startsWith("{\"error\":\"insufficient_storage\","), r.body());
            assertEquals(before, server.storedCounts(), "nothing stored, not even the object");
        }
    }

    @Test
    void requestsRefusedBeforeRoutingGetAJsonErrorToo() throws Exception {
        String huge = "GET /health HTTP/1.1\r\nHost: x\r\nX-Filler: " + "a".repeat(20_000) + "\r\n\r\n";
        String malformed = "GET /health HTTP/1.1\r\nHost: x\r\nthis line has no colon\r\n\r\n";
        for (String request : new String[]{huge, malformed}) {
            try (Socket sock = new Socket("127.0.0.1", server.port())) {
                sock.setSoTimeout(10_000);
                sock.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
                sock.getOutputStream().flush();
                String response = new String(sock.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
                assertTrue(response.matches("(?s)HTTP/1\\.1 4\\d\\d .*"), response);
                assertTrue(response.toLowerCase(java.util.Locale.ROOT).contains("content-type: application/json"), response);
                assertTrue(response.contains("\r\n\r\n{\"error\":\""), response);
            }
        }
        assertEquals(200, server.get("/health", null).statusCode());
    }

    @Test
    void unknownRoutesAre404JsonNever405() throws Exception {
        assertRejected(server.send(server.request("/v2/shards", write).PUT(java.net.http.HttpRequest.BodyPublishers.noBody()).build()),
                404, "not_found");
        assertRejected(server.get("/v2/shards", write), 404, "not_found");
        assertRejected(server.get("/v3/anything", write), 404, "not_found");
        assertRejected(server.post("/v1/telemetry/extra", write, new byte[1]), 404, "not_found");
    }

    @Test
    void telemetryIsAcceptedAndDiscarded() throws Exception {
        HttpResponse<String> r = server.post("/v1/telemetry", server.token("user/repo", Access.READ),
                "{\"event\":\"xet_upload_summary\"}".getBytes(StandardCharsets.UTF_8));
        assertEquals(200, r.statusCode());
        assertEquals(before, server.storedCounts());
    }

    /** A request line or headers past their 16 KiB get a JSON refusal; the access log names the client's address. */
    @Test
    void aRequestHeadPastItsLimitsIsRefusedAndEachRequestIsLoggedWithItsAddress() throws Exception {
        String longLine = raw("GET /health?" + "q".repeat(OpenxetServer.MAX_REQUEST_LINE) + " HTTP/1.1\r\nHost: x\r\n\r\n",
                new byte[0], false, 0);
        assertTrue(longLine.startsWith("HTTP/1.1 414 "), longLine);
        assertTrue(longLine.contains("{\"error\":"), longLine);
        String longHeaders = raw("GET /health HTTP/1.1\r\nHost: x\r\nX-Pad: " + "p".repeat(OpenxetServer.MAX_HEADERS)
                + "\r\n\r\n", new byte[0], false, 0);
        // Helidon says 400, not 431, for headers past the limit.
        assertTrue(longHeaders.startsWith("HTTP/1.1 400 "), longHeaders);
        assertTrue(longHeaders.contains("{\"error\":"), longHeaders);
        try (LogCapture log = new LogCapture()) {
            assertEquals(200, server.get("/health", null).statusCode());
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (log.messages().stream().noneMatch(m -> m.contains("GET /health 200")) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(log.messages().stream().anyMatch(m -> m.contains("127.0.0.1 GET /health 200 ")),
                    log.messages().toString());
        }
    }

    /** Every route that needs a token answers 401 without one: no route escapes its declared guard. */
    @Test
    void everyGuardedRouteRefusesAnonymousCalls() throws Exception {
        RouteTable table = OpenxetServer.routing(io.helidon.webserver.http.HttpRouting.builder(), server.services());
        assertTrue(table.routes().size() >= 5);
        for (RouteTable.Route route : table.routes()) {
            if (route.guard() == RouteTable.Guard.PUBLIC) {
                continue;
            }
            // Fill path parameters; the one wildcard route is the Hub-style token route.
            String path = route.path().replace("{prefix}", "default").replaceAll("\\{[a-z_+]+}", MerkleHash.ZERO.hex())
                    .replace("*", "models/ns/repo/xet-read-token/main");
            HttpResponse<String> r = server.send(server.request(path, null)
                    .method(route.method().text(), java.net.http.HttpRequest.BodyPublishers.noBody()).build());
            assertEquals(401, r.statusCode(), route.toString());
        }
    }

    /** Reads one HTTP/1.1 response (headers, then Content-Length bytes); "" when the server closed first. */
    static String readResponse(InputStream in) throws java.io.IOException {
        StringBuilder head = new StringBuilder();
        int c;
        while (!head.toString().endsWith("\r\n\r\n") && (c = in.read()) >= 0) {
            head.append((char) c);
        }
        int length = 0;
        for (String line : head.toString().split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        return head + new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }

    /**
     * Sends a raw request: headers, then the body in 100-byte pieces {@code pauseMillis} apart. Returns what the
     * server answered ("" when it closed without answering).
     */
    static String raw(String head, byte[] body, boolean halfClose, long pauseMillis) throws Exception {
        try (Socket sock = new Socket("127.0.0.1", server.port())) {
            sock.setSoTimeout(30_000);
            OutputStream out = sock.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = sock.getInputStream();
            try {
                for (int p = 0; p < body.length; p += 100) {
                    out.write(body, p, Math.min(100, body.length - p));
                    out.flush();
                    if (pauseMillis > 0) {
                        Thread.sleep(pauseMillis);
                        if (in.available() > 0) break;
                    }
                }
                if (halfClose) sock.shutdownOutput();
            } catch (java.io.IOException closedByServer) {
                // the server answered and closed mid-body: read what it said
            }
            return readResponse(in);
        } catch (java.net.SocketException reset) {
            return "";
        }
    }
}
