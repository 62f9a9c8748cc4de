package org.openxet.gates;

import org.openxet.protocol.ClientUploads.Xorb;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;
import org.openxet.service.ShardRegistration;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;

/**
 * Shard commit throughput (the seed's bench behind its commit semaphore of 4 × CPUs permits, a bound on memory): 400
 * shards of 4 one-term files, committed concurrently through the real registration path
 * ({@link ShardRegistration#withPermit} around {@link ShardRegistration#register}: parse, validate against the stored
 * chunk tables, store the shard in the bucket, register it in one durable SQLite transaction) into a LocalBucket and
 * SQLite on disk, with the commit semaphore at 1, 2, 4, 8, 16 and 32 permits.
 *
 * <p>The 1,600 xorbs the shards reference are uploaded once through {@code XorbIngest} (real xorb bodies, validated
 * and stored) into a template data dir; every permit size then runs on a fresh copy of it, so each starts from the
 * same index and bucket and registers every shard as new. A warm-up round on its own copy comes first; then
 * {@code --rounds} (3) passes over all sizes, and each size reports the median of its rounds.
 */
final class CommitsGate {
    /** The options it reads ({@code gates/run} refuses any other): its own and those of what it calls. */
    static final Set<String> OPTIONS = Args.union(Set.of("rounds", "shards"), GateDatabase.OPTIONS);

    static final int[] PERMITS = {1, 2, 4, 8, 16, 32};
    static final double MIN_SHARDS_PER_S = 300;

    private CommitsGate() {
    }

    static int run(Args args) throws Exception {
        int shards = args.integer("shards", 400);
        int rounds = args.integer("rounds", 3);
        Path tmp = Files.createTempDirectory("openxet-gate-commits");
        Path template = tmp.resolve("template");
        // On PostgreSQL every round commits into a fresh copy of this database, as it does into a copy of the data dir.
        GateDatabase templateDb = GateDatabase.fromArgs(args);
        System.out.println("commits gate: " + shards + " shards of " + ShardFixtures.FILES_PER_SHARD
                + " one-term files, concurrently through ShardRegistration, at permits " + java.util.Arrays.toString(PERMITS));
        Map<String, Object> perPermits = new LinkedHashMap<>();
        double best = 0;
        try {
            long t0 = System.nanoTime();
            SplittableRandom r = new SplittableRandom(7);
            List<List<Xorb>> perShard = new ArrayList<>();
            List<byte[]> bodies = new ArrayList<>();
            for (int s = 0; s < shards; s++) {
                List<Xorb> xs = new ArrayList<>();
                for (int f = 0; f < ShardFixtures.FILES_PER_SHARD; f++) xs.add(ShardFixtures.xorb(r, ShardFixtures.CHUNKS));
                perShard.add(xs);
                bodies.add(ShardFixtures.gateShard(xs));
            }
            long xorbBytes = perShard.stream().flatMap(List::stream).mapToLong(x -> x.body().length).sum();
            System.out.printf("built %,d xorbs (%,d bytes) and %,d shard bodies (%,d bytes each on average) in %.1f s%n",
                    shards * ShardFixtures.FILES_PER_SHARD, xorbBytes, bodies.size(),
                    bodies.stream().mapToLong(b -> b.length).sum() / bodies.size(), (System.nanoTime() - t0) / 1e9);
            t0 = System.nanoTime();
            try (Services services = Services.open(config(template, templateDb, 32))) {
                uploadXorbs(services, perShard);
            }
            System.out.printf("uploaded them through XorbIngest into the template data dir in %.1f s%n",
                    (System.nanoTime() - t0) / 1e9);

            commit(tmp, template, templateDb, "warm-up", 8, bodies.subList(0, Math.min(100, bodies.size())));
            // Rounds go through every size in turn, so a noisy minute spreads over all sizes instead of hitting one.
            double[][] rates = new double[PERMITS.length][rounds];
            for (int round = 0; round < rounds; round++) {
                for (int i = 0; i < PERMITS.length; i++) {
                    rates[i][round] = commit(tmp, template, templateDb, "round-" + (round + 1), PERMITS[i], bodies);
                }
            }
            System.out.println("median of " + rounds + " rounds per size (min, max):");
            for (int i = 0; i < PERMITS.length; i++) {
                double median = Stats.median(rates[i]);
                System.out.printf("  %2d permits: %6.1f shards/s  (%.1f, %.1f)%n", PERMITS[i], median,
                        Stats.min(rates[i]), Stats.max(rates[i]));
                perPermits.put(Integer.toString(PERMITS[i]), Stats.r3(median));
                best = Math.max(best, median);
            }
        } finally {
            if (!args.flag("keep")) Files2.deleteTree(tmp);
            if (templateDb != null) templateDb.close();
        }
        boolean pass = best >= MIN_SHARDS_PER_S;
        System.out.printf("%s: best median %.1f shards/s (threshold %.0f)%n", pass ? "PASS" : "MISS", best,
                MIN_SHARDS_PER_S);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("permits", perPermits);
        json.put("best_shards_per_s", Stats.r3(best));
        json.put("shards", shards);
        json.put("rounds", rounds);
        Machine.describe(json);
        json.put("pass", pass);
        System.out.println(Json.of(json));
        return pass ? 0 : 1;
    }

    /** A data dir, with its index in {@code db} when the gate runs on PostgreSQL. */
    private static ServerConfig config(Path data, GateDatabase db, int permits) {
        return GateDatabase.on(db, ServerConfig.defaults(data).withHost("127.0.0.1").withPort(0).withCommitPermits(permits));
    }

    /** Every xorb through XorbIngest, a few at a time, as a client's concurrent uploads arrive. */
    private static void uploadXorbs(Services services, List<List<Xorb>> perShard) throws Exception {
        Semaphore inFlight = new Semaphore(8);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> done = new ArrayList<>();
            for (List<Xorb> xs : perShard) {
                for (Xorb x : xs) {
                    done.add(pool.submit(() -> {
                        inFlight.acquire();
                        try {
                            if (!services.ingest().ingest(x.hash(), x.body(), x.body().length).inserted()) {
                                throw new IllegalStateException("xorb " + x.hash() + " was already stored");
                            }
                        } finally {
                            inFlight.release();
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> f : done) f.get();
        }
    }

    /** Commits all {@code bodies} at once on a fresh copy of the template (and its database); returns shards per second. */
    private static double commit(Path tmp, Path template, GateDatabase templateDb, String name, int permits,
                                 List<byte[]> bodies) throws Exception {
        Path data = tmp.resolve(name);
        Files2.copyTree(template, data);
        GateDatabase db = templateDb == null ? null : templateDb.copy();
        double rate;
        try (Services services = Services.open(config(data, db, permits))) {
            ShardRegistration reg = services.shards();
            long t0 = System.nanoTime();
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<Boolean>> done = new ArrayList<>();
                for (byte[] body : bodies) {
                    // All 400 queue for the permits at once: wait as long as that takes (the server's own wait, the
                    // upload window, would refuse some with 503, which is not what this gate measures).
                    done.add(pool.submit(() -> reg.withPermit(Duration.ofHours(1), () ->
                            reg.register(body, body.length, ShardFixtures.SCOPE, ShardRegistration.SILENT))));
                }
                for (Future<Boolean> f : done) {
                    if (!f.get()) throw new IllegalStateException("a shard was registered before: fixture bug");
                }
            }
            double s = (System.nanoTime() - t0) / 1e9;
            rate = bodies.size() / s;
            System.out.printf("  %-8s %2d permits: %,d shards in %.2f s = %6.1f shards/s%n", name, permits,
                    bodies.size(), s, rate);
        } finally {
            Files2.deleteTree(data);
            if (db != null) db.close();
        }
        return rate;
    }
}
