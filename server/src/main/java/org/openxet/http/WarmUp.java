package org.openxet.http;

import org.openxet.protocol.MerkleHash;
import org.openxet.service.Access;
import org.openxet.service.Services;
import org.openxet.service.SignedUrls;
import org.openxet.service.WritePathRehearsal;
import org.openxet.service.XorbIngest;
import org.openxet.storage.IndexException;
import org.openxet.storage.IndexScans;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * The self-warm-up before ready ({@code warmup.duration}): a freshly started JVM answers its first thousands of
 * requests from interpreted and C1 code while the JIT compiles, hundreds of milliseconds each on a node that takes full
 * traffic at once (docs/BENCHMARKS.md, "Restart"). So before {@code /ready} says 200 the server asks itself, over
 * loopback HTTP through its real listener, routes, token checks and index, for what clients ask most: v2 and v1
 * reconstructions (whole and ranged) of files sampled across its own index, batch queries, file HEADs, and signed-URL
 * fetches of objects its bucket holds, half of them with a token minted for that request (a restarted node meets
 * each client's token for the first time, a thousand in its first second on the rig). Reads only: nothing stored
 * changes, the tokens it mints for itself are read tokens of a minute that never leave the process, and the cache of
 * verified tokens is emptied at its end. Bounded: it stops at the deadline whatever is in flight.
 * The access log drops the warm-up's own lines (formatted, not written), so the log shows one summary line instead.
 * Uploads are rehearsed instead ({@link WritePathRehearsal}): once in memory first, and on an index with
 * per-connection state (PostgreSQL) about 100 a second in the index, each rolled back, so an upload's first-call costs
 * are not the first clients'.
 */
public final class WarmUp {
    private static final Logger LOG = Logger.getLogger(WarmUp.class.getName());
    /** Files sampled from the index: enough to spread reads over its pages, few enough to sample in milliseconds. */
    static final int SAMPLE = 256;
    /**
     * Each warm-up connection is closed after this many requests and a new one opened: a node joining a balancer meets
     * hundreds of new connections in its first second, and accepting one (the connection guard, Helidon's handler)
     * is code a few kept-alive connections would leave cold.
     */
    static final int REQUESTS_PER_CONNECTION = 8;
    /** The warm-up's requests go to the listener over loopback. */
    private static final String LOOPBACK = "127.0.0.1";
    /** A request that has not answered within this long ends the warm-up's use of the connection. */
    private static final int READ_TIMEOUT_MS = 5_000;
    /**
     * Each warm-up connection's read buffer: it serves 8 requests, so the thousands of connections of a warm-up
     * allocate this many times over while the server warms; its answers are mostly small.
     */
    private static final int READ_BUFFER_BYTES = 64 * 1024;
    /** The access log's logger: Helidon's AccessLogFeature logs each line to its logger's child for the socket. */
    private static final String ACCESS_LOG = "io.helidon.webserver.AccessLog.@default";

    private WarmUp() {
    }

    /** What the warm-up did: requests made, answered as expected or not, how long it took, distinct files it read. */
    public record Result(long requests, long ok, long failed, long millis, int files, long freshTokens,
                         String firstFailure, long jitMillis, long rehearsalMillis, long indexRehearsals) {
        public String describe() {
            return "warmed up in " + millis + " ms: "
                    + (rehearsalMillis >= 0 ? "an upload rehearsed in memory in " + rehearsalMillis + " ms, " : "")
                    + (indexRehearsals > 0 ? indexRehearsals + " registrations rehearsed and rolled back, " : "")
                    + requests + " requests to itself over " + files
                    + " files of its index (" + freshTokens + " with a token it had not seen), " + failed
                    + " not answered as a client's would be"
                    + (firstFailure == null ? "" : " (first: " + firstFailure + ")") + "; the JIT compiled for "
                    + jitMillis + " ms meanwhile";
        }
    }

    /** Runs the warm-up against the server on loopback {@code port} for {@code duration}, {@code clients} connections at once. */
    public static Result run(int port, Services services, Duration duration, int clients) {
        long t0 = System.nanoTime();
        long deadline = t0 + duration.toNanos();
        long jit0 = jitMillis();
        AtomicLong rehearsalMillis = new AtomicLong(-1);
        AtomicLong indexRehearsals = new AtomicLong();
        // The write path beside the reads, not before them: on a PostgreSQL index its first steps (an upload in
        // memory, opening the upload locks' connections) took 0.5 s of a 2 s warm-up on a cold JVM, time in which
        // the read path, what most of the first clients ask for, did not warm.
        Thread writes = Thread.ofVirtual().name("warmup-writes").start(
                () -> rehearseWrites(services, deadline, rehearsalMillis, indexRehearsals));
        List<IndexScans.FileInScope> files;
        try {
            files = services.index().scans().sampleFiles(SAMPLE, t0);
        } catch (Exception e) {
            files = List.of(); // an index that cannot answer: the routes and refusals still warm up
        }
        Map<String, String> tokens = new HashMap<>();
        for (IndexScans.FileInScope f : files) {
            tokens.computeIfAbsent(f.scope(), s -> services.tokens().mint(s, Access.READ, Duration.ofMinutes(1)));
        }
        String anyToken = services.tokens().mint("warmup/none", Access.READ, Duration.ofMinutes(1));
        Logger accessLog = Logger.getLogger(ACCESS_LOG);
        java.util.logging.Filter logFilter = accessLog.getFilter();
        accessLog.setFilter(formattedButDropped());
        // The refusals' lines too: the warm-up's requests for unknown files are refused as a client's are, one line
        // each, hundreds of lines at every start.
        Logger errorsLog = Logger.getLogger(Errors.LOGGER);
        java.util.logging.Filter errorsFilter = errorsLog.getFilter();
        errorsLog.setFilter(formattedButDropped());
        AtomicLong requests = new AtomicLong();
        AtomicLong ok = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong freshTokens = new AtomicLong();
        java.util.concurrent.atomic.AtomicReference<String> firstFailure = new java.util.concurrent.atomic.AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        List<RawHttp> connections = java.util.Collections.synchronizedList(new ArrayList<>());
        threads.add(writes);
        try {
            for (int c = 0; c < clients; c++) {
                List<IndexScans.FileInScope> sample = files;
                long seed = t0 + c;
                threads.add(Thread.ofVirtual().name("warmup-" + c).start(() -> {
                    Client client = new Client(port, sample, tokens, anyToken, services, seed, connections,
                            freshTokens);
                    while (System.nanoTime() < deadline) {
                        requests.incrementAndGet();
                        String failure = client.next();
                        if (failure == null) {
                            ok.incrementAndGet();
                        } else {
                            failed.incrementAndGet();
                            firstFailure.compareAndSet(null, failure);
                        }
                    }
                    client.close();
                }));
            }
            long joinBy = deadline + TimeUnit.MILLISECONDS.toNanos(200);
            for (Thread t : threads) {
                long left = joinBy - System.nanoTime();
                if (left <= 0 || !t.join(Duration.ofNanos(Math.max(1, left)))) {
                    // A request still out 200 ms after the deadline: its socket is closed, the warm-up never holds ready back.
                    synchronized (connections) {
                        connections.forEach(RawHttp::close);
                    }
                    break;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            // Its thousands of tokens are the server's own: they leave no room taken in the cache of verified tokens.
            services.tokens().forgetVerified();
            accessLog.setFilter(logFilter);
            errorsLog.setFilter(errorsFilter);
        }
        Result r = new Result(requests.get(), ok.get(), failed.get(), (System.nanoTime() - t0) / 1_000_000,
                (int) files.stream().map(IndexScans.FileInScope::file).distinct().count(), freshTokens.get(),
                firstFailure.get(), jitMillis() - jit0, rehearsalMillis.get(), indexRehearsals.get());
        LOG.info(r.describe());
        return r;
    }

    /**
     * The write path's rehearsal: an upload in memory, the upload locks' connections opened, then registrations
     * rehearsed in the index by {@link #INDEX_REHEARSERS} threads until the deadline.
     */
    private static void rehearseWrites(Services services, long deadline, AtomicLong rehearsalMillis,
                                       AtomicLong indexRehearsals) {
        long r0 = System.nanoTime();
        WritePathRehearsal.Upload upload = rehearseUpload();
        if (upload != null) rehearsalMillis.set((System.nanoTime() - r0) / 1_000_000);
        try {
            WritePathRehearsal.openUploadConnections(services.index());
        } catch (IndexException | RuntimeException e) {
            LOG.warning("the upload locks' connections could not be opened before ready: " + e);
        }
        if (upload == null) return;
        List<Thread> rehearsers = new ArrayList<>();
        for (int c = 0; c < INDEX_REHEARSERS; c++) {
            rehearsers.add(Thread.ofVirtual().name("warmup-registrations-" + c).start(
                    () -> rehearseRegistrations(services, upload, deadline, indexRehearsals)));
        }
        try {
            for (Thread t : rehearsers) t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * An upload's first-call costs, paid in memory ({@link WritePathRehearsal}); null when that failed (never expected:
     * an upload would meet the same failure and answer it, so it is logged, not a reason to keep the node from serving).
     */
    private static WritePathRehearsal.Upload rehearseUpload() {
        try {
            return WritePathRehearsal.inMemory();
        } catch (Exception | LinkageError e) {
            LOG.warning("the upload rehearsal before ready failed: " + e);
            return null;
        }
    }

    /** Threads rehearsing registrations in the index, each one every {@link #INDEX_REHEARSAL_EVERY_MS}. */
    static final int INDEX_REHEARSERS = 2;
    /**
     * About 100 rolled-back registrations a second with two threads: the rig mix's share of writes (5 %) at 2,000
     * requests a second, so each pooled connection meets the write statements before the first client's.
     */
    static final int INDEX_REHEARSAL_EVERY_MS = 20;

    /** Rehearses {@code upload}'s registration in the index until the deadline; stops at once where it has nothing to. */
    private static void rehearseRegistrations(Services services, WritePathRehearsal.Upload upload, long deadline,
                                              AtomicLong count) {
        try {
            while (System.nanoTime() < deadline && WritePathRehearsal.inIndex(services.index(), upload)) {
                count.incrementAndGet();
                Thread.sleep(INDEX_REHEARSAL_EVERY_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warning("a registration rehearsed before ready failed: " + e);
        }
    }

    /**
     * The access log's lines of the warm-up's own requests, formatted as the log's handler would (so that code is
     * compiled when the first client's line is written, like the rest) and then dropped: thousands of the server's
     * requests to itself would bury the start-up lines.
     */
    private static java.util.logging.Filter formattedButDropped() {
        java.util.logging.Formatter formatter = null;
        for (java.util.logging.Handler h : Logger.getLogger("").getHandlers()) {
            if (h.getFormatter() != null) formatter = h.getFormatter();
        }
        java.util.logging.Formatter f = formatter;
        return r -> {
            if (f != null) f.format(r);
            return false;
        };
    }

    /** Milliseconds the JIT's threads have compiled for since the JVM started (0 where the JVM does not say). */
    private static long jitMillis() {
        var jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }

    /** One warm-up connection and its draw of requests. */
    private static final class Client {
        private final int port;
        private final List<IndexScans.FileInScope> files;
        private final Map<String, String> tokens;
        private final String anyToken;
        private final Services services;
        private final SplittableRandom random;
        private final List<RawHttp> connections;
        private final AtomicLong freshTokens;
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();
        private RawHttp c;
        private int used;

        Client(int port, List<IndexScans.FileInScope> files, Map<String, String> tokens, String anyToken,
               Services services, long seed, List<RawHttp> connections, AtomicLong freshTokens) {
            this.port = port;
            this.files = files;
            this.tokens = tokens;
            this.anyToken = anyToken;
            this.services = services;
            this.random = new SplittableRandom(seed);
            this.connections = connections;
            this.freshTokens = freshTokens;
        }

        /** One request of the mix; null when it was answered as a real client's would be (2xx, or 404 for a file not there), else what happened. */
        String next() {
            String what = "connect";
            try {
                // A connection the server's answer closed (Connection: close) is closed on our side too, or the server
                // lingers on it for the client's FIN (Lingering) past the warm-up, and the socket leaks.
                if (c != null && (!c.isOpen() || ++used >= REQUESTS_PER_CONNECTION)) {
                    c.close();
                    connections.remove(c);
                    c = null;
                }
                if (c == null) {
                    c = new RawHttp(LOOPBACK, port, READ_TIMEOUT_MS, READ_BUFFER_BYTES);
                    connections.add(c);
                    used = 0;
                }
                int kind = random.nextInt(20);
                if (files.isEmpty() || kind == 19) {
                    // An unknown file: the refusal path (and the only one an empty index has).
                    what = "GET /v2/reconstructions/(unknown)";
                    String path = "/v2/reconstructions/" + MerkleHash.ofWords(random.nextLong(), 0, 0, 1).hex();
                    return expect(ask("GET", path, anyToken, null, null) == 404, what);
                }
                IndexScans.FileInScope f = files.get(random.nextInt(files.size()));
                // Every other request with a token the server has not seen: a node meets each of its clients' tokens
                // for the first time after a start (the rig's 1,000 scopes, in its first second), and the full check
                // (JWT parsing, signature, claims) would otherwise be compiled under them: right after ready a new
                // token cost about 190 µs more than a known one without this, no more within noise with it
                // (BENCHMARKS, Restart).
                String token;
                if ((kind & 1) == 0) {
                    token = services.tokens().mint(f.scope(), Access.READ, Duration.ofMinutes(1));
                    freshTokens.incrementAndGet();
                } else {
                    token = tokens.get(f.scope());
                }
                String id = f.file().hex();
                int status;
                switch (kind) {
                    case 0, 1 -> {
                        what = "GET /v2/reconstructions/{id} ranged";
                        status = ask("GET", "/v2/reconstructions/" + id, token,
                                "bytes=" + random.nextInt(4096) + "-" + (4096 + random.nextInt(1 << 20)), null);
                    }
                    case 2, 3 -> {
                        what = "GET /v1/reconstructions/{id}";
                        status = ask("GET", "/v1/reconstructions/" + id, token, null, null);
                    }
                    case 4 -> {
                        what = "HEAD /v1/files/{id}";
                        status = ask("HEAD", "/v1/files/" + id, token, null, null);
                    }
                    case 5 -> {
                        what = "GET /v1/reconstructions?file_id=...";
                        status = ask("GET", "/v1/reconstructions?file_id=" + id, token, null, null);
                    }
                    case 6 -> {
                        what = "a signed-URL fetch";
                        status = fetch(id, token);
                    }
                    default -> {
                        what = "GET /v2/reconstructions/{id}";
                        status = ask("GET", "/v2/reconstructions/" + id, token, null, null);
                    }
                }
                // 404: a file not visible; 416: a range past a small file's end; 400 from a batch: a file too large to
                // be answered in one (§5.6). What a client is told too.
                boolean asClients = status / 100 == 2 || status == 404 || (kind <= 1 && status == 416)
                        || (kind == 5 && status == 400);
                return expect(asClients, what + " answered " + status);
            } catch (IOException | RuntimeException e) {
                if (c != null) c.close();
                c = null;
                return what + ": " + e.getClass().getSimpleName() + " " + e.getMessage();
            }
        }

        /** {@code method path}, a bearer token and a range when non-null: the status, the body into {@code keep}. */
        private int ask(String method, String path, String token, String range, ByteArrayOutputStream keep)
                throws IOException {
            return c.exchange(RawHttp.request(method, LOOPBACK, port, path, token, range, -1), keep).status();
        }

        private static String expect(boolean good, String what) {
            return good ? null : what;
        }

        /** A v2 answer, then its first signed URL when the bucket holds that xorb (an index without objects: none). */
        private int fetch(String id, String token) throws IOException {
            body.reset();
            int status = ask("GET", "/v2/reconstructions/" + id, token, null, body);
            if (status != 200) return status;
            String answer = body.toString(StandardCharsets.UTF_8);
            int xorbs = answer.indexOf("\"xorbs\":{\"");
            int url = answer.indexOf("\"url\":\"", Math.max(0, xorbs));
            if (xorbs < 0 || url < 0) return status;
            String xorb = answer.substring(xorbs + 10, xorbs + 10 + 64);
            String full = answer.substring(url + 7, answer.indexOf('"', url + 7));
            int path = full.indexOf(SignedUrls.PATH);
            if (path < 0 || services.bucket().size(XorbIngest.key(MerkleHash.of(xorb))).isEmpty()) return status;
            return ask("GET", full.substring(path), null, null, null);
        }

        void close() {
            if (c != null) c.close();
        }
    }
}
