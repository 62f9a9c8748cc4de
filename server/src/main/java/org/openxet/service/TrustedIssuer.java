package org.openxet.service;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.Ed25519Verifier;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * An external identity provider whose CAS tokens openxet accepts ({@link AuthConfig.Issuer}): its keys come from its
 * JWKS (a file or a URL), kept in memory, fetched again every {@code jwks-refresh} and when a token names a key id not
 * in the copy, never twice within {@code jwks-min-interval}; a failed fetch keeps the last good keys. Only asymmetric
 * algorithms are accepted, each only with a key of its own type, so a public key can never be used as an HMAC secret.
 */
final class TrustedIssuer {
    private static final Logger LOG = Logger.getLogger(TrustedIssuer.class.getName());
    /** A JWKS is a few kilobytes; a megabyte bounds what a misbehaving endpoint can make the server hold. */
    static final int JWKS_SIZE_LIMIT = 1 << 20;
    static final int JWKS_TIMEOUT_MS = 5_000;

    private final AuthConfig.Issuer config;
    private final List<JWSAlgorithm> algorithms;
    private volatile JWKSet keys;
    private volatile long fetchedAt;
    private volatile boolean fetchFailing;

    TrustedIssuer(AuthConfig.Issuer config) {
        this.config = config;
        this.algorithms = config.algorithms().stream().map(JWSAlgorithm::parse).toList();
    }

    String issuer() {
        return config.issuer();
    }

    /** Checks a token whose {@code iss} is this issuer's: algorithm, key, signature, audience, then the claims. */
    Grant verify(SignedJWT jwt, JWTClaimsSet claims) throws AuthException, IssuerUnavailable {
        JWSAlgorithm alg = jwt.getHeader().getAlgorithm();
        if (!algorithms.contains(alg)) {
            throw new AuthException("token algorithm '" + alg + "' is not accepted for issuer " + config.issuer(), false);
        }
        if (!verifies(jwt, alg, jwt.getHeader().getKeyID())) {
            throw new AuthException("token signature is not valid", false);
        }
        if (claims.getAudience() == null || !claims.getAudience().contains(config.audience())) {
            throw new AuthException("token audience does not include '" + config.audience() + "'", false);
        }
        Object scope = claims.getClaim(config.scopeClaim());
        if (!(scope instanceof String s) || s.isEmpty()) {
            throw new AuthException("token lacks its '" + config.scopeClaim() + "' claim (the repository scope)", false);
        }
        return new Grant(s, access(claims.getClaim(config.accessClaim())), 0);
    }

    /** {@code read}/{@code write}, a list of them, or a space-separated string of them; write implies read. */
    private Access access(Object claim) throws AuthException {
        List<String> words = new ArrayList<>();
        if (claim instanceof String s) {
            words.addAll(List.of(s.trim().split("\\s+")));
        } else if (claim instanceof List<?> list) {
            for (Object o : list) if (o instanceof String s) words.add(s);
        }
        if (words.contains("write")) return Access.WRITE;
        if (words.contains("read")) return Access.READ;
        throw new AuthException("token claim '" + config.accessClaim() + "' grants neither read nor write", false);
    }

    /**
     * Whether a key of the issuer verifies the signature: the key {@code kid} names, or, without a {@code kid}, any of
     * the keys of the algorithm's type. A {@code kid} not in the copy fetches the keys again (within the floor).
     */
    private boolean verifies(SignedJWT jwt, JWSAlgorithm alg, String kid) throws AuthException, IssuerUnavailable {
        List<JWK> candidates = candidates(current(), alg, kid);
        if (candidates.isEmpty() && kid != null && fetch(config.jwksMinInterval())) {
            candidates = candidates(keys, alg, kid);
        }
        if (candidates.isEmpty()) {
            throw new AuthException(kid == null
                    ? "issuer " + config.issuer() + " has no " + alg + " key"
                    : "token key id '" + kid + "' is unknown to issuer " + config.issuer(), false);
        }
        for (JWK key : candidates) {
            try {
                if (jwt.verify(verifier(key, alg))) return true;
            } catch (JOSEException e) {
                // a key unfit for the algorithm (wrong curve, too short): it does not verify
            }
        }
        return false;
    }

    /**
     * Whether the issuer still publishes {@code kid} (a token without one: its keys were fetched), as last fetched:
     * a key the issuer withdrew refuses its tokens from the next fetch on.
     */
    boolean publishes(String kid) {
        try {
            JWKSet set = current();
            return kid == null || set.getKeyByKeyId(kid) != null;
        } catch (IssuerUnavailable e) {
            return false;
        }
    }

    private static List<JWK> candidates(JWKSet set, JWSAlgorithm alg, String kid) {
        List<JWK> out = new ArrayList<>();
        for (JWK k : set.getKeys()) {
            if (kid != null && !kid.equals(k.getKeyID())) continue;
            if (k.getAlgorithm() != null && !k.getAlgorithm().equals(alg)) continue;
            boolean fits = alg.equals(JWSAlgorithm.RS256) ? k instanceof RSAKey
                    : alg.equals(JWSAlgorithm.ES256) ? k instanceof ECKey
                    : alg.equals(JWSAlgorithm.EdDSA) && k instanceof OctetKeyPair;
            if (fits) out.add(k);
        }
        return out;
    }

    private static JWSVerifier verifier(JWK key, JWSAlgorithm alg) throws JOSEException {
        if (alg.equals(JWSAlgorithm.RS256)) return new RSASSAVerifier((RSAKey) key);
        if (alg.equals(JWSAlgorithm.ES256)) return new ECDSAVerifier((ECKey) key);
        return new Ed25519Verifier((OctetKeyPair) key);
    }

    private JWKSet current() throws IssuerUnavailable {
        if (keys == null || System.nanoTime() - fetchedAt >= config.jwksRefresh().toNanos()) {
            fetch(keys == null ? Duration.ZERO : config.jwksRefresh());
        }
        JWKSet k = keys;
        if (k == null) {
            throw new IssuerUnavailable("the keys of issuer " + config.issuer() + " cannot be fetched; retry later");
        }
        return k;
    }

    /**
     * Fetches the keys if the last attempt is older than {@code minAge} (one fetch at a time); true when new keys came.
     * A failure keeps the last good keys, logged once until a fetch succeeds again; the floor still applies to it.
     */
    private synchronized boolean fetch(Duration minAge) {
        long t = System.nanoTime();
        if (fetchedAt != 0 && t - fetchedAt < Math.max(minAge.toNanos(), config.jwksMinInterval().toNanos())) return false;
        fetchedAt = t;
        try {
            keys = load().toPublicJWKSet();
            if (fetchFailing) LOG.info("keys of issuer " + config.issuer() + " fetched again from " + config.jwks());
            fetchFailing = false;
            return true;
        } catch (IOException | ParseException | RuntimeException e) {
            if (!fetchFailing) {
                LOG.warning("cannot fetch the keys of issuer " + config.issuer() + " from " + config.jwks()
                        + (keys == null ? "" : ", keeping the last ones") + ": " + e.getMessage());
            }
            fetchFailing = true;
            return false;
        }
    }

    private JWKSet load() throws IOException, ParseException {
        URI uri = URI.create(config.jwks());
        if (uri.getScheme().equals("file")) {
            return JWKSet.load(Path.of(uri.getPath()).toFile());
        }
        return JWKSet.load(uri.toURL(), JWKS_TIMEOUT_MS, JWKS_TIMEOUT_MS, JWKS_SIZE_LIMIT);
    }
}
