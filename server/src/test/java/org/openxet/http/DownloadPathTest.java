package org.openxet.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleBuilder;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.shard.FileEntry;
import org.openxet.protocol.shard.FileTerm;
import org.openxet.protocol.shard.Shard;
import org.openxet.protocol.shard.ShardHeader;
import org.openxet.protocol.shard.ShardWriter;
import org.openxet.protocol.shard.XorbBlock;
import org.openxet.service.Access;
import org.openxet.testing.MiniClient;
import org.openxet.testing.SyntheticXorb;
import org.openxet.testing.TestServer;
import org.openxet.testing.Vectors;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The read side over real HTTP: reconstructions v1/v2 planned from the index, fetched through signed URLs. */
class DownloadPathTest {
    static TestServer server;
    static MiniClient client;
    static String read;
    /** file id → input bytes, for every captured file. */
    static final Map<String, byte[]> FILES = new LinkedHashMap<>();

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer();
        String write = server.writeToken();
        for (String scenario : UploadPathTest.scenariosInUploadOrder()) {
            UploadPathTest.uploadScenario(server, scenario, write);
            for (JsonNode f : Vectors.capture(scenario).get("files")) {
                FILES.put(f.get("client_xet_hash").asText(), Vectors.inputBytes(f.get("input").asText()));
            }
        }
        read = server.token("user/repo", Access.READ);
        client = new MiniClient(server, read);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    @Test
    void everyFileDownloadsWholeThroughV2AndV1() throws Exception {
        for (var e : FILES.entrySet()) {
            for (int version : new int[]{2, 1}) {
                assertArrayEquals(e.getValue(), client.download(version, e.getKey(), null), e.getKey() + " v" + version);
                if (e.getValue().length > 0) {
                    // The JS client always sends a Range, often past the end.
                    assertArrayEquals(e.getValue(), client.download(version, e.getKey(), "bytes=0-" + (e.getValue().length + 1000)));
                }
            }
        }
    }

    /**
     * A file using every other chunk of one 1,000-chunk xorb: 500 scattered ranges of one xorb, so its v2 entries hold
     * about 7 KiB of ranges as a Range header writes them. Every URL the server hands out must be fetchable through its
     * own listener, and an entry's ranges in one multi-range request too.
     */
    @Test
    void aFileScatteredOverOneXorbDownloadsThroughItsLongestUrls() throws Exception {
        int n = 1000;
        int size = 512;
        SyntheticXorb synthetic = SyntheticXorb.of(n, size, 21);
        MerkleHash xorb = synthetic.hash();
        byte[] raw = synthetic.chunkHashes();
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (int i = 0; i < n; i += 2) expected.write(synthetic.chunks().get(i));
        List<FileTerm> terms = new ArrayList<>();
        List<MerkleHash> verification = new ArrayList<>();
        MerkleBuilder fileChunks = new MerkleBuilder();
        for (int i = 0; i < n; i += 2) {
            terms.add(new FileTerm(xorb, 0, size, i, i + 1));
            verification.add(XetHashes.verificationHash(raw, i, i + 1));
            fileChunks.add(raw, 32 * i, size);
        }
        MerkleHash file = XetHashes.fileHash(fileChunks);
        Shard shard = new Shard(ShardHeader.withoutFooter(), List.of(new FileEntry(file, FileEntry.FLAG_WITH_VERIFICATION,
                terms, verification, null)), List.of(new XorbBlock(xorb, 0, size * n, 0, synthetic.entries())), null);
        String write = server.writeToken();
        assertEquals(200, server.post("/v1/xorbs/default/" + xorb.hex(), write, synthetic.body()).statusCode());
        assertEquals(200, server.post("/v1/shards", write, ShardWriter.write(shard)).statusCode());

        MiniClient.Answer a = client.reconstruction(2, file.hex(), null);
        assertEquals(200, a.status(), a.body());
        JsonNode longest = null;
        String longestHeader = "";
        for (JsonNode entry : a.json().get("xorbs").get(xorb.hex())) {
            StringBuilder header = new StringBuilder("bytes=");
            for (JsonNode range : entry.get("ranges")) {
                if (header.length() > 6) header.append(',');
                header.append(range.get("bytes").get("start").asLong()).append('-').append(range.get("bytes").get("end").asLong());
            }
            if (header.length() > longestHeader.length()) {
                longest = entry;
                longestHeader = header.toString();
            }
        }
        assertTrue(longestHeader.length() > 6 * 1024, "longest Range header " + longestHeader.length() + " characters");
        // The grant is compact: the URL carrying those ranges is far shorter than their decimal text.
        assertTrue(longest.get("url").asText().length() < longestHeader.length() / 2, longest.get("url").asText());
        HttpResponse<byte[]> multi = fetch(longest.get("url").asText(), longestHeader);
        assertEquals(206, multi.statusCode());
        String type = multi.headers().firstValue("content-type").orElseThrow();
        assertEquals(longest.get("ranges").size(), Multipart.parse(multi.body(), type.substring(type.indexOf('=') + 1)).size());
        for (int version : new int[]{2, 1}) {
            assertArrayEquals(expected.toByteArray(), client.download(version, file.hex(), null), "v" + version);
        }
        // The batch query takes as many ids as a 16 KiB request line holds (unknown ones are left out).
        StringBuilder query = new StringBuilder("/v1/reconstructions?file_id=" + file.hex());
        for (int i = 0; i < 150; i++) query.append("&file_id=").append(MerkleHash.ofWords(i, 1, 2, 3).hex());
        HttpResponse<String> batch = server.get(query.toString(), read);
        assertEquals(200, batch.statusCode(), batch.body());
        assertEquals(1, new ObjectMapper().readTree(batch.body()).get("files").size());
    }

    @Test
    void rangesAtTheStartMiddleAndEndTrimTermsExactly() throws Exception {
        for (var e : FILES.entrySet()) {
            byte[] data = e.getValue();
            int n = data.length;
            if (n < 2) continue;
            long[][] ranges = {{0, 0}, {0, n / 3}, {n / 3, 2L * n / 3}, {n - 1, n - 1}, {n / 2, n - 1}, {1, n - 2},
                    {8191, 8192}, {65535, 131073}, {n - 70000, n + 5}};
            for (long[] r : ranges) {
                long s = Math.max(0, Math.min(r[0], n - 1));
                long end = Math.max(s, r[1]);
                byte[] expected = MiniClient.range(data, s, end);
                for (int version : new int[]{2, 1}) {
                    byte[] got = client.download(version, e.getKey(), "bytes=" + s + "-" + end);
                    assertArrayEquals(expected, got, e.getKey() + " v" + version + " bytes=" + s + "-" + end);
                }
            }
            assertArrayEquals(MiniClient.range(data, n / 2, n - 1), client.download(2, e.getKey(), "bytes=" + n / 2 + "-"));
            assertArrayEquals(MiniClient.range(data, n - 777L > 0 ? n - 777 : 0, n - 1), client.download(2, e.getKey(), "bytes=-777"));
        }
    }

    @Test
    void termsAndFetchInfoFollowTheProtocolShape() throws Exception {
        // repeat-2m revisits chunks: terms keep their order, fetch ranges are merged per xorb.
        String id = Vectors.capture("single-repeat-2m").get("files").get(0).get("client_xet_hash").asText();
        JsonNode v2 = client.reconstruction(2, id, null).json();
        assertEquals(0, v2.get("offset_into_first_range").asLong());
        assertEquals(33, v2.get("terms").size() > 0 ? totalChunks(v2.get("terms")) : 0);
        JsonNode entries = v2.get("xorbs").fields().next().getValue();
        List<String> urls = new ArrayList<>();
        for (JsonNode entry : entries) {
            urls.add(entry.get("url").asText());
            int prevEnd = -1;
            for (JsonNode r : entry.get("ranges")) {
                assertTrue(r.get("chunks").get("start").asInt() > prevEnd, "ranges sorted and merged: " + entry);
                prevEnd = r.get("chunks").get("end").asInt();
            }
        }
        assertEquals(urls.size(), urls.stream().distinct().count(), "every entry has its own URL");
        JsonNode v1 = client.reconstruction(1, id, null).json();
        List<String> v1urls = new ArrayList<>();
        v1.get("fetch_info").fields().forEachRemaining(f -> f.getValue().forEach(x -> v1urls.add(x.get("url").asText())));
        assertEquals(v1urls.size(), v1urls.stream().distinct().count());
    }

    private static int totalChunks(JsonNode terms) {
        int n = 0;
        for (JsonNode t : terms) n += t.get("range").get("end").asInt() - t.get("range").get("start").asInt();
        return n;
    }

    @Test
    void statusCodesOfTheReadSide() throws Exception {
        String r1m = Vectors.capture("single-r1m").get("files").get(0).get("client_xet_hash").asText();
        String empty = Vectors.capture("single-empty").get("files").get(0).get("client_xet_hash").asText();
        assertEquals(416, client.reconstruction(2, r1m, "bytes=1048576-1048600").status());
        assertEquals(416, client.reconstruction(1, r1m, "bytes=2000000-").status());
        assertEquals(400, client.reconstruction(2, r1m, "bytes=abc").status());
        // Positions are u64: an end past 2^63 - 1 is clamped like any end past the file; such a start is past it.
        MiniClient.Answer huge = client.reconstruction(2, r1m, "bytes=0-18446744073709551614");
        assertEquals(200, huge.status(), huge.body());
        assertArrayEquals(FILES.get(r1m), client.assemble(2, huge.json()));
        assertEquals(416, client.reconstruction(2, r1m, "bytes=18446744073709551614-").status());
        assertEquals(400, client.reconstruction(2, r1m, "bytes=0-1,5-9").status());
        assertEquals(400, client.reconstruction(2, "zz" + r1m.substring(2), null).status());
        assertEquals(404, client.reconstruction(2, MerkleHash.ofWords(1, 2, 3, 4).hex(), null).status());
        // The empty file: 200 with no terms, with or without bytes=0-.
        for (String range : new String[]{null, "bytes=0-1000"}) {
            MiniClient.Answer a = client.reconstruction(2, empty, range);
            assertEquals(200, a.status(), a.body());
            assertEquals(0, a.json().get("terms").size());
            assertEquals(0, a.json().get("xorbs").size());
        }
        // Another scope sees nothing of this scope's files.
        MiniClient other = new MiniClient(server, server.token("someone/else", Access.READ));
        MiniClient.Answer hidden = other.reconstruction(2, r1m, null);
        assertEquals(404, hidden.status());
        assertTrue(hidden.body().startsWith("{\"error\":\"not_found\""));
        assertEquals(401, server.get("/v2/reconstructions/" + r1m, null).statusCode());
        HttpResponse<String> head = server.send(server.request("/v1/files/" + r1m, read)
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build());
        assertEquals(200, head.statusCode());
        assertEquals("1048576", head.headers().firstValue("content-length").orElseThrow());
    }

    @Test
    void batchQueryAnswersKnownFilesAndDropsTheRest() throws Exception {
        String r1m = Vectors.capture("single-r1m").get("files").get(0).get("client_xet_hash").asText();
        String r3m = Vectors.capture("single-r3m").get("files").get(0).get("client_xet_hash").asText();
        HttpResponse<String> r = server.get("/v1/reconstructions?file_id=" + r1m + "&file_id=" + r3m + "&file_id=bad&file_id="
                + MerkleHash.ofWords(1, 1, 1, 1).hex(), read);
        assertEquals(200, r.statusCode(), r.body());
        JsonNode json = new ObjectMapper().readTree(r.body());
        assertEquals(2, json.get("files").size());
        assertEquals(2, json.get("fetch_info").size());
        assertEquals(400, server.get("/v1/reconstructions?file_id=bad", read).statusCode());
    }

    @Test
    void signedUrlsRefuseTamperingExpiryAndRangesOutsideTheGrant() throws Exception {
        String id = Vectors.capture("single-r1m").get("files").get(0).get("client_xet_hash").asText();
        JsonNode answer = client.reconstruction(2, id, "bytes=0-100000").json();
        JsonNode entry = answer.get("xorbs").fields().next().getValue().get(0);
        String url = entry.get("url").asText();
        JsonNode bytes = entry.get("ranges").get(0).get("bytes");
        long start = bytes.get("start").asLong();
        long end = bytes.get("end").asLong();
        assertEquals(206, fetch(url, "bytes=" + start + "-" + end).statusCode());
        assertEquals(206, fetch(url, "bytes=" + (start + 10) + "-" + (end - 10)).statusCode());
        // Outside the grant: past its end, or another part of the object.
        assertEquals(403, fetch(url, "bytes=" + start + "-" + (end + 1)).statusCode());
        // Tampered: a widened range, another scope, a later expiry, a flipped tag.
        String grant = "g=" + org.openxet.service.SignedUrls.grant(new long[]{start, end});
        assertTrue(url.contains(grant), url);
        String widened = "g=" + org.openxet.service.SignedUrls.grant(new long[]{start, end + 1000});
        assertEquals(403, fetch(url.replace(grant, widened), null).statusCode());
        assertEquals(403, fetch(url.replace("&s=user%2Frepo", "&s=other%2Frepo"), null).statusCode());
        assertEquals(403, fetch(url.replaceAll("&e=(\\d+)", "&e=9$1"), null).statusCode());
        String tag = url.substring(url.indexOf("&t=") + 3);
        String flipped = (tag.charAt(0) == 'a' ? "b" : "a") + tag.substring(1);
        assertEquals(403, fetch(url.replace("&t=" + tag, "&t=" + flipped), null).statusCode());
        assertEquals(403, fetch(url.substring(0, url.indexOf("&t=")), null).statusCode());
        // An expired URL, signed with the server's own key.
        var expired = new org.openxet.service.SignedUrls(server.services().secrets().urlKey(), -10, server.services().clock());
        String old = expired.url("http://127.0.0.1:" + server.port(), MerkleHash.of(answer.get("terms").get(0).get("hash").asText()),
                new long[]{start, end}, "user/repo", expired.expiry());
        assertEquals(403, fetch(old, "bytes=" + start + "-" + end).statusCode());
        // No Range header: the whole grant.
        HttpResponse<byte[]> all = fetch(url, null);
        assertEquals(206, all.statusCode());
        assertEquals(end - start + 1, all.body().length);
    }

    @Test
    void urlsOfTheOlderDecimalFormStillFetchUntilTheyExpire() throws Exception {
        // What nodes before the compact grant minted: r=<s-e> and a tag over "hex\nranges\nscope\nexpiry".
        String id = Vectors.capture("single-r1m").get("files").get(0).get("client_xet_hash").asText();
        JsonNode answer = client.reconstruction(2, id, "bytes=0-100000").json();
        var first = answer.get("xorbs").fields().next();
        JsonNode bytes = first.getValue().get(0).get("ranges").get(0).get("bytes");
        long start = bytes.get("start").asLong();
        long end = bytes.get("end").asLong();
        var urls = new org.openxet.service.SignedUrls(server.services().secrets().urlKey(), 600, server.services().clock());
        long expiry = urls.expiry();
        String ranges = start + "-" + end;
        byte[] msg = (first.getKey() + "\n" + ranges + "\nuser%2Frepo\n" + expiry).getBytes(StandardCharsets.US_ASCII);
        byte[] tag = new byte[32];
        urls.tag(msg, msg.length, new byte[32], tag, 0);
        String legacy = "http://127.0.0.1:" + server.port() + "/v1/fetch/" + first.getKey() + "?r=" + ranges
                + "&s=user%2Frepo&e=" + expiry + "&t=" + new String(tag, StandardCharsets.US_ASCII);
        HttpResponse<byte[]> fetched = fetch(legacy, "bytes=" + start + "-" + end);
        assertEquals(206, fetched.statusCode());
        assertEquals(end - start + 1, fetched.body().length);
        assertEquals(403, fetch(legacy, "bytes=" + start + "-" + (end + 1)).statusCode());
        assertEquals(403, fetch(legacy.replace("r=" + ranges, "r=" + start + "-" + (end + 1)), null).statusCode());
    }

    @Test
    void severalRangesComeBackAsMultipartByteranges() throws Exception {
        String id = Vectors.capture("single-r3m").get("files").get(0).get("client_xet_hash").asText();
        JsonNode answer = client.reconstruction(2, id, null).json();
        JsonNode entry = answer.get("xorbs").fields().next().getValue().get(0);
        long s = entry.get("ranges").get(0).get("bytes").get("start").asLong();
        long e = entry.get("ranges").get(0).get("bytes").get("end").asLong();
        HttpResponse<byte[]> whole = fetch(entry.get("url").asText(), "bytes=" + s + "-" + e);
        HttpResponse<byte[]> multi = fetch(entry.get("url").asText(), "bytes=" + s + "-" + (s + 99) + "," + (e - 49) + "-" + e);
        assertEquals(206, multi.statusCode());
        String type = multi.headers().firstValue("content-type").orElseThrow();
        assertTrue(type.startsWith("multipart/byteranges; boundary="), type);
        String boundary = type.substring(type.indexOf('=') + 1);
        List<byte[]> parts = Multipart.parse(multi.body(), boundary);
        assertEquals(2, parts.size());
        assertArrayEquals(MiniClient.range(whole.body(), 0, 99), parts.get(0));
        assertArrayEquals(MiniClient.range(whole.body(), e - s - 49, e - s), parts.get(1));
        assertEquals(multi.body().length, Long.parseLong(multi.headers().firstValue("content-length").orElseThrow()));
    }

    @Test
    void aFetchServesAtMostWhatItsUrlGrantsHoweverItsRangesRepeat() throws Exception {
        String id = Vectors.capture("single-r3m").get("files").get(0).get("client_xet_hash").asText();
        JsonNode entry = client.reconstruction(2, id, null).json().get("xorbs").fields().next().getValue().get(0);
        assertEquals(1, entry.get("ranges").size(), "the fixture's URL grants one range");
        String url = entry.get("url").asText();
        long s = entry.get("ranges").get(0).get("bytes").get("start").asLong();
        long e = entry.get("ranges").get(0).get("bytes").get("end").asLong();
        byte[] whole = fetch(url, "bytes=" + s + "-" + e).body();
        // The granted range 1,100 times over (once seen to return 144 MB from a 131 kB grant): one range, sent once.
        String repeated = "bytes=" + String.join(",", java.util.Collections.nCopies(1_100, s + "-" + e));
        HttpResponse<byte[]> r = fetch(url, repeated);
        assertEquals(206, r.statusCode());
        assertEquals("bytes " + s + "-" + e + "/", r.headers().firstValue("content-range").orElseThrow()
                .replaceAll("/\\d+$", "/"));
        assertArrayEquals(whole, r.body());
        // Overlapping and adjacent ranges are merged into one.
        HttpResponse<byte[]> overlapping = fetch(url, "bytes=" + (s + 50) + "-" + (s + 149) + "," + s + "-" + (s + 99)
                + "," + (s + 150) + "-" + (s + 199));
        assertEquals(206, overlapping.statusCode());
        assertArrayEquals(MiniClient.range(whole, 0, 199), overlapping.body());
        // Separate ranges: as many parts as the URL grants ranges, at least FetchRoutes.MIN_PARTS; more is a 400.
        StringBuilder most = new StringBuilder("bytes=");
        for (int i = 0; i < FetchRoutes.MIN_PARTS; i++) {
            most.append(i == 0 ? "" : ",").append(s + 2L * i).append('-').append(s + 2L * i);
        }
        HttpResponse<byte[]> parts = fetch(url, most.toString());
        assertEquals(206, parts.statusCode());
        String type = parts.headers().firstValue("content-type").orElseThrow();
        List<byte[]> got = Multipart.parse(parts.body(), type.substring(type.indexOf('=') + 1));
        assertEquals(FetchRoutes.MIN_PARTS, got.size());
        assertArrayEquals(new byte[]{whole[2 * (FetchRoutes.MIN_PARTS - 1)]}, got.get(FetchRoutes.MIN_PARTS - 1));
        HttpResponse<byte[]> tooMany = fetch(url, most + "," + (s + 2L * FetchRoutes.MIN_PARTS) + "-"
                + (s + 2L * FetchRoutes.MIN_PARTS));
        assertEquals(400, tooMany.statusCode());
        assertEquals("bad_request", new com.fasterxml.jackson.databind.ObjectMapper().readTree(tooMany.body())
                .get("error").asText());
    }

    @Test
    void coalescingSortsAndMergesOnlyWhatTouches() {
        var spans = List.of(new FetchRoutes.Span(100, 199), new FetchRoutes.Span(0, 9), new FetchRoutes.Span(10, 19),
                new FetchRoutes.Span(150, 300), new FetchRoutes.Span(302, 302));
        assertEquals(List.of(new FetchRoutes.Span(0, 19), new FetchRoutes.Span(100, 300), new FetchRoutes.Span(302, 302)),
                FetchRoutes.coalesce(spans));
    }

    private HttpResponse<byte[]> fetch(String url, String range) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).GET();
        if (range != null) b.header("Range", range);
        return server.sendBytes(b.build());
    }

    @Test
    void fetchUrlsPointAtTheConfiguredPublicUrl() throws Exception {
        try (TestServer s = new TestServer(c -> c.withPublicUrl("https://cas.example.test/prefix/"))) {
            String write = s.writeToken();
            UploadPathTest.uploadScenario(s, "single-r8192", write);
            String id = Vectors.capture("single-r8192").get("files").get(0).get("client_xet_hash").asText();
            JsonNode answer = new MiniClient(s, write).reconstruction(2, id, null).json();
            String url = answer.get("xorbs").fields().next().getValue().get(0).get("url").asText();
            assertTrue(url.startsWith("https://cas.example.test/prefix/v1/fetch/"), url);
            assertNotEquals(-1, url.indexOf("&t="));
        }
    }
}
