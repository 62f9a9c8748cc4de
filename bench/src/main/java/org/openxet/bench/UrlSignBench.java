package org.openxet.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openxet.gates.ReconstructionFixtures;
import org.openxet.gates.ReconstructionFixtures.Shape;
import org.openxet.gates.ReconstructionFixtures.Xorbs;
import org.openxet.gates.SigningWork;
import org.openxet.http.JsonBytes;
import org.openxet.http.UrlSigner;
import org.openxet.service.ReconstructionPlanner;
import org.openxet.service.ReconstructionPlanner.Plan;
import org.openxet.service.SignedUrls;
import org.openxet.storage.FileRecord;

import java.time.Clock;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Signing the fetch URLs of the unmerged 100k-term file (100,000 descriptors over 1,000 xorbs) with {@link UrlSigner}:
 * {@code perDescriptor} signs 100,000 URLs of one range each (the v1 answer's shape, and the seed's "signing 100k URLs
 * over 1,000 xorbs"); {@code perXorbEntry} signs what the v2 answer signs, 1,000 URLs of 100 ranges each. Each URL is
 * written into a small reused {@link JsonBytes}, reset per xorb; the grant is encoded as the writer does
 * ({@link SigningWork}, shared with the latency gate's stage breakdown). Scores are milliseconds for the whole file.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class UrlSignBench {
    private Plan plan;
    private byte[][] hex;
    private SignedUrls urls;
    private JsonBytes out;

    @Setup
    public void setup() throws Exception {
        Xorbs xorbs = ReconstructionFixtures.xorbs(1000, 1);
        FileRecord file = ReconstructionFixtures.file(Shape.UNMERGED, 100_000, xorbs, 0,
                ReconstructionFixtures.randomHash(new SplittableRandom(2)));
        plan = new ReconstructionPlanner(null).plan(file, null);
        hex = SigningWork.hex(plan);
        byte[] key = new byte[32];
        new SplittableRandom(3).nextBytes(key);
        urls = new SignedUrls(key, 3600, Clock.systemUTC());
        out = new JsonBytes(null, 1 << 20);
    }

    private UrlSigner signer() {
        return new UrlSigner(urls, "http://127.0.0.1:8080", ReconstructionFixtures.SCOPE, urls.expiry());
    }

    @Benchmark
    public int perDescriptor() {
        return SigningWork.perDescriptor(signer(), plan, hex, out);
    }

    @Benchmark
    public int perXorbEntry() {
        return SigningWork.perXorbEntry(signer(), plan, hex, out);
    }
}
