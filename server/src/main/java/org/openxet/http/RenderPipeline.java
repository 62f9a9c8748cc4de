package org.openxet.http;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Renders a large answer's segments with the request's thread and {@code helpers} more, handing them back in order.
 * Renderers claim segments in order; rendering runs at most {@link #AHEAD_PER_RENDERER} segments per renderer ahead of
 * the one the socket is writing, so an answer holds a few segment buffers at a time, not its whole size. The request's
 * thread renders too while the segment it must write next is not ready. Closing it (also after a failed write) stops
 * the helpers.
 */
final class RenderPipeline implements AutoCloseable {
    /** Segments rendered but not yet written, per renderer: enough that the socket never waits on rendering. */
    static final int AHEAD_PER_RENDERER = 2;

    private final AnswerLayout layout;
    private final List<AnswerLayout.Segment> segments;
    private final BufferPool<byte[]> pool;
    private final UrlSigner signer;
    private final AtomicInteger next = new AtomicInteger();
    private final Semaphore room;
    private final List<CompletableFuture<JsonBytes>> done;
    private final int helpers;
    private int written;
    private volatile boolean abandoned;

    /** Starts {@code helpers} virtual threads, each signing with a copy of {@code signer}. */
    RenderPipeline(AnswerLayout layout, BufferPool<byte[]> pool, UrlSigner signer, int helpers) {
        this.layout = layout;
        this.segments = layout.segments();
        this.pool = pool;
        this.signer = signer;
        this.helpers = helpers;
        this.room = new Semaphore((helpers + 1) * AHEAD_PER_RENDERER);
        this.done = new ArrayList<>(segments.size());
        for (int i = 0; i < segments.size(); i++) {
            done.add(new CompletableFuture<>());
        }
        for (int h = 0; h < helpers; h++) {
            UrlSigner own = signer.copy();
            Thread.ofVirtual().name("answer-renderer").start(() -> help(own));
        }
    }

    /** Whether segments are left to write. */
    boolean hasNext() {
        return written < segments.size();
    }

    /** The next segment in order, rendered; give it back with {@link #written(JsonBytes)} once it is on its way. */
    JsonBytes next() {
        int i = written;
        while (!done.get(i).isDone() && room.tryAcquire() && renderNext(signer)) {
            // rendered one, in claim order, on this thread
        }
        return done.get(i).join();
    }

    /** The segment {@link #next()} gave is written: its buffer goes back to the pool and a renderer may go on. */
    void written(JsonBytes segment) {
        written++;
        give(pool, segment);
        room.release();
    }

    /** Claims and renders the next segment, having taken a unit of {@link #room}; false when none is left. */
    private boolean renderNext(UrlSigner own) {
        int i = next.getAndIncrement();
        if (i >= segments.size() || abandoned) {
            room.release();
            return false;
        }
        AnswerLayout.Segment s = segments.get(i);
        try {
            JsonBytes out = new JsonBytes(take(pool, s.capacity()));
            layout.render(s, out, own);
            done.get(i).complete(out);
        } catch (RuntimeException | Error e) {
            done.get(i).completeExceptionally(e);
        }
        return true;
    }

    /** A helper: renders while segments are left, waiting whenever it is far enough ahead of the socket. */
    private void help(UrlSigner own) {
        try {
            do {
                room.acquire();
            } while (renderNext(own));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the helpers: those waiting for room wake, see the answer abandoned and end. */
    @Override
    public void close() {
        abandoned = true;
        room.release(segments.size() + helpers);
    }

    /** A buffer for a segment of {@code capacity} bytes: a pooled one when it fits and one is free. */
    static byte[] take(BufferPool<byte[]> pool, int capacity) {
        if (capacity <= AnswerLayout.SEGMENT_BYTES) {
            byte[] b = pool.take();
            if (b != null) return b;
        }
        return new byte[capacity];
    }

    static void give(BufferPool<byte[]> pool, JsonBytes segment) {
        // A pooled buffer still has its size: a segment never grows past its capacity estimate.
        if (segment.array().length == AnswerLayout.SEGMENT_BYTES) {
            pool.give(segment.array());
        }
    }
}
