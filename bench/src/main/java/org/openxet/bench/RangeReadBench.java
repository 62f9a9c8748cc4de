package org.openxet.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openxet.gates.Files2;
import org.openxet.storage.LocalBucket;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * What the fetch route pays to read one range of a stored xorb from the local bucket, page cache warm: open the
 * range, copy it into a 256 KiB array as {@code FetchRoutes} does, close. {@code way}: {@code read} never maps
 * ({@code FileChannel} reads through a temporary direct buffer), {@code map} always maps ({@code FileChannel.map}
 * into a confined arena), {@code server} is the bucket as the server builds it (maps from
 * {@code LocalBucket.MAP_FROM_BYTES}, 4 MiB). Ranges start at random offsets of a 63 MB object. Score: time per
 * range.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RangeReadBench {
    private static final String KEY = "xorbs/default/00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    private static final int OBJECT = 63_000_000;

    @Param({"262144", "1048576", "2097152", "4194304", "16777216"})
    public int size;

    @Param({"read", "map", "server"})
    public String way;

    private Path dir;
    private LocalBucket bucket;
    private final byte[] buf = new byte[256 * 1024];
    private final SplittableRandom offsets = new SplittableRandom(7);

    @Setup
    public void setup() throws IOException {
        dir = Files.createTempDirectory("openxet-range-bench");
        long mapFrom = switch (way) {
            case "read" -> Long.MAX_VALUE;
            case "map" -> 0;
            default -> LocalBucket.MAP_FROM_BYTES;
        };
        bucket = new LocalBucket(dir, mapFrom);
        byte[] object = new byte[OBJECT];
        new SplittableRandom(1).nextBytes(object);
        bucket.put(KEY, object);
    }

    @Benchmark
    public long range() throws IOException {
        long at = offsets.nextLong(OBJECT - size);
        long sum = 0;
        try (InputStream in = bucket.openRange(KEY, at, size)) {
            for (int n; (n = in.read(buf, 0, buf.length)) > 0; ) sum += buf[n - 1];
        }
        return sum;
    }

    @TearDown
    public void tearDown() throws IOException {
        Files2.deleteTree(dir);
    }
}
