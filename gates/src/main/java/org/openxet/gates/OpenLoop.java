package org.openxet.gates;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * One open-loop step of the load gate and the rig: request {@code i} leaves at {@code start + i / rate} on a virtual
 * thread of its own, whatever the earlier ones are doing, and its latency runs from that intended send time to the
 * last byte of its answer, so a stalled server is charged for every request it delayed (no coordinated omission).
 */
final class OpenLoop {
    /** How long a step waits, after its last request left, for the answers still out; later ones count as errors. */
    private static final long STRAGGLER_SECONDS = 120;

    private OpenLoop() {
    }

    /** A request as the schedule makes it: {@code send} runs on its own thread; a success's latency goes to {@code latency}. */
    record Request(BooleanSupplier send, ConcurrentHistogram latency) {
    }

    /** A step's count: requests sent, answered well, failed or unfinished, and the rate of good answers achieved. */
    record Outcome(long sent, long ok, long errors, double achieved) {
    }

    /** A histogram of microseconds up to 300 s, as every step records. */
    static ConcurrentHistogram histogram() {
        return new ConcurrentHistogram(TimeUnit.SECONDS.toMicros(300), 3);
    }

    /**
     * {@code rate} requests a second for {@code seconds}, each made by {@code next} on this (the scheduling) thread just
     * before it leaves, then a wait for the last answers.
     */
    static Outcome run(int rate, int seconds, Supplier<Request> next) throws InterruptedException {
        AtomicLong ok = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicLong lastDone = new AtomicLong();
        long n = (long) rate * seconds;
        // A count of the requests still out, not a list of their threads: a step's threads kept until its end (10,000
        // at 1,000 req/s for 10 s) outlived every young collection of the generator's JVM, which copied them during
        // the step and paused the schedule with it (docs/BENCHMARKS-HISTORY.md, "The load generator's threads").
        CountDownLatch out = new CountDownLatch(Math.toIntExact(n));
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        for (long i = 0; i < n; i++) {
            long intended = start + i * 1_000_000_000L / rate;
            for (long d; (d = intended - System.nanoTime()) > 0; ) {
                LockSupport.parkNanos(d);
            }
            Request r = next.get();
            Thread.ofVirtual().start(() -> {
                try {
                    boolean good = r.send().getAsBoolean();
                    long now = System.nanoTime();
                    if (good) {
                        r.latency().recordValue(Math.max(0, (now - intended) / 1000));
                        ok.incrementAndGet();
                    } else {
                        errors.incrementAndGet();
                    }
                    lastDone.accumulateAndGet(now, Math::max);
                } catch (RuntimeException e) {
                    errors.incrementAndGet();
                } finally {
                    out.countDown();
                }
            });
        }
        out.await(STRAGGLER_SECONDS, TimeUnit.SECONDS);
        long unfinished = out.getCount();
        double elapsed = (Math.max(lastDone.get(), start + 1) - start) / 1e9;
        return new Outcome(n, ok.get(), errors.get() + unfinished, ok.get() / elapsed);
    }

    /** {@code latency}'s value at {@code percentile} in milliseconds (NaN when it is empty). */
    static double ms(Histogram latency, double percentile) {
        return latency.getTotalCount() == 0 ? Double.NaN : latency.getValueAtPercentile(percentile) / 1000.0;
    }

    /** {@code latency}'s largest value in milliseconds (NaN when it is empty). */
    static double maxMs(Histogram latency) {
        return latency.getTotalCount() == 0 ? Double.NaN : latency.getMaxValue() / 1000.0;
    }

    /** A step's figures as the gates' last JSON lines carry them: the rate achieved, percentiles, errors, requests sent. */
    static Map<String, Object> figures(Outcome o, Histogram latency) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("achieved_rps", Stats.r3(o.achieved()));
        m.put("p50_ms", Stats.r3(ms(latency, 50)));
        m.put("p90_ms", Stats.r3(ms(latency, 90)));
        m.put("p99_ms", Stats.r3(ms(latency, 99)));
        m.put("p999_ms", Stats.r3(ms(latency, 99.9)));
        m.put("max_ms", Stats.r3(maxMs(latency)));
        m.put("errors", o.errors());
        m.put("sent", o.sent());
        return m;
    }
}
