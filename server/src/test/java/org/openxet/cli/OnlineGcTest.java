package org.openxet.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.xorb.XorbValidator;
import org.openxet.service.Access;
import org.openxet.service.ServerConfig;
import org.openxet.service.XorbIngest;
import org.openxet.testing.MiniClient;
import org.openxet.testing.PostgresServer;
import org.openxet.testing.S3Server;
import org.openxet.testing.SyntheticFile;
import org.openxet.testing.TestServer;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code openxet gc --online} on a real PostgreSQL index and S3 bucket (s3proxy) while two nodes serve: clients
 * upload, to either node, xorbs that gc is collecting at that moment (old and unused) and then the shards that use
 * them. Nothing an acknowledged shard registered is lost, every file downloads byte for byte from both nodes, and
 * what nobody came back for is collected, row and object.
 */
class OnlineGcTest {
    private static final String SCOPE = "user/repo";
    private static final int CONTESTED = 48;
    private static final int ABANDONED = 12;

    @Test
    void uploadsRacingAnOnlineCollectionOnTwoNodesLoseNothingAndTheAbandonedGo() throws Exception {
        String url = PostgresServer.get().createDatabase("online_gc");
        try (S3Server s3 = S3Server.start()) {
            var storage = new ServerConfig.Storage(url, "s3://" + s3.createBucket(), s3.endpoint(), S3Server.REGION);
            Path config = Files.writeString(Files.createTempFile("openxet-gc", ".yaml"), "openxet:\n  index:\n"
                    + "    url: \"" + url + "\"\n  bucket:\n    url: " + storage.bucketUrl() + "\n  s3:\n    endpoint: "
                    + storage.s3Endpoint() + "\n    region: " + storage.s3Region() + "\n");
            try (TestServer a = new TestServer(c -> c.withStorage(storage));
                 TestServer b = new TestServer(c -> c.withStorage(storage), a)) {
                String token = a.token(SCOPE, Access.WRITE);
                List<SyntheticFile> contested = new ArrayList<>();
                List<SyntheticFile> abandoned = new ArrayList<>();
                for (int i = 0; i < CONTESTED + ABANDONED; i++) {
                    SyntheticFile u = SyntheticFile.of(1000 + i);
                    (i < CONTESTED ? contested : abandoned).add(u);
                    assertEquals(200, a.post("/v1/xorbs/default/" + u.xorb().hash().hex(), token, u.xorb().body())
                            .statusCode());
                }
                // A month old and used by nothing: every one of them is gc's to take, until a client comes back.
                try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
                    assertEquals(CONTESTED + ABANDONED, s.executeUpdate("UPDATE xorbs SET created_at = created_at - 2592000"));
                }

                AtomicBoolean uploading = new AtomicBoolean(true);
                Map<MerkleHash, Integer> shardStatus = new ConcurrentHashMap<>();
                long removed = 0;
                int runs = 0;
                try (ExecutorService pool = Executors.newFixedThreadPool(6)) {
                    List<Future<?>> clients = new ArrayList<>();
                    for (int t = 0; t < 4; t++) {
                        int client = t;
                        clients.add(pool.submit(() -> {
                            for (int i = client; i < CONTESTED; i += 4) {
                                SyntheticFile u = contested.get(i);
                                TestServer node = i % 2 == 0 ? a : b;
                                // The client re-sends the xorb (present, or stored again), then the shard that uses it.
                                HttpResponse<String> xorb = node.post("/v1/xorbs/default/" + u.xorb().hash().hex(),
                                        token, u.xorb().body());
                                assertEquals(200, xorb.statusCode(), xorb.body());
                                HttpResponse<String> shard = node.post("/v1/shards", token, u.shard());
                                shardStatus.put(u.file(), shard.statusCode());
                                assertEquals(200, shard.statusCode(), shard.body());
                            }
                            return null;
                        }));
                    }
                    Future<?> done = pool.submit(() -> {
                        try {
                            for (Future<?> f : clients) f.get();
                        } finally {
                            uploading.set(false); // a client that failed ends the collection too
                        }
                        return null;
                    });
                    while (uploading.get() || runs < 3) {
                        CliTest.Run gc = CliTest.run("gc", "--online", "--older-than", "7d", "--config", config.toString());
                        assertEquals(0, gc.exit(), gc.err());
                        removed += gc.json().get("removed").asLong();
                        runs++;
                    }
                    done.get();
                }
                assertEquals(CONTESTED, shardStatus.size());
                // One more run: whatever an earlier one left for being uploaded is old and unused still.
                removed += CliTest.run("gc", "--online", "--older-than", "7d", "--config", config.toString()).json()
                        .get("removed").asLong();
                // Contested xorbs that gc took before their client came back were stored again as new, and count too.
                assertTrue(removed >= ABANDONED, removed + " removed over " + runs + " runs");

                MiniClient readA = new MiniClient(a, a.token(SCOPE, Access.READ));
                MiniClient readB = new MiniClient(b, b.token(SCOPE, Access.READ));
                try (XorbValidator validator = new XorbValidator()) {
                    for (SyntheticFile u : contested) {
                        assertArrayEquals(u.content(), readA.download(2, u.file().hex(), null), u.file().hex());
                        assertArrayEquals(u.content(), readB.download(1, u.file().hex(), null), u.file().hex());
                        byte[] object = a.services().bucket().read(XorbIngest.key(u.xorb().hash()));
                        validator.validateStored(object, object.length, u.xorb().hash());
                    }
                }
                // Asked of the store itself: a node remembers the sizes of objects it stored.
                List<String> stored = s3.client().listObjectsV2Paginator(l -> l.bucket(storage.bucketUrl().substring(5))
                        .prefix("xorbs/")).contents().stream().map(S3Object::key).toList();
                for (SyntheticFile u : abandoned) {
                    assertFalse(a.services().index().hasXorb(u.xorb().hash()));
                    assertFalse(stored.contains(XorbIngest.key(u.xorb().hash())), "its object is gone too");
                }
                assertEquals(CONTESTED, stored.size(), "and every contested one is there");
            }
        }
    }

    @Test
    void onlineCollectionIsRefusedOnSqliteAndWithAGraceUnderTwoHours() throws Exception {
        try (TestServer s = new TestServer()) {
            CliTest.Run sqlite = CliTest.run("gc", "--online", "--data", s.dataDir().toString());
            assertEquals(2, sqlite.exit());
            assertTrue(sqlite.err().contains("--online needs the PostgreSQL index"), sqlite.err());
        }
        String url = PostgresServer.get().createDatabase("online_gc_grace");
        Path config = Files.writeString(Files.createTempFile("openxet-gc", ".yaml"),
                "openxet:\n  index:\n    url: \"" + url + "\"\n");
        Path data = Files.createTempDirectory("openxet-gc");
        CliTest.Run shortGrace = CliTest.run("gc", "--online", "--older-than", "1h", "--config", config.toString(),
                "--data", data.toString());
        assertEquals(2, shortGrace.exit());
        assertTrue(shortGrace.err().contains("at least 2h"), shortGrace.err());
        JsonNode dry = CliTest.run("gc", "--online", "--dry-run", "--config", config.toString(), "--data",
                data.toString()).json();
        assertEquals(0, dry.get("unused_xorbs").asLong());
    }
}
