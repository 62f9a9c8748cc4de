package org.openxet.gates;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** CPU ticks read from /proc: a stat line's utime and stime, and the sum over processes of one command name. */
class ProcessCpuTest {
    @Test
    void aStatLinesTicksAreCountedAfterItsCommandNameWhateverThatHolds() {
        String stat = "4242 (postgres: x) (idle)) S 1 4242 4242 0 -1 4194560 9 0 0 0 250 50 0 0 20 0 1 0 77 1 1";
        assertEquals(300, ProcessCpu.ticks(stat));
    }

    @Test
    void theTicksOfACommandIncludeEveryProcessOfThatName() {
        long own = ProcessCpu.ticks(ProcessHandle.current().pid());
        // This JVM is a "java" process; the sum over all of them is at least its own, read a moment before.
        assertTrue(ProcessCpu.ticksOf("java") >= own, "java processes' ticks " + ProcessCpu.ticksOf("java") + " < own " + own);
        assertEquals(0, ProcessCpu.ticksOf("no-such-command-openxet"));
    }
}
