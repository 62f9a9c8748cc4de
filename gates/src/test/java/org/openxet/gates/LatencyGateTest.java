package org.openxet.gates;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class LatencyGateTest {
    @Test
    void slowestListsTheSlowestRequestsFirstWithTheirFirstByteAndPauses() {
        double[] ms = {10.0, 31.5, 12.0, 44.25, 9.0};
        double[] firstByte = {5.0, 6.5, 5.5, 20.0, 4.0};
        boolean[] paused = {false, true, false, false, true};
        assertEquals("slowest: 44.25 ms (first byte 20.00 ms), 31.50 ms (first byte 6.50 ms, GC pause inside), "
                        + "12.00 ms (first byte 5.50 ms); 2 of 5 requests had a GC pause inside",
                LatencyGate.slowest(ms, firstByte, paused, 3));
    }
}
