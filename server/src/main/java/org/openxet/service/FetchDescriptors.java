package org.openxet.service;

/**
 * A xorb's fetch descriptors (§5.4 step 4) as a plan keeps them: {@value #INTS} ints each, packed in one array per
 * xorb: chunk start, chunk end (exclusive), stored byte start, stored byte end (exclusive). Packed because a
 * 100,000-term plan has up to 100,000 of them, and an object each made the planner allocate several times its
 * answer's terms; these accessors name the fields so no reader has to count offsets.
 */
public final class FetchDescriptors {
    public static final int INTS = 4;
    public static final int CHUNK_START = 0;
    public static final int CHUNK_END = 1;
    public static final int BYTE_START = 2;
    public static final int BYTE_END = 3;

    private FetchDescriptors() {
    }

    /** Descriptors in {@code d}. */
    public static int count(int[] d) {
        return d.length / INTS;
    }

    public static int chunkStart(int[] d, int k) {
        return d[INTS * k + CHUNK_START];
    }

    /** Exclusive. */
    public static int chunkEnd(int[] d, int k) {
        return d[INTS * k + CHUNK_END];
    }

    public static int byteStart(int[] d, int k) {
        return d[INTS * k + BYTE_START];
    }

    /** Exclusive. */
    public static int byteEnd(int[] d, int k) {
        return d[INTS * k + BYTE_END];
    }

    /** The last stored byte, inclusive: what the answers and URL grants write (§5.4's inclusive byte ranges). */
    public static long lastByte(int[] d, int k) {
        return d[INTS * k + BYTE_END] - 1L;
    }

    /** Writes descriptor {@code k} of {@code d}. */
    static void set(int[] d, int k, int chunkStart, int chunkEnd, int byteStart, int byteEnd) {
        int o = INTS * k;
        d[o + CHUNK_START] = chunkStart;
        d[o + CHUNK_END] = chunkEnd;
        d[o + BYTE_START] = byteStart;
        d[o + BYTE_END] = byteEnd;
    }
}
