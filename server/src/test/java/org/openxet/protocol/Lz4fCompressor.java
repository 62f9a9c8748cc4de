package org.openxet.protocol;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;

/**
 * liblz4's own frame compressor ({@code LZ4F_compressFrame}) through FFM, so tests can build frames lz4-java's
 * encoder cannot: truly linked blocks, block checksums, content size, any block max size.
 */
final class Lz4fCompressor {
    private static final MethodHandle BOUND;
    private static final MethodHandle COMPRESS;
    private static final MethodHandle IS_ERROR;

    static {
        Lz4Native lib = Lz4Native.instance();
        if (lib == null) {
            throw new IllegalStateException("liblz4 did not load", Lz4Native.loadFailure());
        }
        Linker linker = Linker.nativeLinker();
        BOUND = linker.downcallHandle(lib.find("LZ4F_compressFrameBound"),
                FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));
        COMPRESS = linker.downcallHandle(lib.find("LZ4F_compressFrame"), FunctionDescriptor.of(ValueLayout.JAVA_LONG,
                ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                ValueLayout.ADDRESS), Linker.Option.critical(true));
        IS_ERROR = lib.isError;
    }

    /** Frame options; blockSizeId 4..7 (64 KiB .. 4 MiB), liblz4 lowers it to the smallest that holds the input. */
    record Options(int blockSizeId, boolean linked, boolean blockChecksum, boolean contentChecksum,
                   boolean contentSize, int level) {
        @Override
        public String toString() {
            return "bsid=" + blockSizeId + (linked ? " linked" : " independent") + (blockChecksum ? " +blockCk" : "")
                    + (contentChecksum ? " +contentCk" : "") + (contentSize ? " +size" : "") + " level=" + level;
        }
    }

    private Lz4fCompressor() {
    }

    static byte[] compress(byte[] src, Options o) {
        try (Arena arena = Arena.ofConfined()) {
            // LZ4F_preferences_t (lz4frame.h 1.9): LZ4F_frameInfo_t {blockSizeID, blockMode, contentChecksumFlag,
            // frameType, u64 contentSize, dictID, blockChecksumFlag} (32 bytes), then compressionLevel, autoFlush,
            // favorDecSpeed, reserved[3]: 56 bytes.
            MemorySegment prefs = arena.allocate(56, 8);
            prefs.set(ValueLayout.JAVA_INT, 0, o.blockSizeId());
            prefs.set(ValueLayout.JAVA_INT, 4, o.linked() ? 0 : 1);
            prefs.set(ValueLayout.JAVA_INT, 8, o.contentChecksum() ? 1 : 0);
            prefs.set(ValueLayout.JAVA_LONG, 16, o.contentSize() ? 1 : 0); // non-zero: liblz4 writes the real size
            prefs.set(ValueLayout.JAVA_INT, 28, o.blockChecksum() ? 1 : 0);
            prefs.set(ValueLayout.JAVA_INT, 32, o.level());
            long bound = (long) BOUND.invokeExact((long) src.length, prefs);
            byte[] dst = new byte[Math.toIntExact(bound)];
            long n = (long) COMPRESS.invokeExact(MemorySegment.ofArray(dst), (long) dst.length,
                    MemorySegment.ofArray(src), (long) src.length, prefs);
            if ((int) IS_ERROR.invokeExact(n) != 0) {
                throw new IllegalStateException("LZ4F_compressFrame failed: " + n);
            }
            return Arrays.copyOf(dst, (int) n);
        } catch (Throwable t) {
            throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
        }
    }
}
