package org.openxet.gates;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.openxet.gates.ReconstructionFixtures.Shape;
import org.openxet.gates.ReconstructionFixtures.Xorbs;
import org.openxet.http.RawHttp;
import org.openxet.protocol.MerkleHash;
import org.openxet.service.Access;
import org.openxet.service.Secrets;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;
import org.openxet.service.Tokens;
import org.openxet.storage.FileRecord;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Open-loop load on {@code GET /v2/reconstructions/{id}} against a separately started {@code openxet serve}: requests
 * leave on a fixed schedule (one every {@code 1/rate} s, each on its own virtual thread, whatever the earlier ones are
 * doing) and each latency runs from the request's intended send time to the body's last byte, so a stalled server is
 * charged for the requests it delayed (no coordinated omission). A pool of 200 files of 1,000 terms, half unmerged
 * (1,000 descriptors) and half merged (10), is registered in the data dir through the Index API before the server
 * starts; every request asks for a random one of them, the whole file (or a random range, {@code --range-share}).
 *
 * <p>Client and server share this machine's cores: at high rates the generator's own CPU use is part of what is
 * measured, and the numbers are an upper bound on what the server alone would show.
 */
final class LoadGate {
    /** The options it reads ({@code gates/run} refuses any other): its own and those of what it calls. */
    static final Set<String> OPTIONS = Args.union(Set.of(
            "rates", "seconds", "warmup-seconds", "max-in-flight", "range-share"),
            GateDatabase.OPTIONS, ServerProcess.OPTIONS);

    static final int FILES = 200;
    static final int TERMS = 1000;
    static final double P99_LIMIT_MS = 50.0;

    private LoadGate() {
    }

    record RateResult(int rate, long sent, long ok, long errors, double achieved, Histogram latency) {
        double ms(double percentile) {
            return OpenLoop.ms(latency, percentile);
        }
    }

    static int run(Args args) throws Exception {
        int seconds = args.integer("seconds", 30);
        int warmupSeconds = args.integer("warmup-seconds", 10);
        double rangeShare = args.number("range-share", 0.0);
        int maxInFlight = args.integer("max-in-flight", 1024);
        List<Integer> rates = new ArrayList<>();
        for (String s : args.string("rates", "250,500,1000").split(",")) rates.add(Integer.parseInt(s.trim()));
        Path tmp = Files.createTempDirectory("openxet-gate-load");
        Path data = tmp.resolve("data");
        Path log = tmp.resolve("server.log");
        System.out.println("load gate: open loop at " + rates + " req/s for " + seconds + " s each (warm-up "
                + warmupSeconds + " s at " + rates.get(0) + "/s), " + FILES + " files of " + TERMS + " terms, range share "
                + rangeShare + ", server log " + log);

        GateDatabase database = GateDatabase.fromArgs(args);
        ServerConfig config = GateDatabase.on(database, ServerConfig.defaults(data));
        List<MerkleHash> ids = new ArrayList<>();
        List<Long> sizes = new ArrayList<>();
        long t0 = System.nanoTime();
        try (Services services = Services.open(config)) {
            Xorbs xorbs = ReconstructionFixtures.xorbs(LatencyGate.XORBS, 1);
            SplittableRandom r = new SplittableRandom(5);
            List<FileRecord> files = new ArrayList<>();
            for (int i = 0; i < FILES; i++) {
                Shape shape = i % 2 == 0 ? Shape.UNMERGED : Shape.MERGED;
                FileRecord f = ReconstructionFixtures.file(shape, TERMS, xorbs, (i * 10) % xorbs.count(),
                        ReconstructionFixtures.randomHash(r));
                files.add(f);
                ids.add(f.fileHash());
                sizes.add(f.size());
            }
            ReconstructionFixtures.registerXorbs(services.index(), xorbs);
            ReconstructionFixtures.registerFiles(services.index(), ReconstructionFixtures.SCOPE, files, xorbs,
                    ReconstructionFixtures.randomHash(r));
        }
        System.out.printf("fixtures registered in %s through the Index API in %.1f s%n", data, (System.nanoTime() - t0) / 1e9);
        String token = new Tokens(Secrets.loadOrCreate(data).tokenKey())
                .mint(ReconstructionFixtures.SCOPE, Access.READ, Duration.ofHours(6));

        Process server = ServerProcess.start(args, data, log, database == null ? null : database.url());
        Map<String, Object> perRate = new LinkedHashMap<>();
        RateResult last = null;
        try {
            int port = ServerProcess.awaitPort(server, log);
            System.out.println("openxet serve (pid " + server.pid() + ") listening on 127.0.0.1:" + port);
            try (GetClient c = GetClient.open("raw", "127.0.0.1", port, token)) {
                for (int i = 0; i < 2; i++) {
                    RawHttp.Response res = c.get(LatencyGate.path(ids.get(i)), null, null);
                    LatencyGate.expectOk(res);
                    System.out.printf("%s file: full answer %,d bytes%n", i == 0 ? "unmerged" : "merged", res.bodyBytes());
                }
            }
            Target target = new Target(port, token, ids, sizes, rangeShare, maxInFlight);
            if (warmupSeconds > 0) {
                RateResult w = target.run(rates.get(0), warmupSeconds);
                System.out.printf("warm-up   %5d/s: %s%n", rates.get(0), line(w));
            }
            for (int rate : rates) {
                Thread.sleep(2000); // let the previous rate's stragglers and GC settle
                RateResult res = target.run(rate, seconds);
                System.out.printf("rate      %5d/s: %s%n", rate, line(res));
                perRate.put(Integer.toString(rate), OpenLoop.figures(
                        new OpenLoop.Outcome(res.sent(), res.ok(), res.errors(), res.achieved()), res.latency()));
                last = res;
            }
        } finally {
            server.destroy(); // SIGTERM: a clean stop
            if (!server.waitFor(30, TimeUnit.SECONDS)) server.destroyForcibly().waitFor();
            if (!args.flag("keep")) Files2.deleteTree(tmp);
            if (database != null) database.close();
        }
        boolean pass = last != null && last.errors() == 0 && last.achieved() >= 0.97 * last.rate()
                && last.ms(99) < P99_LIMIT_MS;
        System.out.printf("%s: at %d req/s achieved %.1f req/s, p99 %s, %d errors (target: the rate, p99 < 50 ms, no errors)%n",
                pass ? "PASS" : "MISS", last == null ? 0 : last.rate(), last == null ? 0 : last.achieved(),
                last == null ? "-" : Stats.ms(last.ms(99)), last == null ? 0 : last.errors());
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("rates", perRate);
        json.put("seconds", seconds);
        json.put("files", FILES);
        json.put("terms_per_file", TERMS);
        json.put("range_share", rangeShare);
        Machine.describe(json);
        json.put("pass", pass);
        System.out.println(Json.of(json));
        return pass ? 0 : 1;
    }

    private static String line(RateResult r) {
        return String.format(java.util.Locale.ROOT,
                "sent %,d ok %,d errors %d achieved %.1f/s  p50 %s  p90 %s  p99 %s  p99.9 %s  max %s", r.sent(), r.ok(),
                r.errors(), r.achieved(), Stats.ms(r.ms(50)), Stats.ms(r.ms(90)), Stats.ms(r.ms(99)), Stats.ms(r.ms(99.9)),
                Stats.ms(OpenLoop.maxMs(r.latency())));
    }

    /** The load target: connections, the file pool, and the open-loop schedule. */
    static final class Target {
        private final int port;
        private final String token;
        private final List<MerkleHash> ids;
        private final List<Long> sizes;
        private final double rangeShare;
        private final ConnectionPool connections;
        private final SplittableRandom random = new SplittableRandom(11);

        Target(int port, String token, List<MerkleHash> ids, List<Long> sizes, double rangeShare, int maxInFlight) {
            this.port = port;
            this.token = token;
            this.ids = ids;
            this.sizes = sizes;
            this.rangeShare = rangeShare;
            this.connections = new ConnectionPool(port, maxInFlight);
        }

        RateResult run(int rate, int seconds) throws InterruptedException {
            ConcurrentHistogram latency = OpenLoop.histogram();
            OpenLoop.Outcome o = OpenLoop.run(rate, seconds, () -> {
                int file = random.nextInt(ids.size());
                String range = random.nextDouble() < rangeShare ? LatencyGate.randomRange(random, sizes.get(file)) : null;
                byte[] request = RawHttp.get("127.0.0.1", port, LatencyGate.path(ids.get(file)), token, range);
                return new OpenLoop.Request(() -> send(request), latency);
            });
            return new RateResult(rate, o.sent(), o.ok(), o.errors(), o.achieved(), latency);
        }

        private boolean send(byte[] request) {
            return connections.exchange(request, null) == 200;
        }
    }
}
