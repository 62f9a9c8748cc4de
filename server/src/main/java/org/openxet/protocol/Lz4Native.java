package org.openxet.protocol;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Downcall handles into the system liblz4 (its frame API, {@code lz4frame.h}), created once per process.
 * Loaded by soname: distributions ship only {@code liblz4.so.1} outside their -dev package, and 1.9.x is the
 * stable ABI this binds to ({@code LZ4F_VERSION} 100).
 */
final class Lz4Native {
    static final String SONAME = "liblz4.so.1";
    /** LZ4F_VERSION: the ABI version every context is created with. */
    static final int LZ4F_VERSION = 100;

    private static final Lz4Native INSTANCE;
    private static final Throwable LOAD_FAILURE;

    static {
        Lz4Native lib = null;
        Throwable failure = null;
        try {
            lib = new Lz4Native(SymbolLookup.libraryLookup(SONAME, Arena.global()));
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            // Kept and reported by Lz4.backendFailure(); the lz4-java decoder takes over.
            failure = e;
        }
        INSTANCE = lib;
        LOAD_FAILURE = failure;
    }

    /** size_t LZ4F_createDecompressionContext(LZ4F_dctx** dctxPtr, unsigned version) */
    final MethodHandle createDctx;
    /** size_t LZ4F_freeDecompressionContext(LZ4F_dctx* dctx) */
    final MethodHandle freeDctx;
    /** void LZ4F_resetDecompressionContext(LZ4F_dctx* dctx) */
    final MethodHandle resetDctx;
    /**
     * size_t LZ4F_decompress(LZ4F_dctx*, void* dst, size_t* dstSize, const void* src, size_t* srcSize,
     * const LZ4F_decompressOptions_t*) — critical with heap access, so src and dst can be Java arrays.
     */
    final MethodHandle decompress;
    /** unsigned LZ4F_isError(size_t code) */
    final MethodHandle isError;
    /** const char* LZ4F_getErrorName(size_t code) */
    final MethodHandle errorName;
    /** The library itself, for tests that need more of its API (the frame compressor). */
    final SymbolLookup lookup;

    private Lz4Native(SymbolLookup lookup) {
        this.lookup = lookup;
        Linker linker = Linker.nativeLinker();
        ValueLayout sizeT = ValueLayout.JAVA_LONG;
        AddressLayout ptr = ValueLayout.ADDRESS;
        createDctx = linker.downcallHandle(find("LZ4F_createDecompressionContext"),
                FunctionDescriptor.of(sizeT, ptr, ValueLayout.JAVA_INT));
        freeDctx = linker.downcallHandle(find("LZ4F_freeDecompressionContext"), FunctionDescriptor.of(sizeT, ptr));
        resetDctx = linker.downcallHandle(find("LZ4F_resetDecompressionContext"), FunctionDescriptor.ofVoid(ptr));
        decompress = linker.downcallHandle(find("LZ4F_decompress"),
                FunctionDescriptor.of(sizeT, ptr, ptr, ptr, ptr, ptr, ptr), Linker.Option.critical(true));
        isError = linker.downcallHandle(find("LZ4F_isError"), FunctionDescriptor.of(ValueLayout.JAVA_INT, sizeT),
                Linker.Option.critical(false));
        errorName = linker.downcallHandle(find("LZ4F_getErrorName"),
                FunctionDescriptor.of(ptr.withTargetLayout(java.lang.foreign.MemoryLayout.sequenceLayout(256,
                        ValueLayout.JAVA_BYTE)), sizeT));
    }

    MemorySegment find(String name) {
        return lookup.find(name).orElseThrow(() -> new UnsatisfiedLinkError(SONAME + " lacks " + name));
    }

    /** The loaded library, or null when it could not be loaded ({@link #loadFailure()} says why). */
    static Lz4Native instance() {
        return INSTANCE;
    }

    static Throwable loadFailure() {
        return LOAD_FAILURE;
    }

    boolean failed(long code) {
        try {
            return (int) isError.invokeExact(code) != 0;
        } catch (Throwable t) {
            throw new IllegalStateException("LZ4F_isError failed", t);
        }
    }

    String describe(long code) {
        try {
            return ((MemorySegment) errorName.invokeExact(code)).getString(0);
        } catch (Throwable t) {
            throw new IllegalStateException("LZ4F_getErrorName failed", t);
        }
    }
}
