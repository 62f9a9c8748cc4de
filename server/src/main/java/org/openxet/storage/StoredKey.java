package org.openxet.storage;

/**
 * One of openxet's own signing keys as an {@link AuthStore} keeps it.
 *
 * @param kid       the key id tokens carry in their header ({@code kid})
 * @param use       {@code token} (CAS tokens) or {@code url} (signed fetch URLs)
 * @param algorithm {@code HS256}, {@code ES256} or {@code EdDSA} for a token key; {@code BLAKE3} for a URL key
 * @param secret    the key, private part included, as a JWK (JSON): the store is as secret as secrets.properties
 * @param createdAt epoch milliseconds; the newest key of a use that is not retired signs
 * @param retiredAt epoch milliseconds, 0 while the key is in use; what it signed is refused from then on
 */
public record StoredKey(String kid, String use, String algorithm, String secret, long createdAt, long retiredAt) {
    public static final String TOKEN = "token";
    public static final String URL = "url";

    public boolean retired() {
        return retiredAt != 0;
    }

    public StoredKey retire(long atMillis) {
        return new StoredKey(kid, use, algorithm, secret, createdAt, atMillis);
    }
}
