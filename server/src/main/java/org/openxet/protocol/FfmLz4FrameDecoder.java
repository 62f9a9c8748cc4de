package org.openxet.protocol;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Cleaner;

/**
 * LZ4 frame decoder over the system liblz4's frame API, one {@code LZ4F_dctx} per decoder, reused for every frame.
 * Accepts every frame liblz4 accepts: linked or independent blocks, block and content checksums, content size,
 * any block max size, stored blocks.
 *
 * <p>Why LZ4F and not our parser plus {@code LZ4_decompress_safe} per block: on a 64 KiB text chunk the two cost
 * the same (about 34 µs at best; the block decoder itself dominates, docs/BENCHMARKS.md), and LZ4F does every
 * frame variant in C, linked blocks and checksums included. The context is reused because creating one per frame
 * would reallocate its block buffer each time: client frames announce 4 MiB blocks (BD 0x70), and LZ4F decodes
 * through that buffer whenever the output room is smaller than the block max size.
 *
 * <p>{@code src} and {@code dst} reach C as heap segments through a critical downcall: no copy, and the GC waits
 * for the call (tens of µs per chunk). No {@code stableDst} option: with it LZ4F would keep pointers into
 * {@code dst} between calls, and a heap array may move between calls.
 */
final class FfmLz4FrameDecoder implements Lz4FrameDecoder {
    private static final Cleaner CLEANER = Cleaner.create();

    private final Lz4Native lib;
    private final MemorySegment dctx;
    /** Two size_t cells: [0] dst capacity in / bytes written out, [8] src size in / bytes consumed out. */
    private final MemorySegment sizes;
    private final Cleaner.Cleanable cleanable;
    /** Set after a failed decode: LZ4F stops in an error state that only a reset clears. */
    private boolean dirty;
    private boolean closed;

    FfmLz4FrameDecoder(Lz4Native lib) {
        this.lib = lib;
        // The cells outlive no decoder and are freed by the GC; only the context needs an explicit free.
        this.sizes = Arena.ofAuto().allocate(16, 8);
        MemorySegment holder = Arena.ofAuto().allocate(ValueLayout.ADDRESS);
        long rc;
        try {
            rc = (long) lib.createDctx.invokeExact(holder, Lz4Native.LZ4F_VERSION);
        } catch (Throwable t) {
            throw new IllegalStateException("LZ4F_createDecompressionContext failed", t);
        }
        if (lib.failed(rc)) {
            throw new IllegalStateException("LZ4F_createDecompressionContext: " + lib.describe(rc));
        }
        this.dctx = holder.get(ValueLayout.ADDRESS, 0);
        // A decoder that is dropped without close() still frees its context once unreachable.
        this.cleanable = CLEANER.register(this, new Free(lib, dctx));
    }

    private record Free(Lz4Native lib, MemorySegment dctx) implements Runnable {
        @Override
        public void run() {
            try {
                long ignoredCode = (long) lib.freeDctx.invokeExact(dctx); // only ever 0 ("no error")
            } catch (Throwable t) {
                throw new IllegalStateException("LZ4F_freeDecompressionContext failed", t);
            }
        }
    }

    @Override
    public void decodeFrame(byte[] src, int srcOffset, int srcLength, byte[] dst, int dstOffset, int expectedLength)
            throws FormatException {
        Lz4Frame.checkArguments(src, srcOffset, srcLength, dst, dstOffset, expectedLength);
        if (closed) {
            throw new IllegalStateException("decoder closed");
        }
        precheck(src, srcOffset, srcLength, expectedLength);
        if (dirty) {
            reset();
        }
        MemorySegment in = MemorySegment.ofArray(src);
        MemorySegment out = MemorySegment.ofArray(dst);
        int read = 0;
        int written = 0;
        // Normally one call decodes the whole frame; the loop covers LZ4F stopping early (full output, pending
        // flush) and proves progress so a frame that cannot finish fails instead of spinning.
        while (true) {
            sizes.set(ValueLayout.JAVA_LONG, 0, expectedLength - written);
            sizes.set(ValueLayout.JAVA_LONG, 8, srcLength - read);
            long hint;
            try {
                hint = (long) lib.decompress.invokeExact(dctx, out.asSlice(dstOffset + written),
                        sizes, in.asSlice(srcOffset + read), sizes.asSlice(8), MemorySegment.NULL);
            } catch (Throwable t) {
                throw new IllegalStateException("LZ4F_decompress failed", t);
            }
            if (lib.failed(hint)) {
                dirty = true;
                throw new FormatException("LZ4 frame malformed: " + lib.describe(hint));
            }
            int wrote = (int) sizes.get(ValueLayout.JAVA_LONG, 0);
            int consumed = (int) sizes.get(ValueLayout.JAVA_LONG, 8);
            written += wrote;
            read += consumed;
            if (hint == 0) {
                break; // frame complete; LZ4F has reset itself for the next one
            }
            if (wrote == 0 && consumed == 0) {
                dirty = true;
                throw new FormatException(read == srcLength
                        ? "LZ4 frame truncated"
                        : "LZ4 frame decodes to more than the expected " + expectedLength + " bytes");
            }
        }
        if (read != srcLength) {
            throw new FormatException((srcLength - read) + " trailing bytes after the LZ4 frame");
        }
        if (written != expectedLength) {
            throw new FormatException("LZ4 frame decodes to " + written + " bytes, expected " + expectedLength);
        }
    }

    /**
     * What liblz4 would accept but a Xet chunk must not be: a skippable or legacy frame (LZ4F decodes a skippable
     * frame as zero bytes), and a declared content size other than the expected length (LZ4F reads a declared 0
     * as "unknown"). The parser in {@link JavaLz4FrameDecoder} applies the same rules.
     */
    private static void precheck(byte[] src, int off, int len, int expectedLength) throws FormatException {
        if (len < Lz4Frame.MIN_HEADER) {
            throw new FormatException("LZ4 frame truncated: " + len + " bytes, a header needs at least 7");
        }
        if (Lz4Frame.readIntLE(src, off) != Lz4Frame.MAGIC) {
            throw new FormatException("not an LZ4 frame: bad magic");
        }
        if ((src[off + 4] & Lz4Frame.FLG_CONTENT_SIZE) != 0 && len >= 14) {
            long contentSize = Lz4Frame.readLongLE(src, off + 6);
            if (contentSize != expectedLength) {
                throw new FormatException("LZ4 frame declares " + Long.toUnsignedString(contentSize)
                        + " content bytes, expected " + expectedLength);
            }
        }
    }

    private void reset() {
        try {
            lib.resetDctx.invokeExact(dctx);
        } catch (Throwable t) {
            throw new IllegalStateException("LZ4F_resetDecompressionContext failed", t);
        }
        dirty = false;
    }

    @Override
    public void close() {
        closed = true;
        cleanable.clean();
    }
}
