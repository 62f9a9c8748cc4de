package org.openxet.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.helidon.webserver.WebServer;
import org.openxet.http.OpenxetServer;
import org.openxet.http.WarmUp;
import org.openxet.protocol.ClientUploads;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.shard.FileEntry;
import org.openxet.service.Access;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code openxet train-aot} (hidden): the AOT cache's training run. The launcher runs it under
 * {@code -XX:AOTCacheOutput=FILE} (JEP 483/514/515), so the classes it loads and links and the method profiles it
 * gathers are what a later {@code serve -XX:AOTCache=FILE} starts from. It serves a throwaway data dir on a loopback
 * port and drives it over HTTP as clients do, on several threads for {@code --seconds}: xorb uploads (stored and LZ4),
 * shard registrations, v1 and v2 reconstructions of small files and of 20,000-term files (both fetch shapes; past the
 * large-answer threshold, so the answer writers run), ranged ones, batch queries, HEADs, chunk hashes, dedup queries,
 * fetches of the signed URLs, the token route, {@code /health}, {@code /ready}, {@code /metrics} and refusals
 * (unknown file, bad token), and the serving node's own warm-up ({@link WarmUp}). Then it stops and deletes the directory.
 */
@Command(name = "train-aot", hidden = true, description = "Run the AOT cache's training workload (the launcher runs it).")
public final class TrainAotCommand implements java.util.concurrent.Callable<Integer> {
    private static final int LARGE_TERMS = 20_000;

    @Option(names = "--seconds", description = "How long to drive the server (default 10).")
    int seconds = 10;

    @Option(names = "--threads", description = "Client threads (default 8).")
    int threads = 8;

    private String base;
    private String write;
    private String read;
    private HttpClient http;
    private final ObjectMapper json = new ObjectMapper();
    private final List<MerkleHash> small = new ArrayList<>();
    private final List<MerkleHash> large = new ArrayList<>();
    private final List<ClientUploads.Xorb> xorbs = new ArrayList<>();
    private final AtomicLong requests = new AtomicLong();

    @Override
    public Integer call() throws Exception {
        // The access log and Helidon's start lines would be the training's whole output.
        Logger root = Logger.getLogger("");
        Level level = root.getLevel();
        root.setLevel(Level.WARNING);
        try {
            return train();
        } finally {
            root.setLevel(level);
        }
    }

    private int train() throws Exception {
        Path dir = Files.createTempDirectory("openxet-train-aot");
        ServerConfig cfg = ServerConfig.defaults(dir.resolve("data")).withHost("127.0.0.1").withPort(0);
        long t0 = System.nanoTime();
        try (Services services = Services.open(cfg)) {
            WebServer server = OpenxetServer.start(services);
            try {
                base = "http://127.0.0.1:" + server.port();
                write = services.tokens().mint("models/trainer/repo", Access.WRITE, Duration.ofHours(1));
                read = services.tokens().mint("models/trainer/repo", Access.READ, Duration.ofHours(1));
                String user = services.users().add("trainer", List.of("models/trainer/*"), Access.WRITE);
                http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                        .executor(Executors.newVirtualThreadPerTaskExecutor()).build();
                upload();
                // The warm-up a serving node runs before it is ready, on what was just uploaded.
                WarmUp.run(server.port(), services, Duration.ofMillis(500), 4);
                System.out.printf(java.util.Locale.ROOT, "openxet train-aot: uploads done in %.1f s%n",
                        (System.nanoTime() - t0) / 1e9);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
                List<java.util.concurrent.Future<Object>> clients = new ArrayList<>();
                try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
                    for (int t = 0; t < threads; t++) {
                        long seed = t;
                        clients.add(pool.submit(() -> {
                            SplittableRandom r = new SplittableRandom(seed);
                            while (System.nanoTime() < deadline) {
                                round(r, user);
                            }
                            return null;
                        }));
                    }
                }
                for (var c : clients) c.get(); // a client's failure fails the training: it would train the wrong paths
            } finally {
                server.stop();
            }
        } finally {
            org.openxet.storage.OwnerOnly.deleteTree(dir);
        }
        System.out.printf(java.util.Locale.ROOT, "openxet train-aot: %,d requests in %.1f s%n", requests.get(),
                (System.nanoTime() - t0) / 1e9);
        return 0;
    }

    /** The uploads the reads then ask for: small files over small xorbs, and the two large files over 20 xorbs. */
    private void upload() throws Exception {
        SplittableRandom r = new SplittableRandom(7);
        for (int batch = 0; batch < 8; batch++) {
            List<ClientUploads.Xorb> batchXorbs = new ArrayList<>();
            List<FileEntry> files = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                ClientUploads.Xorb x = ClientUploads.xorb(r, 16, 1024, 8 * 1024, i % 2 == 0);
                put("/v1/xorbs/default/" + x.hash().hex(), x.body());
                batchXorbs.add(x);
                FileEntry f = ClientUploads.file(List.of(new ClientUploads.Term(x, 0, 8), new ClientUploads.Term(x, 8, 16)));
                files.add(f);
                small.add(f.fileHash());
            }
            put(batch % 2 == 0 ? "/v1/shards" : "/v2/shards", ClientUploads.shard(files, batchXorbs));
            xorbs.addAll(batchXorbs);
        }
        List<ClientUploads.Xorb> big = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            ClientUploads.Xorb x = ClientUploads.xorb(r, 1024, 64, 128, false);
            put("/v1/xorbs/default/" + x.hash().hex(), x.body());
            big.add(x);
        }
        List<FileEntry> files = new ArrayList<>();
        for (boolean scattered : new boolean[]{true, false}) {
            FileEntry f = ClientUploads.file(largeFile(big, LARGE_TERMS, scattered));
            files.add(f);
            large.add(f.fileHash());
        }
        put("/v1/shards", ClientUploads.shard(files, big));
    }

    /** One client's round of reads, fetches and the odd write and refusal. */
    private void round(SplittableRandom r, String user) throws Exception {
        MerkleHash s = small.get(r.nextInt(small.size()));
        fetchAll(get("/v2/reconstructions/" + s.hex(), read, null, 200), 2, Integer.MAX_VALUE);
        fetchAll(get("/v1/reconstructions/" + s.hex(), read, null, 200), 1, Integer.MAX_VALUE);
        get("/v2/reconstructions/" + s.hex(), read, "bytes=100-20000", 200);
        get("/v1/reconstructions?file_id=" + s.hex() + "&file_id=" + small.get(r.nextInt(small.size())).hex(), read,
                null, 200);
        head("/v1/files/" + s.hex(), read);
        get("/v2/file-chunk-hashes/" + s.hex(), read, "X-Range-Dirty", "bytes=0-4000", 200);
        MerkleHash l = large.get(r.nextInt(large.size()));
        JsonNode big = get("/v2/reconstructions/" + l.hex(), read, null, 200);
        fetchAll(big, 2, 8);
        get("/v2/reconstructions/" + l.hex(), read, "bytes=1000-200000", 200);
        get("/v1/reconstructions/" + l.hex(), read, r.nextBoolean() ? null : "bytes=0-50000", 200);
        ClientUploads.Xorb x = xorbs.get(r.nextInt(xorbs.size()));
        get("/v1/chunks/default-merkledb/" + MerkleHash.fromBytes(x.chunkHashes(), 0).hex(), read, null, -1);
        get("/api/models/trainer/repo/xet-" + (r.nextBoolean() ? "read" : "write") + "-token/main", user, null, 200);
        get("/health", null, null, 200);
        get("/ready", null, null, 200);
        if (r.nextInt(8) == 0) get("/metrics", null, null, 200);
        get("/v2/reconstructions/" + MerkleHash.ofWords(r.nextLong(), 1, 2, 3).hex(), read, null, 404);
        get("/v2/reconstructions/" + s.hex(), "not-a-token", null, 401);
        if (r.nextInt(4) == 0) {
            // A new small file: its xorb, then its shard, as a client's upload.
            ClientUploads.Xorb nx = ClientUploads.xorb(r, 16, 1024, 8 * 1024, r.nextBoolean());
            put("/v1/xorbs/default/" + nx.hash().hex(), nx.body());
            put("/v1/shards", ClientUploads.shard(List.of(ClientUploads.file(List.of(new ClientUploads.Term(nx, 0, 16)))),
                    List.of(nx)));
        }
    }

    /** Fetches the signed URLs of a v2 ({@code xorbs}) or v1 ({@code fetch_info}) answer, each range as asked, up to {@code most}. */
    private void fetchAll(JsonNode answer, int version, int most) throws Exception {
        JsonNode byXorb = answer.path(version == 2 ? "xorbs" : "fetch_info");
        for (Iterator<JsonNode> xs = byXorb.elements(); xs.hasNext(); ) {
            for (JsonNode f : xs.next()) {
                JsonNode ranges = version == 2 ? f.path("ranges") : json.createArrayNode().add(json.createObjectNode()
                        .set("bytes", f.path("url_range")));
                for (JsonNode range : ranges) {
                    if (most-- <= 0) return;
                    JsonNode b = range.path("bytes");
                    String header = "bytes=" + b.path("start").asLong() + "-" + b.path("end").asLong();
                    send(HttpRequest.newBuilder(URI.create(f.path("url").asText())).header("Range", header).GET(), 206);
                }
            }
        }
    }

    private JsonNode get(String path, String token, String range, int expect) throws Exception {
        return get(path, token, "Range", range, expect);
    }

    private JsonNode get(String path, String token, String header, String value, int expect) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).GET();
        if (token != null) b.header("Authorization", "Bearer " + token);
        if (value != null) b.header(header, value);
        byte[] body = send(b, expect);
        return expect == 200 && body.length > 0 && body[0] == '{' ? json.readTree(body) : json.createObjectNode();
    }

    private void head(String path, String token) throws Exception {
        send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + token)
                .method("HEAD", HttpRequest.BodyPublishers.noBody()), 200);
    }

    private void put(String path, byte[] body) throws Exception {
        send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + write)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)), 200);
    }

    /** Sends, and fails the training on an unexpected status ({@code expect} -1: any), so it never trains an error path by mistake. */
    private byte[] send(HttpRequest.Builder b, int expect) throws Exception {
        requests.incrementAndGet();
        HttpResponse<byte[]> res = http.send(b.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofByteArray());
        if (expect >= 0 && res.statusCode() != expect) {
            throw new IllegalStateException(res.request().method() + " " + res.request().uri().getPath() + " answered "
                    + res.statusCode() + " (expected " + expect + "): "
                    + new String(res.body(), 0, Math.min(300, res.body().length), java.nio.charset.StandardCharsets.UTF_8));
        }
        return res.body();
    }

    /**
     * A file of {@code terms} single-chunk terms over {@code xorbs}: {@code scattered}, consecutive terms name
     * different xorbs and a xorb's terms are every other chunk (every term its own fetch range); else each xorb's
     * terms are one adjacent run (one range a xorb). Needs {@code 2 * terms / xorbs} chunks a xorb.
     */
    static List<ClientUploads.Term> largeFile(List<ClientUploads.Xorb> xorbs, int terms, boolean scattered) {
        List<ClientUploads.Term> out = new ArrayList<>(terms);
        int chunks = xorbs.get(0).chunks();
        for (int t = 0; t < terms; t++) {
            int x = scattered ? t % xorbs.size() : t / (terms / xorbs.size() + 1);
            int c = scattered ? (2 * (t / xorbs.size())) % chunks : (t % (terms / xorbs.size() + 1)) % chunks;
            out.add(new ClientUploads.Term(xorbs.get(x), c, c + 1));
        }
        return out;
    }
}
