package org.openxet.protocol;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A 32-byte Xet hash (chunk, xorb, file, verification). Held as four little-endian u64 words because that is how
 * the protocol reads it (§1.1): the hex form prints each word as 16 hex digits, word0 keys shard lookup tables and
 * word3 drives merkle cuts and global-dedup eligibility.
 */
public final class MerkleHash implements Comparable<MerkleHash> {
    public static final int LENGTH = 32;
    public static final MerkleHash ZERO = new MerkleHash(0, 0, 0, 0);
    /** All-0xFF: the bookend marker of shard sections (§4). */
    public static final MerkleHash MARKER = new MerkleHash(-1L, -1L, -1L, -1L);

    private static final VarHandle LE_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final long w0;
    private final long w1;
    private final long w2;
    private final long w3;

    private MerkleHash(long w0, long w1, long w2, long w3) {
        this.w0 = w0;
        this.w1 = w1;
        this.w2 = w2;
        this.w3 = w3;
    }

    public static MerkleHash ofWords(long w0, long w1, long w2, long w3) {
        return new MerkleHash(w0, w1, w2, w3);
    }

    /** Reads 32 raw bytes (the form stored in xorb footers and shards). */
    public static MerkleHash fromBytes(byte[] raw, int offset) {
        return new MerkleHash((long) LE_LONG.get(raw, offset), (long) LE_LONG.get(raw, offset + 8),
                (long) LE_LONG.get(raw, offset + 16), (long) LE_LONG.get(raw, offset + 24));
    }

    public static MerkleHash fromBytes(byte[] raw) {
        if (raw.length != LENGTH) {
            throw new IllegalArgumentException("a hash has 32 bytes, got " + raw.length);
        }
        return fromBytes(raw, 0);
    }

    /**
     * Strict parse of the protocol hex form (§1.1): exactly 64 hex digits, each 16-digit group one u64 word.
     * Upper case is accepted as the client's parser does; anything else is a {@link InvalidHashException}.
     */
    public static MerkleHash parse(CharSequence hex) throws InvalidHashException {
        if (hex == null || hex.length() != 64) {
            throw new InvalidHashException("a hash is 64 hex digits, got "
                    + (hex == null ? "nothing" : hex.length() + " characters"));
        }
        long[] w = new long[4];
        for (int word = 0; word < 4; word++) {
            long v = 0;
            for (int i = word * 16; i < word * 16 + 16; i++) {
                int d = hexDigit(hex.charAt(i));
                if (d < 0) {
                    throw new InvalidHashException("not a hex digit at position " + i);
                }
                v = (v << 4) | d;
            }
            w[word] = v;
        }
        return new MerkleHash(w[0], w[1], w[2], w[3]);
    }

    private static int hexDigit(char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    /** Parse for callers that already know the text is well formed (tests, vectors, config). */
    public static MerkleHash of(String hex) {
        try {
            return parse(hex);
        } catch (InvalidHashException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    public long word0() {
        return w0;
    }

    public long word1() {
        return w1;
    }

    public long word2() {
        return w2;
    }

    public long word3() {
        return w3;
    }

    public boolean isZero() {
        return (w0 | w1 | w2 | w3) == 0;
    }

    public boolean isMarker() {
        return (w0 & w1 & w2 & w3) == -1L;
    }

    public byte[] toBytes() {
        byte[] out = new byte[LENGTH];
        writeTo(out, 0);
        return out;
    }

    public void writeTo(byte[] out, int offset) {
        LE_LONG.set(out, offset, w0);
        LE_LONG.set(out, offset + 8, w1);
        LE_LONG.set(out, offset + 16, w2);
        LE_LONG.set(out, offset + 24, w3);
    }

    /** Writes the protocol hex form of the raw hash at {@code raw[rawOffset]} without making a hash object. */
    public static void writeHex(byte[] raw, int rawOffset, byte[] out, int offset) {
        putWord(out, offset, (long) LE_LONG.get(raw, rawOffset));
        putWord(out, offset + 16, (long) LE_LONG.get(raw, rawOffset + 8));
        putWord(out, offset + 32, (long) LE_LONG.get(raw, rawOffset + 16));
        putWord(out, offset + 48, (long) LE_LONG.get(raw, rawOffset + 24));
    }

    /** Writes the 64 ASCII hex digits of the protocol form at {@code offset}. */
    public void writeHex(byte[] out, int offset) {
        putWord(out, offset, w0);
        putWord(out, offset + 16, w1);
        putWord(out, offset + 32, w2);
        putWord(out, offset + 48, w3);
    }

    private static void putWord(byte[] out, int offset, long v) {
        for (int i = 15; i >= 0; i--) {
            out[offset + i] = HEX[(int) (v & 0xF)];
            v >>>= 4;
        }
    }

    public byte[] hexBytes() {
        byte[] out = new byte[64];
        writeHex(out, 0);
        return out;
    }

    public String hex() {
        return new String(hexBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    @Override
    public String toString() {
        return hex();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MerkleHash h && h.w0 == w0 && h.w1 == w1 && h.w2 == w2 && h.w3 == w3;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(w0 ^ w3);
    }

    /** Orders by word0, then the other words, unsigned: the sort order of shard lookup tables (§4.4). */
    @Override
    public int compareTo(MerkleHash o) {
        int c = Long.compareUnsigned(w0, o.w0);
        if (c != 0) return c;
        c = Long.compareUnsigned(w1, o.w1);
        if (c != 0) return c;
        c = Long.compareUnsigned(w2, o.w2);
        if (c != 0) return c;
        return Long.compareUnsigned(w3, o.w3);
    }
}
