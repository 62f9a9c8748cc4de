package org.openxet.service;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * CAS access tokens: JWTs (nimbus-jose-jwt) carrying the repository scope ({@code repo}), the access level
 * ({@code access}: read or write) and the expiry. The clients treat them as opaque bearer strings (§8). openxet signs
 * its own with the newest key of its {@link KeySet} (the header names it as {@code kid}); tokens of the external
 * issuers the configuration trusts ({@link AuthConfig#issuers()}) are verified with their published keys. Whoever
 * minted it, no token is accepted past its expiry (give or take the clock skew) or further from it than the maximum
 * lifetime, and a token minted for a user ({@code sub}) stops working once the user is revoked or re-issued.
 */
public final class Tokens {
    static final String ISSUER = "openxet";
    /** The claim of a user's CAS token that says which of the user's tokens minted it (see {@link Revocations}). */
    static final String GENERATION = "gen";

    /** Whether the CAS tokens minted for a user in a generation still stand (the user is not revoked since). */
    public interface Revocations {
        Revocations NONE = (subject, generation) -> true;

        boolean current(String subject, long generation);
    }

    /** The user a token is minted for, and the user's generation then. */
    public record Subject(String name, long generation) {
    }

    private final KeySet keys;
    private final Duration maxLifetime;
    private final Duration clockSkew;
    private final Map<String, TrustedIssuer> issuers;
    private final Revocations revocations;
    private final Clock clock;
    /** Tokens verified before, by their text; cleared when full. */
    static final int VERIFIED_CAPACITY = 4096;
    private final ConcurrentHashMap<String, Verified> verified = new ConcurrentHashMap<>();
    private final LongAdder keptChecks = new LongAdder();
    private final LongAdder fullChecks = new LongAdder();

    public Tokens(KeySet keys, AuthConfig auth, Revocations revocations, Clock clock) {
        this.keys = keys;
        this.maxLifetime = auth.maxLifetime();
        this.clockSkew = auth.clockSkew();
        Map<String, TrustedIssuer> byName = new LinkedHashMap<>();
        for (AuthConfig.Issuer i : auth.issuers()) byName.put(i.issuer(), new TrustedIssuer(i));
        this.issuers = Map.copyOf(byName);
        this.revocations = revocations;
        this.clock = clock;
    }

    /** Tokens of one key (the data dir's {@code secrets.properties} token key), as tools and tests mint them. */
    public Tokens(byte[] key, Clock clock) {
        this(KeySet.fixed(key, new byte[32]), AuthConfig.DEFAULTS, Revocations.NONE, clock);
    }

    public Tokens(byte[] key) {
        this(key, Clock.systemUTC());
    }

    /** The longest lifetime a token may be minted with, or have left when it is presented. */
    public Duration maxLifetime() {
        return maxLifetime;
    }

    /** A signed token and the expiry it carries (Unix seconds), for answers that state the expiry beside the token. */
    public record Minted(String token, long expiresAt) {
    }

    /** A signed token for {@code scope} valid for {@code ttl}. */
    public String mint(String scope, Access access, Duration ttl) {
        return issue(scope, access, ttl, null).token();
    }

    /**
     * A signed token for {@code scope} valid for {@code ttl}, minted for {@code subject} (null: for no user, as
     * {@code openxet token} mints them), with its {@code exp}: the token routes repeat the expiry in their body and
     * headers, and it must be the token's own to the second (a second read of the clock can differ).
     */
    public Minted issue(String scope, Access access, Duration ttl, Subject subject) {
        if (ttl.compareTo(maxLifetime) > 0) {
            throw new IllegalArgumentException("a token lives at most " + ServerConfig.describe(maxLifetime)
                    + " (openxet.auth.max-lifetime)");
        }
        long now = clock.millis() / 1000;
        JWTClaimsSet.Builder claims = new JWTClaimsSet.Builder()
                .issuer(ISSUER)
                .claim("repo", scope)
                .claim("access", access.claim())
                .issueTime(new Date(now * 1000))
                .expirationTime(new Date((now + ttl.toSeconds()) * 1000));
        if (subject != null) claims.subject(subject.name()).claim(GENERATION, subject.generation());
        KeySet.Key key = keys.tokenSigner();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(key.algorithm()).keyID(key.kid()).type(JOSEObjectType.JWT)
                .build(), claims.build());
        try {
            jwt.sign(key.signer());
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
        return new Minted(jwt.serialize(), now + ttl.toSeconds());
    }

    /**
     * Verifies a bearer token: issuer, algorithm, key, signature, lifetime, claims and revocation; any failure is a
     * 401 whose message says which. An external issuer whose keys cannot be fetched at all is a 503.
     */
    public Grant verify(String token) throws AuthException, IssuerUnavailable {
        if (token == null || token.isEmpty()) {
            throw new AuthException("missing bearer token", false);
        }
        Verified v = verified.get(token);
        if (v != null && stillStands(v)) {
            keptChecks.increment();
            try {
                return new Grant(v.scope(), v.access(), lifetime(v.exp(), v.nbf()));
            } catch (AuthException e) {
                verified.remove(token);
                throw e;
            }
        }
        if (v != null) verified.remove(token);
        fullChecks.increment();
        v = verifyFully(token);
        Grant grant = new Grant(v.scope(), v.access(), lifetime(v.exp(), v.nbf()));
        // Bounded: only tokens that verified get here, and a client sends one token for an hour of requests.
        if (verified.size() >= VERIFIED_CAPACITY) verified.clear();
        verified.put(token, v);
        return grant;
    }

    /**
     * The token checks made so far ({@code GET /metrics}): {@code kept}, answered from a token verified before (its
     * key and user checked again, not its signature); {@code full}, parsed and its signature verified, refused or not.
     * The kept share is the one cache on the read path: a client keeps its token for an hour of requests, so a node's
     * share near 1 says its clients do, and a low one that each request brings a token the node has not seen.
     */
    public record Checks(long kept, long full) {
    }

    public Checks checks() {
        return new Checks(keptChecks.sum(), fullChecks.sum());
    }

    /** Forgets every token verified so far: the next request with each is checked in full (the warm-up's end). */
    public void forgetVerified() {
        verified.clear();
    }

    /**
     * A token whose signature verified: what the next request with the same text needs to be granted without a
     * second signature check, which for an asymmetric key costs far more than the request's other work
     * (docs/BENCHMARKS.md, "JMH": TokenVerifyBench) and would be paid by every request of a client that keeps its
     * token for an hour.
     */
    private record Verified(String scope, Access access, Date exp, Date nbf, TrustedIssuer issuer, String kid,
                            String subject, long generation) {
    }

    /** What may have changed since a token verified: its key retired or unpublished, its user revoked. */
    private boolean stillStands(Verified v) {
        boolean keyInUse = v.issuer() == null ? keys.inUse(v.kid()) : v.issuer().publishes(v.kid());
        return keyInUse && (v.subject() == null || revocations.current(v.subject(), v.generation()));
    }

    private Verified verifyFully(String token) throws AuthException, IssuerUnavailable {
        SignedJWT jwt;
        JWTClaimsSet c;
        try {
            jwt = SignedJWT.parse(token);
            c = jwt.getJWTClaimsSet();
        } catch (ParseException e) {
            throw new AuthException("malformed token", false);
        }
        String iss = c.getIssuer();
        String kid = jwt.getHeader().getKeyID();
        if (ISSUER.equals(iss)) {
            Grant grant = own(jwt, c);
            Object gen = c.getClaim(GENERATION);
            return new Verified(grant.scope(), grant.access(), c.getExpirationTime(), c.getNotBeforeTime(), null, kid,
                    c.getSubject(), gen instanceof Number n ? n.longValue() : 0);
        }
        TrustedIssuer issuer = iss == null ? null : issuers.get(iss);
        if (issuer == null) {
            throw new AuthException(iss == null ? "token names no issuer" : "token issuer '" + iss + "' is not trusted", false);
        }
        Grant grant = issuer.verify(jwt, c);
        return new Verified(grant.scope(), grant.access(), c.getExpirationTime(), c.getNotBeforeTime(), issuer, kid, null, 0);
    }

    private Grant own(SignedJWT jwt, JWTClaimsSet c) throws AuthException {
        KeySet.Key key = keys.tokenKey(jwt.getHeader().getKeyID());
        JWSAlgorithm alg = jwt.getHeader().getAlgorithm();
        try {
            if (!key.algorithm().equals(alg) || !jwt.verify(key.verifier())) {
                throw new AuthException("token signature is not valid", false);
            }
        } catch (JOSEException e) {
            throw new AuthException("token signature is not valid", false);
        }
        String repo;
        String access;
        try {
            repo = c.getStringClaim("repo");
            access = c.getStringClaim("access");
        } catch (ParseException e) {
            throw new AuthException("token lacks its claims", false);
        }
        if (repo == null || repo.isEmpty() || access == null) {
            throw new AuthException("token lacks its claims", false);
        }
        Access level = switch (access) {
            case "read" -> Access.READ;
            case "write" -> Access.WRITE;
            default -> throw new AuthException("token access level '" + access + "' is unknown", false);
        };
        if (c.getSubject() != null) {
            Object gen = c.getClaim(GENERATION);
            if (!(gen instanceof Number n) || !revocations.current(c.getSubject(), n.longValue())) {
                throw new AuthException("token of user '" + c.getSubject() + "' was revoked", false);
            }
        }
        return new Grant(repo, level, 0);
    }

    /** The token's {@code exp} (Unix seconds), checked against now, its {@code nbf} and the maximum lifetime. */
    private long lifetime(Date exp, Date nbf) throws AuthException {
        long now = clock.millis();
        if (exp == null) throw new AuthException("token has no expiry", false);
        if (exp.getTime() + clockSkew.toMillis() <= now) throw new AuthException("token expired", false);
        if (nbf != null && nbf.getTime() - clockSkew.toMillis() > now) {
            throw new AuthException("token is not valid yet", false);
        }
        if (exp.getTime() - now > maxLifetime.plus(clockSkew).toMillis()) {
            throw new AuthException("token lives longer than the maximum lifetime, " + ServerConfig.describe(maxLifetime), false);
        }
        return exp.getTime() / 1000;
    }

    /** Checks a grant against what a route needs: a read token on a write route is 403. */
    public static void require(Grant grant, Access needed) throws AuthException {
        if (!grant.access().allows(needed)) {
            throw new AuthException("this route needs a " + needed.claim() + " token", true);
        }
    }

    /** The issuers whose tokens are trusted besides openxet's own, by {@code iss}. */
    List<String> issuers() {
        return List.copyOf(issuers.keySet());
    }
}
