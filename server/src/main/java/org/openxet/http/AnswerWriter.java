package org.openxet.http;

import org.openxet.service.ReconstructionPlanner.Plan;

import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.Semaphore;

/**
 * Writes a reconstruction answer: {@link AnswerLayout} cuts it, a {@link RenderPipeline} renders a large one with
 * lent helper threads, and this class sends it. Every answer goes out behind a Content-Length (Helidon's chunked
 * encoding costs markedly more CPU on a large body: docs/BENCHMARKS-HISTORY.md, "measured Content-Length"). A small
 * answer is rendered whole, then sent; a large one's length is computed without rendering ({@link AnswerFormat#measure})
 * while helpers render its first segments, then each segment goes to the socket as soon as it is rendered, so sending
 * overlaps rendering.
 *
 * <p>Helpers run under the server-wide writer permits ({@code answer.writers}, one per CPU by default): an answer
 * takes at most half of the permits free at that moment, rounded down, so an idle node answers a 100,000-term file
 * with every core and a loaded node falls back to one writer per answer without queueing.
 */
public final class AnswerWriter {
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

    private final Semaphore writerPermits;
    private final BufferPool<byte[]> segmentBuffers;

    public AnswerWriter(int writers) {
        this.writerPermits = new Semaphore(writers);
        // What one answer on every writer has in flight, and a couple more: at most 16 buffers (2 MB each) kept.
        this.segmentBuffers = new BufferPool<>(Math.min(16, writers * (RenderPipeline.AHEAD_PER_RENDERER + 1) + 2),
                () -> new byte[AnswerLayout.SEGMENT_BYTES]);
    }

    /** Writer permits free now (tests: every answer, finished or failed, returns the ones it took). */
    int availableWriterPermits() {
        return writerPermits.availablePermits();
    }

    /** Where an answer goes. */
    public interface Body {
        /** The answer's exact length, announced once, before the first byte. */
        void length(long bytes);

        /** Where the bytes go; closed when the answer is written (or failed). */
        OutputStream stream() throws IOException;

        /** Whether {@link #length} is wanted: a large answer's is computed for it, at a cost. */
        default boolean wantsLength() {
            return true;
        }

        /** A plain stream (benches, gates, tests): no length is computed for it, and it is not closed. */
        static Body of(OutputStream sink) {
            OutputStream unclosed = new OutputStream() {
                @Override
                public void write(int b) throws IOException {
                    sink.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    sink.write(b, off, len);
                }

                @Override
                public void flush() throws IOException {
                    sink.flush();
                }
            };
            return new Body() {
                @Override
                public void length(long bytes) {
                }

                @Override
                public OutputStream stream() {
                    return unclosed;
                }

                @Override
                public boolean wantsLength() {
                    return false;
                }
            };
        }
    }

    /** Writes {@code p}'s answer in {@code format} to {@code body}, its URLs signed by {@code signer}. */
    public void write(AnswerFormat format, Body body, Plan p, UrlSigner signer) throws IOException {
        AnswerLayout layout = AnswerLayout.of(format, p, signer);
        if (layout.segments().size() == 1) {
            AnswerLayout.Segment whole = layout.segments().getFirst();
            JsonBytes json = new JsonBytes(null, whole.capacity());
            layout.render(whole, json, signer);
            body.length(json.length());
            try (OutputStream out = body.stream()) {
                writeSliced(out, json.array(), json.length(), true);
            }
            return;
        }
        int helpers = Math.min(writerPermits.availablePermits() / 2, layout.segments().size() - 1);
        if (helpers > 0 && !writerPermits.tryAcquire(helpers)) {
            helpers = 0;
        }
        try (RenderPipeline pipeline = new RenderPipeline(layout, segmentBuffers, signer, helpers)) {
            long length = -1;
            if (body.wantsLength()) {
                length = format.measure(p, signer);
                body.length(length);
            }
            long written = 0;
            try (OutputStream out = body.stream()) {
                while (pipeline.hasNext()) {
                    JsonBytes segment = pipeline.next();
                    writeSliced(out, segment.array(), segment.length(), written == 0);
                    written += segment.length();
                    pipeline.written(segment);
                }
            }
            if (length >= 0 && written != length) {
                // Never expected (tests compare the two); fail loudly rather than send a lying header.
                throw new IllegalStateException(format + " answer measured " + length + " bytes but rendered " + written);
            }
        } finally {
            writerPermits.release(helpers);
        }
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
}
