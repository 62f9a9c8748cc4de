package org.openxet.service;

import org.openxet.protocol.Blake3;
import org.openxet.protocol.MerkleHash;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;

/**
 * Signed fetch URLs (§5.8): {@code <base>/v1/fetch/<xorb>?g=<grant>&s=<scope>&e=<expiry>&t=<tag>}. The query grants
 * exactly the listed inclusive byte ranges of one xorb object to whoever holds the URL (the clients send no
 * Authorization header there) until the expiry; the tag is a keyed BLAKE3 MAC over all of it with the server's newest
 * URL key ({@link KeySet}), truncated to 128 bits. Keyed BLAKE3 is a PRF, so it is a standard MAC, and the native library makes one per
 * range cheap enough for a 100,000-range v1 answer.
 *
 * <p>The grant is the ranges in a compact text (see {@link #putGrantRange}), not as decimal "s-e" pairs: a v2 entry of
 * 100 ranges then needs about 800 characters instead of 1,900, so the answer is smaller and its MAC message fits one
 * BLAKE3 chunk. URLs of the older {@code r=<s-e,s-e>} form, which nodes before this one minted, still verify until
 * they expire, so a rolling upgrade breaks no download in flight.
 */
public final class SignedUrls {
    public static final String PATH = "/v1/fetch/";
    static final int TAG_BYTES = 16;

    /**
     * The grant's digits: 5 bits of a number each, least significant group first; the first 32 characters end a
     * number, the last 32 say that more groups follow. All 64 are URL-safe, so the text needs no escaping.
     */
    private static final byte[] DIGITS =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DIGIT_VALUE = new byte[128];
    /** Longest number a grant may carry: 11 groups, 55 bits (byte offsets in a xorb are below 2^27). */
    private static final int MAX_GROUPS = 11;
    /** The most characters one range can take (two numbers of up to 64 bits). */
    public static final int MAX_GRANT_RANGE_CHARS = 2 * 13;

    static {
        java.util.Arrays.fill(DIGIT_VALUE, (byte) -1);
        for (int i = 0; i < DIGITS.length; i++) DIGIT_VALUE[DIGITS[i]] = (byte) i;
    }

    private final KeySet keys;
    private final long ttlSeconds;
    private final Clock clock;

    /**
     * URLs signed with the newest URL key of {@code keys}; a URL signed with any URL key not retired verifies (a URL
     * names no key: trying the few keys in use costs a MAC each, only for a URL the newest key does not verify).
     */
    public SignedUrls(KeySet keys, long ttlSeconds, Clock clock) {
        this.keys = keys;
        this.ttlSeconds = ttlSeconds;
        this.clock = clock;
    }

    /** URLs of one key (tools, tests and benchmarks). */
    public SignedUrls(byte[] key, long ttlSeconds, Clock clock) {
        this(KeySet.fixed(new byte[32], key.clone()), ttlSeconds, clock);
    }

    /** The key URLs minted now are signed with: an answer signs all its URLs with the one it took at its start. */
    public byte[] signingKey() {
        return keys.urlSigningKey();
    }

    /** How long a URL minted now lives. */
    public long ttlSeconds() {
        return ttlSeconds;
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
     * Appends the inclusive range {@code [start, end]} to a grant at {@code b[p]}, after a range that ended at {@code
     * previousEnd} (-1 before the first): the gap from the previous range (zigzag-signed, so any order encodes) and
     * then {@code end - start}, each as {@link #DIGITS}. Sorted ranges of a xorb take 6–9 characters. Returns the
     * position after it; needs at most {@link #MAX_GRANT_RANGE_CHARS} bytes of room.
     */
    public static int putGrantRange(byte[] b, int p, long previousEnd, long start, long end) {
        p = putNumber(b, p, zigzag(start - previousEnd - 1));
        return putNumber(b, p, end - start);
    }

    /** The characters {@link #putGrantRange} writes for the same arguments. */
    public static int grantRangeLength(long previousEnd, long start, long end) {
        return numberLength(zigzag(start - previousEnd - 1)) + numberLength(end - start);
    }

    private static long zigzag(long v) {
        return (v << 1) ^ (v >> 63);
    }

    private static int putNumber(byte[] b, int p, long v) {
        while ((v & ~31L) != 0) {
            b[p++] = DIGITS[32 | (int) (v & 31)];
            v >>>= 5;
        }
        b[p++] = DIGITS[(int) v];
        return p;
    }

    private static int numberLength(long v) {
        return v == 0 ? 1 : (64 - Long.numberOfLeadingZeros(v) + 4) / 5;
    }

    /** The ranges of a grant text, inclusive {@code [s0, e0, s1, e1, ...]}; a malformed text is an exception. */
    static long[] parseGrant(String g) {
        long[] numbers = new long[Math.max(2, g.length())];
        int count = 0;
        int i = 0;
        while (i < g.length()) {
            long v = 0;
            for (int group = 0; ; group++) {
                char c = i < g.length() ? g.charAt(i++) : 0;
                int d = c < 128 ? DIGIT_VALUE[c] : -1;
                if (d < 0 || group == MAX_GROUPS) throw new IllegalArgumentException("bad grant text");
                v |= (long) (d & 31) << (5 * group);
                if (d < 32) break;
            }
            numbers[count++] = v;
        }
        if (count == 0 || count % 2 != 0) throw new IllegalArgumentException("bad grant text");
        long[] ranges = new long[count];
        long previousEnd = -1;
        for (int k = 0; k < count; k += 2) {
            long gap = (numbers[k] >>> 1) ^ -(numbers[k] & 1);
            long start = previousEnd + 1 + gap;
            long end = start + numbers[k + 1];
            if (start < 0 || end < start) throw new IllegalArgumentException("bad grant text");
            ranges[k] = start;
            ranges[k + 1] = end;
            previousEnd = end;
        }
        return ranges;
    }

    /**
     * The tag over a message {@code msg[0, msgLength)} built as {@link #message} describes, written as 32 hex digits
     * into {@code out}.
     */
    public void tag(byte[] msg, int msgLength, byte[] scratch32, byte[] out, int outOffset) {
        tag(keys.urlSigningKey(), msg, msgLength, scratch32, out, outOffset);
    }

    /** {@link #tag(byte[], int, byte[], byte[], int)} with {@code key}. */
    public static void tag(byte[] key, byte[] msg, int msgLength, byte[] scratch32, byte[] out, int outOffset) {
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

    /** What a {@code g=} message starts with; the older {@code r=} messages start with the xorb's hex instead. */
    public static final String GRANT_MESSAGE_PREFIX = "g\n";

    /**
     * The MAC'd message: {@link #GRANT_MESSAGE_PREFIX}, then the xorb hex, the grant text, the encoded scope and the
     * expiry, newline separated.
     */
    public static String message(String xorbHex, String grant, String encodedScope, String expiry) {
        return GRANT_MESSAGE_PREFIX + xorbHex + "\n" + grant + "\n" + encodedScope + "\n" + expiry;
    }

    /** The grant text of inclusive ranges {@code [s0, e0, s1, e1, ...]}. */
    public static String grant(long[] inclusiveRanges) {
        byte[] b = new byte[inclusiveRanges.length / 2 * MAX_GRANT_RANGE_CHARS];
        int p = 0;
        long previousEnd = -1;
        for (int i = 0; i < inclusiveRanges.length; i += 2) {
            p = putGrantRange(b, p, previousEnd, inclusiveRanges[i], inclusiveRanges[i + 1]);
            previousEnd = inclusiveRanges[i + 1];
        }
        return new String(b, 0, p, StandardCharsets.US_ASCII);
    }

    /** Builds one whole URL (used by tests and tools; the answer writers stream the same bytes). */
    public String url(String base, MerkleHash xorb, long[] inclusiveRanges, String scope, long expiry) {
        String g = grant(inclusiveRanges);
        String enc = encodeScope(scope);
        return base + PATH + xorb.hex() + "?g=" + g + "&s=" + enc + "&e=" + expiry + "&t="
                + tagText(message(xorb.hex(), g, enc, Long.toString(expiry)));
    }

    private String tagText(String message) {
        return tagText(keys.urlSigningKey(), message);
    }

    private static String tagText(byte[] key, String message) {
        byte[] msg = message.getBytes(StandardCharsets.UTF_8);
        byte[] tag = new byte[2 * TAG_BYTES];
        tag(key, msg, msg.length, new byte[32], tag, 0);
        return new String(tag, StandardCharsets.US_ASCII);
    }

    /** Whether any URL key in use gives {@code t} over {@code message}. */
    private boolean signedByAKeyInUse(String message, String t) {
        byte[] given = t.getBytes(StandardCharsets.US_ASCII);
        for (byte[] key : keys.urlKeys()) {
            if (MessageDigest.isEqual(tagText(key, message).getBytes(StandardCharsets.US_ASCII), given)) return true;
        }
        return false;
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

    /**
     * Checks a fetch URL's query: the grant {@code g}, or an older URL's decimal ranges {@code r} when it has no
     * {@code g}. Any tampering, a bad form or an expired URL is an {@link AuthException} (403).
     */
    public FetchGrant verify(String xorbHex, String g, String r, String encodedScope, String e, String t)
            throws AuthException {
        String ranges = g != null ? g : r;
        if (ranges == null || encodedScope == null || e == null || t == null || t.length() != 2 * TAG_BYTES) {
            throw new AuthException("fetch URL is missing its grant", true);
        }
        String message = g != null ? message(xorbHex, g, encodedScope, e) : decimalMessage(xorbHex, r, encodedScope, e);
        if (!signedByAKeyInUse(message, t)) {
            throw new AuthException("fetch URL signature is not valid", true);
        }
        long expiry;
        MerkleHash xorb;
        long[] granted;
        try {
            expiry = Long.parseLong(e);
            xorb = MerkleHash.parse(xorbHex);
            granted = g != null ? parseGrant(g) : parseDecimal(r);
        } catch (RuntimeException | org.openxet.protocol.InvalidHashException bad) {
            throw new AuthException("fetch URL grant is malformed", true);
        }
        if (expiry <= clock.millis() / 1000) {
            throw new AuthException("fetch URL expired; ask for a new reconstruction", true);
        }
        return new FetchGrant(xorb, granted, URLDecoder.decode(encodedScope, StandardCharsets.UTF_8), expiry);
    }

    /** The older URLs' message: xorb hex, decimal ranges, encoded scope and expiry, newline separated. */
    static String decimalMessage(String xorbHex, String ranges, String encodedScope, String expiry) {
        return xorbHex + "\n" + ranges + "\n" + encodedScope + "\n" + expiry;
    }

    private static long[] parseDecimal(String r) {
        String[] parts = r.split(",");
        long[] ranges = new long[2 * parts.length];
        for (int i = 0; i < parts.length; i++) {
            int dash = parts[i].indexOf('-');
            ranges[2 * i] = Long.parseLong(parts[i].substring(0, dash));
            ranges[2 * i + 1] = Long.parseLong(parts[i].substring(dash + 1));
        }
        return ranges;
    }
}
