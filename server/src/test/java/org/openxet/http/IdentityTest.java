package org.openxet.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import org.junit.jupiter.api.Test;
import org.openxet.service.Access;
import org.openxet.service.AuthConfig;
import org.openxet.service.Users;
import org.openxet.storage.StoredKey;
import org.openxet.testing.MiniClient;
import org.openxet.testing.TestIssuer;
import org.openxet.testing.TestServer;
import org.openxet.testing.Vectors;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Identity through the real routes of a real server: CAS tokens from an external issuer (the test's own, its JWKS
 * on loopback), the JWKS of openxet's own keys, and a revoked user's CAS tokens.
 */
class IdentityTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SCENARIO = "single-r1m";

    /** A 401 or 403 answer: its status, and the JSON body saying why. */
    private static void refused(int status, String message, HttpResponse<String> r) throws Exception {
        assertEquals(status, r.statusCode(), r.body());
        JsonNode body = JSON.readTree(r.body());
        assertEquals(status == 401 ? "unauthorized" : "forbidden", body.get("error").asText());
        assertEquals(message, body.get("message").asText());
    }

    @Test
    void tokensFromATrustedIssuerReadAndWriteTheirScopeAndNoOther() throws Exception {
        try (TestIssuer idp = new TestIssuer();
             TestServer server = new TestServer(c -> c.withAuth(new AuthConfig(Duration.ofHours(24), Duration.ofSeconds(60),
                     List.of(new AuthConfig.Issuer(TestIssuer.ISSUER, TestIssuer.AUDIENCE, idp.jwksUrl())))))) {
            JWK key = idp.addKey(JWSAlgorithm.RS256, "rsa-1");
            String write = idp.sign(key, "models/alice/llama", "write");
            server.uploadScenario(SCENARIO, write);
            JsonNode file = Vectors.capture(SCENARIO).get("files").get(0);
            String fileId = file.get("client_xet_hash").asText();
            byte[] content = Vectors.inputBytes(file.get("input").asText());
            assertArrayEquals(content, new MiniClient(server, idp.sign(key, "models/alice/llama", "read")).download(2, fileId, null));
            // Another repository's token does not see the file; a read token cannot write.
            assertEquals(404, new MiniClient(server, idp.sign(key, "models/bob/x", "read")).reconstruction(2, fileId, null).status());
            String read = idp.sign(key, "models/alice/llama", "read");
            byte[] xorb = Vectors.bytes(Vectors.capture(SCENARIO).get("xorbs").get(0).get("file").asText());
            String xorbPath = "/v1/xorbs/default/" + Vectors.capture(SCENARIO).get("xorbs").get(0).get("xorb_hash").asText();
            refused(403, "this route needs a write token", server.post(xorbPath, read, xorb));
            // Each refusal says which check failed.
            String reconstruction = "/v2/reconstructions/" + fileId;
            refused(401, "token audience does not include 'openxet-test'", server.get(reconstruction,
                    TestIssuer.sign(key, TestIssuer.claims("models/alice/llama", "read").audience("someone-else").build())));
            refused(401, "token key id 'rsa-2' is unknown to issuer https://idp.test", server.get(reconstruction,
                    idp.sign(TestIssuer.generate(JWSAlgorithm.RS256, "rsa-2"), "models/alice/llama", "read")));
            refused(401, "token signature is not valid", server.get(reconstruction,
                    idp.sign(TestIssuer.generate(JWSAlgorithm.RS256, "rsa-1"), "models/alice/llama", "read")));
            refused(401, "token issuer 'https://other.test' is not trusted", server.get(reconstruction, TestIssuer.sign(key,
                    TestIssuer.claims("models/alice/llama", "read").issuer("https://other.test").build())));
        }
    }

    @Test
    void openxetPublishesThePublicHalvesOfItsAsymmetricKeys() throws Exception {
        try (TestServer server = new TestServer()) {
            HttpResponse<String> none = server.get("/.well-known/jwks.json", null);
            assertEquals(200, none.statusCode());
            assertEquals("{\"keys\":[]}", none.body(), "the imported HS256 key is secret");
            StoredKey ed = server.services().keys().add(StoredKey.TOKEN, "EdDSA");
            HttpResponse<String> r = server.get("/.well-known/jwks.json", null);
            assertEquals("public, max-age=60", r.headers().firstValue("Cache-Control").orElse(null));
            JWKSet set = JWKSet.parse(r.body());
            assertEquals(ed.kid(), set.getKeys().getFirst().getKeyID());
            assertEquals(false, set.getKeys().getFirst().isPrivate());
            // Its tokens work on the server's routes as any token does.
            assertEquals(404, new MiniClient(server, server.token("user/repo", Access.READ))
                    .reconstruction(2, "0".repeat(64), null).status());
        }
    }

    @Test
    void aRevokedUserMintsNothingAndItsCasTokensAreRefusedWithinASecond() throws Exception {
        try (TestServer server = new TestServer()) {
            Users admin = new Users(server.dataDir()); // as `openxet user` does, in another process
            String user = admin.add("carol", List.of("models/carol/*"), Access.WRITE);
            HttpResponse<String> minted = server.get("/api/models/carol/x/xet-read-token/main", user);
            assertEquals(200, minted.statusCode(), minted.body());
            String cas = JSON.readTree(minted.body()).get("accessToken").asText();
            String probe = "/v2/reconstructions/" + "0".repeat(64);
            assertEquals(404, server.get(probe, cas).statusCode(), "the CAS token works");

            admin.revoke("carol");
            refused(401, TokenRoutes.INVALID_CREDENTIALS, server.get("/api/models/carol/x/xet-read-token/main", user));
            long deadline = System.nanoTime() + Users.REFRESH.plusMillis(500).toNanos();
            int status;
            do {
                status = server.get(probe, cas).statusCode();
            } while (status != 401 && System.nanoTime() < deadline);
            refused(401, "token of user 'carol' was revoked", server.get(probe, cas));

            // A new token mints again; the old CAS token stays refused.
            String again = admin.reissue("carol");
            HttpResponse<String> fresh = server.get("/api/models/carol/x/xet-read-token/main", again);
            assertEquals(200, fresh.statusCode(), fresh.body());
            assertEquals(404, server.get(probe, JSON.readTree(fresh.body()).get("accessToken").asText()).statusCode());
            assertEquals(401, server.get(probe, cas).statusCode());
            refused(401, TokenRoutes.INVALID_CREDENTIALS, server.get("/api/models/carol/x/xet-read-token/main", user));
        }
    }
}
