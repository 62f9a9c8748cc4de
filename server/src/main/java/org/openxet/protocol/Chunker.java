package org.openxet.protocol;

import java.io.IOException;
import java.io.InputStream;

/**
 * Gearhash content-defined chunking (§2): the boundaries a client cuts, needed by tests, benches and the CLI (the
 * server itself never chunks). Streaming: feed any block sizes, boundaries come out identical to a one-shot pass.
 */
public final class Chunker {
    public static final int MIN_CHUNK = 8192;
    public static final int MAX_CHUNK = 131072;
    private static final long MASK = 0xFFFF000000000000L;
    /** h only depends on the last 64 bytes, so the first MIN_CHUNK - 65 bytes of a chunk need not be hashed. */
    private static final int SKIP = MIN_CHUNK - 64 - 1;

    /** Which client's boundary rule to follow (testdata/vectors/README.md "Chunking: two rules"). */
    public enum Rule {
        /** xet-core (hf_xet) since September 2025: a gear match only cuts when the chunk is ≥ 8192 bytes. */
        XET_CORE,
        /** {@code @huggingface/xetchunk-wasm} 0.2.0: any gear match after the skipped prefix cuts (8128..8191 B chunks). */
        HUB_CLIENT
    }

    /** Receives each chunk's length as it is cut. */
    public interface Sink {
        void chunk(long offset, int length);
    }

    private final Rule rule;
    private final long[] gear = GearTable.TABLE;
    private long h;
    private int length;      // bytes of the current chunk seen so far
    private long chunkStart; // stream offset of the current chunk

    public Chunker(Rule rule) {
        this.rule = rule;
    }

    public Chunker() {
        this(Rule.XET_CORE);
    }

    /** Feeds {@code data[offset, offset + count)}; reports every chunk completed inside it. */
    public void update(byte[] data, int offset, int count, Sink sink) {
        int end = offset + count;
        int p = offset;
        boolean xetCore = rule == Rule.XET_CORE;
        while (p < end) {
            // Skip the unhashed prefix of the chunk in one step.
            if (length < SKIP) {
                int step = Math.min(SKIP - length, end - p);
                length += step;
                p += step;
                continue;
            }
            long hh = h;
            int len = length;
            boolean cut = false;
            while (p < end) {
                hh = (hh << 1) + gear[data[p] & 0xFF];
                p++;
                len++;
                if (((hh & MASK) == 0 && (!xetCore || len >= MIN_CHUNK)) || len >= MAX_CHUNK) {
                    cut = true;
                    break;
                }
            }
            h = hh;
            length = len;
            if (cut) {
                sink.chunk(chunkStart, length);
                chunkStart += length;
                length = 0;
                h = 0;
            }
        }
    }

    /** Ends the stream: the remaining bytes, if any, form the last chunk. */
    public void finish(Sink sink) {
        if (length > 0) {
            sink.chunk(chunkStart, length);
            chunkStart += length;
        }
        length = 0;
        h = 0;
    }

    /** Chunk lengths of a whole buffer. */
    public static int[] chunkLengths(byte[] data, Rule rule) {
        IntList out = new IntList();
        Chunker c = new Chunker(rule);
        c.update(data, 0, data.length, (off, len) -> out.add(len));
        c.finish((off, len) -> out.add(len));
        return out.toArray();
    }

    /** Streams {@code in} through a chunker, handing each chunk's bytes to {@code consumer}. */
    public static void chunkStream(InputStream in, Rule rule, ChunkConsumer consumer) throws IOException {
        byte[] buf = new byte[MAX_CHUNK * 8];
        int filled = 0;   // bytes in buf
        int consumed = 0; // bytes of buf already emitted as chunks
        Chunker c = new Chunker(rule);
        int[] pending = new int[1];
        while (true) {
            int r = in.read(buf, filled, buf.length - filled);
            if (r < 0) {
                break;
            }
            int from = filled;
            filled += r;
            final byte[] b = buf;
            final int base = consumed;
            pending[0] = base;
            c.update(b, from, r, (off, len) -> {
                consumer.chunk(b, pending[0], len);
                pending[0] += len;
            });
            consumed = pending[0];
            if (buf.length - filled < MAX_CHUNK) {
                System.arraycopy(buf, consumed, buf, 0, filled - consumed);
                filled -= consumed;
                consumed = 0;
            }
        }
        final byte[] b = buf;
        final int base = consumed;
        c.finish((off, len) -> consumer.chunk(b, base, len));
    }

    /** Receives a chunk's bytes; the array is reused after the call returns. */
    public interface ChunkConsumer {
        void chunk(byte[] buffer, int offset, int length);
    }

    /** A growable int array (chunk lists can be long; boxing them would dominate). */
    static final class IntList {
        private int[] a = new int[64];
        private int n;

        void add(int v) {
            if (n == a.length) {
                a = java.util.Arrays.copyOf(a, n * 2);
            }
            a[n++] = v;
        }

        int[] toArray() {
            return java.util.Arrays.copyOf(a, n);
        }
    }
}
