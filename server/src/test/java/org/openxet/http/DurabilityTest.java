package org.openxet.http;

import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.xorb.XorbBuilder;
import org.openxet.protocol.xorb.XorbValidator;
import org.openxet.service.Secrets;
import org.openxet.service.Access;
import org.openxet.service.Tokens;
import org.openxet.service.XorbIngest;
import org.openxet.storage.LocalBucket;
import org.openxet.storage.SqliteIndex;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An acknowledged upload survives {@code kill -9}: the server runs as its own process, takes many concurrent uploads,
 * is killed with SIGKILL while uploads are in flight, and is restarted on the same data directory.
 */
class DurabilityTest {
    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");

    record Xorb(MerkleHash hash, byte[] body) {
    }

    static List<Xorb> xorbs(int count) {
        Random r = new Random(42);
        List<Xorb> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            XorbBuilder b = new XorbBuilder(XorbBuilder.Compression.LZ4);
            int chunks = 16 + r.nextInt(16);
            byte[] raw = new byte[32 * chunks];
            long[] sizes = new long[chunks];
            for (int k = 0; k < chunks; k++) {
                byte[] chunk = new byte[8192 + r.nextInt(120_000)];
                r.nextBytes(chunk);
                for (int j = 0; j < chunk.length; j += 3) chunk[j] = 0; // compressible, so LZ4 is used
                b.add(chunk, 0, chunk.length);
                XetHashes.chunkHash(chunk, 0, chunk.length, raw, 32 * k);
                sizes[k] = chunk.length;
            }
            out.add(new Xorb(XetHashes.merkleRoot(raw, sizes, chunks), b.build()));
        }
        return out;
    }

    static Process start(Path data, Path log) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED",
                "-Dopenxet.native.dir=" + System.getProperty("openxet.native.dir", ""),
                "-cp", System.getProperty("java.class.path"), "org.openxet.cli.Main", "serve",
                "--host", "127.0.0.1", "--port", "0", "--data", data.toString());
        pb.redirectErrorStream(true);
        return pb.start();
    }

    /** Reads the server's output until it says where it listens; keeps logging the rest to a file. */
    static int awaitPort(Process p, Path log) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream()));
        StringBuilder seen = new StringBuilder();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String line;
        while (System.nanoTime() < deadline && (line = out.readLine()) != null) {
            seen.append(line).append('\n');
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
                Files.writeString(log, seen, java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
                Thread.ofVirtual().start(() -> {
                    try {
                        String l;
                        while ((l = out.readLine()) != null) {
                            Files.writeString(log, l + "\n", java.nio.file.StandardOpenOption.CREATE,
                                    java.nio.file.StandardOpenOption.APPEND);
                        }
                    } catch (Exception ignored) {
                        // the process was killed
                    }
                });
                return Integer.parseInt(m.group(1));
            }
        }
        throw new AssertionError("server did not start:\n" + seen);
    }

    @Test
    void acknowledgedUploadsSurviveKillDashNine() throws Exception {
        Path data = Files.createTempDirectory("openxet-durability");
        Path log = data.resolveSibling(data.getFileName() + ".log");
        List<Xorb> xorbs = xorbs(48);
        Process server = start(data, log);
        int port = awaitPort(server, log);
        String token = new Tokens(Secrets.loadOrCreate(data).tokenKey()).mint("user/repo", Access.WRITE, Duration.ofHours(1));
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        Set<MerkleHash> acknowledged = ConcurrentHashMap.newKeySet();
        AtomicInteger started = new AtomicInteger();
        try (ExecutorService pool = Executors.newFixedThreadPool(12)) {
            for (Xorb x : xorbs) {
                pool.submit(() -> {
                    started.incrementAndGet();
                    HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/xorbs/default/" + x.hash().hex()))
                            .header("Authorization", "Bearer " + token)
                            .POST(HttpRequest.BodyPublishers.ofByteArray(x.body())).build();
                    HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 200) acknowledged.add(x.hash());
                    return null;
                });
            }
            // Kill once a third is acknowledged: a dozen uploads are in flight at that moment.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (acknowledged.size() < xorbs.size() / 3 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            server.destroyForcibly(); // SIGKILL
            server.waitFor();
            pool.shutdown();
            assertTrue(pool.awaitTermination(60, TimeUnit.SECONDS));
        }
        Set<MerkleHash> acked = new HashSet<>(acknowledged);
        assertTrue(acked.size() >= xorbs.size() / 3, "acknowledged " + acked.size());
        assertTrue(acked.size() < xorbs.size(), "the kill must land while uploads are still in flight");

        // Restart on the same data dir: recovery runs, and every acknowledged xorb is there and valid.
        Process again = start(data, log);
        try {
            int port2 = awaitPort(again, log);
            assertTrue(Files.readString(log).contains("the previous run did not stop cleanly"), "recovery must run");
            for (MerkleHash h : acked) {
                HttpResponse<Void> head = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port2
                                + "/v1/xorbs/default/" + h.hex())).header("Authorization", "Bearer " + token)
                        .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding());
                assertEquals(200, head.statusCode(), h.hex());
            }
        } finally {
            again.destroy(); // SIGTERM: a graceful stop
            again.waitFor();
        }
        assertTrue(!Files.exists(data.resolve("RUNNING")), "SIGTERM must end in a clean stop");
        // After a clean stop, look at the files directly: bucket and index agree, no temp or partial object.
        LocalBucket bucket = new LocalBucket(data.resolve("bucket"));
        assertEquals(List.of(), bucket.tempFiles());
        try (SqliteIndex index = new SqliteIndex(data.resolve("index.sqlite"), 1)) {
            Set<MerkleHash> indexed = new HashSet<>(index.scans().xorbHashes());
            Set<MerkleHash> stored = new HashSet<>();
            for (String key : bucket.list("xorbs")) {
                stored.add(MerkleHash.of(key.substring(key.lastIndexOf('/') + 1)));
            }
            assertEquals(indexed, stored, "index and bucket must name the same xorbs");
            assertTrue(indexed.containsAll(acked));
            try (XorbValidator validator = new XorbValidator()) {
                for (MerkleHash h : stored) {
                    byte[] object = bucket.read(XorbIngest.key(h));
                    assertEquals(h, validator.validateStored(object, object.length, h).hash());
                }
            }
        }
    }
}
