package org.openxet.protocol;

/** Decodes LZ4 frames (§3.3). Instances hold native state: not thread-safe, close when done. */
public interface Lz4FrameDecoder extends AutoCloseable {
    void decodeFrame(byte[] src, int srcOffset, int srcLength, byte[] dst, int dstOffset, int expectedLength)
            throws FormatException;

    @Override
    void close();
}
