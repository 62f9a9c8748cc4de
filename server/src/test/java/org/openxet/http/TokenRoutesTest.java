package org.openxet.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.openxet.service.Access;
import org.openxet.service.Grant;
import org.openxet.service.Users;
import org.openxet.testing.TestServer;
import org.openxet.testing.Vectors;

import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Hub-style token routes (§8), one test per thing a stock client relies on, named after the client function that
 * relies on it. The Python clients cannot be counted on here (tests/interop/hf-xet.sh runs hf_xet only where pip can
 * install it, and no release that reads the headers), so each test states the client's expectation in Java and cites
 * its file: huggingface_hub (at ee0a4510, and 8fa58388^ for the header helpers that releases up to 1.18 use), xet-core
 * (af1a3ff9), huggingface.js (fe42e680).
 */
class TokenRoutesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CAS = "http://cas.local:9999";

    /** The connection one token route answered, read the way each client reads it. */
    private record Answer(HttpResponse<String> response, JsonNode body) {
        static Answer of(HttpResponse<String> r) throws Exception {
            assertEquals(200, r.statusCode(), r.body());
            return new Answer(r, JSON.readTree(r.body()));
        }

        String header(String name) {
            return response.headers().firstValue(name).orElse(null);
        }
    }

    private static TestServer server() throws Exception {
        return new TestServer(c -> c.withPublicUrl(CAS));
    }

    @Test
    void parseXetConnectionInfoFromHeadersFindsTheCasUrlTheTokenAndAnIntegerExpiration() throws Exception {
        // huggingface_hub utils/_xet.py (8fa58388^) parse_xet_connection_info_from_headers: headers
        // X-Xet-Cas-Url, X-Xet-Access-Token and int(X-Xet-Token-Expiration), names from constants.py; any missing or
        // not an integer → "Xet headers have not been correctly set by the server."
        try (TestServer s = server()) {
            String alice = new Users(s.dataDir()).add("alice", List.of("models/alice/*"), Access.WRITE);
            Answer a = Answer.of(s.get("/api/models/alice/llama/xet-write-token/main", alice));
            assertEquals(CAS, a.header("X-Xet-Cas-Url"));
            Grant grant = s.services().tokens().verify(a.header("X-Xet-Access-Token"));
            assertEquals("models/alice/llama", grant.scope());
            assertEquals(Access.WRITE, grant.access());
            long exp = Long.parseLong(a.header("X-Xet-Token-Expiration"));
            // The header, the body and the token itself state one expiry, to the second.
            assertEquals(grant.expiresAt(), exp);
            assertEquals(exp, a.body().get("exp").asLong());
            assertEquals(a.header("X-Xet-Access-Token"), a.body().get("accessToken").asText());
            assertEquals(a.header("X-Xet-Cas-Url"), a.body().get("casUrl").asText());
            assertEquals("no-store", a.header("Cache-Control"));
        }
    }

    @Test
    void isExpiredKeepsTheConnectionInfoForAboutAnHour() throws Exception {
        // huggingface_hub utils/_xet.py (8fa58388^) _is_expired: a cached connection is refetched once
        // exp <= now + XET_CONNECTION_INFO_SAFETY_PERIOD; xet-core cas_client/auth.rs refreshes 30 s before exp;
        // @huggingface/hub xetWriteToken.ts 60 s before. An hour between refreshes keeps them rare.
        try (TestServer s = server()) {
            String alice = new Users(s.dataDir()).add("alice", List.of("models/alice/*"), Access.READ);
            long before = System.currentTimeMillis() / 1000;
            Answer a = Answer.of(s.get("/api/models/alice/llama/xet-read-token/main", alice));
            long exp = Long.parseLong(a.header("X-Xet-Token-Expiration"));
            long after = System.currentTimeMillis() / 1000;
            assertTrue(exp >= before + 3600 && exp <= after + 3600, "exp " + exp + " is an hour from now");
        }
    }

    @Test
    void xetConnectionInfoRefreshUrlIsAnsweredForEveryRepoTypeAndRevisionForm() throws Exception {
        // huggingface_hub utils/_xet.py xet_connection_info_refresh_url: /api/{type}s/{repo}/xet-{read|write}-token,
        // then "/{revision}" except for a bucket without one; "/None" when a PR is being created (the revision is not
        // known yet); _commit_api.py and _upload_pipeline.py append "?create_pr=1" and quote the revision with
        // safe="" (refs/pr/1 → refs%2Fpr%2F1). Every form gets the same repository-wide scope.
        try (TestServer s = server()) {
            Users users = new Users(s.dataDir());
            String writer = users.add("writer", List.of("models/acme/*", "datasets/acme/*", "spaces/acme/*",
                    "buckets/acme/*"), Access.WRITE);
            for (String type : List.of("models", "datasets", "spaces", "buckets")) {
                for (String tail : List.of("/main", "", "/None", "/None?create_pr=1", "/main?create_pr=1",
                        "/refs%2Fpr%2F1", "/refs%2Fconvert%2Fparquet", "/v1.0%2Brc")) {
                    String path = "/api/" + type + "/acme/repo/xet-write-token" + tail;
                    Answer a = Answer.of(s.get(path, writer));
                    Grant grant = s.services().tokens().verify(a.header("X-Xet-Access-Token"));
                    assertEquals(type + "/acme/repo", grant.scope(), path);
                    assertEquals(Access.WRITE, grant.access(), path);
                    assertEquals(grant.expiresAt(), Long.parseLong(a.header("X-Xet-Token-Expiration")), path);
                    assertEquals(grant.expiresAt(), a.body().get("exp").asLong(), path);
                }
            }
        }
    }

    @Test
    void getCasJwtReadsCamelCaseFieldsWithAnIntegerExp() throws Exception {
        // xet-core xet_client/src/hub_client/types.rs CasJWTInfo (serde camelCase: casUrl, exp as u64, accessToken),
        // read by DirectRefreshRouteTokenRefresher::get_cas_jwt (cas_client/auth.rs) from the body of whatever
        // token_refresh_url it is given, and by HubClient::get_cas_jwt (hub_client/client.rs), which asks
        // "/{rev}" with the reference percent-encoded and "?create_pr=1" for an upload without a reference.
        try (TestServer s = server()) {
            String alice = new Users(s.dataDir()).add("alice", List.of("datasets/alice/*"), Access.WRITE);
            Answer a = Answer.of(s.get("/api/datasets/alice/data/xet-write-token/main?create_pr=1", alice));
            assertTrue(a.body().get("exp").isIntegralNumber(), a.response().body());
            assertTrue(a.body().get("casUrl").isTextual() && a.body().get("accessToken").isTextual());
            assertEquals(3, a.body().size(), "exactly casUrl, accessToken and exp: " + a.response().body());
            assertEquals("application/json", a.header("Content-Type"));
            // The minted token works on the CAS: upload a xorb with it.
            JsonNode x = Vectors.capture("single-r8192").get("xorbs").get(0);
            assertEquals(200, s.post("/v1/xorbs/default/" + x.get("xorb_hash").asText(),
                    a.body().get("accessToken").asText(), Vectors.bytes(x.get("file").asText())).statusCode());
        }
    }

    @Test
    void xetWriteTokenAsksWithoutARevisionAndASessionHeader() throws Exception {
        // @huggingface/hub lib/commit.ts: refreshWriteTokenUrl = {hubUrl}/api/{type}s/{name}/xet-write-token (no
        // revision), fetched by utils/xetWriteToken.ts with X-Xet-Session-Id, which reads accessToken, casUrl and
        // exp from the JSON body (XetBlob.ts getAccessToken likewise for read tokens).
        try (TestServer s = server()) {
            String carol = new Users(s.dataDir()).add("carol", List.of("buckets/carol/*"), Access.WRITE);
            Answer a = Answer.of(s.send(s.request("/api/buckets/carol/files/xet-write-token", carol)
                    .header("X-Xet-Session-Id", "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b").GET().build()));
            assertEquals(CAS, a.body().get("casUrl").asText());
            assertEquals("buckets/carol/files", s.services().tokens().verify(a.body().get("accessToken").asText()).scope());
        }
    }

    @Test
    void hfRaiseForStatusShowsTheServersReasonForEveryRefusal() throws Exception {
        // huggingface_hub utils/_http.py hf_raise_for_status: X-Error-Message comes first in the error it raises; a 401
        // on a repository route is reported as RepositoryNotFoundError unless X-Error-Message is exactly
        // "Invalid credentials in Authorization header"; a 403 is "403 Forbidden: {X-Error-Message}". The JSON body
        // (error, message) is what @huggingface/hub's createApiError (error.ts) reads.
        try (TestServer s = server()) {
            Users users = new Users(s.dataDir());
            String alice = users.add("alice", List.of("models/alice/*"), Access.WRITE);
            String bob = users.add("bob", List.of("models/alice/shared"), Access.READ);
            HttpResponse<String> unknown = s.get("/api/models/alice/llama/xet-read-token/main", "hf_openxet_wrong");
            assertEquals(401, unknown.statusCode());
            assertEquals("Invalid credentials in Authorization header",
                    unknown.headers().firstValue("X-Error-Message").orElse(null));
            assertEquals("unauthorized", JSON.readTree(unknown.body()).get("error").asText());
            HttpResponse<String> none = s.get("/api/models/alice/llama/xet-read-token/main", null);
            assertEquals(401, none.statusCode());
            assertEquals("missing bearer user token", none.headers().firstValue("X-Error-Message").orElse(null));
            HttpResponse<String> readOnly = s.get("/api/models/alice/shared/xet-write-token/main", bob);
            assertEquals(403, readOnly.statusCode());
            assertEquals("user bob has no write access to models/alice/shared",
                    readOnly.headers().firstValue("X-Error-Message").orElse(null));
            assertFalse(readOnly.headers().firstValue("X-Xet-Access-Token").isPresent());
            // A read-only user gets no write token for a PR either: openxet knows a user's write permission, not the
            // Hub's PR rules (docs/DESIGN.md, "Auth").
            assertEquals(403, s.get("/api/models/alice/shared/xet-write-token/None?create_pr=1", bob).statusCode());
            assertEquals(200, s.get("/api/models/alice/shared/xet-read-token/refs%2Fconvert%2Fparquet", bob).statusCode());
            assertEquals(403, s.get("/api/models/alice/llama/xet-read-token/main", bob).statusCode());
            assertEquals(403, s.get("/api/datasets/alice/llama/xet-read-token/main", alice).statusCode());
            assertEquals(404, s.get("/api/models/alice/llama/other", alice).statusCode());
            // A CAS route keeps its own error shape only: the Hub's header is for the Hub's routes.
            assertFalse(s.get("/v1/xorbs/default/00", null).headers().firstValue("X-Error-Message").isPresent());
        }
    }

    @Test
    void malformedRepositoryIdsAndRevisionsAreRefusedBeforeAnyTokenIsMinted() throws Exception {
        try (TestServer s = server()) {
            String alice = new Users(s.dataDir()).add("alice", List.of("models/alice/*"), Access.WRITE);
            // A repository id is a plain namespace/name: no escaped separators or dot segments past the user's patterns.
            for (String path : List.of("/api/models/alice%2F..%2Fbob/x/xet-read-token/main",
                    "/api/models/alice/../xet-read-token/main", "/api/models/alice/a%20b/xet-read-token/main",
                    // A revision that does not decode, or decodes to a control character.
                    "/api/models/alice/llama/xet-read-token/ma%zzin", "/api/models/alice/llama/xet-read-token/%0Amain")) {
                String answer = rawGet(s, path, alice);
                assertTrue(answer.startsWith("HTTP/1.1 400 "), path + ": " + answer);
                assertFalse(answer.toLowerCase(Locale.ROOT).contains("x-xet-access-token"), path);
            }
            // The user file keeps no usable token.
            Users users = new Users(s.dataDir());
            assertFalse(Files.readString(s.dataDir().resolve(Users.FILE)).contains(alice));
            assertNull(users.authenticate("hf_openxet_nothing"));
        }
    }

    @Test
    void withoutAPublicUrlTheCasUrlFollowsAStrictHostHeaderOnly() throws Exception {
        try (TestServer s = new TestServer()) {
            String alice = new Users(s.dataDir()).add("alice", List.of("models/alice/*"), Access.READ);
            String path = "/api/models/alice/llama/xet-read-token/main";
            String ok = rawGet(s, path, alice, "cas.internal:8443");
            assertTrue(ok.startsWith("HTTP/1.1 200 "), ok);
            assertTrue(ok.contains("\"casUrl\":\"http://cas.internal:8443\""), ok);
            assertTrue(rawGet(s, path, alice, "[::1]:8080").contains("\"casUrl\":\"http://[::1]:8080\""));
            // A Host that would put a path, a query or credentials into every URL of the answer is refused.
            for (String host : List.of("evil.example/x?", "user@evil.example", "evil.example:80:81", "a b", "evil.example#")) {
                String refused = rawGet(s, path, alice, host);
                assertTrue(refused.startsWith("HTTP/1.1 400 "), host + ": " + refused);
                assertFalse(refused.contains("accessToken"), host);
            }
        }
    }

    /** A GET sent as written (java.net.http refuses a malformed escape before sending it); the whole answer as text. */
    private static String rawGet(TestServer s, String path, String userToken) throws Exception {
        return rawGet(s, path, userToken, "127.0.0.1");
    }

    private static String rawGet(TestServer s, String path, String userToken, String host) throws Exception {
        try (Socket sock = new Socket("127.0.0.1", s.port())) {
            sock.setSoTimeout(10_000);
            sock.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer "
                    + userToken + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            return UploadRejectionTest.readResponse(sock.getInputStream());
        }
    }
}
