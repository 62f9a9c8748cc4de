package org.openxet.protocol.xorb;

import org.openxet.protocol.ByteGrouping4;
import org.openxet.protocol.Lz4;

import java.io.ByteArrayOutputStream;

/**
 * Serializes chunks into a xorb upload body the way the clients do (§3.2–§3.4): a chunk stays uncompressed unless a
 * compressed form is strictly smaller. Used through {@link org.openxet.protocol.ClientUploads} by the training run,
 * tests, benches and fixtures; the server only stores the xorbs clients built.
 */
public final class XorbBuilder {
    /** Which compression to try for each chunk. */
    public enum Compression { NONE, LZ4, BG4_LZ4, BEST }

    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private final Compression compression;
    private int chunks;

    public XorbBuilder(Compression compression) {
        this.compression = compression;
    }

    public XorbBuilder add(byte[] data, int offset, int length) {
        byte[] payload = null;
        int scheme = XorbFormat.SCHEME_NONE;
        if (compression == Compression.LZ4 || compression == Compression.BEST) {
            byte[] lz = Lz4.encodeFrame(data, offset, length);
            if (lz.length < length) {
                payload = lz;
                scheme = XorbFormat.SCHEME_LZ4;
            }
        }
        if (compression == Compression.BG4_LZ4 || compression == Compression.BEST) {
            byte[] grouped = new byte[length];
            ByteGrouping4.split(data, offset, length, grouped, 0);
            byte[] lz = Lz4.encodeFrame(grouped, 0, length);
            if (lz.length < length && (payload == null || lz.length < payload.length)) {
                payload = lz;
                scheme = XorbFormat.SCHEME_BG4_LZ4;
            }
        }
        int plen = payload == null ? length : payload.length;
        body.write(0);
        writeU24(plen);
        body.write(scheme);
        writeU24(length);
        if (payload == null) {
            body.write(data, offset, length);
        } else {
            body.write(payload, 0, payload.length);
        }
        chunks++;
        return this;
    }

    private void writeU24(int v) {
        body.write(v & 0xFF);
        body.write((v >>> 8) & 0xFF);
        body.write((v >>> 16) & 0xFF);
    }

    public int chunkCount() {
        return chunks;
    }

    public int size() {
        return body.size();
    }

    public byte[] build() {
        return body.toByteArray();
    }
}
