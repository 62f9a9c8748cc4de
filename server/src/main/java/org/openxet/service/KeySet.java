package org.openxet.service;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.Ed25519Signer;
import com.nimbusds.jose.crypto.Ed25519Verifier;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jose.jwk.OctetSequenceKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.OctetKeyPairGenerator;
import org.openxet.storage.AuthStore;
import org.openxet.storage.IndexException;
import org.openxet.storage.StoredKey;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * openxet's own signing keys, rotated by key id: CAS tokens carry the {@code kid} of the key that signed them and are
 * signed with the newest token key; signed URLs with the newest URL key. Every key not retired still verifies, so a
 * rotation ({@code openxet keys add}, later {@code keys retire OLD}) breaks nothing in flight; a retired key's tokens
 * and URLs are refused. The keys live in an {@link AuthStore}: the data dir's {@code keys.json}, or the shared index,
 * which every node re-reads at least every {@link #REFRESH} and at once (at most every {@link #MISS_REFRESH}) when a
 * token names a key it does not know, so a key added on one node verifies on every node at once and a retirement
 * reaches every node within a second. The first keys are the data dir's {@code secrets.properties} ones, imported
 * under a key id derived from them, so tokens and URLs minted before key ids existed keep verifying.
 */
public final class KeySet {
    public static final Duration REFRESH = Duration.ofSeconds(1);
    static final Duration MISS_REFRESH = Duration.ofMillis(100);
    /** A token key's algorithms; a URL key is a 32-byte keyed-BLAKE3 key. */
    public static final List<String> TOKEN_ALGORITHMS = List.of("HS256", "ES256", "EdDSA");
    public static final String URL_ALGORITHM = "BLAKE3";

    /** A key in use or retired, with what signs and verifies with it. */
    public record Key(StoredKey stored, JWSSigner signer, JWSVerifier verifier, byte[] urlKey) {
        public String kid() {
            return stored.kid();
        }

        public JWSAlgorithm algorithm() {
            return JWSAlgorithm.parse(stored.algorithm());
        }
    }

    /** The keys as read ({@code stored}), and what signs and verifies with them. */
    private record Snapshot(List<StoredKey> stored, Map<String, Key> byKid, Key tokenSigner, Key urlSigner,
                            List<byte[]> urlKeys, String publicJwks) {
    }

    private final AuthStore store;
    private final String legacyTokenKid;
    private final Clock clock;
    private final RefreshedCopy<Snapshot> copy;

    private KeySet(AuthStore store, String legacyTokenKid, Clock clock, List<StoredKey> keys) {
        this.store = store;
        this.legacyTokenKid = legacyTokenKid;
        this.clock = clock;
        Snapshot first = snapshot(keys);
        this.copy = new RefreshedCopy<>("signing keys", store == null ? () -> first : this::readStore, first, MISS_REFRESH);
    }

    /** The set of two keys only, no store (tools and tests that sign with a data dir's secrets.properties). */
    public static KeySet fixed(byte[] tokenKey, byte[] urlKey) {
        StoredKey token = imported(StoredKey.TOKEN, tokenKey);
        return new KeySet(null, token.kid(), Clock.systemUTC(), List.of(token, imported(StoredKey.URL, urlKey)));
    }

    /** The key set of {@code store}; with no key of a use yet, the data dir's key of that use is imported first. */
    public static KeySet open(AuthStore store, Secrets secrets, Clock clock) throws IndexException {
        StoredKey token = imported(StoredKey.TOKEN, secrets.tokenKey());
        StoredKey url = imported(StoredKey.URL, secrets.urlKey());
        List<StoredKey> keys = store.keys();
        for (StoredKey first : List.of(token, url)) {
            if (keys.stream().noneMatch(k -> k.use().equals(first.use()))) {
                store.putKey(first, false); // two nodes starting at once import the same key under the same id
            }
        }
        return new KeySet(store, token.kid(), clock, store.keys());
    }

    /** A secrets.properties key, under an id derived from it: every node holding the file names it alike. */
    private static StoredKey imported(String use, byte[] key) {
        String kid = use + "-imported-" + HexFormat.of().formatHex(sha256(("openxet key id\n" + use + "\n").getBytes(
                StandardCharsets.US_ASCII), key), 0, 6);
        String alg = use.equals(StoredKey.TOKEN) ? "HS256" : URL_ALGORITHM;
        return new StoredKey(kid, use, alg, new OctetSequenceKey.Builder(key).keyID(kid).build().toJSONString(), 0, 0);
    }

    /** Generates a key of {@code use} and {@code algorithm} and adds it: the newest, it signs from now on. */
    public StoredKey add(String use, String algorithm) throws IndexException {
        if (store == null) throw new IllegalStateException("a fixed key set has no store");
        long now = clock.millis();
        String kid = use + "-" + DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss").withZone(ZoneOffset.UTC)
                .format(clock.instant()) + "-" + HexFormat.of().formatHex(random(3));
        JWK jwk = generate(use, algorithm, kid);
        StoredKey key = new StoredKey(kid, use, algorithm, jwk.toJSONString(), now, 0);
        if (!store.putKey(key, false)) throw new IllegalStateException("key id " + kid + " exists");
        reread();
        return key;
    }

    private static JWK generate(String use, String algorithm, String kid) {
        try {
            if (use.equals(StoredKey.URL)) {
                if (!algorithm.equals(URL_ALGORITHM)) {
                    throw new IllegalArgumentException("a url key is a " + URL_ALGORITHM + " key");
                }
                return new OctetSequenceKey.Builder(random(32)).keyID(kid).build();
            }
            return switch (algorithm) {
                case "HS256" -> new OctetSequenceKey.Builder(random(32)).keyID(kid).algorithm(JWSAlgorithm.HS256).build();
                case "ES256" -> new ECKeyGenerator(Curve.P_256).keyID(kid).algorithm(JWSAlgorithm.ES256)
                        .keyUse(KeyUse.SIGNATURE).generate();
                case "EdDSA" -> new OctetKeyPairGenerator(Curve.Ed25519).keyID(kid).algorithm(JWSAlgorithm.EdDSA)
                        .keyUse(KeyUse.SIGNATURE).generate();
                default -> throw new IllegalArgumentException("a token key is one of " + TOKEN_ALGORITHMS);
            };
        } catch (JOSEException e) {
            throw new IllegalStateException("cannot generate a " + algorithm + " key: " + e.getMessage(), e);
        }
    }

    /**
     * Retires {@code kid}: what it signed is refused on every node within {@link #REFRESH}. The newest key of its use
     * that is not retired cannot be retired while it is the only one: nothing could sign.
     */
    public StoredKey retire(String kid) throws IndexException {
        if (store == null) throw new IllegalStateException("a fixed key set has no store");
        List<StoredKey> all = store.keys();
        StoredKey key = all.stream().filter(k -> k.kid().equals(kid)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no key " + kid + " (openxet keys list shows them)"));
        if (key.retired()) return key;
        if (all.stream().noneMatch(k -> !k.retired() && k.use().equals(key.use()) && !k.kid().equals(kid))) {
            throw new IllegalArgumentException(kid + " is the only " + key.use() + " key in use: add another first");
        }
        StoredKey retired = key.retire(clock.millis());
        store.putKey(retired, true);
        reread();
        return retired;
    }

    /** Every key, retired ones included, oldest first. */
    public List<StoredKey> list() throws IndexException {
        return store == null ? current().byKid().values().stream().map(Key::stored).toList() : store.keys();
    }

    /** The key new tokens are signed with. */
    public Key tokenSigner() {
        return current().tokenSigner();
    }

    /** The key new URLs are signed with. */
    public Key urlSigner() {
        return current().urlSigner();
    }

    /** The key new URLs are signed with, as bytes. */
    public byte[] urlSigningKey() {
        return current().urlSigner().urlKey();
    }

    /** Every URL key in use, the signing one first: a URL signed by any of them verifies. */
    public List<byte[]> urlKeys() {
        return current().urlKeys();
    }

    /** The public keys of the asymmetric token keys in use, as a JWKS ({@code GET /.well-known/jwks.json}). */
    public String publicJwks() {
        return current().publicJwks();
    }

    /** The id of the key a token without a {@code kid} was signed with (one minted before key ids). */
    public String legacyTokenKid() {
        return legacyTokenKid;
    }

    /** The token key {@code kid}, or an {@link AuthException} that says why none verifies. */
    public Key tokenKey(String kid) throws AuthException {
        long arrived = System.nanoTime();
        String id = kid == null ? legacyTokenKid : kid;
        Key key = current().byKid().get(id);
        if (key == null) {
            try {
                key = copy.readSince(arrived).byKid().get(id); // added a moment ago, maybe on another node
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (key == null || !key.stored().use().equals(StoredKey.TOKEN)) {
            throw new AuthException("token key id '" + id + "' is unknown", false);
        }
        if (key.stored().retired()) {
            throw new AuthException("token key '" + id + "' is retired", false);
        }
        return key;
    }

    /** Whether the token key {@code kid} (null: the imported one) is in the set and not retired, as last read. */
    public boolean inUse(String kid) {
        Key key = current().byKid().get(kid == null ? legacyTokenKid : kid);
        return key != null && key.stored().use().equals(StoredKey.TOKEN) && !key.stored().retired();
    }

    private Snapshot current() {
        return copy.get(REFRESH);
    }

    /** After a change this process made: the copy shows it at once. */
    private void reread() throws IndexException {
        try {
            copy.readNow();
        } catch (IndexException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The store's keys, a new snapshot only when they changed: most re-reads find the same keys. */
    private Snapshot readStore() throws IndexException {
        List<StoredKey> keys = store.keys();
        Snapshot last = copy.last();
        return keys.equals(last.stored()) ? last : snapshot(keys);
    }

    private static Snapshot snapshot(List<StoredKey> keys) {
        Map<String, Key> byKid = new LinkedHashMap<>();
        Key tokenSigner = null;
        Key urlSigner = null;
        List<JWK> published = new ArrayList<>();
        for (StoredKey k : keys) {
            JWK jwk = parse(k);
            Key key = key(k, jwk);
            byKid.put(k.kid(), key);
            if (k.retired()) continue;
            if (k.use().equals(StoredKey.TOKEN)) {
                if (tokenSigner == null || newer(k, tokenSigner.stored())) tokenSigner = key;
                if (!(jwk instanceof OctetSequenceKey)) published.add(jwk.toPublicJWK());
            } else if (newer(k, urlSigner == null ? null : urlSigner.stored())) {
                urlSigner = key;
            }
        }
        if (tokenSigner == null || urlSigner == null) {
            throw new IllegalStateException("the key set has no " + (tokenSigner == null ? "token" : "url") + " key in use");
        }
        List<byte[]> urlKeys = new ArrayList<>();
        urlKeys.add(urlSigner.urlKey());
        for (Key key : byKid.values()) {
            if (key != urlSigner && key.urlKey() != null && !key.stored().retired()) urlKeys.add(key.urlKey());
        }
        return new Snapshot(List.copyOf(keys), Map.copyOf(byKid), tokenSigner, urlSigner, List.copyOf(urlKeys),
                new JWKSet(published).toString(true));
    }

    private static boolean newer(StoredKey a, StoredKey b) {
        return b == null || a.createdAt() > b.createdAt() || (a.createdAt() == b.createdAt() && a.kid().compareTo(b.kid()) > 0);
    }

    private static Key key(StoredKey k, JWK jwk) {
        try {
            if (k.use().equals(StoredKey.URL)) {
                return new Key(k, null, null, ((OctetSequenceKey) jwk).toByteArray());
            }
            return switch (k.algorithm()) {
                case "HS256" -> new Key(k, new MACSigner((OctetSequenceKey) jwk), new MACVerifier((OctetSequenceKey) jwk), null);
                case "ES256" -> new Key(k, new ECDSASigner((ECKey) jwk), new ECDSAVerifier(((ECKey) jwk).toPublicJWK()), null);
                case "EdDSA" -> new Key(k, new Ed25519Signer((OctetKeyPair) jwk),
                        new Ed25519Verifier(((OctetKeyPair) jwk).toPublicJWK()), null);
                default -> throw new IllegalStateException("key " + k.kid() + ": unknown algorithm " + k.algorithm());
            };
        } catch (JOSEException | ClassCastException e) {
            throw new IllegalStateException("key " + k.kid() + " is not a usable " + k.algorithm() + " key: " + e.getMessage(), e);
        }
    }

    private static JWK parse(StoredKey k) {
        try {
            return JWK.parse(k.secret());
        } catch (ParseException e) {
            throw new IllegalStateException("key " + k.kid() + " is not a JWK: " + e.getMessage(), e);
        }
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        new SecureRandom().nextBytes(b);
        return b;
    }

    private static byte[] sha256(byte[] prefix, byte[] key) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(prefix);
            return sha.digest(key);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
