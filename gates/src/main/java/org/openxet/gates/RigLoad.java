package org.openxet.gates;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.apache.commons.rng.UniformRandomProvider;
import org.apache.commons.rng.sampling.distribution.DiscreteSampler;
import org.apache.commons.rng.sampling.distribution.RejectionInversionZipfSampler;
import org.apache.commons.rng.simple.RandomSource;
import org.openxet.gates.RigFixture.FileClass;
import org.openxet.http.RawHttp;
import org.openxet.protocol.ClientUploads.Term;
import org.openxet.protocol.ClientUploads.Xorb;
import org.openxet.protocol.MerkleHash;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Function;

/**
 * The rig's open-loop load ({@link OpenLoop}: a fixed schedule, latency from each request's intended send time).
 * A request is, by the workload's shares: a write (a new small file's xorb and then its shard, timed together), or a
 * reconstruction of a file drawn by Zipf popularity over every file (or, for the large share, over the files of
 * 10,000 terms or more alone), v2 unless the v1 share says otherwise, whole or (the range share) a random range.
 */
final class RigLoad {
    /** The options it reads ({@code gates/run} refuses any other). */
    static final Set<String> OPTIONS = Set.of("zipf", "range-share", "write-share", "v1-share", "large-share");

    /** The workload: every share a flag of the rig, with its default there. */
    record Workload(double zipfExponent, double rangeShare, double writeShare, double v1Share, double largeShare) {
        /** The shares as the rig's flags give them ({@code --zipf}, {@code --range-share}, ...), with their defaults. */
        static Workload of(Args args) {
            return new Workload(args.number("zipf", 1.0), args.number("range-share", 0.1),
                    args.number("write-share", 0.05), args.number("v1-share", 0.0), args.number("large-share", 0.001));
        }

        Map<String, Object> json() {
            Map<String, Object> mix = new java.util.LinkedHashMap<>();
            mix.put("zipf", zipfExponent);
            mix.put("range_share", rangeShare);
            mix.put("write_share", writeShare);
            mix.put("v1_share", v1Share);
            mix.put("large_share", largeShare);
            return mix;
        }
    }

    /**
     * One rate step's outcome: reads and writes apart, the reads answered by class of file, and the ranged reads of
     * every class (a p99 is made by its slowest 1 %, so which reads those are is worth seeing).
     */
    record Step(int rate, OpenLoop.Outcome outcome, Histogram reads, Histogram writes,
                Map<FileClass, Histogram> readsByClass, Histogram rangedReads) {
        long sent() {
            return outcome.sent();
        }

        long errors() {
            return outcome.errors();
        }

        double achieved() {
            return outcome.achieved();
        }

        double ms(double percentile) {
            return OpenLoop.ms(reads, percentile);
        }

        double maxMs() {
            return OpenLoop.maxMs(reads);
        }
    }

    private final RigFixture fixture;
    private final int port;
    private final Function<String, String> readToken;
    private final String writeToken;
    private final Workload workload;
    private final ConnectionPool connections;
    private final DiscreteSampler zipf; // used by the scheduling thread only: samplers are not thread-safe
    /** The population's 10,000- and 100,000-term files, in index order, and a Zipf draw over them. */
    private final long[] large;
    private final DiscreteSampler largeZipf;
    private final SplittableRandom random = new SplittableRandom(11);
    private final AtomicLong writes = new AtomicLong();
    /**
     * Salts this generator's files. Drawn from their number alone, a run's files on a kept fixture would be those an
     * earlier run stored, and its writes dedup answers ({@code was_inserted: false}) and shards already registered
     * instead of the new files the mix says.
     */
    private final long writeSalt = ThreadLocalRandom.current().nextLong();

    RigLoad(RigFixture fixture, int port, Function<String, String> readToken, String writeToken, Workload workload,
            int maxInFlight) {
        this.fixture = fixture;
        this.port = port;
        this.readToken = readToken;
        this.writeToken = writeToken;
        this.workload = workload;
        this.connections = new ConnectionPool(port, maxInFlight);
        UniformRandomProvider rng = RandomSource.XO_RO_SHI_RO_128_PP.create(17L);
        this.zipf = RejectionInversionZipfSampler.of(rng, (int) Math.min(Integer.MAX_VALUE, fixture.files),
                workload.zipfExponent());
        this.large = fixture.largeFiles();
        this.largeZipf = large.length == 0 ? null : RejectionInversionZipfSampler.of(rng, large.length,
                workload.zipfExponent());
    }

    long[] largeFiles() {
        return large;
    }

    /** {@code rate} requests a second for {@code seconds}, then a wait for the last answers. */
    Step run(int rate, int seconds) throws InterruptedException {
        // Reads recorded apart by class and by whole or ranged, summed after the step.
        ConcurrentHistogram[][] byKind = new ConcurrentHistogram[FileClass.values().length][2];
        for (ConcurrentHistogram[] kind : byKind) {
            kind[0] = OpenLoop.histogram();
            kind[1] = OpenLoop.histogram();
        }
        ConcurrentHistogram writeLatency = OpenLoop.histogram();
        OpenLoop.Outcome o = OpenLoop.run(rate, seconds,
                () -> next((c, ranged) -> byKind[c.ordinal()][ranged ? 1 : 0], writeLatency));
        Histogram reads = OpenLoop.histogram();
        Histogram rangedReads = OpenLoop.histogram();
        Map<FileClass, Histogram> classes = new EnumMap<>(FileClass.class);
        for (FileClass c : FileClass.values()) {
            Histogram h = OpenLoop.histogram();
            h.add(byKind[c.ordinal()][0]);
            h.add(byKind[c.ordinal()][1]);
            rangedReads.add(byKind[c.ordinal()][1]);
            reads.add(h);
            classes.put(c, h);
        }
        return new Step(rate, o, reads, writeLatency, classes, rangedReads);
    }

    /**
     * A step cut into one-second windows by intended send time: request {@code i} goes to window {@code i / rate}, its
     * latency to that window's histogram (reads and writes apart), a failure to that window's error count.
     */
    record Windows(OpenLoop.Outcome outcome, ConcurrentHistogram[] reads, ConcurrentHistogram[] writes,
                   AtomicLongArray errors) {
    }

    /** {@link #run} with each second of the step recorded apart (the restart gate's view of a node's first seconds). */
    Windows runWindows(int rate, int seconds) throws InterruptedException {
        ConcurrentHistogram[] reads = new ConcurrentHistogram[seconds];
        ConcurrentHistogram[] writeLatency = new ConcurrentHistogram[seconds];
        for (int w = 0; w < seconds; w++) {
            reads[w] = OpenLoop.histogram();
            writeLatency[w] = OpenLoop.histogram();
        }
        AtomicLongArray errors = new AtomicLongArray(seconds);
        long[] sequence = {0}; // the scheduling thread's alone
        OpenLoop.Outcome o = OpenLoop.run(rate, seconds, () -> {
            int w = (int) Math.min(seconds - 1, sequence[0]++ / rate);
            OpenLoop.Request r = next((c, ranged) -> reads[w], writeLatency[w]);
            return new OpenLoop.Request(() -> {
                boolean good = r.send().getAsBoolean();
                if (!good) errors.incrementAndGet(w);
                return good;
            }, r.latency());
        });
        return new Windows(o, reads, writeLatency, errors);
    }

    /** Where a read of a file of class {@code c}, whole or ranged, records its latency. */
    private interface ReadHistograms {
        ConcurrentHistogram of(FileClass c, boolean ranged);
    }

    /** The next request of the mix, drawn on the scheduling thread. */
    private OpenLoop.Request next(ReadHistograms reads, ConcurrentHistogram writeLatency) {
        if (random.nextDouble() < workload.writeShare()) {
            long w = writes.incrementAndGet();
            return new OpenLoop.Request(() -> write(w), writeLatency);
        }
        // Most reads draw from every file by popularity; the large share, from the large files alone.
        long file = largeZipf != null && random.nextDouble() < workload.largeShare()
                ? large[largeZipf.sample() - 1] : fixture.fileOfRank(zipf.sample() - 1);
        boolean v1 = random.nextDouble() < workload.v1Share();
        boolean ranged = random.nextDouble() < workload.rangeShare();
        long rangeSeed = random.nextLong();
        return new OpenLoop.Request(() -> read(file, v1, ranged ? rangeSeed : null),
                reads.of(fixture.fileClass(file), ranged));
    }

    /** One reconstruction; {@code rangeSeed} non-null asks for a random range of the file. */
    boolean read(long file, boolean v1, Long rangeSeed) {
        MerkleHash id = fixture.fileHash(file);
        String path = (v1 ? "/v1/reconstructions/" : "/v2/reconstructions/") + id.hex();
        String range = rangeSeed == null ? null : LatencyGate.randomRange(new SplittableRandom(rangeSeed),
                fixture.file(file).size());
        byte[] request = RawHttp.get("127.0.0.1", port, path, readToken.apply(fixture.scopeOf(file)), range);
        return connections.exchange(request, null) == 200; // a ranged reconstruction is a 200 too
    }

    int port() {
        return port;
    }

    /** The read token this load sends for files of {@code scope}. */
    String readToken(String scope) {
        return readToken.apply(scope);
    }

    /** This generator's {@code w}-th new small file: one xorb of 16 chunks of 1–8 KiB. */
    Xorb newFile(long w) {
        return ShardFixtures.xorb(new SplittableRandom(writeSalt ^ w * 0x9E3779B97F4A7C15L), RigFixture.SMALL_CHUNKS,
                1024, 8 * 1024);
    }

    /** A new small file's xorb and then its shard, as a client uploads one. */
    boolean write(long w) {
        Xorb x = newFile(w);
        byte[] shard = ShardFixtures.shard(List.of(new Term(x, 0, x.chunks())), List.of(x));
        int xorb = connections.exchange(RawHttp.post("127.0.0.1", port, "/v1/xorbs/default/" + x.hash().hex(), writeToken,
                x.body().length), x.body());
        return xorb == 200 && connections.exchange(RawHttp.post("127.0.0.1", port, "/v1/shards", writeToken,
                shard.length), shard) == 200;
    }
}
