package org.openxet.http;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A bounded pool of same-sized buffers that live for the process: at most {@code max} are ever made, each in the pool
 * or in use. The read path keeps two of them, because it holds bytes in two kinds of memory: answer segments render
 * into heap arrays ({@link JsonBytes} writes them fastest; {@link AnswerWriter}), and bytes go to the socket from
 * direct memory, which the JDK would otherwise copy them into again ({@link ChannelBodyStream}). Both exist so that a
 * large answer reuses a few MB instead of allocating its whole size: docs/BENCHMARKS-HISTORY.md, the row "rendering
 * at most two segments per renderer ahead of the socket, into pooled buffers" and "Answers written to the socket
 * channel".
 */
final class BufferPool<B> {
    private final ArrayBlockingQueue<B> kept;
    private final AtomicInteger made = new AtomicInteger();
    private final int max;
    private final Supplier<B> make;

    BufferPool(int max, Supplier<B> make) {
        this.kept = new ArrayBlockingQueue<>(max);
        this.max = max;
        this.make = make;
    }

    /**
     * A kept buffer, or a new one while fewer than {@code max} exist; null when all of them are in use: the caller then
     * makes a buffer of its own for this once (and does not give it back).
     */
    B take() {
        B b = kept.poll();
        if (b == null && made.getAndUpdate(n -> Math.min(n + 1, max)) < max) {
            b = make.get();
        }
        return b;
    }

    /** Returns a buffer {@link #take()} gave. */
    void give(B b) {
        kept.offer(b);
    }

    /** Buffers made so far (tests). */
    int made() {
        return made.get();
    }
}
