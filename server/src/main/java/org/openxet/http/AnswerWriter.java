package org.openxet.http;

import org.openxet.service.ReconstructionPlanner.Plan;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writes a v2 answer, rendering large ones with several threads. The answer is cut into segments (runs of terms,
 * then runs of xorbs) that render independently into their own buffers; the request's thread claims them in order
 * and writes each as soon as it exists, while helper threads render ahead of it. Helpers run under the server-wide
 * writer permits (one per CPU): a request takes at most half of the permits free at that moment, rounded down
 * (the seed's ruling M1-R34), so an idle node answers a 100,000-term file with every core and a loaded node falls
 * back to one writer per request without queueing.
 */
public final class AnswerWriter {
    /** Answers smaller than this are written by the request's thread alone. */
    static final int PARALLEL_MIN_TERMS = 16_384;
    static final int TERMS_PER_SEGMENT = 8_192;
    static final int RANGES_PER_SEGMENT = 12_288;

    private final Semaphore writerPermits;

    public AnswerWriter(int cpus) {
        this.writerPermits = new Semaphore(cpus);
    }

    /** One independently rendered piece of the answer. */
    private interface Render {
        void render(JsonBytes out, UrlSigner signer);
    }

    /** A segment and the buffer size it needs (estimated high, so its buffer is never copied to grow). */
    private record Segment(int capacity, Render render) {
    }

    /** Upper estimates of record sizes: a term, and a range plus its share of the entry's URL. */
    static final int TERM_BYTES = 160;
    static final int RANGE_BYTES = 120;

    /** Where an answer goes: its length is announced before the first byte when it is known. */
    public interface Body {
        void length(long bytes);

        OutputStream stream() throws IOException;
    }

    /**
     * Every answer goes out behind a Content-Length (Helidon's chunked encoding costs 30–40% more CPU on a large
     * body). Large answers stream: their length is measured first without rendering ({@code measureV2}), then
     * segments go to the socket as soon as they are rendered, so sending overlaps rendering (unmerged 100k-term p50
     * about 30 ms streaming against 40 ms render-then-send). Small answers are rendered whole, then sent.
     */
    public void writeV2(Body body, Plan p, UrlSigner signer) throws IOException {
        if (p.termCount() >= PARALLEL_MIN_TERMS) {
            long length = ReconstructionJson.measureV2(p, signer);
            body.length(length);
            try (OutputStream out = body.stream()) {
                long written = streamV2(out, p, signer);
                if (written != length) {
                    // Never expected (tests compare the two); fail loudly rather than send a lying header.
                    throw new IllegalStateException("v2 answer measured " + length + " bytes but rendered " + written);
                }
            }
            return;
        }
        JsonBytes whole = renderWhole(p, signer);
        body.length(whole.length());
        try (OutputStream out = body.stream()) {
            out.write(whole.array(), 0, whole.length());
        }
    }

    /** A small answer rendered whole in memory, by the request's thread. */
    private static JsonBytes renderWhole(Plan p, UrlSigner signer) {
        JsonBytes json = new JsonBytes(null, Math.max(1024, p.termCount() * TERM_BYTES * 2));
        ReconstructionJson.writeV2(json, p, signer);
        return json;
    }

    /** The same answer to a plain stream (benches, gates). */
    public void writeV2(OutputStream sink, Plan p, UrlSigner signer) throws IOException {
        if (p.termCount() >= PARALLEL_MIN_TERMS) {
            streamV2(sink, p, signer);
            return;
        }
        JsonBytes whole = renderWhole(p, signer);
        sink.write(whole.array(), 0, whole.length());
    }

    /**
     * A large answer: segments rendered by this thread and helpers, written in order as each is ready. Returns the
     * bytes written.
     */
    private long streamV2(OutputStream sink, Plan p, UrlSigner signer) throws IOException {
        List<Segment> segments = segments(p);
        int helpers = Math.min(writerPermits.availablePermits() / 2, segments.size() - 1);
        if (helpers > 0 && !writerPermits.tryAcquire(helpers)) {
            helpers = 0;
        }
        int n = segments.size();
        AtomicInteger next = new AtomicInteger();
        List<CompletableFuture<JsonBytes>> done = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            done.add(new CompletableFuture<>());
        }
        long written = 0;
        Runnable worker = () -> {
            UrlSigner own = signer.copy();
            for (int i; (i = next.getAndIncrement()) < n; ) {
                render(segments.get(i), own, done.get(i));
            }
        };
        try {
            for (int h = 0; h < helpers; h++) {
                Thread.ofVirtual().name("answer-writer").start(worker);
            }
            // The request's thread claims segments in order too, and writes whichever is next as soon as it exists.
            for (int i = 0; i < n; i++) {
                int mine;
                while (!done.get(i).isDone() && (mine = next.getAndIncrement()) < n) {
                    render(segments.get(mine), signer, done.get(mine));
                }
                JsonBytes piece = done.get(i).join();
                sink.write(piece.array(), 0, piece.length());
                written += piece.length();
            }
            return written;
        } finally {
            // Helpers finish by themselves: every segment is claimed once, and the loop above waited for all.
            writerPermits.release(helpers);
        }
    }

    private static void render(Segment s, UrlSigner signer, CompletableFuture<JsonBytes> result) {
        try {
            JsonBytes out = new JsonBytes(null, s.capacity());
            s.render().render(out, signer);
            result.complete(out);
        } catch (RuntimeException | Error e) {
            result.completeExceptionally(e);
        }
    }

    private static List<Segment> segments(Plan p) {
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
        int[] order = p.xorbOrder();
        int start = 0;
        int ranges = 0;
        for (int i = 0; i <= order.length; i++) {
            if (i == order.length || (ranges >= RANGES_PER_SEGMENT && i > start)) {
                int a = start;
                int b = i;
                boolean first = a == 0;
                boolean last = b == order.length;
                out.add(new Segment(ranges * RANGE_BYTES + (b - a) * 512 + 256, (json, signer) -> {
                    if (first) ReconstructionJson.writeV2Middle(json);
                    ReconstructionJson.writeXorbs(json, p, hex, signer, a, b);
                    if (last) ReconstructionJson.writeV2Tail(json);
                }));
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
