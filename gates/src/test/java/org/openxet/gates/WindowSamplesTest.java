package org.openxet.gates;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A restart window's figure from outside the server is what changed between the samples at its two ends. */
class WindowSamplesTest {
    @Test
    void eachWindowIsWhatChangedBetweenTheSamplesAtItsEnds() throws Exception {
        AtomicInteger taken = new AtomicInteger();
        int[] squares = {0, 1, 4, 9};
        try (WindowSamples<Integer> w = new WindowSamples<>("test", 3, () -> squares[taken.getAndIncrement()])) {
            assertArrayEquals(new double[]{1, 3, 5}, w.perWindow((from, to) -> to - from));
        }
        assertEquals(4, taken.get(), "one sample as each window began and one as the last ended");
    }

    @Test
    void aWindowWhoseEndWasNeverSampledIsUnknown() throws Exception {
        double[] windows;
        try (WindowSamples<Long> w = new WindowSamples<>("test", 5, System::nanoTime)) {
            w.close(); // as a gate that gives up early does
            windows = w.perWindow((from, to) -> to - from);
        }
        assertEquals(5, windows.length);
        for (double d : windows) assertTrue(Double.isNaN(d), "window " + d);
    }
}
