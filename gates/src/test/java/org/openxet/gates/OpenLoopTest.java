package org.openxet.gates;

import org.HdrHistogram.ConcurrentHistogram;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An open-loop step counts every request it sent once, and keeps nothing of a request that has finished. */
class OpenLoopTest {
    @Test
    void everyRequestIsAnAnswerAnErrorOrUnfinished() throws InterruptedException {
        ConcurrentHistogram latency = OpenLoop.histogram();
        int[] made = {0};
        // Of each four requests: two answered well, one answered badly, one whose sending threw.
        OpenLoop.Outcome o = OpenLoop.run(200, 1, () -> {
            int k = made[0]++;
            return new OpenLoop.Request(() -> switch (k % 4) {
                case 1 -> false;
                case 2 -> throw new IllegalStateException("a generator's own bug, counted rather than lost");
                default -> true;
            }, latency);
        });
        assertEquals(200, o.sent());
        assertEquals(100, o.ok());
        assertEquals(100, o.errors());
        assertEquals(100, latency.getTotalCount());
    }

    @Test
    void aFinishedRequestsThreadIsGarbageBeforeTheStepEnds() throws InterruptedException {
        // The generator's young collections copy whatever a step still holds; a step that held its threads to its end
        // paused the schedule it measures (docs/BENCHMARKS-HISTORY.md, "The load generator's threads").
        ConcurrentHistogram latency = OpenLoop.histogram();
        AtomicReference<WeakReference<Thread>> first = new AtomicReference<>();
        AtomicBoolean firstCollected = new AtomicBoolean();
        int[] made = {0};
        OpenLoop.run(100, 1, () -> {
            int k = made[0]++;
            return new OpenLoop.Request(() -> {
                if (k == 0) first.set(new WeakReference<>(Thread.currentThread()));
                if (k == 99) { // 990 ms after the first, which answered at once
                    System.gc();
                    firstCollected.set(first.get().get() == null);
                }
                return true;
            }, latency);
        });
        assertTrue(firstCollected.get(), "the first request's thread was still reachable at the step's last request");
    }
}
