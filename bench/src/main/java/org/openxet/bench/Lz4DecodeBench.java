package org.openxet.bench;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import net.jpountz.xxhash.XXHashFactory;
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
import org.openxet.protocol.FormatException;
import org.openxet.protocol.Lz4;
import org.openxet.protocol.Lz4FrameDecoder;

/**
 * Decoding one 64 KiB text chunk (the "words" recipe of testdata/vectors, seed 4242: compresses about 2:1) from an
 * LZ4 frame. Decoders: {@code ffm} is liblz4's frame API through FFM ({@link Lz4#newFfmDecoder}, the default);
 * {@code lz4java} our frame parser over lz4-java's JNI block decoder (the fallback); {@code ffm-block} the other
 * route we could have taken: skip the header and call liblz4's {@code LZ4_decompress_safe} on the single block
 * through FFM (a lower bound for it: no frame parsing, no checksums). Two frame shapes: {@code client} is what the
 * JS client sends (FLG 0x40, BD 0x70: one block under a 4 MiB block max), {@code ours} is {@link Lz4#encodeFrame}
 * (FLG 0x60, BD 0x40: 64 KiB block max). Scores are chunks per second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class Lz4DecodeBench {
    private static final int SIZE = 65_536;

    @Param({"ffm", "lz4java", "ffm-block"})
    public String decoder;

    @Param({"client", "ours"})
    public String frame;

    private byte[] compressed;
    private byte[] out;
    private Lz4FrameDecoder lz4;
    private MethodHandle decompressSafe;
    private int blockSize;

    @Setup
    public void setup() throws FormatException {
        byte[] chunk = words(4242, SIZE);
        compressed = Lz4.encodeFrame(chunk, 0, chunk.length);
        if (frame.equals("client")) {
            compressed[4] = 0x40;
            compressed[5] = 0x70;
            compressed[6] = (byte) (XXHashFactory.fastestInstance().hash32().hash(compressed, 4, 2, 0) >>> 8);
        }
        out = new byte[SIZE];
        if (decoder.equals("ffm-block")) {
            // int LZ4_decompress_safe(const char* src, char* dst, int compressedSize, int dstCapacity)
            decompressSafe = Linker.nativeLinker().downcallHandle(
                    SymbolLookup.libraryLookup("liblz4.so.1", Arena.global()).find("LZ4_decompress_safe")
                            .orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS,
                            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
                    Linker.Option.critical(true));
            blockSize = (compressed[7] & 0xFF) | (compressed[8] & 0xFF) << 8 | (compressed[9] & 0xFF) << 16
                    | (compressed[10] & 0xFF) << 24;
            if (blockSize < 0 || compressed.length != 7 + 4 + blockSize + 4) {
                throw new IllegalStateException("ffm-block needs a frame of one compressed block");
            }
        } else {
            lz4 = decoder.equals("ffm") ? Lz4.newFfmDecoder() : Lz4.newLz4JavaDecoder();
        }
        decode();
        if (!Arrays.equals(chunk, out)) {
            throw new IllegalStateException("decoder " + decoder + " does not round-trip");
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        if (lz4 != null) {
            lz4.close();
        }
    }

    @Benchmark
    public byte[] decode() throws FormatException {
        if (lz4 != null) {
            lz4.decodeFrame(compressed, 0, compressed.length, out, 0, SIZE);
            return out;
        }
        int n;
        try {
            n = (int) decompressSafe.invokeExact(MemorySegment.ofArray(compressed).asSlice(11),
                    MemorySegment.ofArray(out), blockSize, SIZE);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        if (n != SIZE) {
            throw new FormatException("LZ4_decompress_safe returned " + n);
        }
        return out;
    }

    /** testdata/vectors/README.md "words": words[b[j] & 7] over the splitmix64 bytes of seed, cut at size. */
    static byte[] words(long seed, int size) {
        String[] words = {"xet ", "chunk ", "hash ", "merkle ", "shard ", "xorb ", "blake3 ", "gear "};
        SplittableRandom r = new SplittableRandom(seed);
        byte[] b = new byte[size + 8];
        for (int i = 0; i < size; i += 8) {
            long v = r.nextLong();
            for (int k = 0; k < 8; k++) {
                b[i + k] = (byte) (v >>> (8 * k));
            }
        }
        ByteArrayOutputStream text = new ByteArrayOutputStream(size + 16);
        for (int j = 0; text.size() < size; j++) {
            text.writeBytes(words[b[j] & 7].getBytes(StandardCharsets.US_ASCII));
        }
        return Arrays.copyOf(text.toByteArray(), size);
    }
}
