package org.openxet.service;

import io.helidon.config.Config;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * How CAS tokens are checked ({@code openxet.auth.*}; README, "Tokens from your identity provider").
 *
 * @param maxLifetime no token is accepted, and none minted, that lives longer than this from now
 * @param clockSkew   how far past its {@code exp} (and before its {@code nbf}) a token is still accepted: nodes, and
 *                    the issuers that mint for them, never agree on the time to the second
 * @param issuers     external issuers whose tokens are accepted beside openxet's own
 */
public record AuthConfig(Duration maxLifetime, Duration clockSkew, List<Issuer> issuers) {
    public static final AuthConfig DEFAULTS = new AuthConfig(Duration.ofHours(24), Duration.ofSeconds(60), List.of());
    /** The algorithms an external issuer may use: asymmetric ones, so openxet never holds an issuer's secret. */
    public static final List<String> EXTERNAL_ALGORITHMS = List.of("RS256", "ES256", "EdDSA");

    public AuthConfig {
        issuers = List.copyOf(issuers);
    }

    /**
     * An identity provider whose tokens openxet accepts (one entry of {@code openxet.auth.issuers}; these key names
     * are kept across releases).
     *
     * @param issuer          the {@code iss} its tokens carry
     * @param audience        a value its tokens' {@code aud} must hold
     * @param jwks            its public keys: a JWKS file ({@code file:/path}) or URL (https, or http on loopback)
     * @param algorithms      the algorithms accepted from it (of {@link #EXTERNAL_ALGORITHMS})
     * @param scopeClaim      the claim holding the repository scope ({@code models/alice/llama})
     * @param accessClaim     the claim holding the access: {@code read} or {@code write}, a list of them, or a
     *                        space-separated string of them (write implies read)
     * @param jwksRefresh     how often its keys are fetched again
     * @param jwksMinInterval the shortest time between two fetches, also when a token names a key not yet known
     */
    public record Issuer(String issuer, String audience, String jwks, List<String> algorithms, String scopeClaim,
                         String accessClaim, Duration jwksRefresh, Duration jwksMinInterval) {
        public static final Duration DEFAULT_REFRESH = Duration.ofMinutes(5);
        public static final Duration DEFAULT_MIN_INTERVAL = Duration.ofSeconds(10);

        public Issuer {
            algorithms = List.copyOf(algorithms);
        }

        public Issuer(String issuer, String audience, String jwks) {
            this(issuer, audience, jwks, EXTERNAL_ALGORITHMS, "repo", "access", DEFAULT_REFRESH, DEFAULT_MIN_INTERVAL);
        }

        public Issuer withJwksTiming(Duration refresh, Duration minInterval) {
            return new Issuer(issuer, audience, jwks, algorithms, scopeClaim, accessClaim, refresh, minInterval);
        }

        public Issuer withAlgorithms(List<String> algs) {
            return new Issuer(issuer, audience, jwks, algs, scopeClaim, accessClaim, jwksRefresh, jwksMinInterval);
        }
    }

    /** The clock skew setting: a skew of zero is allowed (clocks kept in step), unlike the other durations. */
    static Setting<Duration> clockSkew(String key, Duration fallback) {
        return new Setting<>(key, fallback, (c, k, f) -> {
            String raw = c.get(k).asString().map(String::trim).orElse("");
            if (raw.isEmpty()) return f;
            try {
                Duration d = ServerConfig.parseDuration(raw);
                if (!d.isNegative() && d.compareTo(Duration.ofHours(1)) <= 0) return d;
            } catch (RuntimeException ignored) {
                // refused below
            }
            throw new ServerConfig.BadValue(k, raw, "must be a duration from 0s to 1h");
        }, true, "", "");
    }

    /** The trusted issuers setting: a YAML list, each entry checked, none listed twice. */
    static Setting<List<Issuer>> issuers(String key) {
        return new Setting<>(key, List.of(), (c, k, f) -> {
            List<Issuer> issuers = new ArrayList<>();
            Set<String> seen = new HashSet<>();
            List<Config> entries = c.get(k).asNodeList().orElse(List.of());
            for (int i = 0; i < entries.size(); i++) {
                Issuer issuer = issuer(entries.get(i), k + "." + i + ".");
                if (!seen.add(issuer.issuer())) {
                    throw new ServerConfig.BadValue(k + "." + i + ".issuer", issuer.issuer(), "listed twice");
                }
                issuers.add(issuer);
            }
            return List.copyOf(issuers);
        }, false, "", "");
    }

    private static Issuer issuer(Config c, String key) {
        String iss = string(c, "issuer");
        if (iss.isEmpty()) throw new ServerConfig.BadValue(key + "issuer", iss, "must name the iss its tokens carry");
        String aud = string(c, "audience");
        if (aud.isEmpty()) throw new ServerConfig.BadValue(key + "audience", aud, "must name the aud its tokens carry");
        String jwks = string(c, "jwks");
        requireJwksLocation(key + "jwks", jwks);
        List<String> algs = c.get("algorithms").asList(String.class).orElseGet(() -> {
            String one = string(c, "algorithms");
            return one.isEmpty() ? EXTERNAL_ALGORITHMS : List.of(one.split("\\s*,\\s*"));
        });
        if (algs.isEmpty()) throw new ServerConfig.BadValue(key + "algorithms", "", "must list at least one algorithm");
        for (String a : algs) {
            if (!EXTERNAL_ALGORITHMS.contains(a)) {
                throw new ServerConfig.BadValue(key + "algorithms", a, "must be among " + EXTERNAL_ALGORITHMS
                        + " (never none, never a shared-secret HS* for an external issuer)");
            }
        }
        String scopeClaim = string(c, "scope-claim");
        String accessClaim = string(c, "access-claim");
        return new Issuer(iss, aud, jwks, algs, scopeClaim.isEmpty() ? "repo" : scopeClaim,
                accessClaim.isEmpty() ? "access" : accessClaim,
                Setting.positiveDuration(c, "jwks-refresh", Issuer.DEFAULT_REFRESH),
                Setting.positiveDuration(c, "jwks-min-interval", Issuer.DEFAULT_MIN_INTERVAL));
    }

    private static String string(Config c, String key) {
        return c.get(key).asString().map(String::trim).orElse("");
    }

    /** {@code file:/path}, {@code https://...}, or {@code http://} to a loopback host (keys in clear text go nowhere). */
    static void requireJwksLocation(String key, String jwks) {
        URI uri;
        try {
            uri = URI.create(jwks);
        } catch (IllegalArgumentException e) {
            throw new ServerConfig.BadValue(key, jwks, "not a URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme();
        boolean ok = switch (scheme) {
            case "file" -> uri.getPath() != null && !uri.getPath().isEmpty();
            case "https" -> uri.getHost() != null;
            case "http" -> uri.getHost() != null && loopback(uri.getHost());
            default -> false;
        };
        if (!ok) {
            throw new ServerConfig.BadValue(key, jwks, "must be file:/path, https://host/..., or http:// to a loopback host");
        }
    }

    private static boolean loopback(String host) {
        return host.equals("localhost") || host.startsWith("127.") || host.equals("[::1]") || host.equals("::1");
    }

    String describe() {
        return "auth.max-lifetime=" + maxLifetime.toSeconds() + "s auth.clock-skew=" + clockSkew.toSeconds()
                + "s auth.issuers=" + issuers.stream().map(Issuer::issuer).toList();
    }
}
