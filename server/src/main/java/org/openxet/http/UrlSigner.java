package org.openxet.http;

import org.openxet.service.SignedUrls;

/**
 * Writes signed fetch URLs for one answer: the base, scope and expiry fragments are encoded once per answer and the
 * MAC message is assembled in one reused buffer, so a URL costs one keyed BLAKE3 downcall and a few array copies.
 */
public final class UrlSigner {
    private static final byte[] R = JsonBytes.ascii("?r=");
    private static final byte[] S = JsonBytes.ascii("&s=");
    private static final byte[] E = JsonBytes.ascii("&e=");
    private static final byte[] T = JsonBytes.ascii("&t=");

    private final SignedUrls urls;
    private final byte[] prefix;
    private final byte[] scope;
    private final byte[] expiry;
    private byte[] msg = new byte[4096];
    private final byte[] scratch = new byte[32];
    private final byte[] tag = new byte[32];

    private UrlSigner(SignedUrls urls, byte[] prefix, byte[] scope, byte[] expiry) {
        this.urls = urls;
        this.prefix = prefix;
        this.scope = scope;
        this.expiry = expiry;
    }

    /** A signer for another thread: same URLs, its own buffers (a signer is not thread-safe). */
    public UrlSigner copy() {
        return new UrlSigner(urls, prefix, scope, expiry);
    }

    public UrlSigner(SignedUrls urls, String base, String scope, long expiry) {
        this.urls = urls;
        this.prefix = JsonBytes.ascii(base + SignedUrls.PATH);
        this.scope = JsonBytes.ascii(SignedUrls.encodeScope(scope));
        this.expiry = JsonBytes.ascii(Long.toString(expiry));
    }

    /** Length of the URL {@link #write} produces for a ranges text of {@code rangesLength} bytes. */
    int urlLength(int rangesLength) {
        return prefix.length + 64 + R.length + rangesLength + S.length + scope.length + E.length + expiry.length
                + T.length + tag.length;
    }

    /** Appends the URL granting {@code ranges[0, rangesLength)} (the "s-e,s-e" text) of the xorb {@code hex}. */
    public void write(JsonBytes out, byte[] hex, byte[] ranges, int rangesLength) {
        int len = hex.length + 1 + rangesLength + 1 + scope.length + 1 + expiry.length;
        if (msg.length < len) {
            msg = new byte[2 * len];
        }
        int p = 0;
        System.arraycopy(hex, 0, msg, p, hex.length);
        p += hex.length;
        msg[p++] = '\n';
        System.arraycopy(ranges, 0, msg, p, rangesLength);
        p += rangesLength;
        msg[p++] = '\n';
        System.arraycopy(scope, 0, msg, p, scope.length);
        p += scope.length;
        msg[p++] = '\n';
        System.arraycopy(expiry, 0, msg, p, expiry.length);
        p += expiry.length;
        urls.tag(msg, p, scratch, tag, 0);
        out.raw(prefix).raw(hex).raw(R).raw(ranges, 0, rangesLength).raw(S).raw(scope).raw(E).raw(expiry).raw(T).raw(tag);
    }
}
