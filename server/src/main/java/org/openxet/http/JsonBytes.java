package org.openxet.http;

import org.openxet.protocol.MerkleHash;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A byte buffer for hand-written JSON on the hot path: ASCII fragments copied with {@code arraycopy}, numbers from a
 * two-digit table, hashes as pre-computed hex. When given a sink, it flushes every {@link #FLUSH_AT} bytes, so a
 * 40 MB answer streams out without ever existing whole (no intermediate strings at all).
 */
public final class JsonBytes {
    static final int FLUSH_AT = 256 * 1024;
    private static final byte[] DIGITS2 = new byte[200];

    static {
        for (int i = 0; i < 100; i++) {
            DIGITS2[2 * i] = (byte) ('0' + i / 10);
            DIGITS2[2 * i + 1] = (byte) ('0' + i % 10);
        }
    }

    private final OutputStream sink;
    private byte[] buf;
    private int n;

    /** A buffer that flushes into {@code sink} as it fills (null: grow in memory). */
    public JsonBytes(OutputStream sink, int initialCapacity) {
        this.sink = sink;
        this.buf = new byte[Math.max(64, initialCapacity)];
    }

    /** An in-memory buffer that starts on {@code buffer} (a pooled array; it is replaced if it must grow). */
    JsonBytes(byte[] buffer) {
        this.sink = null;
        this.buf = buffer;
    }

    public static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private void ensure(int more) {
        if (n + more > buf.length) {
            if (sink != null && n > 0) {
                flush();
                if (more <= buf.length) return;
            }
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, n + more));
        }
    }

    public JsonBytes raw(byte[] b) {
        ensure(b.length);
        System.arraycopy(b, 0, buf, n, b.length);
        n += b.length;
        return this;
    }

    public JsonBytes raw(byte[] b, int off, int len) {
        ensure(len);
        System.arraycopy(b, off, buf, n, len);
        n += len;
        return this;
    }

    public JsonBytes ch(char c) {
        ensure(1);
        buf[n++] = (byte) c;
        return this;
    }

    /**
     * Makes room for {@code max} more bytes and returns the buffer; write at {@link #position()}, then
     * {@link #position(int)}. The hot loops use this to write a whole record with one capacity check.
     */
    public byte[] reserve(int max) {
        ensure(max);
        return buf;
    }

    public int position() {
        return n;
    }

    public void position(int p) {
        n = p;
    }

    private static final long[] POW10 = new long[19];

    static {
        POW10[0] = 1;
        for (int i = 1; i < POW10.length; i++) {
            POW10[i] = POW10[i - 1] * 10;
        }
    }

    /** Writes a non-negative {@code v} at {@code b[p]}; returns the position after it. */
    public static int putNum(byte[] b, int p, long v) {
        int end = p + digits(v);
        int q = end;
        if (v < Integer.MAX_VALUE) {
            int iv = (int) v;
            while (iv >= 100) {
                int r = iv % 100;
                iv /= 100;
                b[--q] = DIGITS2[2 * r + 1];
                b[--q] = DIGITS2[2 * r];
            }
            if (iv >= 10) {
                b[--q] = DIGITS2[2 * iv + 1];
                b[--q] = DIGITS2[2 * iv];
            } else {
                b[--q] = (byte) ('0' + iv);
            }
            return end;
        }
        while (v >= 10) {
            b[--q] = (byte) ('0' + v % 10);
            v /= 10;
        }
        b[--q] = (byte) ('0' + v);
        return end;
    }

    /** Copies {@code src} to {@code b[p]}; returns the position after it. */
    public static int put(byte[] b, int p, byte[] src) {
        System.arraycopy(src, 0, b, p, src.length);
        return p + src.length;
    }

    /** A decimal; a negative long is a u64 past 2^63 (only unsigned fields reach here). */
    public JsonBytes num(long v) {
        if (v < 0) {
            return raw(ascii(Long.toUnsignedString(v)));
        }
        ensure(19);
        n = putNum(buf, n, v);
        return this;
    }

    /** Decimal digits of a non-negative {@code v}, as {@link #num} and {@link #putNum} write it. */
    static int digits(long v) {
        // floor(log10) from the bit length (1233/4096 ~ log10(2)), then one comparison corrects it; v | 1 gives 0 one
        // digit and never changes the count of any other value. Both answer writers count every number they write.
        long w = v | 1;
        int d = ((64 - Long.numberOfLeadingZeros(w)) * 1233) >>> 12;
        return w >= POW10[d] ? d + 1 : d;
    }

    /** A quoted protocol-hex hash. */
    public JsonBytes hash(MerkleHash h) {
        ensure(66);
        buf[n++] = '"';
        h.writeHex(buf, n);
        n += 64;
        buf[n++] = '"';
        return this;
    }

    public int length() {
        return n;
    }

    /** The bytes written since the last flush (in-memory use). */
    public byte[] array() {
        return buf;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buf, n);
    }

    /** Empties an in-memory buffer for reuse. */
    public void reset() {
        n = 0;
    }

    public void flush() {
        if (sink == null || n == 0) return;
        try {
            sink.write(buf, 0, n);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        n = 0;
    }
}
