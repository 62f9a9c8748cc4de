package org.openxet.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openxet.gates.Files2;
import org.openxet.gates.ShardFixtures;
import org.openxet.protocol.ClientUploads.Term;
import org.openxet.protocol.ClientUploads.Xorb;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;
import org.openxet.service.ShardRegistration;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * One {@link ShardRegistration#register} of a 4-file shard, one at a time, on a warm SQLite index on disk (a
 * LocalBucket and SQLite under a temp dir, synchronous=FULL as in production): parse, load the 4 xorbs' layouts,
 * validate, write the stored shard (fsync'd bucket put) and register it in one durable transaction. Every invocation
 * registers a new shard: its 4 files are a new chunk range of each of 4 stored xorbs of {@value ShardFixtures#CHUNKS}
 * chunks, and it lists those 4 xorbs (about a 63 KiB stored shard, like the commit gate's). The index is warmed with
 * 500 such shards first. The shard body is built in an invocation-level setup, outside the timing.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class RegistrationBench {
    private Path dir;
    private Services services;
    private List<Xorb> xorbs;
    private int next;
    private byte[] body;

    @Setup(Level.Trial)
    public void setup() throws Exception {
        dir = Files.createTempDirectory("openxet-bench-registration");
        services = Services.open(ServerConfig.defaults(dir).withHost("127.0.0.1").withPort(0));
        SplittableRandom r = new SplittableRandom(9);
        xorbs = new ArrayList<>();
        for (int i = 0; i < ShardFixtures.FILES_PER_SHARD; i++) {
            Xorb x = ShardFixtures.xorb(r, ShardFixtures.CHUNKS);
            services.ingest().ingest(x.hash(), x.body(), x.body().length);
            xorbs.add(x);
        }
        for (int i = 0; i < 500; i++) {
            byte[] warm = shard(next++);
            if (!services.shards().register(warm, warm.length, ShardFixtures.SCOPE, ShardRegistration.SILENT)) {
                throw new IllegalStateException("warm-up shard was not new");
            }
        }
    }

    /**
     * Shard {@code n}: file j covers chunks {@code [a, a + len)} of xorb j, with {@code (a, len)} the n-th pair when
     * pairs are enumerated longest first (one of 256 chunks, two of 255, ...), so no two shards share a file and the
     * files stay close to the gate's whole-xorb files (past 6,000 shards they still span more than 140 chunks).
     */
    private byte[] shard(int n) {
        int len = ShardFixtures.CHUNKS;
        int k = n;
        while (k >= ShardFixtures.CHUNKS - len + 1) {
            k -= ShardFixtures.CHUNKS - len + 1;
            len--;
            if (len == 0) throw new IllegalStateException("out of distinct shards");
        }
        List<Term> terms = new ArrayList<>();
        for (Xorb x : xorbs) {
            terms.add(new Term(x, k, k + len));
        }
        return ShardFixtures.shard(terms, xorbs);
    }

    @Setup(Level.Invocation)
    public void nextShard() {
        body = shard(next++);
    }

    @Benchmark
    public boolean register() throws Exception {
        boolean fresh = services.shards().register(body, body.length, ShardFixtures.SCOPE, ShardRegistration.SILENT);
        if (!fresh) throw new IllegalStateException("shard was registered before: fixture bug");
        return fresh;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        services.close();
        Files2.deleteTree(dir);
    }
}
