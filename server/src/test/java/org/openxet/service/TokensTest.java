package org.openxet.service;

import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class TokensTest {
    private static final byte[] KEY = new byte[32];
    private static final Instant MINTED = Instant.parse("2026-12-01T12:00:00Z");

    private static Tokens at(Instant now) {
        return new Tokens(KEY, Clock.fixed(now, ZoneOffset.UTC));
    }

    @Test
    void aTokenIsStillAcceptedWithinTheClockSkewPastItsExpiry() throws Exception {
        Tokens.Minted t = at(MINTED).issue("models/a/b", Access.READ, Duration.ofHours(1), null);
        assertEquals(MINTED.getEpochSecond() + 3600, t.expiresAt());
        Instant exp = Instant.ofEpochSecond(t.expiresAt());
        // A node whose clock runs up to a minute ahead of the minting node's still takes it.
        assertEquals("models/a/b", at(exp.plusSeconds(59)).verify(t.token()).scope());
        AuthException late = assertThrows(AuthException.class, () -> at(exp.plusSeconds(60)).verify(t.token()));
        assertEquals("token expired", late.getMessage());
    }

    @Test
    void eachCheckIsCountedAsKeptWhenTheTokenVerifiedBeforeAndFullOtherwise() throws Exception {
        Tokens tokens = at(MINTED);
        String t = tokens.mint("models/a/b", Access.READ, Duration.ofHours(1));
        assertEquals(new Tokens.Checks(0, 0), tokens.checks());
        tokens.verify(t);
        tokens.verify(t);
        tokens.verify(t);
        assertEquals(new Tokens.Checks(2, 1), tokens.checks());
        // A refused token was checked in full too; a missing one was not checked at all.
        assertThrows(AuthException.class, () -> tokens.verify("not.a.token"));
        assertThrows(AuthException.class, () -> tokens.verify(""));
        assertEquals(new Tokens.Checks(2, 2), tokens.checks());
        tokens.forgetVerified();
        tokens.verify(t);
        assertEquals(new Tokens.Checks(2, 3), tokens.checks());
    }

    @Test
    void noTokenIsMintedForLongerThanTheMaximumLifetime() {
        Tokens tokens = at(MINTED);
        assertEquals(Duration.ofHours(24), tokens.maxLifetime());
        assertEquals(MINTED.getEpochSecond() + 86_400,
                tokens.issue("models/a/b", Access.WRITE, Duration.ofHours(24), null).expiresAt());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> tokens.issue("models/a/b", Access.WRITE, Duration.ofHours(24).plusSeconds(1), null));
        assertEquals("a token lives at most 24h (openxet.auth.max-lifetime)", e.getMessage());
    }
}
