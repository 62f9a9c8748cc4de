package org.openxet.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openxet.gates.ReconstructionFixtures;
import org.openxet.gates.ReconstructionFixtures.Shape;
import org.openxet.gates.ReconstructionFixtures.Xorbs;
import org.openxet.http.AnswerFormat;
import org.openxet.http.AnswerWriter;
import org.openxet.http.JsonBytes;
import org.openxet.http.ReconstructionJson;
import org.openxet.http.UrlSigner;
import org.openxet.service.ReconstructionPlanner;
import org.openxet.service.ReconstructionPlanner.Plan;
import org.openxet.service.SignedUrls;
import org.openxet.storage.FileRecord;

import java.io.OutputStream;
import java.time.Clock;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Building one full-file v2 reconstruction answer in memory, the server's work between reading the file record and
 * handing the body to Helidon: {@code answer} is {@link ReconstructionPlanner#plan} plus
 * {@link ReconstructionJson#writeV2} (URL signing included) into a reused {@link JsonBytes}, one thread;
 * {@code answerWriter} is the plan plus the server's own v2 writer ({@link AnswerWriter}: segments rendered by helper
 * threads too, from 16,384 terms up, when writer permits are free as on an idle server) into a discarding stream,
 * every answer rendered and signed anew as the server's are; {@code plan} is the plan alone. Files of 1k, 10k and 100k terms in the latency gate's two shapes ({@link ReconstructionFixtures}: 100 terms a
 * xorb, so 10, 100 and 1,000 xorbs; unmerged has one fetch descriptor per term, merged one per xorb). The file record
 * is built in memory: a full-file plan reads nothing else from the index (the gate times {@code Index.file} apart).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ReconstructionBench {
    @Param({"1000", "10000", "100000"})
    public int terms;

    @Param({"UNMERGED", "MERGED"})
    public Shape shape;

    private FileRecord file;
    private ReconstructionPlanner planner;
    private SignedUrls urls;
    private JsonBytes out;
    private AnswerWriter writer;

    @Setup
    public void setup() {
        Xorbs xorbs = ReconstructionFixtures.xorbs(terms / ReconstructionFixtures.TERMS_PER_XORB, 1);
        file = ReconstructionFixtures.file(shape, terms, xorbs, 0, ReconstructionFixtures.randomHash(new SplittableRandom(2)));
        // A full-file plan never reads the index: the packed terms carry their byte ranges.
        planner = new ReconstructionPlanner(null);
        byte[] key = new byte[32];
        new SplittableRandom(3).nextBytes(key);
        urls = new SignedUrls(key, 3600, Clock.systemUTC());
        out = new JsonBytes(null, 1 << 20);
        writer = new AnswerWriter(Runtime.getRuntime().availableProcessors());
    }

    @Benchmark
    public int answer() throws Exception {
        Plan p = planner.plan(file, null);
        out.reset();
        ReconstructionJson.writeV2(out, p, new UrlSigner(urls, "http://127.0.0.1:8080", ReconstructionFixtures.SCOPE,
                urls.expiry()));
        return out.length();
    }

    @Benchmark
    public int answerWriter() throws Exception {
        Plan p = planner.plan(file, null);
        writer.write(AnswerFormat.V2, AnswerWriter.Body.of(OutputStream.nullOutputStream()), p, new UrlSigner(urls, "http://127.0.0.1:8080",
                ReconstructionFixtures.SCOPE, urls.expiry()));
        return p.termCount();
    }

    @Benchmark
    public Plan plan() throws Exception {
        return planner.plan(file, null);
    }
}
