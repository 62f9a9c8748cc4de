package org.openxet.protocol;

import java.util.Arrays;
import java.util.Objects;

import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.xxhash.XXHash32;
import net.jpountz.xxhash.XXHashFactory;

/**
 * LZ4 frames for chunk schemes 1 and 2 (§3.3). Decoding prefers the system liblz4 through FFM; without it, our
 * frame parser over lz4-java (see {@link JavaLz4FrameDecoder} for its one limitation). Encoding uses lz4-java.
 */
public final class Lz4 {
    private static final LZ4Factory LZ4_JAVA = LZ4Factory.fastestInstance();
    private static final LZ4Compressor COMPRESSOR = LZ4_JAVA.fastCompressor();
    private static final XXHash32 XXHASH = XXHashFactory.fastestInstance().hash32();
    /** Version 01, independent blocks; no block checksums, content size or content checksum (like the clients). */
    private static final int ENCODER_FLG = Lz4Frame.FLG_VERSION_01 | Lz4Frame.FLG_BLOCK_INDEPENDENCE;

    static {
        if (Lz4Native.instance() == null) {
            System.err.println("openxet: WARNING " + Lz4Native.SONAME + " unavailable ("
                    + Lz4Native.loadFailure().getMessage() + "); decoding LZ4 with lz4-java ("
                    + JavaLz4FrameDecoder.backendOf(LZ4_JAVA) + "), slower");
        }
    }

    private Lz4() {
    }

    /** A new decoder for one thread: liblz4 through FFM when it loaded, else the lz4-java fallback. */
    public static Lz4FrameDecoder newDecoder() {
        Lz4Native lib = Lz4Native.instance();
        return lib != null ? new FfmLz4FrameDecoder(lib) : new JavaLz4FrameDecoder(LZ4_JAVA);
    }

    /** The backend {@link #newDecoder()} uses: "ffm" (system liblz4), else lz4-java's "jni" or "java". */
    public static String backend() {
        return Lz4Native.instance() != null ? "ffm" : JavaLz4FrameDecoder.backendOf(LZ4_JAVA);
    }

    /**
     * The liblz4 decoder regardless of the default, for benchmarks and tests.
     *
     * @throws UnsupportedOperationException when liblz4 did not load
     */
    public static Lz4FrameDecoder newFfmDecoder() {
        Lz4Native lib = Lz4Native.instance();
        if (lib == null) {
            throw new UnsupportedOperationException(Lz4Native.SONAME + " did not load", Lz4Native.loadFailure());
        }
        return new FfmLz4FrameDecoder(lib);
    }

    /** The lz4-java fallback decoder regardless of the default (JNI when it loads), for benchmarks and tests. */
    public static Lz4FrameDecoder newLz4JavaDecoder() {
        return new JavaLz4FrameDecoder(LZ4_JAVA);
    }

    /**
     * Compresses {@code src[offset, offset+length)} into one LZ4 frame as the clients write them: independent
     * blocks, no checksums, no content size. The block max size is the smallest of 64 KiB, 256 KiB, 1 MiB, 4 MiB
     * that holds the input (as lz4_flex picks it), so a chunk is one block; a block that does not shrink is stored.
     * Thread-safe.
     */
    public static byte[] encodeFrame(byte[] src, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, src.length);
        int blockSizeId = 4;
        while (blockSizeId < 7 && Lz4Frame.blockMaxSize(blockSizeId) < length) {
            blockSizeId++;
        }
        int blockMax = Lz4Frame.blockMaxSize(blockSizeId);
        int blocks = (length + blockMax - 1) / blockMax;
        int bound = Lz4Frame.MIN_HEADER + 4;
        for (int b = 0; b < blocks; b++) {
            bound += 4 + COMPRESSOR.maxCompressedLength(Math.min(blockMax, length - b * blockMax));
        }
        byte[] out = new byte[bound];
        Lz4Frame.writeIntLE(out, 0, Lz4Frame.MAGIC);
        out[4] = (byte) ENCODER_FLG;
        out[5] = (byte) (blockSizeId << 4);
        out[6] = (byte) (XXHASH.hash(out, 4, 2, 0) >>> 8);
        int p = Lz4Frame.MIN_HEADER;
        for (int at = offset, end = offset + length; at < end; at += blockMax) {
            int n = Math.min(blockMax, end - at);
            int compressed = COMPRESSOR.compress(src, at, n, out, p + 4, out.length - p - 4);
            if (compressed < n) {
                Lz4Frame.writeIntLE(out, p, compressed);
                p += 4 + compressed;
            } else {
                Lz4Frame.writeIntLE(out, p, n | Lz4Frame.BLOCK_UNCOMPRESSED);
                System.arraycopy(src, at, out, p + 4, n);
                p += 4 + n;
            }
        }
        Lz4Frame.writeIntLE(out, p, 0);
        return Arrays.copyOf(out, p + 4);
    }
}
