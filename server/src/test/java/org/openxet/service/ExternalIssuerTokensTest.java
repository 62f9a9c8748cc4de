package org.openxet.service;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openxet.testing.TestIssuer;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * CAS tokens minted by an identity provider openxet trusts: real RSA, EC P-256 and Ed25519 keys, published as a JWKS
 * by a real HTTP server on loopback (the test's issuer), checked as openxet checks every bearer token.
 */
class ExternalIssuerTokensTest {
    private TestIssuer idp;

    @BeforeEach
    void start() throws Exception {
        idp = new TestIssuer();
    }

    @AfterEach
    void stop() {
        idp.close();
    }

    private Tokens trusting(AuthConfig.Issuer issuer) {
        return new Tokens(KeySet.fixed(new byte[32], new byte[32]),
                new AuthConfig(Duration.ofHours(24), Duration.ofSeconds(60), List.of(issuer)), Tokens.Revocations.NONE,
                Clock.systemUTC());
    }

    private Tokens trusting() {
        return trusting(new AuthConfig.Issuer(TestIssuer.ISSUER, TestIssuer.AUDIENCE, idp.jwksUrl()));
    }

    private static String refusal(Tokens tokens, String token) {
        return assertThrows(AuthException.class, () -> tokens.verify(token)).getMessage();
    }

    @Test
    void tokensSignedWithEachAcceptedAlgorithmGrantTheirScopeAndAccess() throws Exception {
        Tokens tokens = trusting();
        List<JWSAlgorithm> algs = List.of(JWSAlgorithm.RS256, JWSAlgorithm.ES256, JWSAlgorithm.EdDSA);
        for (JWSAlgorithm alg : algs) idp.addKey(alg, "k-" + alg);
        for (JWSAlgorithm alg : algs) {
            JWK key = idp.key("k-" + alg);
            Grant read = tokens.verify(idp.sign(key, "models/alice/llama", "read"));
            assertEquals(new Grant("models/alice/llama", Access.READ, read.expiresAt()), read, alg.getName());
            assertEquals(Access.WRITE, tokens.verify(idp.sign(key, "datasets/alice/x", "write")).access());
            // OAuth-style access: a list, or a space-separated string; write implies read.
            assertEquals(Access.WRITE, tokens.verify(TestIssuer.sign(key, TestIssuer.claims("models/a/b", "x")
                    .claim("access", List.of("read", "write")).build())).access());
            assertEquals(Access.READ, tokens.verify(TestIssuer.sign(key, TestIssuer.claims("models/a/b", "openid read")
                    .build())).access());
        }
    }

    @Test
    void everyRefusalSaysWhy() throws Exception {
        JWK key = idp.addKey(JWSAlgorithm.ES256, "good");
        Tokens tokens = trusting(new AuthConfig.Issuer(TestIssuer.ISSUER, TestIssuer.AUDIENCE, idp.jwksUrl())
                .withAlgorithms(List.of("ES256", "EdDSA")));
        assertEquals("token issuer 'https://evil.test' is not trusted",
                refusal(tokens, TestIssuer.sign(key, TestIssuer.claims("models/a/b", "read").issuer("https://evil.test").build())));
        assertEquals("token audience does not include 'openxet-test'",
                refusal(tokens, TestIssuer.sign(key, TestIssuer.claims("models/a/b", "read").audience("other").build())));
        assertEquals("token key id 'nobody' is unknown to issuer https://idp.test",
                refusal(tokens, TestIssuer.sign(TestIssuer.generate(JWSAlgorithm.ES256, "nobody"), TestIssuer.claims("models/a/b", "read").build())));
        // A key of the issuer's, not accepted by the configuration.
        JWK rsa = idp.addKey(JWSAlgorithm.RS256, "rsa");
        assertEquals("token algorithm 'RS256' is not accepted for issuer https://idp.test",
                refusal(tokens, idp.sign(rsa, "models/a/b", "read")));
        // Another key under the good key's id: the signature does not verify.
        assertEquals("token signature is not valid",
                refusal(tokens, TestIssuer.sign(TestIssuer.generate(JWSAlgorithm.ES256, "good"), TestIssuer.claims("models/a/b", "read").build())));
        assertEquals("token expired", refusal(tokens, TestIssuer.sign(key, TestIssuer.claims("models/a/b", "read")
                .expirationTime(Date.from(Instant.now().minusSeconds(61))).build())));
        assertEquals("token is not valid yet", refusal(tokens, TestIssuer.sign(key, TestIssuer.claims("models/a/b", "read")
                .notBeforeTime(Date.from(Instant.now().plusSeconds(120))).build())));
        assertEquals("token lives longer than the maximum lifetime, 24h", refusal(tokens, TestIssuer.sign(key,
                TestIssuer.claims("models/a/b", "read").expirationTime(Date.from(Instant.now().plus(Duration.ofDays(2)))).build())));
        assertEquals("token lacks its 'repo' claim (the repository scope)", refusal(tokens,
                TestIssuer.sign(key, TestIssuer.claims("models/a/b", "read").claim("repo", null).build())));
        assertEquals("token claim 'access' grants neither read nor write", refusal(tokens,
                TestIssuer.sign(key, TestIssuer.claims("models/a/b", "admin").build())));
        assertEquals("token has no expiry", refusal(tokens, TestIssuer.sign(key, TestIssuer.claims("models/a/b", "read")
                .expirationTime(null).build())));
    }

    /** The classic confusion: an HS256 token whose "secret" is the issuer's public key, which anyone has. */
    @Test
    void aSharedSecretAlgorithmIsNeverAcceptedFromAnExternalIssuer() throws Exception {
        RSAKey rsa = (RSAKey) idp.addKey(JWSAlgorithm.RS256, "rsa");
        Tokens tokens = trusting();
        SignedJWT forged = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).keyID("rsa").build(),
                TestIssuer.claims("models/a/b", "write").build());
        forged.sign(new MACSigner(rsa.toPublicKey().getEncoded()));
        assertEquals("token algorithm 'HS256' is not accepted for issuer https://idp.test", refusal(tokens, forged.serialize()));
        assertEquals("malformed token", refusal(tokens, "eyJhbGciOiJub25lIn0." + java.util.Base64.getUrlEncoder()
                .withoutPadding().encodeToString(TestIssuer.claims("models/a/b", "write").build().toString().getBytes()) + "."));
        ServerConfig.BadValue bad = assertThrows(ServerConfig.BadValue.class, () -> ServerConfigTest.loadYaml("""
                openxet:
                  auth:
                    issuers:
                      - issuer: https://idp.test
                        audience: a
                        jwks: https://idp.test/jwks.json
                        algorithms: [HS256]
                """));
        assertEquals("openxet.auth.issuers.0.algorithms (OPENXET_AUTH_ISSUERS_0_ALGORITHMS) = 'HS256': must be among "
                + "[RS256, ES256, EdDSA] (never none, never a shared-secret HS* for an external issuer)", bad.getMessage());
    }

    @Test
    void aKeyRolledAtTheIssuerIsPickedUpWithoutARestartAndUnknownKeyIdsFetchAtMostOncePerFloor() throws Exception {
        JWK first = idp.addKey(JWSAlgorithm.EdDSA, "2026-a");
        Tokens tokens = trusting(new AuthConfig.Issuer(TestIssuer.ISSUER, TestIssuer.AUDIENCE, idp.jwksUrl())
                .withJwksTiming(Duration.ofMinutes(5), Duration.ofMillis(500)));
        String old = idp.sign(first, "models/a/b", "read");
        tokens.verify(old);
        assertEquals(1, idp.fetches());

        JWK second = idp.addKey(JWSAlgorithm.EdDSA, "2026-b");
        idp.removeKey(first);
        String rolled = idp.sign(second, "models/a/b", "read");
        // Within the floor of the first fetch, a new key id fetches nothing: a flood of unknown ids costs no fetches.
        for (int i = 0; i < 50; i++) {
            assertEquals("token key id '2026-b' is unknown to issuer https://idp.test", refusal(tokens, rolled));
        }
        assertEquals(1, idp.fetches());
        Thread.sleep(600);
        assertEquals("models/a/b", tokens.verify(rolled).scope());
        assertEquals(2, idp.fetches());
        // The rolled-away key is gone from the set now: its tokens are refused.
        assertEquals("token key id '2026-a' is unknown to issuer https://idp.test", refusal(tokens, old));
    }

    @Test
    void aFailedFetchKeepsTheLastGoodKeysAndNoKeysAtAllIsA503() throws Exception {
        JWK key = idp.addKey(JWSAlgorithm.ES256, "k");
        Tokens tokens = trusting(new AuthConfig.Issuer(TestIssuer.ISSUER, TestIssuer.AUDIENCE, idp.jwksUrl())
                .withJwksTiming(Duration.ofMillis(200), Duration.ofMillis(100)));
        String token = idp.sign(key, "models/a/b", "read");
        tokens.verify(token);
        idp.failing(true);
        Thread.sleep(300);
        assertEquals("models/a/b", tokens.verify(token).scope(), "the refresh failed; the last keys still verify");
        assertEquals(2, idp.fetches(), "the refresh was tried");

        TestIssuer down = new TestIssuer();
        down.failing(true);
        Tokens never = trusting(new AuthConfig.Issuer(TestIssuer.ISSUER, TestIssuer.AUDIENCE, down.jwksUrl()));
        IssuerUnavailable e = assertThrows(IssuerUnavailable.class, () -> never.verify(token));
        assertEquals("the keys of issuer https://idp.test cannot be fetched; retry later", e.getMessage());
        down.close();
    }

    @Test
    void aJwksFileIsReadAsAUrlIs(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        JWK key = idp.addKey(JWSAlgorithm.RS256, "file-key");
        java.nio.file.Path file = dir.resolve("jwks.json");
        java.nio.file.Files.writeString(file, idp.publicJwks());
        Tokens tokens = trusting(new AuthConfig.Issuer(TestIssuer.ISSUER, TestIssuer.AUDIENCE, "file:" + file));
        assertEquals(Access.WRITE, tokens.verify(idp.sign(key, "models/a/b", "write")).access());
    }
}
