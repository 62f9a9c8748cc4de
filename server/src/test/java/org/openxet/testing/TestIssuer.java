package org.openxet.testing;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.Ed25519Signer;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.OctetKeyPairGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * An identity provider of the test's own: real keys generated here (RSA, EC P-256, Ed25519), their public halves
 * served as a JWKS over loopback HTTP by a real server, and tokens signed with them. Keys can be rolled and the
 * endpoint made to fail, as a real issuer's can.
 */
public final class TestIssuer implements AutoCloseable {
    public static final String ISSUER = "https://idp.test";
    public static final String AUDIENCE = "openxet-test";

    private final HttpServer http;
    private final List<JWK> keys = new ArrayList<>();
    private final AtomicInteger fetches = new AtomicInteger();
    private volatile boolean failing;

    public TestIssuer() throws IOException {
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/jwks.json", ex -> {
            fetches.incrementAndGet();
            byte[] body = failing ? "{\"error\":\"down\"}".getBytes(StandardCharsets.UTF_8)
                    : publicJwks().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(failing ? 500 : 200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        http.start();
    }

    /** The JWKS URL to configure. */
    public String jwksUrl() {
        return "http://127.0.0.1:" + http.getAddress().getPort() + "/jwks.json";
    }

    public int fetches() {
        return fetches.get();
    }

    /** Makes the JWKS endpoint answer 500 (true) or serve the keys again (false). */
    public void failing(boolean on) {
        failing = on;
    }

    public synchronized String publicJwks() {
        return new JWKSet(keys).toPublicJWKSet().toString();
    }

    /** Generates a key of {@code alg} (RS256, ES256, EdDSA), publishes it and returns it. */
    public synchronized JWK addKey(JWSAlgorithm alg, String kid) {
        JWK key = generate(alg, kid);
        keys.add(key);
        return key;
    }

    /** The key published under {@code kid}. */
    public synchronized JWK key(String kid) {
        return keys.stream().filter(k -> k.getKeyID().equals(kid)).findFirst().orElseThrow();
    }

    /** Stops publishing {@code key}: a key the issuer rolled away from. */
    public synchronized void removeKey(JWK key) {
        keys.removeIf(k -> k.getKeyID().equals(key.getKeyID()));
    }

    public static JWK generate(JWSAlgorithm alg, String kid) {
        try {
            if (alg.equals(JWSAlgorithm.RS256)) return new RSAKeyGenerator(2048).keyID(kid).generate();
            if (alg.equals(JWSAlgorithm.ES256)) return new ECKeyGenerator(Curve.P_256).keyID(kid).generate();
            return new OctetKeyPairGenerator(Curve.Ed25519).keyID(kid).generate();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Claims a good token carries: this issuer, the audience, the scope and access, one hour. */
    public static JWTClaimsSet.Builder claims(String repo, String access) {
        Instant now = Instant.now();
        return new JWTClaimsSet.Builder().issuer(ISSUER).audience(AUDIENCE).subject("alice@idp.test")
                .claim("repo", repo).claim("access", access)
                .issueTime(Date.from(now)).expirationTime(Date.from(now.plus(Duration.ofHours(1))));
    }

    /** A token signed with {@code key} in its algorithm. */
    public static String sign(JWK key, JWTClaimsSet claims) {
        return sign(key, claims, h -> { });
    }

    /** A token signed with {@code key}, its header changed by {@code header} first. */
    public static String sign(JWK key, JWTClaimsSet claims, Consumer<JWSHeader.Builder> header) {
        try {
            JWSAlgorithm alg;
            JWSSigner signer;
            if (key instanceof RSAKey rsa) {
                alg = JWSAlgorithm.RS256;
                signer = new RSASSASigner(rsa);
            } else if (key instanceof ECKey ec) {
                alg = JWSAlgorithm.ES256;
                signer = new ECDSASigner(ec);
            } else {
                alg = JWSAlgorithm.EdDSA;
                signer = new Ed25519Signer((OctetKeyPair) key);
            }
            JWSHeader.Builder h = new JWSHeader.Builder(alg).keyID(key.getKeyID()).type(JOSEObjectType.JWT);
            header.accept(h);
            SignedJWT jwt = new SignedJWT(h.build(), claims);
            jwt.sign(signer);
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    public String sign(JWK key, String repo, String access) {
        return sign(key, claims(repo, access).build());
    }

    @Override
    public void close() {
        http.stop(0);
    }
}
