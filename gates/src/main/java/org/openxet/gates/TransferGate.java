package org.openxet.gates;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.helidon.webserver.WebServer;
import org.openxet.http.OpenxetServer;
import org.openxet.http.RawHttp;
import org.openxet.protocol.ClientUploads;
import org.openxet.protocol.ClientUploads.Term;
import org.openxet.protocol.ClientUploads.Xorb;
import org.openxet.protocol.MerkleHash;
import org.openxet.service.Access;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The bulk data path, both ways, over loopback HTTP to the real server in process (SQLite on disk, the local bucket):
 * xorbs of about 60 MiB (the size clients make them) uploaded with {@code POST /v1/xorbs}, then, after a shard
 * registers one file over all of them and {@code GET /v2/reconstructions} answers for it, the answer's signed URLs
 * fetched as the clients fetch them (one single-range GET per range descriptor, §5.5) by 1, 4 and 16 concurrent
 * connections for a few seconds each. Every fetched range is first checked byte for byte against the uploaded body.
 * Reports MB/s, per-request p50/p99 and process CPU per GB; no threshold (the issues set none), so {@code --enforce}
 * changes nothing. The client runs in the same JVM, so the CPU figures include its reads.
 */
final class TransferGate {
    /** The options it reads ({@code gates/run} refuses any other). */
    static final Set<String> OPTIONS = Set.of("keep", "seconds", "xorbs", "chunks", "upload-concurrency");

    private static final int[] CONCURRENCY = {1, 4, 16};

    private TransferGate() {
    }

    /** One range descriptor of the answer: its signed URL's path and query, and its inclusive byte range. */
    record Fetch(MerkleHash xorb, String pathAndQuery, long start, long end) {
        long length() {
            return end - start + 1;
        }
    }

    record Level(double mbPerS, double p50, double p99, double cpuMsPerGb, int requests) {
    }

    static int run(Args args) throws Exception {
        int xorbCount = args.integer("xorbs", 8);
        int chunks = args.integer("chunks", 960);
        int uploaders = args.integer("upload-concurrency", 4);
        double seconds = args.number("seconds", 4);
        Path tmp = Files.createTempDirectory("openxet-gate-transfer");
        ServerLogs.toFile(tmp.resolve("server.log"));
        System.out.printf("transfer gate: %d xorbs of %d random chunks of 48-80 KiB, uploaded %d at a time; downloads at"
                        + " %s concurrent connections, %.0f s each; server log %s%n", xorbCount, chunks, uploaders,
                Arrays.toString(CONCURRENCY), seconds, tmp.resolve("server.log"));
        Map<String, Object> json = new LinkedHashMap<>();
        try {
            long t0 = System.nanoTime();
            SplittableRandom r = new SplittableRandom(11);
            List<Xorb> xorbs = new ArrayList<>();
            for (int i = 0; i < xorbCount; i++) xorbs.add(ShardFixtures.xorb(r, chunks, 48 << 10, 80 << 10));
            long xorbBytes = xorbs.stream().mapToLong(x -> x.body().length).sum();
            Map<MerkleHash, Xorb> byHash = new LinkedHashMap<>();
            for (Xorb x : xorbs) byHash.put(x.hash(), x);
            System.out.printf("built %d xorbs, %,d bytes, in %.1f s%n", xorbCount, xorbBytes, (System.nanoTime() - t0) / 1e9);

            ServerConfig cfg = ServerConfig.defaults(tmp.resolve("data")).withHost("127.0.0.1").withPort(0);
            try (Services services = Services.open(cfg)) {
                WebServer server = OpenxetServer.start(services);
                try {
                    int port = server.port();
                    String write = services.tokens().mint(ShardFixtures.SCOPE, Access.WRITE, Duration.ofHours(2));
                    String read = services.tokens().mint(ShardFixtures.SCOPE, Access.READ, Duration.ofHours(2));
                    json.put("upload", upload(port, write, xorbs, uploaders));
                    json.put("receive_baseline", ReceiveBaseline.measure(xorbs.get(0).body(), 20));

                    List<Term> terms = xorbs.stream().map(x -> new Term(x, 0, x.chunks())).toList();
                    byte[] shard = ShardFixtures.shardOfOneFile(terms, xorbs);
                    MerkleHash file = ClientUploads.file(terms).fileHash();
                    try (RawHttp http = new RawHttp("127.0.0.1", port)) {
                        RawHttp.Response s = http.exchange(
                                RawHttp.post("127.0.0.1", port, "/v1/shards", write, shard.length), shard, null);
                        if (s.status() != 200) throw new IllegalStateException("shard upload answered " + s.status());
                    }
                    List<Fetch> fetches = fetches(port, read, file);
                    check(port, fetches, byHash);
                    System.out.printf("a shard registered one file over them; its answer has %d range descriptors, each"
                            + " checked byte for byte%n", fetches.size());

                    Map<String, Object> download = new LinkedHashMap<>();
                    download(port, fetches, 2, seconds / 2); // warm-up
                    for (int c : CONCURRENCY) {
                        Level l = download(port, fetches, c, seconds);
                        System.out.printf("  download, %2d connections: %7.0f MB/s  per request p50 %s  p99 %s  (%d"
                                        + " requests, %.0f ms of process CPU per GB)%n", c, l.mbPerS(), Stats.ms(l.p50()),
                                Stats.ms(l.p99()), l.requests(), l.cpuMsPerGb());
                        Map<String, Object> one = new LinkedHashMap<>();
                        one.put("mb_per_s", Stats.r3(l.mbPerS()));
                        one.put("p50_ms", Stats.r3(l.p50()));
                        one.put("p99_ms", Stats.r3(l.p99()));
                        one.put("cpu_ms_per_gb", Stats.r3(l.cpuMsPerGb()));
                        one.put("requests", l.requests());
                        download.put(Integer.toString(c), one);
                    }
                    json.put("download", download);
                    json.put("range_bytes_mean", fetches.stream().mapToLong(Fetch::length).sum() / fetches.size());
                } finally {
                    server.stop();
                }
            }
        } finally {
            if (!args.flag("keep")) Files2.deleteTree(tmp);
        }
        Machine.describe(json);
        json.put("pass", true);
        System.out.println("report only: the transfer gate has no threshold");
        System.out.println(Json.of(json));
        return 0;
    }

    /** Every xorb through {@code POST /v1/xorbs}, {@code concurrency} at a time, each on a connection of its own. */
    private static Map<String, Object> upload(int port, String token, List<Xorb> xorbs, int concurrency)
            throws Exception {
        AtomicInteger next = new AtomicInteger();
        double[] ms = new double[xorbs.size()];
        JvmCounters before = JvmCounters.now();
        long start = System.nanoTime();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < concurrency; w++) {
                done.add(pool.submit(() -> {
                    try (RawHttp http = new RawHttp("127.0.0.1", port)) {
                        for (int i; (i = next.getAndIncrement()) < xorbs.size(); ) {
                            Xorb x = xorbs.get(i);
                            RawHttp.Response res = http.exchange(RawHttp.post("127.0.0.1", port,
                                    "/v1/xorbs/default/" + x.hash().hex(), token, x.body().length), x.body(), null);
                            if (res.status() != 200) throw new IllegalStateException("xorb upload answered " + res.status());
                            ms[i] = res.millis();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) f.get();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        JvmCounters c = JvmCounters.now().since(before);
        long bytes = xorbs.stream().mapToLong(x -> x.body().length).sum();
        double mbPerS = bytes / 1e6 / seconds;
        double cpuPerGb = c.cpuNanos() / 1e6 / (bytes / 1e9);
        System.out.printf("  upload, %d at a time: %,d bytes in %.2f s = %.0f MB/s (each xorb: median %s, max %s; %.0f ms"
                        + " of process CPU per GB: validation, hashing, fsync'd write)%n", concurrency, bytes, seconds,
                mbPerS, Stats.ms(Stats.median(ms)), Stats.ms(Stats.max(ms)), cpuPerGb);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("concurrency", concurrency);
        out.put("bytes", bytes);
        out.put("mb_per_s", Stats.r3(mbPerS));
        out.put("per_xorb_median_ms", Stats.r3(Stats.median(ms)));
        out.put("cpu_ms_per_gb", Stats.r3(cpuPerGb));
        return out;
    }

    /** The range descriptors of the file's v2 answer. */
    private static List<Fetch> fetches(int port, String token, MerkleHash file) throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        try (RawHttp http = new RawHttp("127.0.0.1", port)) {
            RawHttp.Response r = http.exchange(
                    RawHttp.get("127.0.0.1", port, "/v2/reconstructions/" + file.hex(), token, null), body);
            if (r.status() != 200) throw new IllegalStateException("reconstruction answered " + r.status());
        }
        JsonNode answer = new ObjectMapper().readTree(body.toByteArray());
        List<Fetch> out = new ArrayList<>();
        for (var xorb : answer.get("xorbs").properties()) {
            for (JsonNode entry : xorb.getValue()) {
                URI url = URI.create(entry.get("url").asText());
                String pathAndQuery = url.getRawPath() + "?" + url.getRawQuery();
                for (JsonNode range : entry.get("ranges")) {
                    JsonNode bytes = range.get("bytes");
                    out.add(new Fetch(MerkleHash.of(xorb.getKey()), pathAndQuery, bytes.get("start").asLong(),
                            bytes.get("end").asLong()));
                }
            }
        }
        return out;
    }

    /** Each descriptor fetched once and compared with the uploaded xorb's bytes at the same offsets. */
    private static void check(int port, List<Fetch> fetches, Map<MerkleHash, Xorb> xorbs) throws Exception {
        try (RawHttp http = new RawHttp("127.0.0.1", port)) {
            for (Fetch f : fetches) {
                ByteArrayOutputStream got = new ByteArrayOutputStream((int) f.length());
                RawHttp.Response r = http.exchange(request(port, f), got);
                byte[] want = Arrays.copyOfRange(xorbs.get(f.xorb()).body(), (int) f.start(), (int) f.end() + 1);
                if (r.status() != 206 || !Arrays.equals(want, got.toByteArray())) {
                    throw new IllegalStateException("fetch of " + f + " answered " + r.status() + " with "
                            + got.size() + " bytes that differ from the upload");
                }
            }
        }
    }

    private static byte[] request(int port, Fetch f) {
        return RawHttp.get("127.0.0.1", port, f.pathAndQuery(), null, "bytes=" + f.start() + "-" + f.end());
    }

    /**
     * {@code connections} workers, each on its own keep-alive connection, fetch descriptors round the list (each
     * starting at its own place) until {@code seconds} have passed; MB/s is every byte over the time until the last
     * request ended.
     */
    private static Level download(int port, List<Fetch> fetches, int connections, double seconds) throws Exception {
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        List<double[]> times = new ArrayList<>();
        long[] bytes = new long[connections];
        int[] counts = new int[connections];
        JvmCounters before = JvmCounters.now();
        long start = System.nanoTime();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < connections; w++) {
                double[] t = new double[1 << 16];
                times.add(t);
                int worker = w;
                done.add(pool.submit(() -> {
                    try (RawHttp http = new RawHttp("127.0.0.1", port)) {
                        for (int i = worker; System.nanoTime() < deadline && counts[worker] < t.length; i++) {
                            Fetch f = fetches.get(i % fetches.size());
                            RawHttp.Response r = http.exchange(request(port, f), null);
                            if (r.status() != 206 || r.bodyBytes() != f.length()) {
                                throw new IllegalStateException("fetch answered " + r.status() + ", " + r.bodyBytes() + " bytes");
                            }
                            t[counts[worker]++] = r.millis();
                            bytes[worker] += r.bodyBytes();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) f.get();
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        JvmCounters c = JvmCounters.now().since(before);
        int n = Arrays.stream(counts).sum();
        double[] all = new double[n];
        int at = 0;
        for (int w = 0; w < connections; w++) {
            System.arraycopy(times.get(w), 0, all, at, counts[w]);
            at += counts[w];
        }
        long total = Arrays.stream(bytes).sum();
        return new Level(total / 1e6 / elapsed, Stats.percentile(all, 50), Stats.percentile(all, 99),
                c.cpuNanos() / 1e6 / (total / 1e9), n);
    }
}
