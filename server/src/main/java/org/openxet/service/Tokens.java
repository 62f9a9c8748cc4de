package org.openxet.service;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.util.Date;

/**
 * CAS access tokens: JWTs signed with HS256 (nimbus-jose-jwt) carrying the repository scope ({@code repo}), the access
 * level ({@code access}: read or write) and the expiry. The clients treat them as opaque bearer strings (§8).
 */
public final class Tokens {
    private static final String ISSUER = "openxet";
    /**
     * The longest lifetime a token may be minted with (`openxet token --ttl`): a leaked token cannot be revoked
     * before it expires, so none outlives a month.
     */
    public static final Duration MAX_TTL = Duration.ofDays(30);
    /**
     * How long past its {@code exp} a token is still accepted: nodes behind a load balancer, and the node that minted
     * a token, never agree on the time to the second (a minute, as nimbus-jose-jwt's own claims verifier allows).
     */
    public static final Duration CLOCK_SKEW = Duration.ofSeconds(60);
    private final MACSigner signer;
    private final MACVerifier verifier;
    private final Clock clock;

    public Tokens(byte[] key, Clock clock) {
        try {
            this.signer = new MACSigner(key);
            this.verifier = new MACVerifier(key);
        } catch (JOSEException e) {
            throw new IllegalArgumentException("token key: " + e.getMessage(), e);
        }
        this.clock = clock;
    }

    public Tokens(byte[] key) {
        this(key, Clock.systemUTC());
    }

    /** A signed token and the expiry it carries (Unix seconds), for answers that state the expiry beside the token. */
    public record Minted(String token, long expiresAt) {
    }

    /** A signed token for {@code scope} valid for {@code ttl}. */
    public String mint(String scope, Access access, Duration ttl) {
        return issue(scope, access, ttl).token();
    }

    /**
     * A signed token for {@code scope} valid for {@code ttl}, with its {@code exp}: the token routes repeat the expiry
     * in their body and headers, and it must be the token's own to the second (a second read of the clock can differ).
     */
    public Minted issue(String scope, Access access, Duration ttl) {
        if (ttl.compareTo(MAX_TTL) > 0) {
            throw new IllegalArgumentException("a token lives at most " + MAX_TTL.toDays() + " days");
        }
        long now = clock.millis() / 1000;
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer(ISSUER)
                .claim("repo", scope)
                .claim("access", access.claim())
                .issueTime(new Date(now * 1000))
                .expirationTime(new Date((now + ttl.toSeconds()) * 1000))
                .build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        try {
            jwt.sign(signer);
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
        return new Minted(jwt.serialize(), now + ttl.toSeconds());
    }

    /** Verifies a bearer token: signature, algorithm, issuer, expiry and claims; any failure is a 401. */
    public Grant verify(String token) throws AuthException {
        if (token == null || token.isEmpty()) {
            throw new AuthException("missing bearer token", false);
        }
        try {
            SignedJWT jwt = SignedJWT.parse(token);
            if (!JWSAlgorithm.HS256.equals(jwt.getHeader().getAlgorithm()) || !jwt.verify(verifier)) {
                throw new AuthException("token signature is not valid", false);
            }
            JWTClaimsSet c = jwt.getJWTClaimsSet();
            Date exp = c.getExpirationTime();
            if (exp == null || exp.getTime() + CLOCK_SKEW.toMillis() <= clock.millis()) {
                throw new AuthException("token expired", false);
            }
            String repo = c.getStringClaim("repo");
            String access = c.getStringClaim("access");
            if (!ISSUER.equals(c.getIssuer()) || repo == null || repo.isEmpty() || access == null) {
                throw new AuthException("token lacks its claims", false);
            }
            Access level = switch (access) {
                case "read" -> Access.READ;
                case "write" -> Access.WRITE;
                default -> throw new AuthException("token access level '" + access + "' is unknown", false);
            };
            return new Grant(repo, level, exp.getTime() / 1000);
        } catch (ParseException | JOSEException e) {
            throw new AuthException("malformed token", false);
        }
    }

    /** Checks a grant against what a route needs: a read token on a write route is 403. */
    public static void require(Grant grant, Access needed) throws AuthException {
        if (!grant.access().allows(needed)) {
            throw new AuthException("this route needs a " + needed.claim() + " token", true);
        }
    }
}
