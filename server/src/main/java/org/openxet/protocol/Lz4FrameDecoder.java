package org.openxet.protocol;

/**
 * Decodes one LZ4 frame (the payload of chunk schemes 1 and 2, §3.3) into a caller's array. Instances keep native
 * state between frames (a reused decompression context is the fastest way to decode many small frames), so each
 * thread needs its own; get one from {@link Lz4#newDecoder()} and close it when done.
 */
public interface Lz4FrameDecoder extends AutoCloseable {
    /**
     * Decodes exactly one LZ4 frame occupying {@code src[srcOffset, srcOffset+srcLength)} into
     * {@code dst[dstOffset, dstOffset+expectedLength)}.
     *
     * @throws FormatException (typed, never an unchecked exception) if the frame is malformed, truncated, has
     *                         trailing bytes after the end mark, or does not decode to exactly
     *                         {@code expectedLength} bytes. Never reads or writes outside the given ranges.
     * @throws IndexOutOfBoundsException if a range lies outside its array (a caller bug, not bad input)
     */
    void decodeFrame(byte[] src, int srcOffset, int srcLength, byte[] dst, int dstOffset, int expectedLength)
            throws FormatException;

    /** Frees the native state. Not thread-safe, like the rest of the decoder. */
    @Override
    void close();
}
