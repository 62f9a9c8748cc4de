package org.openxet.gates;

import io.helidon.webserver.WebServer;
import org.junit.jupiter.api.Test;
import org.openxet.http.OpenxetServer;
import org.openxet.protocol.ClientUploads.Xorb;
import org.openxet.service.Access;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;
import org.openxet.storage.FileRecord;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rig's bulk shortcut writes exactly the rows registration writes: shard 0 of a bulk-built fixture and the same
 * xorbs and shard uploaded through {@code POST /v1/xorbs} and {@code POST /v1/shards} into a second data dir give
 * the same rows in every table, compared column by column with ids replaced by the hashes they name.
 */
class RigFixtureTest {
    /** Each table's rows as text, ids replaced by hashes; timestamps left out (checked apart). */
    private static final Map<String, String> ROWS = Map.of(
            "xorbs", "SELECT hex(hash), chunk_count, unpacked_bytes, stored_bytes, hex(chunk_hashes), hex(layout) FROM xorbs",
            "shards", "SELECT hex(hash), stored_bytes FROM shards",
            "shard_scopes", "SELECT hex(s.hash), c.scope FROM shard_scopes c JOIN shards s ON s.id = c.shard_id",
            "files", "SELECT hex(f.hash), f.size, f.term_count, hex(f.xorb_refs), hex(f.terms), hex(f.sha256), hex(s.hash) "
                    + "FROM files f JOIN shards s ON s.id = f.shard_id",
            "file_scopes", "SELECT c.scope, hex(f.hash) FROM file_scopes c JOIN files f ON f.id = c.file_id",
            "shard_xorbs", "SELECT hex(s.hash), hex(x.hash) FROM shard_xorbs c JOIN shards s ON s.id = c.shard_id "
                    + "JOIN xorbs x ON x.id = c.xorb_id",
            "dedup_chunks", "SELECT hex(d.chunk_hash), hex(s.hash), hex(x.hash) FROM dedup_chunks d "
                    + "JOIN shards s ON s.id = d.shard_id JOIN xorbs x ON x.id = d.xorb_id");

    @Test
    void bulkLoadedShardZeroHasExactlyTheRowsItsUploadRegisters() throws Exception {
        Path tmp = Files.createTempDirectory("openxet-rig-fixture-test");
        try {
            long before = System.currentTimeMillis() / 1000;
            RigFixture f = new RigFixture(3000, 7, 1);
            RigBuild.build(f, tmp.resolve("bulk"), null);
            long after = System.currentTimeMillis() / 1000;

            Path uploaded = tmp.resolve("uploaded");
            try (Services services = Services.open(ServerConfig.defaults(uploaded).withHost("127.0.0.1").withPort(0))) {
                WebServer server = OpenxetServer.start(services);
                try {
                    String token = services.tokens().mint(f.scopeOf(0), Access.WRITE, Duration.ofHours(1));
                    HttpClient http = HttpClient.newHttpClient();
                    for (Xorb x : f.realXorbs()) {
                        assertEquals(200, post(http, server.port(), "/v1/xorbs/default/" + x.hash().hex(), token, x.body()));
                    }
                    assertEquals(200, post(http, server.port(), "/v1/shards", token, f.realShard().body()));
                } finally {
                    server.stop();
                }
            }

            Map<String, List<String>> bulk = rows(tmp.resolve("bulk/index.sqlite"));
            Map<String, List<String>> upload = rows(uploaded.resolve("index.sqlite"));
            String shard = hex(f.realShard().commit().shardHash());
            java.util.Set<String> realXorbs = new java.util.HashSet<>();
            for (Xorb x : f.realXorbs()) realXorbs.add(hex(x.hash()));
            for (String table : ROWS.keySet()) {
                List<String> expected = upload.get(table);
                List<String> ofShardZero = new ArrayList<>();
                for (String row : bulk.get(table)) {
                    // The bulk index holds every shard: keep shard 0's rows, and the xorbs the upload stored.
                    boolean keep = switch (table) {
                        case "xorbs" -> realXorbs.contains(row.substring(0, row.indexOf('|')));
                        case "file_scopes" -> row.startsWith(f.scopeOf(0) + "|"); // shard 0's scope is its alone
                        default -> row.contains(shard);
                    };
                    if (keep) ofShardZero.add(row);
                }
                assertTrue(!expected.isEmpty(), table + " has rows");
                List<String> missing = new ArrayList<>(expected);
                missing.removeAll(ofShardZero);
                List<String> extra = new ArrayList<>(ofShardZero);
                extra.removeAll(expected);
                assertTrue(missing.isEmpty() && extra.isEmpty() && expected.size() == ofShardZero.size(),
                        table + ": " + missing.size() + " uploaded rows not bulk-loaded (first: " + first(missing)
                                + "), " + extra.size() + " bulk-loaded rows not uploaded (first: " + first(extra) + ")");
            }
            assertEquals(f.realXorbCount(), upload.get("xorbs").size());
            assertEquals(RigFixture.FILES_PER_SHARD, upload.get("files").size());

            // The timestamps the comparison leaves out are the build's own time.
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + tmp.resolve("bulk/index.sqlite"));
                 Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT min(created_at), max(created_at) FROM xorbs")) {
                r.next();
                assertTrue(r.getLong(1) >= before && r.getLong(2) <= after, r.getLong(1) + ".." + r.getLong(2));
            }
            // The synthetic rest reads back as the fixture generated it.
            try (Services services = Services.open(ServerConfig.defaults(tmp.resolve("bulk")))) {
                for (long i : new long[]{RigFixture.FILES_PER_SHARD, 2222, 2999, f.coldFile(ReconstructionFixtures.Shape.MERGED, 0)}) {
                    FileRecord want = f.file(i);
                    FileRecord got = services.index().file(want.fileHash(), f.scopeOf(i)).orElseThrow();
                    assertEquals(want.size(), got.size());
                    assertArrayEquals(want.terms(), got.terms(), "file " + i);
                    assertArrayEquals(want.xorbs(), got.xorbs(), "file " + i);
                }
            }
        } finally {
            Files2.deleteTree(tmp);
        }
    }

    @Test
    void eachHalfOfTheColdSetHoldsTheShapeItIsNamedFor() {
        RigFixture f = new RigFixture(3000, 7, 3);
        for (ReconstructionFixtures.Shape shape : ReconstructionFixtures.Shape.values()) {
            for (int k = 0; k < 3; k++) {
                FileRecord r = f.file(f.coldFile(shape, k));
                int changes = 0;
                for (int t = 1; t < r.termCount(); t++) {
                    if (r.term(t, FileRecord.XORB) != r.term(t - 1, FileRecord.XORB)) changes++;
                }
                // Unmerged: every term names another xorb than the one before it; merged: each xorb's terms are one run.
                int want = shape == ReconstructionFixtures.Shape.UNMERGED ? r.termCount() - 1
                        : r.termCount() / ReconstructionFixtures.TERMS_PER_XORB - 1;
                assertEquals(100_000, r.termCount());
                assertEquals(want, changes, shape + " cold file " + k);
            }
        }
    }

    @Test
    void aKeptFixtureOfAnOlderLayoutIsRefusedNotMeasured() throws Exception {
        Path tmp = Files.createTempDirectory("openxet-rig-layout-test");
        try {
            RigFixture f = new RigFixture(3000, 7, 1);
            // What a rig before layout 2 recorded for the same parameters: no layout field.
            Files.writeString(tmp.resolve("rig-fixture.json"), "{\"files\":3000,\"xorbs\":" + f.xorbs()
                    + ",\"seed\":7,\"cold\":1,\"backend\":\"sqlite\",\"fixture_build_s\":1.0,\"index_bytes\":1}\n");
            Files.writeString(tmp.resolve("index.sqlite"), "");
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> RigBuild.existingOrBuild(f, tmp, null, true));
            assertEquals(tmp + " holds a rig fixture of layout 1, this rig builds layout 2 (its cold set's halves each"
                    + " hold one shape): delete " + tmp + ", then run again", e.getMessage());
            assertEquals(0, Files.size(tmp.resolve("index.sqlite")), "nothing written");
        } finally {
            Files2.deleteTree(tmp);
        }
    }

    private static String first(List<String> rows) {
        return rows.isEmpty() ? "-" : rows.get(0).substring(0, Math.min(200, rows.get(0).length()));
    }

    private static String hex(org.openxet.protocol.MerkleHash h) {
        return HexFormat.of().withUpperCase().formatHex(h.toBytes());
    }

    private static int post(HttpClient http, int port, String path, String token, byte[] body) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        return r.statusCode();
    }

    private static Map<String, List<String>> rows(Path db) throws Exception {
        Map<String, List<String>> out = new TreeMap<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            for (Map.Entry<String, String> e : ROWS.entrySet()) {
                List<String> rows = new ArrayList<>();
                try (ResultSet r = s.executeQuery(e.getValue())) {
                    ResultSetMetaData m = r.getMetaData();
                    while (r.next()) {
                        StringBuilder row = new StringBuilder();
                        for (int k = 1; k <= m.getColumnCount(); k++) {
                            if (k > 1) row.append('|');
                            row.append(r.getString(k));
                        }
                        rows.add(row.toString());
                    }
                }
                rows.sort(null);
                out.put(e.getKey(), rows);
            }
        }
        return out;
    }
}
