package org.openxet.service;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Bearer tokens are client text: verification refuses with an AuthException (a 401), never another exception. */
class TokensFuzzTest {
    private static final Tokens TOKENS = new Tokens(new byte[32]);

    @FuzzTest(maxDuration = "10s")
    void tokens(String token) {
        try {
            TOKENS.verify(token);
        } catch (AuthException refused) {
            // a 401 with a JSON body
        } catch (IssuerUnavailable e) {
            throw new AssertionError("no external issuer is configured", e);
        }
    }
}
