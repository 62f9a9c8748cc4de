package org.openxet.service;

import org.openxet.protocol.Blake3;
import org.openxet.protocol.MerkleHash;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;

/**
 * Signed fetch URLs (§5.8): {@code <base>/v1/fetch/<xorb>?r=<ranges>&s=<scope>&e=<expiry>&t=<tag>}. The query grants
 * exactly the listed inclusive byte ranges of one xorb object to whoever holds the URL (the clients send no
 * Authorization header there) until the expiry; the tag is a keyed BLAKE3 MAC over all of it with the server's URL
 * key, truncated to 128 bits. Keyed BLAKE3 is a PRF, so it is a standard MAC, and the native library makes one per
 * range cheap enough for a 100,000-range v1 answer.
 */
public final class SignedUrls {
    public static final String PATH = "/v1/fetch/";
    static final int TAG_BYTES = 16;

    private final byte[] key;
    private final long ttlSeconds;
    private final Clock clock;

    public SignedUrls(byte[] key, long ttlSeconds, Clock clock) {
        this.key = key.clone();
        this.ttlSeconds = ttlSeconds;
        this.clock = clock;
    }

    /** The expiry to put in URLs minted now. */
    public long expiry() {
        return clock.millis() / 1000 + ttlSeconds;
    }

    /** Percent-encoded scope, computed once per answer. */
    public static String encodeScope(String scope) {
        return URLEncoder.encode(scope, StandardCharsets.UTF_8);
    }

    /**
     * The tag over {@code xorbHex, ranges, encodedScope, expiry}, written as 32 hex digits into {@code out}. The
     * message is {@code msg[0, msgLength)}, built by the caller as {@link #message}.
     */
    public void tag(byte[] msg, int msgLength, byte[] scratch32, byte[] out, int outOffset) {
        Blake3.get().keyedHash(key, msg, 0, msgLength, scratch32, 0);
        hexInto(scratch32, out, outOffset);
    }

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    static void hexInto(byte[] raw, byte[] out, int offset) {
        for (int i = 0; i < TAG_BYTES; i++) {
            out[offset + 2 * i] = HEX[(raw[i] >> 4) & 0xF];
            out[offset + 2 * i + 1] = HEX[raw[i] & 0xF];
        }
    }

    /** The MAC'd message: the xorb hex, the ranges text, the encoded scope and the expiry, newline separated. */
    public static String message(String xorbHex, String ranges, String encodedScope, String expiry) {
        return xorbHex + "\n" + ranges + "\n" + encodedScope + "\n" + expiry;
    }

    /** Builds one whole URL (used by v1 answers, tests and tools; the v2 writer streams the same bytes). */
    public String url(String base, MerkleHash xorb, long[] inclusiveRanges, String scope, long expiry) {
        StringBuilder r = new StringBuilder();
        for (int i = 0; i < inclusiveRanges.length; i += 2) {
            if (i > 0) r.append(',');
            r.append(inclusiveRanges[i]).append('-').append(inclusiveRanges[i + 1]);
        }
        String enc = encodeScope(scope);
        byte[] msg = message(xorb.hex(), r.toString(), enc, Long.toString(expiry)).getBytes(StandardCharsets.US_ASCII);
        byte[] tag = new byte[2 * TAG_BYTES];
        tag(msg, msg.length, new byte[32], tag, 0);
        return base + PATH + xorb.hex() + "?r=" + r + "&s=" + enc + "&e=" + expiry + "&t="
                + new String(tag, StandardCharsets.US_ASCII);
    }

    /** A verified grant: the xorb and its allowed inclusive byte ranges. */
    public record FetchGrant(MerkleHash xorb, long[] ranges, String scope, long expiry) {
        /** Whether {@code [start, end]} lies inside one granted range. */
        public boolean allows(long start, long end) {
            for (int i = 0; i < ranges.length; i += 2) {
                if (start >= ranges[i] && end <= ranges[i + 1]) return true;
            }
            return false;
        }
    }

    /** Checks a fetch URL's query; any tampering, a bad form or an expired URL is an {@link AuthException} (403). */
    public FetchGrant verify(String xorbHex, String r, String encodedScope, String e, String t) throws AuthException {
        if (r == null || encodedScope == null || e == null || t == null || t.length() != 2 * TAG_BYTES) {
            throw new AuthException("fetch URL is missing its grant", true);
        }
        byte[] msg = message(xorbHex, r, encodedScope, e).getBytes(StandardCharsets.UTF_8);
        byte[] expected = new byte[2 * TAG_BYTES];
        tag(msg, msg.length, new byte[32], expected, 0);
        if (!MessageDigest.isEqual(expected, t.getBytes(StandardCharsets.US_ASCII))) {
            throw new AuthException("fetch URL signature is not valid", true);
        }
        long expiry;
        MerkleHash xorb;
        long[] ranges;
        try {
            expiry = Long.parseLong(e);
            xorb = MerkleHash.parse(xorbHex);
            String[] parts = r.split(",");
            ranges = new long[2 * parts.length];
            for (int i = 0; i < parts.length; i++) {
                int dash = parts[i].indexOf('-');
                ranges[2 * i] = Long.parseLong(parts[i].substring(0, dash));
                ranges[2 * i + 1] = Long.parseLong(parts[i].substring(dash + 1));
            }
        } catch (RuntimeException | org.openxet.protocol.InvalidHashException bad) {
            throw new AuthException("fetch URL grant is malformed", true);
        }
        if (expiry <= clock.millis() / 1000) {
            throw new AuthException("fetch URL expired; ask for a new reconstruction", true);
        }
        return new FetchGrant(xorb, ranges, URLDecoder.decode(encodedScope, StandardCharsets.UTF_8), expiry);
    }
}
