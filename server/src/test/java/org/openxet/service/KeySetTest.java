package org.openxet.service;

import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.Ed25519Verifier;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jwt.SignedJWT;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openxet.protocol.MerkleHash;
import org.openxet.storage.FileAuthStore;
import org.openxet.storage.StoredKey;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** openxet's own keys rotated by id, on a data dir's keys.json (the shared index's case: SharedKeysTest). */
class KeySetTest {
    private static Tokens tokens(KeySet keys) {
        return new Tokens(keys, AuthConfig.DEFAULTS, Tokens.Revocations.NONE, Clock.systemUTC());
    }

    private static String kid(String token) throws Exception {
        return SignedJWT.parse(token).getHeader().getKeyID();
    }

    @Test
    void theDataDirsKeysAreImportedFirstSoTokensMintedBeforeKeyIdsStillVerify(@TempDir Path dir) throws Exception {
        Secrets secrets = Secrets.loadOrCreate(dir);
        KeySet keys = KeySet.open(new FileAuthStore(dir), secrets, Clock.systemUTC());
        assertTrue(Files.exists(dir.resolve(FileAuthStore.KEYS)));
        // What tools mint from secrets.properties alone names the same key id.
        String fromTool = new Tokens(secrets.tokenKey()).mint("models/a/b", Access.READ, Duration.ofHours(1));
        assertEquals(keys.tokenSigner().kid(), kid(fromTool));
        assertTrue(kid(fromTool).startsWith("token-imported-"));
        assertEquals("models/a/b", tokens(keys).verify(fromTool).scope());
        // A token of the older format, no kid at all, is the imported key's.
        SignedJWT old = SignedJWT.parse(fromTool);
        SignedJWT noKid = new SignedJWT(new com.nimbusds.jose.JWSHeader(com.nimbusds.jose.JWSAlgorithm.HS256), old.getJWTClaimsSet());
        noKid.sign(new com.nimbusds.jose.crypto.MACSigner(secrets.tokenKey()));
        assertEquals("models/a/b", tokens(keys).verify(noKid.serialize()).scope());
        // Opening again imports nothing twice.
        assertEquals(2, KeySet.open(new FileAuthStore(dir), secrets, Clock.systemUTC()).list().size());
    }

    @Test
    void aRotationSignsWithTheNewKeyVerifiesBothAndRetiringTheOldRefusesItsTokens(@TempDir Path dir) throws Exception {
        KeySet keys = KeySet.open(new FileAuthStore(dir), Secrets.loadOrCreate(dir), Clock.systemUTC());
        String before = tokens(keys).mint("models/a/b", Access.WRITE, Duration.ofHours(1));
        String oldKid = kid(before);
        // Added by another process (`openxet keys add`): the server's set reads the file again within a second.
        KeySet other = KeySet.open(new FileAuthStore(dir), Secrets.loadOrCreate(dir), Clock.systemUTC());
        StoredKey added = other.add(StoredKey.TOKEN, "HS256");
        String minted = tokens(other).mint("models/a/b", Access.READ, Duration.ofHours(1));
        assertEquals(added.kid(), kid(minted));
        assertEquals("models/a/b", tokens(keys).verify(minted).scope(), "an unknown kid reads the set again at once");
        Thread.sleep(KeySet.REFRESH.toMillis() + 100);
        String after = tokens(keys).mint("models/a/b", Access.WRITE, Duration.ofHours(1));
        assertEquals(added.kid(), kid(after));
        assertEquals(Access.WRITE, tokens(keys).verify(before).access(), "the old key still verifies");

        KeySet admin = KeySet.open(new FileAuthStore(dir), Secrets.loadOrCreate(dir), Clock.systemUTC());
        admin.retire(oldKid);
        Thread.sleep(KeySet.REFRESH.toMillis() + 100);
        AuthException retired = assertThrows(AuthException.class, () -> tokens(keys).verify(before));
        assertEquals("token key '" + oldKid + "' is retired", retired.getMessage());
        assertEquals(Access.WRITE, tokens(keys).verify(after).access());
        IllegalArgumentException only = assertThrows(IllegalArgumentException.class, () -> admin.retire(added.kid()));
        assertEquals(added.kid() + " is the only token key in use: add another first", only.getMessage());
        assertEquals("token key id 'token-nope' is unknown", assertThrows(AuthException.class,
                () -> tokens(keys).verify(tokenWithKid(after, "token-nope"))).getMessage());
    }

    private static String tokenWithKid(String token, String kid) throws Exception {
        SignedJWT jwt = SignedJWT.parse(token);
        String[] parts = token.split("\\.");
        String header = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(
                new com.nimbusds.jose.JWSHeader.Builder(jwt.getHeader()).keyID(kid).build().toString().getBytes());
        return header + "." + parts[1] + "." + parts[2];
    }

    @Test
    void asymmetricKeysArePublishedSoOthersCanVerifyOpenxetsTokensWithoutItsSecret(@TempDir Path dir) throws Exception {
        KeySet keys = KeySet.open(new FileAuthStore(dir), Secrets.loadOrCreate(dir), Clock.systemUTC());
        assertEquals("{\"keys\":[]}", keys.publicJwks(), "an HS256 key is never published");
        StoredKey ed = keys.add(StoredKey.TOKEN, "EdDSA");
        String edToken = tokens(keys).mint("models/a/b", Access.READ, Duration.ofHours(1));
        StoredKey ec = keys.add(StoredKey.TOKEN, "ES256");
        String ecToken = tokens(keys).mint("models/a/b", Access.READ, Duration.ofHours(1));
        JWKSet published = JWKSet.parse(keys.publicJwks());
        assertEquals(List.of(ed.kid(), ec.kid()), published.getKeys().stream().map(k -> k.getKeyID()).toList());
        assertFalse(published.getKeys().stream().anyMatch(k -> k.isPrivate()), "public halves only");
        assertTrue(SignedJWT.parse(edToken).verify(new Ed25519Verifier((OctetKeyPair) published.getKeyByKeyId(ed.kid()))));
        assertTrue(SignedJWT.parse(ecToken).verify(new ECDSAVerifier((ECKey) published.getKeyByKeyId(ec.kid()))));
        assertEquals("models/a/b", tokens(keys).verify(edToken).scope());
        keys.retire(ed.kid());
        assertEquals(List.of(ec.kid()), JWKSet.parse(keys.publicJwks()).getKeys().stream().map(k -> k.getKeyID()).toList());
    }

    @Test
    void aUrlSignedWithAKeyStillInUseVerifiesAfterARotationAndNotOnceItIsRetired(@TempDir Path dir) throws Exception {
        KeySet keys = KeySet.open(new FileAuthStore(dir), Secrets.loadOrCreate(dir), Clock.systemUTC());
        SignedUrls urls = new SignedUrls(keys, 600, Clock.systemUTC());
        MerkleHash xorb = MerkleHash.parse("0".repeat(63) + "1");
        String old = urls.url("http://h", xorb, new long[]{0, 99}, "models/a/b", urls.expiry());
        String oldKid = keys.list().stream().filter(k -> k.use().equals(StoredKey.URL)).findFirst().orElseThrow().kid();
        keys.add(StoredKey.URL, KeySet.URL_ALGORITHM);
        String fresh = urls.url("http://h", xorb, new long[]{0, 99}, "models/a/b", urls.expiry());
        assertNotEquals(tagOf(old), tagOf(fresh), "signed with the new key");
        verify(urls, old);
        verify(urls, fresh);
        keys.retire(oldKid);
        AuthException refused = assertThrows(AuthException.class, () -> verify(urls, old));
        assertEquals("fetch URL signature is not valid", refusal(refused));
        verify(urls, fresh);
    }

    private static String refusal(AuthException e) {
        return e.getMessage();
    }

    private static String tagOf(String url) {
        return url.substring(url.indexOf("&t=") + 3);
    }

    private static void verify(SignedUrls urls, String url) throws AuthException {
        java.net.URI u = java.net.URI.create(url);
        java.util.Map<String, String> q = new java.util.HashMap<>();
        for (String kv : u.getRawQuery().split("&")) q.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
        String hex = u.getPath().substring(SignedUrls.PATH.length());
        urls.verify(hex, q.get("g"), null, q.get("s"), q.get("e"), q.get("t"));
    }
}
