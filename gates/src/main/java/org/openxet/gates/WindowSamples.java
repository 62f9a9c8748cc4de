package org.openxet.gates;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.function.ToDoubleBiFunction;

/**
 * A value sampled as each of {@code seconds} one-second windows begins and as the last one ends, by a daemon thread
 * of its own: the restart gate's per-second view of things outside the server (the host's steal, the load
 * generator's own pauses). The windows start at construction, as the gate's schedule does.
 */
final class WindowSamples<T> implements AutoCloseable {
    private final List<T> at; // at(w): as window w began; at(seconds): as the last one ended
    private final Thread sampler;

    WindowSamples(String name, int seconds, Supplier<T> sample) {
        at = Collections.synchronizedList(new ArrayList<>(Collections.nCopies(seconds + 1, null)));
        long start = System.nanoTime();
        at.set(0, sample.get());
        sampler = Thread.ofPlatform().daemon().name(name).start(() -> {
            for (int w = 1; w <= seconds; w++) {
                long end = start + w * 1_000_000_000L;
                for (long left; (left = end - System.nanoTime()) > 0; ) {
                    LockSupport.parkNanos(left);
                    if (Thread.interrupted()) return;
                }
                at.set(w, sample.get());
            }
        });
    }

    /** Per window, {@code between(at(w), at(w + 1))}, or NaN where either sample is missing (waits for the last). */
    double[] perWindow(ToDoubleBiFunction<T, T> between) throws InterruptedException {
        sampler.join();
        double[] out = new double[at.size() - 1];
        for (int w = 0; w < out.length; w++) {
            T a = at.get(w);
            T b = at.get(w + 1);
            out[w] = a == null || b == null ? Double.NaN : between.applyAsDouble(a, b);
        }
        return out;
    }

    @Override
    public void close() {
        sampler.interrupt();
    }
}
