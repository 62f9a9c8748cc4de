package org.openxet.http;

import org.openxet.service.ReconstructionPlanner.Plan;
import org.openxet.service.SignedUrls;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writes a v2 answer, rendering large ones with several threads. The answer is cut into segments (runs of terms,
 * then runs of xorbs) that render independently into their own buffers; the request's thread claims them in order
 * and writes each as soon as it exists, while helper threads render ahead of it. Helpers run under the server-wide
 * writer permits (one per CPU): a request takes at most half of the permits free at that moment, rounded down (the
 * seed's rule for lending helper threads), so an idle node answers a 100,000-term file with every core and a loaded
 * node falls back to one writer per request without queueing.
 *
 * <p>Rendering runs at most a few segments ahead of the socket, and a written segment's buffer goes back to a small
 * server-wide pool: a 23 MB answer then allocates a few MB instead of its whole size, which is what kept the young
 * collector pausing every ninth answer.
 */
public final class AnswerWriter {
    /** Answers smaller than this are rendered whole by the request's thread, then sent. */
    static final int PARALLEL_MIN_TERMS = 16_384;
    static final int TERMS_PER_SEGMENT = 8_192;
    static final int RANGES_PER_SEGMENT = 12_288;
    /** A ranges segment also ends after this many xorbs, so its buffer stays near a term segment's. */
    static final int XORBS_PER_SEGMENT = 1_024;
    /** Segments rendered but not yet written, per renderer: enough that the socket never waits on rendering. */
    static final int AHEAD_PER_RENDERER = 2;
    /**
     * The longest single write to the response stream: 1 MiB. Fewer, larger writes cost less below us (the JDK's socket
     * and the kernel), up to about this size (docs/BENCHMARKS-HISTORY.md, "1 MiB socket writes"). A segment (up to
     * about 2 MB) goes out in one or two writes.
     */
    static final int WRITE_SLICE = 1024 * 1024;
    /**
     * The first write of a response is at most this: Helidon copies it into the buffer that carries the headers, so a
     * 1 MiB first write cost a 1 MiB copy and allocation before the first byte (docs/BENCHMARKS-HISTORY.md, "first
     * write of a response").
     */
    static final int FIRST_WRITE = 64 * 1024;

    /** Upper estimates of record sizes: a term, a range plus its share of the entry's URL, a xorb's own part. */
    static final int TERM_BYTES = 160;
    static final int RANGE_BYTES = 120;
    static final int XORB_BYTES = 512;
    /** A v1 range's record without its URL: fragments and four numbers. */
    static final int V1_RANGE_FIXED = 128;
    /** Pooled segment buffers hold any segment cut by the limits above. */
    static final int POOLED_BYTES = Math.max(TERMS_PER_SEGMENT * TERM_BYTES,
            RANGES_PER_SEGMENT * RANGE_BYTES + XORBS_PER_SEGMENT * XORB_BYTES) + 1024;

    private final Semaphore writerPermits;
    private final ArrayBlockingQueue<byte[]> pool;

    public AnswerWriter(int cpus) {
        this.writerPermits = new Semaphore(cpus);
        // What one answer on every core has in flight, and a couple more; at most 16 buffers (2 MB each, 32 MB) kept.
        this.pool = new ArrayBlockingQueue<>(Math.min(16, cpus * (AHEAD_PER_RENDERER + 1) + 2));
    }

    /** Writer permits free now (tests: every answer, finished or failed, returns the ones it took). */
    int availableWriterPermits() {
        return writerPermits.availablePermits();
    }

    /** One independently rendered piece of the answer. */
    private interface Render {
        void render(JsonBytes out, UrlSigner signer);
    }

    /** A segment and the buffer size it needs (estimated high, so its buffer is never copied to grow). */
    private record Segment(int capacity, Render render) {
    }

    /** Where an answer goes: its length is announced before the first byte when it is known. */
    public interface Body {
        void length(long bytes);

        OutputStream stream() throws IOException;
    }

    /**
     * The two answer formats: the same terms, then the fetch section, §5.5's {@code xorbs} entries (a signed URL per
     * entry) or §5.4's {@code fetch_info} (a signed URL per range, so its ranges weigh more).
     */
    private enum Format {
        V2, V1;

        /** The answer's length, computed without rendering. */
        long measure(Plan p, UrlSigner signer) {
            return this == V2 ? ReconstructionJson.measureV2(p, signer) : ReconstructionJson.measureV1(p, signer);
        }

        /** Upper estimate of one range's bytes in the fetch section: v1 carries a whole URL per range. */
        int rangeBytes(UrlSigner signer) {
            return this == V2 ? RANGE_BYTES : V1_RANGE_FIXED + signer.urlLength(SignedUrls.MAX_GRANT_RANGE_CHARS);
        }

        void whole(JsonBytes out, Plan p, UrlSigner signer) {
            if (this == V2) {
                ReconstructionJson.writeV2(out, p, signer);
            } else {
                ReconstructionJson.writeV1(out, p, signer);
            }
        }

        /** Xorbs {@code xorbOrder[a, b)} of the fetch section, opened before the first and closed after the last. */
        void fetch(JsonBytes out, Plan p, byte[][] hex, UrlSigner signer, int a, int b, boolean first, boolean last) {
            if (this == V2) {
                if (first) ReconstructionJson.writeV2Middle(out);
                ReconstructionJson.writeXorbs(out, p, hex, signer, a, b);
            } else {
                if (first) ReconstructionJson.writeV1Middle(out);
                ReconstructionJson.writeFetchInfo(out, p.xorbOrder(), p.fetch(), hex, signer, a, b);
            }
            if (last) ReconstructionJson.writeAnswerEnd(out);
        }
    }

    /**
     * Every answer goes out behind a Content-Length (Helidon's chunked encoding costs markedly more CPU on a large
     * body: docs/BENCHMARKS-HISTORY.md, "measured Content-Length"). Large answers stream: their length is computed without rendering ({@code measureV2}, {@code measureV1})
     * by the request's thread while helpers render the first segments, then segments go to the socket as soon as they
     * are rendered, so sending overlaps rendering. Small answers are rendered whole, then sent.
     */
    public void writeV2(Body body, Plan p, UrlSigner signer) throws IOException {
        write(body, p, signer, Format.V2);
    }

    /** The v1 answer the same way: its one signature per range is the heavier rendering of the two. */
    public void writeV1(Body body, Plan p, UrlSigner signer) throws IOException {
        write(body, p, signer, Format.V1);
    }

    /** Whether {@code p}'s answer is large: streamed, rendered by several threads. */
    static boolean large(Plan p) {
        return p.termCount() >= PARALLEL_MIN_TERMS;
    }

    private void write(Body body, Plan p, UrlSigner signer, Format format) throws IOException {
        if (large(p)) {
            stream(body, p, signer, true, format);
            return;
        }
        JsonBytes whole = renderWhole(p, signer, format);
        body.length(whole.length());
        try (OutputStream out = body.stream()) {
            writeSliced(out, whole.array(), whole.length(), true);
        }
    }

    /** The same answer to a plain stream (benches, gates, tests). */
    public void writeV2(OutputStream sink, Plan p, UrlSigner signer) throws IOException {
        write(sink, p, signer, Format.V2);
    }

    /** The v1 answer to a plain stream (tests). */
    public void writeV1(OutputStream sink, Plan p, UrlSigner signer) throws IOException {
        write(sink, p, signer, Format.V1);
    }

    private void write(OutputStream sink, Plan p, UrlSigner signer, Format format) throws IOException {
        if (large(p)) {
            stream(new Body() {
                @Override
                public void length(long bytes) {
                }

                @Override
                public OutputStream stream() {
                    return sink;
                }
            }, p, signer, false, format);
            return;
        }
        JsonBytes whole = renderWhole(p, signer, format);
        writeSliced(sink, whole.array(), whole.length(), true);
    }

    /** A small answer rendered whole in memory, by the request's thread. */
    private static JsonBytes renderWhole(Plan p, UrlSigner signer, Format format) {
        // Sized by the segments' upper estimates, as a streamed answer's buffers are. Twice the terms' bound, as it was,
        // made a 16,000-term range's buffer 5 MB: a humongous object for G1, which starts concurrent cycles.
        long ranges = 0;
        for (int x : p.xorbOrder()) {
            ranges += p.fetch()[x].length / 4;
        }
        long estimate = (long) p.termCount() * TERM_BYTES + (long) p.xorbOrder().length * XORB_BYTES
                + ranges * format.rangeBytes(signer) + 1024;
        JsonBytes json = new JsonBytes(null, (int) Math.min(estimate, Integer.MAX_VALUE - 1024));
        format.whole(json, p, signer);
        return json;
    }

    /** Writes {@code b[0, length)} in slices; {@code first}: this is the response's first write. */
    private static void writeSliced(OutputStream out, byte[] b, int length, boolean first) throws IOException {
        int off = 0;
        if (first && length > FIRST_WRITE) {
            out.write(b, 0, FIRST_WRITE);
            off = FIRST_WRITE;
        }
        for (; off < length; off += WRITE_SLICE) {
            out.write(b, off, Math.min(WRITE_SLICE, length - off));
        }
    }

    /** The shared state of one streamed answer: which segment is claimed next, and how far ahead renderers may go. */
    private final class Pipeline {
        final List<Segment> segments;
        final int n;
        final AtomicInteger next = new AtomicInteger();
        final Semaphore room;
        final List<CompletableFuture<JsonBytes>> done;
        volatile boolean abandoned;

        Pipeline(List<Segment> segments, int renderers) {
            this.segments = segments;
            this.n = segments.size();
            this.room = new Semaphore(renderers * AHEAD_PER_RENDERER);
            this.done = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                done.add(new CompletableFuture<>());
            }
        }

        /** Claims and renders the next segment, having taken a unit of {@link #room}; false when none is left. */
        boolean renderNext(UrlSigner signer) {
            int i = next.getAndIncrement();
            if (i >= n || abandoned) {
                room.release();
                return false;
            }
            Segment s = segments.get(i);
            try {
                JsonBytes out = new JsonBytes(take(s.capacity()));
                s.render().render(out, signer);
                done.get(i).complete(out);
            } catch (RuntimeException | Error e) {
                done.get(i).completeExceptionally(e);
            }
            return true;
        }

        /** A helper: renders while segments are left, waiting whenever it is far enough ahead of the socket. */
        void help(UrlSigner signer) {
            try {
                do {
                    room.acquire();
                } while (renderNext(signer));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A large answer: segments rendered by this thread and helpers, written in order as each is ready. A
     * {@code response} body gets its length first and is closed at the end; a plain sink is neither.
     */
    private void stream(Body body, Plan p, UrlSigner signer, boolean response, Format format) throws IOException {
        List<Segment> segments = segments(p, signer, format);
        int helpers = Math.min(writerPermits.availablePermits() / 2, segments.size() - 1);
        if (helpers > 0 && !writerPermits.tryAcquire(helpers)) {
            helpers = 0;
        }
        Pipeline pipe = new Pipeline(segments, helpers + 1);
        try {
            for (int h = 0; h < helpers; h++) {
                UrlSigner own = signer.copy();
                Thread.ofVirtual().name("answer-writer").start(() -> pipe.help(own));
            }
            long length = -1;
            if (response) {
                length = format.measure(p, signer);
                body.length(length);
            }
            long written = 0;
            OutputStream out = body.stream();
            try {
                for (int i = 0; i < pipe.n; i++) {
                    // The request's thread renders too, in claim order, until the segment it must write next exists.
                    while (!pipe.done.get(i).isDone() && pipe.room.tryAcquire() && pipe.renderNext(signer)) {
                        // rendered one
                    }
                    JsonBytes piece = pipe.done.get(i).join();
                    writeSliced(out, piece.array(), piece.length(), i == 0);
                    written += piece.length();
                    give(piece.array());
                    pipe.room.release();
                }
            } finally {
                if (response) out.close();
            }
            if (response && written != length) {
                // Never expected (tests compare the two); fail loudly rather than send a lying header.
                throw new IllegalStateException(format + " answer measured " + length + " bytes but rendered " + written);
            }
        } finally {
            // On a failed write, wake helpers waiting for room so they see the answer abandoned and stop.
            pipe.abandoned = true;
            pipe.room.release(pipe.n + helpers);
            writerPermits.release(helpers);
        }
    }

    private byte[] take(int capacity) {
        if (capacity <= POOLED_BYTES) {
            byte[] b = pool.poll();
            return b != null ? b : new byte[POOLED_BYTES];
        }
        return new byte[capacity];
    }

    private void give(byte[] b) {
        if (b.length == POOLED_BYTES) {
            pool.offer(b);
        }
    }

    private static List<Segment> segments(Plan p, UrlSigner urlSigner, Format format) {
        byte[][] hex = ReconstructionJson.xorbHex(p.file());
        byte[][] heads = ReconstructionJson.termHeads(hex);
        List<Segment> out = new ArrayList<>();
        for (int from = p.firstTerm(); from < p.endTerm(); from += TERMS_PER_SEGMENT) {
            int a = from;
            int b = Math.min(p.endTerm(), from + TERMS_PER_SEGMENT);
            boolean head = a == p.firstTerm();
            out.add(new Segment((b - a) * TERM_BYTES + 256, (json, signer) -> {
                if (head) ReconstructionJson.writeV2Head(json, p);
                ReconstructionJson.writeTerms(json, p, heads, a, b);
            }));
        }
        out.addAll(fetchSegments(p, urlSigner, format, hex));
        return out;
    }

    /** The fetch section's segments: runs of xorbs, the first opening the section and the last closing the answer. */
    private static List<Segment> fetchSegments(Plan p, UrlSigner urlSigner, Format format, byte[][] hex) {
        List<Segment> out = new ArrayList<>();
        // A v1 range carries a whole URL: its bound is the URL's own, so a segment still fits a pooled buffer.
        int rangeBytes = format.rangeBytes(urlSigner);
        int rangesPerSegment = format == Format.V2 ? RANGES_PER_SEGMENT
                : Math.max(1, (POOLED_BYTES - XORBS_PER_SEGMENT * XORB_BYTES - 1024) / rangeBytes);
        int[] order = p.xorbOrder();
        int start = 0;
        int ranges = 0;
        for (int i = 0; i <= order.length; i++) {
            if (i == order.length
                    || (i > start && (ranges >= rangesPerSegment || i - start >= XORBS_PER_SEGMENT))) {
                int a = start;
                int b = i;
                boolean first = a == 0;
                boolean last = b == order.length;
                out.add(new Segment(ranges * rangeBytes + (b - a) * XORB_BYTES + 256,
                        (json, signer) -> format.fetch(json, p, hex, signer, a, b, first, last)));
                start = i;
                ranges = 0;
            }
            if (i < order.length) {
                ranges += p.fetch()[order[i]].length / 4;
            }
        }
        return out;
    }
}
