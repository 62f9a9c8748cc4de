package org.openxet.bench;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openxet.protocol.Blake3;
import org.openxet.protocol.JavaBlake3;

/**
 * Keyed BLAKE3 of one chunk-sized buffer: the official C library through FFM ({@code Blake3.get()}, which must be
 * the native backend — the setup refuses to measure the fallback by accident) against BouncyCastle. Scores are
 * hashes per second; bytes per second = score × size.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class Blake3Bench {
    @Param({"8192", "65536"})
    public int size;

    private byte[] key;
    private byte[] data;
    private byte[] out;
    private Blake3 ffm;
    private Blake3 bouncyCastle;

    @Setup
    public void setup() {
        SplittableRandom r = new SplittableRandom(42);
        key = new byte[32];
        r.nextBytes(key);
        data = new byte[size];
        r.nextBytes(data);
        out = new byte[32];
        ffm = Blake3.get();
        if (!"ffm".equals(ffm.backend())) {
            throw new IllegalStateException("native BLAKE3 did not load; run native/build.sh and pass "
                    + "-Dopenxet.native.dir=<repo>/native/build");
        }
        bouncyCastle = JavaBlake3.INSTANCE;
    }

    @Benchmark
    public byte[] ffm() {
        ffm.keyedHash(key, data, 0, size, out, 0);
        return out;
    }

    @Benchmark
    public byte[] bouncyCastle() {
        bouncyCastle.keyedHash(key, data, 0, size, out, 0);
        return out;
    }
}
