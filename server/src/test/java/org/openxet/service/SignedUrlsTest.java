package org.openxet.service;

import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleHash;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SignedUrlsTest {
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-30T12:00:00Z"), ZoneOffset.UTC);
    private static final MerkleHash XORB = MerkleHash.of("0123456789abcdef".repeat(4));
    private final SignedUrls urls = new SignedUrls(new byte[32], 600, CLOCK);

    @Test
    void theGrantTextIsPinned() {
        // Range 100-199 after none: gap 100 (zigzag 200 = groups 8, 6: "o" then "G"), then length-1 99 (3, 3: "jD").
        assertEquals("oGjD", SignedUrls.grant(new long[]{100, 199}));
        assertEquals("AA", SignedUrls.grant(new long[]{0, 0}));
        // A second range touching the first: gap 0, length-1 9.
        assertEquals("AAAJ", SignedUrls.grant(new long[]{0, 0, 1, 10}));
    }

    @Test
    void grantsRoundTripInAnyOrderAndCountTheirLength() {
        SplittableRandom random = new SplittableRandom(7);
        for (int round = 0; round < 2_000; round++) {
            int n = 1 + random.nextInt(120);
            long[] ranges = new long[2 * n];
            long at = random.nextLong(1L << 26);
            boolean sorted = round % 2 == 0;
            for (int i = 0; i < n; i++) {
                long start = sorted ? at + random.nextLong(1 << 20) : random.nextLong(round % 3 == 0 ? 1L << 50 : 1L << 27);
                long end = start + random.nextLong(round % 5 == 0 ? 1L << 40 : 1L << 22);
                ranges[2 * i] = start;
                ranges[2 * i + 1] = end;
                at = end + 1;
            }
            String grant = SignedUrls.grant(ranges);
            assertArrayEquals(ranges, SignedUrls.parseGrant(grant), grant);
            int length = 0;
            long previousEnd = -1;
            for (int i = 0; i < ranges.length; i += 2) {
                length += SignedUrls.grantRangeLength(previousEnd, ranges[i], ranges[i + 1]);
                previousEnd = ranges[i + 1];
            }
            assertEquals(grant.length(), length);
            assertTrue(grant.length() <= n * SignedUrls.MAX_GRANT_RANGE_CHARS);
        }
    }

    @Test
    void malformedGrantsAreRefused() {
        for (String bad : new String[]{"", "A", "AAA", "g", "Ag", "A!", "AA=", "AAé",
                "_____________A", // a number longer than any offset
                "JA"}) {           // a gap of -5 before the first range: a negative start
            assertThrows(IllegalArgumentException.class, () -> SignedUrls.parseGrant(bad), bad);
        }
    }

    @Test
    void aMintedUrlVerifiesAndAnyChangeToItIsRefused() throws Exception {
        long[] ranges = {0, 99, 1000, 1999};
        String url = urls.url("http://h", XORB, ranges, "user/repo", urls.expiry());
        Query q = Query.of(url);
        SignedUrls.FetchGrant grant = urls.verify(XORB.hex(), q.g, null, q.s, q.e, q.t);
        assertArrayEquals(ranges, grant.ranges());
        assertEquals("user/repo", grant.scope());
        assertTrue(grant.allows(1000, 1999));
        assertTrue(!grant.allows(99, 1000));

        String widened = SignedUrls.grant(new long[]{0, 99, 1000, 2999});
        assertThrows(AuthException.class, () -> urls.verify(XORB.hex(), widened, null, q.s, q.e, q.t));
        assertThrows(AuthException.class, () -> urls.verify(XORB.hex(), q.g, null, "other%2Frepo", q.e, q.t));
        assertThrows(AuthException.class, () -> urls.verify(XORB.hex(), q.g, null, q.s, q.e + "0", q.t));
        assertThrows(AuthException.class, () -> urls.verify("f" + XORB.hex().substring(1), q.g, null, q.s, q.e, q.t));
        // The same text offered as an older URL's decimal ranges: the two messages differ, so the tag does not carry.
        assertThrows(AuthException.class, () -> urls.verify(XORB.hex(), null, q.g, q.s, q.e, q.t));
        // Expired: minted with a negative lifetime.
        SignedUrls expired = new SignedUrls(new byte[32], -1, CLOCK);
        Query old = Query.of(expired.url("http://h", XORB, ranges, "user/repo", expired.expiry()));
        assertThrows(AuthException.class, () -> urls.verify(XORB.hex(), old.g, null, old.s, old.e, old.t));
    }

    @Test
    void olderDecimalUrlsStillVerify() throws Exception {
        long expiry = urls.expiry();
        String message = SignedUrls.decimalMessage(XORB.hex(), "0-99,1000-1999", "user%2Frepo", Long.toString(expiry));
        byte[] msg = message.getBytes(StandardCharsets.US_ASCII);
        byte[] tag = new byte[32];
        urls.tag(msg, msg.length, new byte[32], tag, 0);
        String t = new String(tag, StandardCharsets.US_ASCII);
        SignedUrls.FetchGrant grant = urls.verify(XORB.hex(), null, "0-99,1000-1999", "user%2Frepo",
                Long.toString(expiry), t);
        assertArrayEquals(new long[]{0, 99, 1000, 1999}, grant.ranges());
        assertThrows(AuthException.class, () -> urls.verify(XORB.hex(), null, "0-99,1000-2999", "user%2Frepo",
                Long.toString(expiry), t));
    }

    /** The query of a minted URL. */
    private record Query(String g, String s, String e, String t) {
        static Query of(String url) {
            String[] parts = URI.create(url).getRawQuery().split("&");
            String[] v = Arrays.stream(parts).map(p -> p.substring(p.indexOf('=') + 1)).toArray(String[]::new);
            assertEquals("g", parts[0].substring(0, 1));
            return new Query(v[0], v[1], v[2], v[3]);
        }
    }
}
