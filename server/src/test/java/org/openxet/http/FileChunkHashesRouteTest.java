package org.openxet.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.MerkleHashSubtree;
import org.openxet.service.Access;
import org.openxet.testing.TestServer;
import org.openxet.testing.Vectors;

import java.net.http.HttpResponse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code GET /v2/file-chunk-hashes} (§5.9) over real HTTP for the JS client's captured 3 MiB file (one term of 57
 * chunks): windows on chunk boundaries that reach two stable-size chunks past each dirty range, gap trees as the
 * chunks before and after them build, and the refusals. (The interop test checks the trees against the client
 * library's own and has the JS client's edit operation use them.)
 */
class FileChunkHashesRouteTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static TestServer server;
    private static String read;
    private static String fileId;
    private static JsonNode chunks;

    @BeforeAll
    static void upload() throws Exception {
        server = new TestServer();
        UploadPathTest.uploadScenario(server, "single-r3m", server.writeToken());
        read = server.token("user/repo", Access.READ);
        JsonNode capture = Vectors.capture("single-r3m");
        fileId = capture.get("files").get(0).get("client_xet_hash").asText();
        chunks = capture.get("xorbs").get(0).get("chunks");
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static HttpResponse<String> ask(String id, String dirty, String token) throws Exception {
        var b = server.request("/v2/file-chunk-hashes/" + id, token).GET();
        if (dirty != null) b.header("X-Range-Dirty", dirty);
        return server.send(b.build());
    }

    private static long chunkEnd(int k) {
        return chunks.get(k).get("unpacked_start").asLong() + chunks.get(k).get("uncompressed_length").asLong();
    }

    private static boolean stable(int k) {
        long size = chunks.get(k).get("uncompressed_length").asLong();
        return size >= 16384 && size < 131072 - 8192;
    }

    /** The gap tree over chunks {@code [from, to)}, as the captured chunk list builds it. */
    private static MerkleHashSubtree tree(boolean atStart, int from, int to, boolean atEnd) {
        byte[] hashes = new byte[32 * (to - from)];
        long[] sizes = new long[to - from];
        for (int k = from; k < to; k++) {
            MerkleHash.of(chunks.get(k).get("hash").asText()).writeTo(hashes, 32 * (k - from));
            sizes[k - from] = chunks.get(k).get("uncompressed_length").asLong();
        }
        return MerkleHashSubtree.fromChunks(atStart, hashes, sizes, to - from, atEnd);
    }

    private static void assertTree(MerkleHashSubtree want, JsonNode got) {
        assertEquals(want.nodeCount(), got.get("nodes").size());
        for (int k = 0; k < want.nodeCount(); k++) {
            assertEquals(want.node(k).hex(), got.get("nodes").get(k).get("hash").asText());
            assertEquals(want.size(k), got.get("nodes").get(k).get("size").asLong());
        }
        assertEquals(want.levelCount(), got.get("levels").size());
        for (int l = 0; l < want.levelCount(); l++) {
            assertEquals("[" + want.left(l) + "," + want.right(l) + "]", got.get("levels").get(l).toString());
        }
        assertEquals(want.atStart(), got.get("at_start").asBoolean());
        assertEquals(want.atEnd(), got.get("at_end").asBoolean());
    }

    @Test
    void aWindowCoversTheEditAndRunsOnToTwoStableChunks() throws Exception {
        HttpResponse<String> r = ask(fileId, "bytes=1000000-1000049", read);
        assertEquals(200, r.statusCode(), r.body());
        JsonNode a = JSON.readTree(r.body());
        assertEquals(57, a.get("totalChunks").asInt());
        assertEquals(3_145_728, a.get("fileSize").asLong());
        // The expected window, by the rule: from the chunk holding byte 1,000,000 to the end of the second of two
        // consecutive stable-size chunks after the last dirty one.
        int first = 0;
        while (chunkEnd(first) <= 1_000_000) first++;
        int last = first;
        while (chunkEnd(last) < 1_000_050) last++;
        int end = last + 2;
        while (!(stable(end - 1) && stable(end))) end++;
        long start = chunks.get(first).get("unpacked_start").asLong();
        assertEquals("[{\"dirtyByteRange\":[" + start + "," + chunkEnd(end) + "]}]", a.get("windows").toString());
        assertEquals(2, a.get("hashRanges").size());
        assertTree(tree(true, 0, first, false), a.get("hashRanges").get(0));
        assertTree(tree(false, end + 1, 57, true), a.get("hashRanges").get(1));
        // The file's one term is touched: no verification hash carries over.
        assertEquals("[]", a.get("gapVerification").toString());
    }

    @Test
    void editsAtTheEdgesLeaveEmptyGapsNullAndNearbyEditsShareAWindow() throws Exception {
        HttpResponse<String> r = ask(fileId, "bytes=3145000-3145727, 0-0,10-20", read);
        assertEquals(200, r.statusCode(), r.body());
        JsonNode a = JSON.readTree(r.body());
        JsonNode windows = a.get("windows");
        assertEquals(0, windows.get(0).get("dirtyByteRange").get(0).asLong());
        assertEquals(3_145_728, windows.get(windows.size() - 1).get("dirtyByteRange").get(1).asLong());
        assertEquals(windows.size() + 1, a.get("hashRanges").size());
        assertTrue(a.get("hashRanges").get(0).isNull(), "nothing before a window at byte 0");
        assertTrue(a.get("hashRanges").get(windows.size()).isNull(), "nothing after a window at the end");
        // A range past the end is cut to the file.
        assertEquals(200, ask(fileId, "bytes=3145700-9999999", read).statusCode());
    }

    @Test
    void refusals() throws Exception {
        HttpResponse<String> missing = ask(fileId, null, read);
        assertEquals(400, missing.statusCode());
        assertEquals("bad_request", JSON.readTree(missing.body()).get("error").asText(), missing.body());
        for (String bad : new String[]{"bytes=-5", "bytes=5-", "bytes=9-3", "items=0-1", "bytes=a-b"}) {
            HttpResponse<String> r = ask(fileId, bad, read);
            assertEquals(400, r.statusCode(), bad + ": " + r.body());
        }
        HttpResponse<String> past = ask(fileId, "bytes=3145728-3145800", read);
        assertEquals(400, past.statusCode());
        assertEquals("no dirty range lies inside the file's 3145728 bytes", JSON.readTree(past.body()).get("message").asText());
        assertEquals(404, ask(MerkleHash.ofWords(1, 2, 3, 4).hex(), "bytes=0-1", read).statusCode());
        assertEquals(404, ask(fileId, "bytes=0-1", server.token("other/repo", Access.READ)).statusCode());
        assertEquals(401, ask(fileId, "bytes=0-1", null).statusCode());
    }
}
