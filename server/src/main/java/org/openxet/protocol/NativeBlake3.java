package org.openxet.protocol;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The official BLAKE3 C library (SIMD, runtime-dispatched) through FFM, via our helper {@code libopenxet_blake3.so}
 * (native/blake3). About 14 times BouncyCastle on 64 KiB chunks (docs/BENCHMARKS.md).
 *
 * <p>Heap arrays go to C without copying: the downcalls are {@link Linker.Option#critical(boolean) critical} with
 * heap access, so nothing is copied and the GC simply waits until the call returns. That suits chunk-sized calls
 * (a 64 KiB chunk takes ~10 µs); a batch over a whole 64 MiB xorb holds a pending GC for ~10 ms, so callers that
 * care about pauses split big batches. The handles are immutable, so one instance serves all threads.
 */
public final class NativeBlake3 implements Blake3 {
    public static final String LIBRARY = "libopenxet_blake3.so";
    private static final int KEY_LENGTH = 32;

    private final MethodHandle keyedHash;
    private final MethodHandle keyedHashBatch;
    private final MethodHandle hash;
    private final String version;

    private NativeBlake3(SymbolLookup lib) {
        Linker linker = Linker.nativeLinker();
        Linker.Option heap = Linker.Option.critical(true);
        keyedHash = linker.downcallHandle(symbol(lib, "oxb3_keyed_hash"), FunctionDescriptor.ofVoid(
                ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS), heap);
        keyedHashBatch = linker.downcallHandle(symbol(lib, "oxb3_keyed_hash_batch"), FunctionDescriptor.ofVoid(
                ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS,
                ValueLayout.JAVA_LONG, ValueLayout.ADDRESS), heap);
        hash = linker.downcallHandle(symbol(lib, "oxb3_hash"), FunctionDescriptor.ofVoid(
                ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS), heap);
        MethodHandle versionHandle = linker.downcallHandle(symbol(lib, "oxb3_version"),
                FunctionDescriptor.of(ValueLayout.ADDRESS.withTargetLayout(
                        java.lang.foreign.MemoryLayout.sequenceLayout(64, ValueLayout.JAVA_BYTE))));
        try {
            version = ((MemorySegment) versionHandle.invokeExact()).getString(0);
        } catch (Throwable t) {
            throw new IllegalStateException("oxb3_version failed", t);
        }
    }

    /**
     * Loads the library once per call; {@link Blake3#get()} keeps the process-wide instance.
     *
     * @throws UnsatisfiedLinkError when the library is not built or lacks our symbols
     */
    static NativeBlake3 load() {
        Path path = NativeLibraries.find(LIBRARY);
        // The global arena: the library stays mapped for the life of the process, as the method handles need.
        return new NativeBlake3(SymbolLookup.libraryLookup(path, Arena.global()));
    }

    private static MemorySegment symbol(SymbolLookup lib, String name) {
        return lib.find(name).orElseThrow(() -> new UnsatisfiedLinkError(LIBRARY + " lacks " + name
                + "; rebuild it with native/build.sh"));
    }

    @Override
    public void keyedHash(byte[] key, byte[] data, int offset, int length, byte[] out, int outOffset) {
        checkKey(key);
        Objects.checkFromIndexSize(offset, length, data.length);
        Objects.checkFromIndexSize(outOffset, 32, out.length);
        try {
            keyedHash.invokeExact(MemorySegment.ofArray(key), MemorySegment.ofArray(data).asSlice(offset),
                    (long) length, MemorySegment.ofArray(out).asSlice(outOffset));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void keyedHashBatch(byte[] key, byte[] data, int[] offsets, int[] lengths, int count, byte[] out) {
        checkKey(key);
        Objects.checkFromIndexSize(0, count, offsets.length);
        Objects.checkFromIndexSize(0, count, lengths.length);
        Objects.checkFromIndexSize(0, 32L * count, out.length);
        // C trusts the slices, so every one is bounds-checked here; cheap next to hashing them.
        for (int i = 0; i < count; i++) {
            Objects.checkFromIndexSize(offsets[i], lengths[i], data.length);
        }
        try {
            keyedHashBatch.invokeExact(MemorySegment.ofArray(key), MemorySegment.ofArray(data),
                    MemorySegment.ofArray(offsets), MemorySegment.ofArray(lengths), (long) count,
                    MemorySegment.ofArray(out));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Unkeyed BLAKE3 of {@code data[offset, offset + length)}: only for checking the published test vectors. */
    void hash(byte[] data, int offset, int length, byte[] out) {
        Objects.checkFromIndexSize(offset, length, data.length);
        Objects.checkFromIndexSize(0, 32, out.length);
        try {
            hash.invokeExact(MemorySegment.ofArray(data).asSlice(offset), (long) length, MemorySegment.ofArray(out));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public String backend() {
        return "ffm";
    }

    /** The BLAKE3 C library's version, e.g. "1.3.1". */
    public String libraryVersion() {
        return version;
    }

    private static void checkKey(byte[] key) {
        if (key.length != KEY_LENGTH) {
            throw new IllegalArgumentException("a BLAKE3 key has 32 bytes, got " + key.length);
        }
    }

    /** The downcalls declare no exceptions; anything thrown is an unchecked error (bounds are checked before). */
    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t);
    }
}
