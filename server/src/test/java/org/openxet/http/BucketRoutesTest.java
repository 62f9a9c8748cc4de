package org.openxet.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleHash;
import org.openxet.service.Access;
import org.openxet.service.Settings;
import org.openxet.service.Users;
import org.openxet.testing.MiniClient;
import org.openxet.testing.SyntheticFile;
import org.openxet.testing.TestServer;

import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bucket routes, one test per thing a stock client relies on, named after the client function that relies on it
 * (huggingface_hub at ee0a4510: {@code hf_api.py}, {@code _buckets.py}, {@code cli/_cp.py}, {@code utils/_http.py},
 * {@code utils/_xet.py}; huggingface.js at fe42e680: {@code lib/commit.ts}, {@code lib/list-files.ts},
 * {@code lib/paths-info.ts}, {@code lib/file-download-info.ts}, {@code lib/create-repo.ts}). Python cannot be
 * installed here, so each test states the client's reading in Java and checks the real server's answer over HTTP.
 */
class BucketRoutesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The base URL the server names itself by (the request's Host: no public.url is set). */
    static String base;
    /** What huggingface_hub's parse_datetime takes (%Y-%m-%dT%H:%M:%S.%fZ). */
    private static final Pattern HUB_TIME = Pattern.compile("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");

    static TestServer server;
    static String alice;
    static String reader;
    static String bob;
    static SyntheticFile one;
    static SyntheticFile inModel;
    static SyntheticFile elsewhere;

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer(c -> c.with(Settings.BUCKETS_BATCH_LINES, 3_000)
                .with(Settings.BUCKETS_BATCH_BYTES, 512L * 1024));
        base = server.url("");
        Users users = new Users(server.dataDir());
        alice = users.add("alice", List.of("buckets/alice/*", "models/alice/*"), Access.WRITE);
        reader = users.add("reader", List.of("buckets/alice/*"), Access.READ);
        bob = users.add("bob", List.of("buckets/bob/*", "models/bob/*"), Access.WRITE);
        one = SyntheticFile.of(1);
        one.upload(server, server.token("buckets/alice/data", Access.WRITE));
        inModel = SyntheticFile.of(2);
        inModel.upload(server, server.token("models/alice/m", Access.WRITE));
        elsewhere = SyntheticFile.of(3);
        elsewhere.upload(server, server.token("models/bob/secret", Access.WRITE));
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static final Set<String> uploadedTo = new HashSet<>();

    /**
     * The bucket's NDJSON batch call. The file {@code one} is first uploaded to the bucket's own scope, as a client
     * uploads through the bucket's write token before its batch call (a shard already registered only gains the scope).
     */
    static HttpResponse<String> batch(String bucket, String token, String... lines) throws Exception {
        if (bucket.startsWith("alice/")) prepare(bucket);
        return server.send(server.request("/api/buckets/" + bucket + "/batch", token)
                .header("Content-Type", "application/x-ndjson")
                .POST(HttpRequest.BodyPublishers.ofString(String.join("\n", lines) + "\n")).build());
    }

    static void prepare(String bucket) throws Exception {
        if (uploadedTo.add(bucket)) one.upload(server, server.token("buckets/" + bucket, Access.WRITE));
    }

    static String add(String path, MerkleHash hash) {
        return "{\"type\": \"addFile\", \"path\": " + JsonAnswer.quote(path) + ", \"xetHash\": \"" + hash.hex()
                + "\", \"mtime\": 1727278262346, \"contentType\": \"application/octet-stream\"}";
    }

    static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }

    static HttpResponse<String> head(String path, String token) throws Exception {
        return server.send(server.request(path, token).method("HEAD", HttpRequest.BodyPublishers.noBody()).build());
    }

    /** huggingface_hub's quote(path, safe=""). */
    static String quote(String path) {
        return URLEncoder.encode(path, StandardCharsets.UTF_8).replace("+", "%20");
    }

    @Test
    void createBucketAnswersTheUrlBucketUrlParsesAndA409ForExistOk() throws Exception {
        // hf_api.py create_bucket: POST /api/buckets/{namespace}/{name} with {"private": ...}; BucketUrl(response
        // .json()["url"]) parses "{endpoint}/buckets/{namespace}/{name}"; exist_ok passes on a 409. "me" is the caller.
        HttpResponse<String> r = server.post("/api/buckets/me/created", alice, "{\"private\": false}".getBytes());
        assertEquals(200, r.statusCode(), r.body());
        assertEquals(base + "/buckets/alice/created", json(r).get("url").asText());
        assertEquals("alice/created", json(r).get("id").asText(), "huggingface.js createRepo reads id");
        HttpResponse<String> again = server.post("/api/buckets/alice/created", alice, new byte[0]);
        assertEquals(409, again.statusCode());
        assertEquals(base + "/buckets/alice/created", json(again).get("url").asText());
        JsonNode info = json(server.get("/api/buckets/alice/created", alice));
        assertFalse(info.get("private").asBoolean());
        // create-repo.ts sends {"visibility": "private"} for a bucket.
        assertEquals(200, server.post("/api/buckets/alice/created-js", alice, "{\"visibility\":\"private\"}".getBytes())
                .statusCode());
        assertTrue(json(server.get("/api/buckets/alice/created-js", alice)).get("private").asBoolean());
        // A read-only user gets 403 (exist_ok then asks bucket_info), another user's namespace a 404.
        assertEquals(403, server.post("/api/buckets/alice/by-reader", reader, new byte[0]).statusCode());
        assertEquals(404, server.post("/api/buckets/alice/by-bob", bob, new byte[0]).statusCode());
    }

    @Test
    void bucketInfoReadsIdPrivateCreatedAtSizeAndTotalFiles() throws Exception {
        // _buckets.py BucketInfo: id, private, parse_datetime(createdAt), size, totalFiles.
        assertEquals(200, batch("alice/info", alice, add("a.bin", one.file()), add("d/b.bin", one.file())).statusCode());
        JsonNode info = json(server.get("/api/buckets/alice/info", alice));
        assertEquals("alice/info", info.get("id").asText());
        assertTrue(info.get("private").isBoolean());
        assertTrue(HUB_TIME.matcher(info.get("createdAt").asText()).matches(), info.toString());
        assertEquals(2L * one.content().length, info.get("size").asLong());
        assertEquals(2, info.get("totalFiles").asInt());
    }

    @Test
    void hfRaiseForStatusRaisesBucketNotFoundErrorForAMissingBucketOrAnotherUsersOne() throws Exception {
        // utils/_http.py hf_raise_for_status: X-Error-Code RepoNotFound on /api/buckets/ → BucketNotFoundError, which
        // _buckets.py sync treats as an empty bucket. Another user's bucket answers exactly the same.
        assertEquals(200, batch("alice/private", alice, add("x.bin", one.file())).statusCode());
        for (String[] call : List.of(new String[]{"/api/buckets/alice/missing", alice},
                new String[]{"/api/buckets/alice/private", bob}, new String[]{"/api/buckets/alice/private/tree", bob},
                new String[]{"/api/buckets/alice/missing/tree", alice})) {
            HttpResponse<String> r = server.get(call[0], call[1]);
            assertEquals(404, r.statusCode(), call[0]);
            assertEquals("RepoNotFound", r.headers().firstValue("X-Error-Code").orElse(null), call[0]);
            assertEquals("not_found", json(r).get("error").asText());
        }
        assertEquals(404, head("/buckets/alice/private/resolve/x.bin", bob).statusCode());
        HttpResponse<String> write = batch("alice/private", bob, add("y.bin", one.file()));
        assertEquals(404, write.statusCode(), "bob cannot learn that alice's bucket exists by writing to it");
    }

    @Test
    void batchBucketFilesTakesEachSizeFromTheIndexAndFailsALineWhoseHashTheBucketCannotSee() throws Exception {
        // hf_api.py _batch_bucket_files: addFile {path, xetHash, mtime (ms), contentType?}, no size; then
        // hf_raise_for_status raises on the 422. commit.ts commitIterBucket reads json.failed[].path from a 200 or 422.
        HttpResponse<String> r = batch("alice/adds", alice, add("ok.bin", one.file()), add("theirs.bin", elsewhere.file()),
                add("model.bin", inModel.file()), add("bad//path", one.file()), add("../up", one.file()),
                "{\"type\": \"addFile\", \"path\": \"zero.bin\", \"xetHash\": \"" + MerkleHash.ZERO.hex() + "\"}",
                "{\"type\": \"renameFile\", \"path\": \"r\"}", add("x".repeat(1025), one.file()));
        assertEquals(422, r.statusCode(), r.body());
        JsonNode answer = json(r);
        assertFalse(answer.get("success").asBoolean());
        assertEquals(8, answer.get("processed").asInt());
        assertEquals(2, answer.get("succeeded").asInt());
        List<String> failed = new ArrayList<>();
        for (JsonNode f : answer.get("failed")) {
            failed.add(f.get("path").asText());
            assertFalse(f.get("error").asText().isEmpty());
        }
        assertEquals(List.of("theirs.bin", "model.bin", "bad//path", "../up", "r", "x".repeat(1025)), failed);
        List<JsonNode> files = list("alice/adds", "", true);
        assertEquals(2, files.size());
        JsonNode ok = files.getFirst();
        assertEquals("ok.bin", ok.get("path").asText());
        assertEquals(one.content().length, ok.get("size").asLong());
        assertEquals(one.file().hex(), ok.get("xetHash").asText());
        assertEquals("2024-09-25T15:31:02.346Z", ok.get("mtime").asText(), "the client's mtime, as parse_datetime takes it");
        assertTrue(HUB_TIME.matcher(ok.get("uploadedAt").asText()).matches());
        assertEquals("application/octet-stream", ok.get("contentType").asText());
        assertEquals(0, files.get(1).get("size").asLong(), "the empty file (zero hash) needs no record");

        HttpResponse<String> clean = batch("alice/adds", alice, add("again.bin", one.file()));
        assertEquals(200, clean.statusCode());
        assertEquals("{\"success\":true,\"processed\":1,\"succeeded\":1,\"failed\":[]}", clean.body());
    }

    /** A later mtime would list with a five-digit year, which huggingface_hub's parse_datetime refuses. */
    @Test
    void anMtimePastTheYear9999FailsItsLineAndTheLatestOneListsAsHuggingfaceHubParsesIt() throws Exception {
        String line = "{\"type\": \"addFile\", \"path\": \"%s\", \"xetHash\": \"" + one.file().hex() + "\", \"mtime\": %d}";
        HttpResponse<String> r = batch("alice/times", alice, line.formatted("last.bin", 253_402_300_799_999L),
                line.formatted("later.bin", 253_402_300_800_000L), line.formatted("max.bin", Long.MAX_VALUE));
        assertEquals(422, r.statusCode(), r.body());
        assertEquals(List.of("later.bin", "max.bin"), json(r).get("failed").findValuesAsText("path"));
        List<JsonNode> files = list("alice/times", "", true);
        assertEquals(1, files.size());
        assertEquals("9999-12-31T23:59:59.999Z", files.getFirst().get("mtime").asText());
        assertTrue(HUB_TIME.matcher(files.getFirst().get("mtime").asText()).matches());
    }

    @Test
    void aNamespaceOrNameLongerThanTheHubsIsAMalformedId() throws Exception {
        assertEquals(200, server.post("/api/buckets/alice/" + "n".repeat(96), alice, "{}".getBytes()).statusCode());
        HttpResponse<String> longer = server.post("/api/buckets/alice/" + "n".repeat(97), alice, "{}".getBytes());
        assertEquals(400, longer.statusCode(), longer.body());
    }

    @Test
    void copyFilesCopiesByXetHashFromARepoTheUserCanReadAndTheCopyDownloadsWithTheBucketsReadToken() throws Exception {
        // hf_api.py _copy_to_bucket / _batch_bucket_files: copyFile {path, xetHash, sourceRepoType, sourceRepoId};
        // commit.ts: the same line for a "copy" operation. The bucket's read token must then reconstruct the file.
        HttpResponse<String> r = batch("alice/copies", alice,
                "{\"type\":\"copyFile\",\"path\":\"from-model.bin\",\"xetHash\":\"" + inModel.file().hex()
                        + "\",\"sourceRepoType\":\"model\",\"sourceRepoId\":\"alice/m\"}",
                "{\"type\":\"copyFile\",\"path\":\"from-bob.bin\",\"xetHash\":\"" + elsewhere.file().hex()
                        + "\",\"sourceRepoType\":\"model\",\"sourceRepoId\":\"bob/secret\"}",
                "{\"type\":\"copyFile\",\"path\":\"wrong-source.bin\",\"xetHash\":\"" + one.file().hex()
                        + "\",\"sourceRepoType\":\"model\",\"sourceRepoId\":\"alice/m\"}");
        assertEquals(422, r.statusCode(), r.body());
        assertEquals(1, json(r).get("succeeded").asInt());
        String bucketRead = server.token("buckets/alice/copies", Access.READ);
        assertArrayEquals(inModel.content(), new MiniClient(server, bucketRead).download(2, inModel.file().hex(), null));
        assertEquals(404, new MiniClient(server, bucketRead).reconstruction(2, elsewhere.file().hex(), null).status());
    }

    @Test
    void batchBucketFilesDeletesAndTheTotalsFollow() throws Exception {
        assertEquals(200, batch("alice/deletes", alice, add("a", one.file()), add("b", one.file()), add("c/d", one.file()))
                .statusCode());
        HttpResponse<String> r = batch("alice/deletes", alice, "{\"type\":\"deleteFile\",\"path\":\"a\"}",
                "{\"type\":\"deleteFile\",\"path\":\"c/d\"}", "{\"type\":\"deleteFile\",\"path\":\"never\"}");
        assertEquals(200, r.statusCode(), "deleting a missing path leaves the bucket as asked: " + r.body());
        assertEquals(List.of("b"), list("alice/deletes", "", true).stream().map(n -> n.get("path").asText()).toList());
        JsonNode info = json(server.get("/api/buckets/alice/deletes", alice));
        assertEquals(1, info.get("totalFiles").asInt());
        assertEquals(one.content().length, info.get("size").asLong());
    }

    /** Every entry of a listing, following Link: rel="next" as huggingface_hub's paginate does. */
    static List<JsonNode> list(String bucket, String prefixPath, boolean recursive) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        String url = server.url("/api/buckets/" + bucket + "/tree" + prefixPath + "?recursive=" + recursive);
        while (url != null) {
            HttpResponse<String> r = server.send(server.request("", alice).uri(java.net.URI.create(
                    url)).GET().build());
            assertEquals(200, r.statusCode(), r.body());
            json(r).forEach(out::add);
            String link = r.headers().firstValue("Link").orElse(null);
            url = null;
            if (link != null) {
                // huggingface.js parseLinkHeader: <(https?://[^>]+)>;\s+rel="([^"]+)"
                Matcher m = Pattern.compile("<(https?:[/][/][^>]+)>;\\s+rel=\"([^\"]+)\"").matcher(link);
                assertTrue(m.find() && m.group(2).equals("next"), link);
                url = m.group(1);
            }
        }
        return out;
    }

    static List<String> typed(List<JsonNode> entries) {
        return entries.stream().map(n -> n.get("type").asText().charAt(0) + ":" + n.get("path").asText()).toList();
    }

    @Test
    void listBucketTreeListsFilesAndDirectoriesAtOneLevelOrRecursivelyUnderAPrefix() throws Exception {
        // hf_api.py list_bucket_tree: /tree{"/" + quote(prefix, safe="")}, recursive; BucketFile / BucketFolder by
        // type. list-files.ts listFiles: /tree/{path} unquoted, recursive=...&expand=...
        assertEquals(200, batch("alice/tree", alice, add("top.bin", one.file()), add("d/a.bin", one.file()),
                add("d/e/b.bin", one.file()), add("d/e/f/c.bin", one.file()), add("d-sibling.bin", one.file()),
                add("z/y.bin", one.file())).statusCode());
        assertEquals(List.of("f:d-sibling.bin", "d:d", "f:top.bin", "d:z"), typed(list("alice/tree", "", false)));
        assertEquals(List.of("f:d-sibling.bin", "d:d", "f:d/a.bin", "d:d/e", "f:d/e/b.bin", "d:d/e/f", "f:d/e/f/c.bin",
                "f:top.bin", "d:z", "f:z/y.bin"), typed(list("alice/tree", "", true)));
        assertEquals(List.of("f:d/a.bin", "d:d/e"), typed(list("alice/tree", "/d", false)));
        assertEquals(List.of("f:d/e/b.bin", "d:d/e/f", "f:d/e/f/c.bin"), typed(list("alice/tree", "/" + quote("d/e"), true)));
        assertEquals(List.of("f:d/e/b.bin", "d:d/e/f"), typed(list("alice/tree", "/d/e/", false)));
        // A prefix naming a file lists that file (_buckets.py _list_remote_files: "the file IS the prefix").
        assertEquals(List.of("f:top.bin"), typed(list("alice/tree", "/top.bin", true)));
        assertEquals(List.of(), list("alice/tree", "/nothing", true));
        assertEquals(400, server.get("/api/buckets/alice/tree/tree/a%2F%2Fb", alice).statusCode());
    }

    @Test
    void paginateFollowsLinkNextThroughABucketLargerThanAPage() throws Exception {
        // utils/_pagination.py paginate: response.links["next"]["url"] until there is none; list-files.ts the same.
        int n = 2 * org.openxet.service.BucketTree.PAGE + 321;
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < n; i++) lines.add(add(String.format("dir%d/f%05d", i % 3, i), one.file()));
        for (int from = 0; from < n; from += 1000) {
            HttpResponse<String> r = batch("alice/big", alice, lines.subList(from, Math.min(n, from + 1000)).toArray(String[]::new));
            assertEquals(200, r.statusCode(), r.body().substring(0, Math.min(500, r.body().length())));
        }
        List<JsonNode> all = list("alice/big", "", true);
        List<String> files = all.stream().filter(x -> x.get("type").asText().equals("file")).map(x -> x.get("path").asText()).toList();
        assertEquals(n, files.size());
        assertEquals(n, new HashSet<>(files).size());
        assertEquals(n + 3, all.size(), "each of the 3 directories once");
        assertEquals(List.of("d:dir0", "d:dir1", "d:dir2"), typed(list("alice/big", "", false)));
        assertEquals(server.get("/api/buckets/alice/big/tree?recursive=true&cursor=bm90LWEtY3Vyc29y", alice).statusCode(), 400);
    }

    @Test
    void getBucketPathsInfoAnswersTheFilesThatExistAndRefusesMoreThan1000Paths() throws Exception {
        // hf_api.py get_bucket_paths_info: POST {"paths": [...]} in batches of _BUCKET_PATHS_INFO_BATCH_SIZE (1000),
        // BucketFile(**item) for each; a missing path is left out (download_bucket_files warns about it).
        assertEquals(200, batch("alice/info-paths", alice, add("p/a.bin", one.file()), add("p/b.bin", one.file())).statusCode());
        HttpResponse<String> r = server.post("/api/buckets/alice/info-paths/paths-info", reader,
                "{\"paths\": [\"p/b.bin\", \"missing\", \"p\", \"p/a.bin\", \"..\"], \"expand\": false}".getBytes());
        assertEquals(200, r.statusCode(), r.body());
        JsonNode answer = json(r);
        assertEquals(2, answer.size());
        for (JsonNode f : answer) {
            assertEquals("file", f.get("type").asText());
            assertEquals(one.content().length, f.get("size").asLong());
            assertEquals(one.file().hex(), f.get("xetHash").asText());
            assertTrue(HUB_TIME.matcher(f.get("mtime").asText()).matches());
            assertTrue(HUB_TIME.matcher(f.get("uploadedAt").asText()).matches());
        }
        List<String> many = new ArrayList<>();
        for (int i = 0; i < 1001; i++) many.add("\"f" + i + "\"");
        HttpResponse<String> tooMany = server.post("/api/buckets/alice/info-paths/paths-info", alice,
                ("{\"paths\": [" + String.join(",", many) + "]}").getBytes());
        assertEquals(400, tooMany.statusCode());
        assertEquals(404, server.post("/api/buckets/alice/nope/paths-info", alice, "{\"paths\":[]}".getBytes()).statusCode());
    }

    @Test
    void getBucketFileMetadataReadsXetHashTheXetAuthLinkAndContentLengthFromTheHead() throws Exception {
        // hf_api.py get_bucket_file_metadata: HEAD /buckets/{id}/resolve/{quote(path, safe="")}; utils/_xet.py
        // parse_xet_file_data_from_response: X-Xet-Hash, links["xet-auth"]["url"]; size = Content-Length. Then
        // download_bucket_files gives that route to hf_xet as token_refresh_url with the user's own headers.
        assertEquals(200, batch("alice/meta", alice, add("deep/dir/file name+é.bin", one.file())).statusCode());
        HttpResponse<String> h = head("/buckets/alice/meta/resolve/" + quote("deep/dir/file name+é.bin"), reader);
        assertEquals(200, h.statusCode());
        assertEquals(one.file().hex(), h.headers().firstValue("X-Xet-Hash").orElse(null));
        assertEquals(Long.toString(one.content().length), h.headers().firstValue("Content-Length").orElse(null));
        assertEquals(Long.toString(one.content().length), h.headers().firstValue("X-Linked-Size").orElse(null));
        assertEquals("\"" + one.file().hex() + "\"", h.headers().firstValue("ETag").orElse(null));
        Map<String, String> links = links(h.headers().firstValue("Link").orElseThrow());
        assertEquals(base + "/api/buckets/alice/meta/xet-read-token", links.get("xet-auth"));
        assertEquals(base + "/v1/reconstructions/" + one.file().hex(), links.get("xet-reconstruction-info"));

        JsonNode token = json(server.get(links.get("xet-auth").replace(base, ""), reader));
        String casToken = token.get("accessToken").asText();
        assertEquals("buckets/alice/meta", server.services().tokens().verify(casToken).scope());
        assertArrayEquals(one.content(), new MiniClient(server, casToken).download(2, one.file().hex(), null));

        HttpResponse<String> missing = head("/buckets/alice/meta/resolve/nothing.bin", reader);
        assertEquals(404, missing.statusCode());
        assertEquals("EntryNotFound", missing.headers().firstValue("X-Error-Code").orElse(null));
    }

    @Test
    void fileDownloadInfoGetsTheXetFileInfoForAnUnencodedNestedPathAndNullOnEntryNotFound() throws Exception {
        // file-download-info.ts: GET /buckets/{name}/resolve/{path} (path as is), Range: bytes=0-0, Accept:
        // application/vnd.xet-fileinfo+json, */*; needs resp.ok, that Content-Type, X-Linked-Size, X-Xet-Hash, Link
        // xet-reconstruction-info and xet-auth, an ETag; 404 with X-Error-Code EntryNotFound → null.
        assertEquals(200, batch("alice/js", alice, add("a/b/c.bin", one.file())).statusCode());
        HttpRequest.Builder get = server.request("/buckets/alice/js/resolve/a/b/c.bin", alice).GET()
                .header("Range", "bytes=0-0").header("Accept", "application/vnd.xet-fileinfo+json, */*");
        HttpResponse<String> r = server.send(get.build());
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").contains("application/vnd.xet-fileinfo+json"));
        assertEquals(Long.toString(one.content().length), r.headers().firstValue("X-Linked-Size").orElse(null));
        assertEquals(one.file().hex(), r.headers().firstValue("X-Xet-Hash").orElse(null));
        assertNotNull(r.headers().firstValue("ETag").orElse(null));
        assertEquals(2, links(r.headers().firstValue("Link").orElseThrow()).size());
        assertEquals(one.file().hex(), json(r).get("hash").asText());
        HttpResponse<String> missing = server.send(server.request("/buckets/alice/js/resolve/a/b/none", alice).GET()
                .header("Accept", "application/vnd.xet-fileinfo+json, */*").build());
        assertEquals(404, missing.statusCode());
        assertEquals("EntryNotFound", missing.headers().firstValue("X-Error-Code").orElse(null));
        HttpResponse<String> plain = server.get("/buckets/alice/js/resolve/a/b/c.bin", alice);
        assertEquals(406, plain.statusCode(), "no bytes without Xet: " + plain.body());
        assertEquals(400, server.get("/buckets/alice/js/resolve/a%C3%28", alice).statusCode());
    }

    /** Link header values by rel, parsed as huggingface.js parseLinkHeader does. */
    static Map<String, String> links(String header) {
        Map<String, String> out = new java.util.HashMap<>();
        Matcher m = Pattern.compile("<(https?:[/][/][^>]+)>;\\s+rel=\"([^\"]+)\"").matcher(header);
        while (m.find()) out.put(m.group(2), m.group(1));
        return out;
    }

    @Test
    void aReadOnlyUserListsAndResolvesButCannotWrite() throws Exception {
        assertEquals(200, batch("alice/ro", alice, add("f", one.file())).statusCode());
        assertEquals(200, server.get("/api/buckets/alice/ro/tree", reader).statusCode());
        HttpResponse<String> write = batch("alice/ro", reader, add("g", one.file()));
        assertEquals(403, write.statusCode());
        assertEquals("forbidden", json(write).get("error").asText());
        assertEquals(List.of("f"), list("alice/ro", "", true).stream().map(n -> n.get("path").asText()).toList());
    }

    @Test
    void aBatchOverItsLineOrByteCapOrWithAMalformedLineIsRefusedWholeAndStoresNothing() throws Exception {
        prepare("alice/hostile");
        Map<String, Long> before = stored();
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 3_001; i++) lines.add("{\"type\":\"deleteFile\",\"path\":\"l" + i + "\"}");
        HttpResponse<String> tooMany = batch("alice/hostile", alice, lines.toArray(String[]::new));
        assertEquals(413, tooMany.statusCode(), tooMany.body());
        assertTrue(json(tooMany).get("message").asText().contains("buckets.batch.lines"), tooMany.body());
        List<String> longLines = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) longLines.add(add(i + "p".repeat(300), one.file()));
        HttpResponse<String> tooBig = batch("alice/hostile", alice, longLines.toArray(String[]::new));
        assertEquals(413, tooBig.statusCode(), tooBig.body());
        HttpResponse<String> malformed = batch("alice/hostile", alice, add("fine", one.file()), "{not json");
        assertEquals(400, malformed.statusCode());
        assertEquals("bad_request", json(malformed).get("error").asText());
        HttpResponse<String> array = batch("alice/hostile", alice, "[1, 2]");
        assertEquals(400, array.statusCode());
        // One line of 100 KiB of empty objects: refused by its length before it is parsed into a tree.
        HttpResponse<String> longLine = batch("alice/hostile", alice,
                "{\"type\":\"deleteFile\",\"x\":[" + "{},".repeat(34_000) + "{}]}");
        assertEquals(400, longLine.statusCode(), longLine.body());
        assertEquals("line 1 is longer than 65536 bytes", json(longLine).get("message").asText());
        assertEquals(before, stored());
        assertEquals(404, server.get("/api/buckets/alice/hostile", alice).statusCode());
    }

    static Map<String, Long> stored() throws Exception {
        Map<String, Long> m = new java.util.HashMap<>(server.storedCounts());
        m.putAll(server.services().index().bucketRepos().rowCounts());
        return m;
    }

    @Test
    void anEmptyBatchSucceedsWithNothingProcessedAndCreatesNoBucket() throws Exception {
        HttpResponse<String> r = server.post("/api/buckets/alice/empty/batch", alice, new byte[0]);
        assertEquals(200, r.statusCode());
        assertEquals(0, json(r).get("processed").asInt());
        assertEquals(404, server.get("/api/buckets/alice/empty", alice).statusCode());
    }
    @Test
    void whoamiAnswersTheUserNameNoOrgsAndTheTokensRoleAsLoginAndAuthWhoamiReadThem() throws Exception {
        // hf_api.py _inner_whoami: GET /api/whoami-v2; cli/auth.py auth_whoami reads name and orgs[].name; _login.py
        // reads auth.accessToken.role and displayName; who-am-i.ts whoAmI the same (type "user").
        JsonNode me = json(server.get("/api/whoami-v2", alice));
        assertEquals("user", me.get("type").asText());
        assertEquals("alice", me.get("name").asText());
        assertEquals(0, me.get("orgs").size());
        assertEquals("write", me.at("/auth/accessToken/role").asText());
        assertFalse(me.at("/auth/accessToken/displayName").asText().isEmpty());
        assertEquals("read", json(server.get("/api/whoami-v2", reader)).at("/auth/accessToken/role").asText());
        // An unknown token is the 401 _inner_whoami turns into "Invalid user token."
        assertEquals(401, server.get("/api/whoami-v2", "hf_not_a_token").statusCode());
    }

    @Test
    void listBucketsPagesThroughTheNamespacesBucketsTheUserCanReadAndFiltersBySearch() throws Exception {
        // hf_api.py list_buckets: GET /api/buckets/{namespace or "me"}?search=..., paginate (Link rel="next"), each
        // item BucketInfo(id, private, createdAt, size, totalFiles); cli/buckets.py _list_buckets prints them.
        String carol = new Users(server.dataDir()).add("carol", List.of("buckets/carol/*"), Access.WRITE);
        var repos = server.services().index().bucketRepos();
        List<String> made = new ArrayList<>();
        for (int i = 0; i < BucketRoutes.LIST_PAGE + 2; i++) {
            String id = String.format("carol/b-%04d", i);
            assertTrue(repos.create(id, i % 2 == 0, 1_727_278_262_346L, server.services().bucketChanges()::write));
            made.add(id);
        }
        List<JsonNode> listed = new ArrayList<>();
        String url = server.url("/api/buckets/me");
        int pages = 0;
        while (url != null) {
            HttpResponse<String> r = server.send(server.request("", carol).uri(java.net.URI.create(url)).GET().build());
            assertEquals(200, r.statusCode(), r.body());
            json(r).forEach(listed::add);
            pages++;
            url = r.headers().firstValue("Link").map(l -> l.replaceAll("^<([^>]+)>; rel=\"next\"$", "$1")).orElse(null);
        }
        assertEquals(2, pages);
        assertEquals(made, listed.stream().map(n -> n.get("id").asText()).toList());
        JsonNode first = listed.getFirst();
        assertTrue(first.get("private").asBoolean());
        assertEquals("2024-09-25T15:31:02.346Z", first.get("createdAt").asText());
        assertEquals(0, first.get("size").asLong());
        assertEquals(0, first.get("totalFiles").asLong());
        List<String> found = new ArrayList<>();
        json(server.get("/api/buckets/carol?search=B-000", carol)).forEach(n -> found.add(n.get("id").asText()));
        assertEquals(made.subList(0, 10), found);
        assertEquals("[]", server.get("/api/buckets/carol", bob).body(), "bob reads none of carol's buckets");
    }

    @Test
    void deleteBucketRemovesTheBucketAndItsPathsAndAnswers404ForMissingOk() throws Exception {
        // hf_api.py delete_bucket: DELETE /api/buckets/{id}, missing_ok passes on a 404; delete-repo.ts: res.ok.
        assertEquals(200, batch("alice/deleted", alice, add("a.bin", one.file())).statusCode());
        assertEquals(403, server.send(server.request("/api/buckets/alice/deleted", reader).DELETE().build()).statusCode());
        assertEquals(404, server.send(server.request("/api/buckets/alice/deleted", bob).DELETE().build()).statusCode());
        assertEquals(200, server.send(server.request("/api/buckets/alice/deleted", alice).DELETE().build()).statusCode());
        HttpResponse<String> info = server.get("/api/buckets/alice/deleted", alice);
        assertEquals(404, info.statusCode());
        assertEquals("RepoNotFound", info.headers().firstValue("X-Error-Code").orElse(null));
        HttpResponse<String> again = server.send(server.request("/api/buckets/alice/deleted", alice).DELETE().build());
        assertEquals(404, again.statusCode());
        assertEquals("RepoNotFound", again.headers().firstValue("X-Error-Code").orElse(null));
        assertEquals(404, head("/buckets/alice/deleted/resolve/a.bin", alice).statusCode());
        // Made again, it is a new, empty bucket.
        assertEquals(200, server.post("/api/buckets/alice/deleted", alice, "{\"private\": false}".getBytes()).statusCode());
        JsonNode fresh = json(server.get("/api/buckets/alice/deleted", alice));
        assertEquals(0, fresh.get("totalFiles").asInt());
        assertFalse(fresh.get("private").asBoolean());
        assertEquals("[]", server.get("/api/buckets/alice/deleted/tree?recursive=true", alice).body());
    }
}
