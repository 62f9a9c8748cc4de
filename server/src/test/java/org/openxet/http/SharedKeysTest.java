package org.openxet.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jwt.SignedJWT;
import org.junit.jupiter.api.Test;
import org.openxet.service.Access;
import org.openxet.service.KeySet;
import org.openxet.service.Secrets;
import org.openxet.service.ServerConfig;
import org.openxet.service.Users;
import org.openxet.storage.PostgresIndex;
import org.openxet.storage.StoredKey;
import org.openxet.testing.PostgresServer;
import org.openxet.testing.TestServer;

import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Two real servers on one PostgreSQL index share their signing keys and users there: a key rotation and a user
 * revocation made elsewhere (as `openxet keys` / `openxet user` do, in another process) reach both nodes.
 */
class SharedKeysTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** A reconstruction of a file nobody uploaded: 404 for a good token, 401 for a refused one. */
    private static final String PROBE = "/v2/reconstructions/" + "0".repeat(64);
    /** How long a change may take to reach a node (its copy is re-read every second), with room for a slow machine. */
    private static final Duration BOUND = KeySet.REFRESH.plusSeconds(1);

    private static String kid(String token) throws Exception {
        return SignedJWT.parse(token).getHeader().getKeyID();
    }

    /** Asks until the answer is {@code status} or the bound passed; returns the last answer. */
    private static HttpResponse<String> eventually(TestServer node, String token, int status) throws Exception {
        long deadline = System.nanoTime() + BOUND.toNanos();
        HttpResponse<String> r;
        do {
            r = node.get(PROBE, token);
        } while (r.statusCode() != status && System.nanoTime() < deadline && sleep());
        return r;
    }

    private static boolean sleep() throws InterruptedException {
        Thread.sleep(20);
        return true;
    }

    @Test
    void aKeyRotationKeepsTokensOfBothKeysWorkingOnEveryNodeUntilTheOldOneIsRetired() throws Exception {
        String url = PostgresServer.get().createDatabase("shared_keys");
        ServerConfig.Storage storage = new ServerConfig.Storage(url, "", "", "us-east-1");
        try (TestServer first = new TestServer(c -> c.withStorage(storage));
             TestServer second = new TestServer(c -> c.withStorage(storage), first);
             PostgresIndex elsewhere = new PostgresIndex(url, 1)) {
            String old = first.token("user/repo", Access.READ);
            String oldKid = kid(old);
            assertEquals(oldKid, kid(second.token("user/repo", Access.READ)), "both nodes sign with the imported key");

            KeySet admin = KeySet.open(elsewhere.authStore(), Secrets.loadOrCreate(first.dataDir()),
                    Clock.systemUTC());
            StoredKey added = admin.add(StoredKey.TOKEN, "ES256");
            // Minted by the operator's process at once: a node that has not re-read the keys yet still verifies it.
            String fromAdmin = new org.openxet.service.Tokens(admin, org.openxet.service.AuthConfig.DEFAULTS,
                    org.openxet.service.Tokens.Revocations.NONE, Clock.systemUTC()).mint("user/repo", Access.READ, Duration.ofHours(1));
            for (TestServer node : List.of(first, second)) {
                assertEquals(404, node.get(PROBE, fromAdmin).statusCode(), "a new key id is read at once");
            }
            Thread.sleep(KeySet.REFRESH.plusMillis(200).toMillis());
            String fresh = second.token("user/repo", Access.READ);
            assertEquals(added.kid(), kid(fresh), "new tokens are signed with the newest key");
            assertEquals(added.kid(), kid(first.token("user/repo", Access.READ)));
            for (TestServer node : List.of(first, second)) {
                assertEquals(404, node.get(PROBE, old).statusCode(), "tokens of the old key still work");
                assertEquals(404, node.get(PROBE, fresh).statusCode());
            }

            admin.retire(oldKid);
            for (TestServer node : List.of(first, second)) {
                HttpResponse<String> r = eventually(node, old, 401);
                assertEquals(401, r.statusCode(), r.body());
                assertEquals("token key '" + oldKid + "' is retired", JSON.readTree(r.body()).get("message").asText());
                assertEquals(404, node.get(PROBE, fresh).statusCode());
            }
        }
    }

    @Test
    void aRevokedUsersCasTokensAreRefusedOnEveryNodeWithinTheBound() throws Exception {
        String url = PostgresServer.get().createDatabase("shared_revocation");
        ServerConfig.Storage storage = new ServerConfig.Storage(url, "", "", "us-east-1");
        try (TestServer first = new TestServer(c -> c.withStorage(storage));
             TestServer second = new TestServer(c -> c.withStorage(storage), first);
             PostgresIndex elsewhere = new PostgresIndex(url, 1)) {
            Users admin = new Users(first.dataDir(), elsewhere.authStore());
            String user = admin.add("dave", List.of("models/dave/*"), Access.READ);
            String route = "/api/models/dave/x/xet-read-token/main";
            String casFromFirst = JSON.readTree(first.get(route, user).body()).get("accessToken").asText();
            String casFromSecond = JSON.readTree(second.get(route, user).body()).get("accessToken").asText();
            for (TestServer node : List.of(first, second)) {
                for (String cas : List.of(casFromFirst, casFromSecond)) {
                    assertEquals(404, node.get(PROBE, cas).statusCode(), "a CAS token of either node works on both");
                }
            }

            long revokedAt = System.nanoTime();
            admin.revoke("dave");
            for (TestServer node : List.of(first, second)) {
                assertEquals(401, node.get(route, user).statusCode(), "the user's token mints nothing at once");
                for (String cas : List.of(casFromFirst, casFromSecond)) {
                    HttpResponse<String> r = eventually(node, cas, 401);
                    assertEquals(401, r.statusCode(), r.body());
                    assertEquals("token of user 'dave' was revoked", JSON.readTree(r.body()).get("message").asText());
                }
            }
            System.out.printf("revocation reached both nodes within %d ms%n", (System.nanoTime() - revokedAt) / 1_000_000);

            String reissued = admin.reissue("dave");
            String cas = JSON.readTree(second.get(route, reissued).body()).get("accessToken").asText();
            assertNotEquals(casFromSecond, cas);
            for (TestServer node : List.of(first, second)) {
                assertEquals(404, node.get(PROBE, cas).statusCode(), "a re-issued user's new CAS tokens work on every node");
                assertEquals(401, node.get(PROBE, casFromFirst).statusCode());
            }
        }
    }
}
