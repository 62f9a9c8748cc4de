package org.openxet.http;

import org.openxet.protocol.MerkleHash;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A byte buffer for hand-written JSON on the hot path: ASCII fragments copied with {@code arraycopy}, numbers written
 * eight digits per word store, hashes as pre-computed hex. When given a sink, it flushes every {@link #FLUSH_AT}
 * bytes, so a 40 MB answer streams out without ever existing whole (no intermediate strings at all).
 */
public final class JsonBytes {
    static final int FLUSH_AT = 256 * 1024;
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

    /** Room kept past every reservation: {@link #putNum} stores eight bytes at a time and may run past its digits. */
    static final int SLACK = 8;

    private void ensure(int more) {
        if (n + more + SLACK > buf.length) {
            if (sink != null && n > 0) {
                flush();
                if (more + SLACK <= buf.length) return;
            }
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, n + more + SLACK));
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

    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long EIGHT_DIGITS = 100_000_000L;

    /**
     * Writes a non-negative {@code v} at {@code b[p]}; returns the position after it. It stores whole 8-byte words,
     * so it may write up to 8 bytes of scratch past the returned position: {@code b} must have room for them, which
     * {@link #reserve} guarantees ({@link #SLACK}). Numbers were the largest item in a profile of answer rendering (a
     * 100,000-term answer writes about 900,000 of them), hence no loop per digit pair.
     */
    public static int putNum(byte[] b, int p, long v) {
        if (v < EIGHT_DIGITS) {
            int d = digits(v);
            // The 8 digits with leading zeros, most significant in the lowest byte; shifting drops the zeros.
            LONG_LE.set(b, p, eightDigits((int) v) >>> ((8 - d) << 3));
            return p + d;
        }
        if (v < EIGHT_DIGITS * EIGHT_DIGITS) {
            int q = putNum(b, p, v / EIGHT_DIGITS);
            LONG_LE.set(b, q, eightDigits((int) (v % EIGHT_DIGITS)));
            return q + 8;
        }
        int end = p + digits(v);
        int q = end;
        while (v >= 10) {
            b[--q] = (byte) ('0' + v % 10);
            v /= 10;
        }
        b[--q] = (byte) ('0' + v);
        return end;
    }

    /**
     * The eight ASCII digits of {@code 0 <= v < 10^8} in one word, the first digit in the lowest byte: split into
     * 4-digit halves in two 32-bit lanes, each lane into 2-digit pairs in 16-bit lanes, each pair into two bytes,
     * dividing by multiplication (exact for these ranges: x*10486>>20 = x/100 below 10^4, x*103>>10 = x/10 below 100).
     */
    static long eightDigits(int v) {
        long hi = v / 10_000;
        long lo = v - hi * 10_000;
        long fours = hi | (lo << 32);
        long hundreds = ((fours * 10486) >>> 20) & 0x0000007F_0000007FL;
        long pairs = ((fours - 100 * hundreds) << 16) | hundreds;
        long tens = ((pairs * 103) >>> 10) & 0x000F000F_000F000FL;
        long digits = ((pairs - 10 * tens) << 8) | tens;
        return digits + 0x30303030_30303030L;
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
