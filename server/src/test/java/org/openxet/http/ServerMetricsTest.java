package org.openxet.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.openxet.service.Access;
import org.openxet.service.SignedUrls;
import org.openxet.testing.MiniClient;
import org.openxet.testing.TestServer;
import org.openxet.testing.Vectors;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code GET /metrics}: what a Prometheus scraper reads after real uploads, downloads and refusals. */
class ServerMetricsTest {
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{.*})? (\\S+)$");

    /** One scrape: every sample keyed by its name and labels as printed. */
    private static Map<String, Double> scrape(TestServer s) throws Exception {
        HttpResponse<String> r = s.get("/metrics", null);
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"), r.headers().toString());
        Map<String, Double> samples = new HashMap<>();
        for (String line : r.body().split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) continue;
            Matcher m = SAMPLE.matcher(line);
            assertTrue(m.matches(), "not a Prometheus sample line: " + line);
            samples.put(m.group(1) + (m.group(2) == null ? "" : m.group(2)), Double.parseDouble(m.group(3)));
        }
        return samples;
    }

    private static String request(String method, String route, int status) {
        return "openxet_requests_seconds_count{method=\"" + method + "\",route=\"" + route + "\",status=\"" + status + "\"}";
    }

    /** A request is counted just after its last byte went out: wait for the count rather than race it. */
    private static Map<String, Double> scrapeUntil(TestServer s, String key, double value) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        Map<String, Double> samples = scrape(s);
        while (samples.getOrDefault(key, 0.0) < value && System.nanoTime() < deadline) {
            Thread.sleep(20);
            samples = scrape(s);
        }
        return samples;
    }

    @Test
    void uploadsDownloadsAndRefusalsAreCountedByRouteAndStatus() throws Exception {
        try (TestServer s = new TestServer()) {
            String write = s.writeToken();
            JsonNode capture = Vectors.capture("single-r3m");
            JsonNode x = capture.get("xorbs").get(0);
            byte[] xorb = Vectors.bytes(x.get("file").asText());
            String xorbPath = "/v1/xorbs/default/" + x.get("xorb_hash").asText();
            assertEquals("{\"was_inserted\":true}", s.post(xorbPath, write, xorb).body());
            assertEquals("{\"was_inserted\":false}", s.post(xorbPath, write, xorb).body());
            byte[] shard = Vectors.bytes(capture.get("shards").get(0).get("file").asText());
            assertEquals("{\"result\":1}", s.post("/v1/shards", write, shard).body());
            assertEquals("{\"result\":0}", s.post("/v1/shards", write, shard).body());
            assertEquals(401, s.post(xorbPath, null, xorb).statusCode());
            assertEquals(404, s.get("/v1/no-such-route", write).statusCode());

            // A whole download: one reconstruction, then each signed URL fetched with its single range.
            String file = capture.get("files").get(0).get("client_xet_hash").asText();
            MiniClient client = new MiniClient(s, s.token("user/repo", Access.READ));
            JsonNode answer = client.reconstruction(2, file, null).json();
            long fetched = 0;
            int fetches = 0;
            for (var entries : answer.get("xorbs").properties()) {
                for (JsonNode entry : entries.getValue()) {
                    for (JsonNode range : entry.get("ranges")) {
                        long start = range.get("bytes").get("start").asLong();
                        long end = range.get("bytes").get("end").asLong();
                        HttpResponse<byte[]> r = s.sendBytes(HttpRequest.newBuilder(URI.create(entry.get("url").asText()))
                                .header("Range", "bytes=" + start + "-" + end).GET().build());
                        assertEquals(206, r.statusCode());
                        fetched += r.body().length;
                        fetches++;
                    }
                }
            }
            assertTrue(fetched > 3_000_000, "fetched " + fetched);

            Map<String, Double> m = scrapeUntil(s, request("GET", SignedUrls.PATH + "{xorb}", 206), fetches);
            assertEquals(1.0, m.get("openxet_xorbs_total{result=\"stored\"}"));
            assertEquals(1.0, m.get("openxet_xorbs_total{result=\"present\"}"));
            assertEquals((double) xorb.length, m.get("openxet_xorb_stored_bytes_total"));
            assertEquals(1.0, m.get("openxet_shards_total{result=\"stored\"}"));
            assertEquals(1.0, m.get("openxet_shards_total{result=\"present\"}"));
            assertEquals((double) fetched, m.get("openxet_fetch_bytes_total"));
            // Two tokens, each checked in full once (the first request with it), then kept for the write token's
            // three later uploads; the fetches carry no token, and the 401 had none to check.
            assertEquals(2.0, m.get("openxet_token_checks_total{result=\"full\"}"));
            assertEquals(3.0, m.get("openxet_token_checks_total{result=\"kept\"}"));

            assertEquals(2.0, m.get(request("POST", "/v1/xorbs/{prefix}/{hash}", 200)));
            assertEquals(1.0, m.get(request("POST", "/v1/xorbs/{prefix}/{hash}", 401)));
            assertEquals(2.0, m.get(request("POST", "/v1/shards", 200)));
            assertEquals(1.0, m.get(request("GET", "/v2/reconstructions/{file_id}", 200)));
            assertEquals((double) fetches, m.get(request("GET", SignedUrls.PATH + "{xorb}", 206)));
            assertEquals(1.0, m.get(request("GET", ServerMetrics.UNMATCHED, 404)));
            // The +Inf bucket holds every request: it equals the count.
            String bucket = "openxet_requests_seconds_bucket{method=\"POST\",route=\"/v1/shards\",status=\"200\",le=\"+Inf\"}";
            assertEquals(2.0, m.get(bucket));
            // The JVM's own meters are there too.
            assertTrue(m.keySet().stream().anyMatch(k -> k.startsWith("jvm_memory_used_bytes{area=\"heap\"")), m.keySet().toString());
        }
    }

    @Test
    void aStrangeMethodIsOneSeriesNotOnePerMethodName() throws Exception {
        try (TestServer s = new TestServer()) {
            for (String method : new String[]{"BREW", "WHEN"}) {
                HttpResponse<String> r = s.send(s.request("/x", null).method(method, HttpRequest.BodyPublishers.noBody()).build());
                assertEquals(404, r.statusCode());
            }
            Map<String, Double> m = scrapeUntil(s, request("other", ServerMetrics.UNMATCHED, 404), 2);
            assertEquals(2.0, m.get(request("other", ServerMetrics.UNMATCHED, 404)));
            assertTrue(m.keySet().stream().noneMatch(k -> k.contains("BREW") || k.contains("WHEN")), m.keySet().toString());
        }
    }

    @Test
    void metricsOffMeansNoRoute() throws Exception {
        try (TestServer s = new TestServer(c -> c.withMetrics(false))) {
            HttpResponse<String> r = s.get("/metrics", null);
            assertEquals(404, r.statusCode());
            assertTrue(r.body().contains("\"error\":\"not_found\""), r.body());
        }
    }
}
