package org.openxet.protocol;

import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;

/** TEMPORARY stand-in until the FFM decoder lands. */
public final class Lz4 {
    private Lz4() {
    }

    public static Lz4FrameDecoder newDecoder() {
        return new Lz4FrameDecoder() {
            @Override
            public void decodeFrame(byte[] src, int srcOffset, int srcLength, byte[] dst, int dstOffset, int expectedLength)
                    throws FormatException {
                try (LZ4FrameInputStream in = new LZ4FrameInputStream(new ByteArrayInputStream(src, srcOffset, srcLength))) {
                    int n = in.readNBytes(dst, dstOffset, expectedLength);
                    if (n != expectedLength || in.read() != -1) {
                        throw new FormatException("LZ4 frame length mismatch");
                    }
                } catch (IOException | RuntimeException e) {
                    throw new FormatException("bad LZ4 frame: " + e.getMessage(), e);
                }
            }

            @Override
            public void close() {
            }
        };
    }

    public static String backend() {
        return "java";
    }

    public static byte[] encodeFrame(byte[] src, int offset, int length) {
        ByteArrayOutputStream bos = new ByteArrayOutputStream(length / 2 + 64);
        try (LZ4FrameOutputStream out = new LZ4FrameOutputStream(bos, LZ4FrameOutputStream.BLOCKSIZE.SIZE_64KB)) {
            out.write(src, offset, length);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return bos.toByteArray();
    }
}
