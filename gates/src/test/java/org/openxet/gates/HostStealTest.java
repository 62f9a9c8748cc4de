package org.openxet.gates;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The gates say how much CPU time the host took from this guest, and say so when they cannot tell. */
class HostStealTest {
    @Test
    void theStealColumnIsReadAgainstAllEightColumns() {
        // A line as a KVM guest's kernel writes it: user nice system idle iowait irq softirq steal guest guest_nice.
        HostSteal.Sample s = HostSteal.Sample.parse("cpu  24131 0 8422 40862 323 0 1326 4428 0 0");
        assertEquals(4428, s.steal());
        assertEquals(24131 + 8422 + 40862 + 323 + 1326 + 4428, s.total());
    }

    @Test
    void aShareIsStolenTicksOverAllTicksBetweenTwoSamples() {
        HostSteal.Sample a = HostSteal.Sample.parse("cpu 100 0 100 700 0 0 0 100 0 0");
        HostSteal.Sample b = HostSteal.Sample.parse("cpu 200 0 150 1000 0 0 0 150 50 0");
        assertEquals(50.0 / 500, HostSteal.share(a, b), 1e-12);
        assertEquals("10 %", HostSteal.percent(HostSteal.share(a, b)));
        assertEquals(0.1, HostSteal.json(HostSteal.share(a, b)));
    }

    @Test
    void noLineOrNoTimePassedIsUnknownNotZero() {
        HostSteal.Sample a = HostSteal.Sample.parse("cpu 100 0 100 700 0 0 0 100 0 0");
        assertFalse(HostSteal.Sample.parse("intr 12345 0 0").known());
        assertTrue(Double.isNaN(HostSteal.share(a, a)));
        assertTrue(Double.isNaN(HostSteal.share(HostSteal.Sample.UNKNOWN, a)));
        assertEquals("unknown", HostSteal.percent(Double.NaN));
        assertNull(HostSteal.json(Double.NaN));
    }

    @Test
    void theSlowestTenthIsTheSlowestAsksAndAtLeastOne() {
        double[] ms = {5, 6, 40, 7, 5, 6, 8, 30, 6, 5, 7, 6, 5, 6, 7, 5, 6, 7, 5, 6};
        int[][] parts = HostSteal.slowestTenthAndRest(ms);
        assertArrayEquals(new int[]{2, 7}, parts[0]);
        assertEquals(18, parts[1].length);
        assertArrayEquals(new int[]{1}, HostSteal.slowestTenthAndRest(new double[]{3, 9, 4})[0]);
    }

    @Test
    void onLinuxEachOneSecondWindowHasAShare() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/stat")), "Linux's /proc/stat");
        HostSteal.Sample before = HostSteal.Sample.now();
        assertTrue(before.known());
        double[] shares;
        try (HostSteal.Windows w = new HostSteal.Windows(2)) {
            shares = w.shares();
        }
        assertEquals(2, shares.length);
        for (double s : shares) assertTrue(s >= 0 && s <= 1, "share " + s);
        HostSteal.Sample after = HostSteal.Sample.now();
        assertTrue(after.total() > before.total() && after.steal() >= before.steal());
    }
}
