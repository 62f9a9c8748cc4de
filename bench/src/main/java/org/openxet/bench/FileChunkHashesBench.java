package org.openxet.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openxet.gates.Files2;
import org.openxet.gates.ReconstructionFixtures;
import org.openxet.gates.ReconstructionFixtures.Shape;
import org.openxet.gates.ReconstructionFixtures.Xorbs;
import org.openxet.service.FileChunkHashes;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;
import org.openxet.storage.FileRecord;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * One {@code /v2/file-chunk-hashes} answer ({@link FileChunkHashes#answer}, no HTTP) for a 100-byte edit in the middle
 * of the latency gate's files: 100,000 terms over 1,000 xorbs of 1,024 chunks, registered through the Index API in
 * SQLite on disk. The unmerged file has 900,000 chunks (about 57 GB of content); nearly all of them are in the two
 * gaps, whose merkle trees are most of the work. Milliseconds per answer.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class FileChunkHashesBench {
    @Param({"UNMERGED", "MERGED"})
    public Shape shape;

    private Path dir;
    private Services services;
    private FileRecord file;
    private FileChunkHashes chunkHashes;

    @Setup(Level.Trial)
    public void setup() throws Exception {
        dir = Files.createTempDirectory("openxet-bench-chunk-hashes");
        services = Services.open(ServerConfig.defaults(dir).withHost("127.0.0.1").withPort(0));
        Xorbs xorbs = ReconstructionFixtures.xorbs(1000, 1);
        SplittableRandom r = new SplittableRandom(2);
        FileRecord f = ReconstructionFixtures.file(shape, 100_000, xorbs, 0, ReconstructionFixtures.randomHash(r));
        ReconstructionFixtures.registerXorbs(services.index(), xorbs);
        ReconstructionFixtures.registerFiles(services.index(), ReconstructionFixtures.SCOPE, List.of(f), xorbs,
                ReconstructionFixtures.randomHash(r));
        file = services.index().file(f.fileHash(), ReconstructionFixtures.SCOPE).orElseThrow();
        chunkHashes = new FileChunkHashes(services.index());
    }

    @Benchmark
    public long answer() throws Exception {
        long middle = file.size() / 2;
        return chunkHashes.answer(file, List.of(new FileChunkHashes.Range(middle, middle + 100))).totalChunks();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        services.close();
        Files2.deleteTree(dir);
    }
}
