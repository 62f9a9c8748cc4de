package org.openxet.http;

import org.openxet.service.FetchDescriptors;
import org.openxet.service.SignedUrls;

/**
 * Writes signed fetch URLs for one answer: the base, scope and expiry fragments are encoded once per answer and the
 * MAC message is assembled in one reused buffer, the grant written straight into it, so a URL costs one keyed BLAKE3
 * downcall and a few array copies.
 */
public final class UrlSigner {
    private static final byte[] G = JsonBytes.ascii("?g=");
    private static final byte[] S = JsonBytes.ascii("&s=");
    private static final byte[] E = JsonBytes.ascii("&e=");
    private static final byte[] T = JsonBytes.ascii("&t=");
    private static final byte[] PREFIX = JsonBytes.ascii(SignedUrls.GRANT_MESSAGE_PREFIX);

    private final SignedUrls urls;
    /** One key for the whole answer, whatever a rotation does meanwhile. */
    private final byte[] key;
    private final byte[] prefix;
    private final byte[] scope;
    private final byte[] expiry;
    private final long expirySeconds;
    /** The base URL and the scope: what, with the expiry, makes two signers' URLs for one range the same. */
    private final String audience;
    private byte[] msg = new byte[4096];
    private final byte[] scratch = new byte[32];
    private final byte[] tag = new byte[32];

    private UrlSigner(UrlSigner of) {
        this.urls = of.urls;
        this.key = of.key;
        this.prefix = of.prefix;
        this.scope = of.scope;
        this.expiry = of.expiry;
        this.expirySeconds = of.expirySeconds;
        this.audience = of.audience;
    }

    /** A signer for another thread: same URLs, its own buffers (a signer is not thread-safe). */
    public UrlSigner copy() {
        return new UrlSigner(this);
    }

    public UrlSigner(SignedUrls urls, String base, String scope, long expiry) {
        this.urls = urls;
        this.key = urls.signingKey();
        this.prefix = JsonBytes.ascii(base + SignedUrls.PATH);
        this.scope = JsonBytes.ascii(SignedUrls.encodeScope(scope));
        this.expiry = JsonBytes.ascii(Long.toString(expiry));
        this.expirySeconds = expiry;
        this.audience = base + "\n" + scope;
    }

    /** When this signer's URLs expire, in seconds since the epoch. */
    long expiry() {
        return expirySeconds;
    }

    /** The base URL and scope of this signer's URLs, as one string. */
    String audience() {
        return audience;
    }

    /** The URLs' lifetime as the server mints them. */
    long ttlSeconds() {
        return urls.ttlSeconds();
    }

    /** Length of a URL {@link #write} produces whose grant text is {@code grantLength} characters long. */
    int urlLength(int grantLength) {
        return prefix.length + 64 + G.length + grantLength + S.length + scope.length + E.length + expiry.length
                + T.length + tag.length;
    }

    /**
     * Appends the URL granting the byte ranges of descriptors {@code [from, to)} of {@code d} in the xorb {@code hex}:
     * four ints per descriptor (chunk start, chunk end, byte start, byte end exclusive), as the planner makes them.
     */
    public void write(JsonBytes out, byte[] hex, int[] d, int from, int to) {
        int max = PREFIX.length + hex.length + 1 + (to - from) * SignedUrls.MAX_GRANT_RANGE_CHARS + 1 + scope.length + 1
                + expiry.length;
        if (msg.length < max) {
            msg = new byte[2 * max];
        }
        int p = JsonBytes.put(msg, 0, PREFIX);
        p = JsonBytes.put(msg, p, hex);
        msg[p++] = '\n';
        int grantStart = p;
        long previousEnd = -1;
        for (int k = from; k < to; k++) {
            long end = FetchDescriptors.lastByte(d, k);
            p = SignedUrls.putGrantRange(msg, p, previousEnd, FetchDescriptors.byteStart(d, k), end);
            previousEnd = end;
        }
        int grantEnd = p;
        msg[p++] = '\n';
        p = JsonBytes.put(msg, p, scope);
        msg[p++] = '\n';
        p = JsonBytes.put(msg, p, expiry);
        SignedUrls.tag(key, msg, p, scratch, tag, 0);
        out.raw(prefix).raw(hex).raw(G).raw(msg, grantStart, grantEnd - grantStart).raw(S).raw(scope).raw(E).raw(expiry)
                .raw(T).raw(tag);
    }
}
