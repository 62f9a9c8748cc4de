package org.openxet.service;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.util.Arrays;

/**
 * Signed fetch URLs come back from anyone holding one, tampered or not: the grant decoder refuses with an
 * IllegalArgumentException, and a whole URL's query with an AuthException (a 403), never another exception.
 */
class SignedUrlsFuzzTest {
    private static final SignedUrls URLS = new SignedUrls(new byte[32], 3600, java.time.Clock.systemUTC());

    @FuzzTest(maxDuration = "10s")
    void grants(String g) {
        if (g == null) return; // the route never passes a null grant text
        try {
            SignedUrls.parseGrant(g);
        } catch (IllegalArgumentException refused) {
            // verify() turns it into a 403
        }
    }

    /** Input: the xorb hex, g, r, s, e and t of a fetch URL, one per line (an absent line is an absent parameter). */
    @FuzzTest(maxDuration = "10s")
    void fetchUrls(String query) {
        if (query == null) return;
        String[] p = Arrays.copyOf(query.split("\n", 6), 6);
        try {
            // As FetchRoutes passes them: the scope parameter re-encoded after the query's own decoding.
            URLS.verify(p[0] == null ? "" : p[0], p[1], p[2], p[3] == null ? null : SignedUrls.encodeScope(p[3]), p[4], p[5]);
        } catch (AuthException refused) {
            // a 403 with a JSON body
        }
    }
}
