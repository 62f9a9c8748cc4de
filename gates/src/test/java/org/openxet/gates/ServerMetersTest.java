package org.openxet.gates;

import org.junit.jupiter.api.Test;
import org.openxet.gates.ServerMeters.GcFigures;
import org.openxet.gates.ServerMeters.TokenChecks;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class ServerMetersTest {
    private static Map<String, Double> sample(long kept, long full, long pauses) {
        return ServerMeters.parse("""
                # HELP openxet_token_checks_total bearer token checks by result
                # TYPE openxet_token_checks_total counter
                openxet_token_checks_total{result="full"} %d.0
                openxet_token_checks_total{result="kept"} %d.0
                jvm_gc_pause_seconds_count{action="end of minor GC",cause="G1 Evacuation Pause",gc="G1 Young Generation"} %d
                jvm_gc_pause_seconds_sum{action="end of minor GC",cause="G1 Evacuation Pause",gc="G1 Young Generation"} 0.25
                jvm_gc_memory_promoted_bytes_total 1.0E7
                jvm_memory_used_bytes{area="heap",id="G1 Eden Space"} 3.0E8
                jvm_memory_used_bytes{area="nonheap",id="Metaspace"} 9.0E7
                """.formatted(full, kept, pauses));
    }

    @Test
    void aStepsTokenChecksAreTheDifferenceOfTwoScrapesAndSayWhatShareTheKeptTokensAnswered() {
        TokenChecks step = TokenChecks.of(sample(20_990, 1_010, 7)).since(TokenChecks.of(sample(1_000, 1_000, 3)));
        assertEquals(new TokenChecks(19_990, 10), step);
        assertEquals(0.9995, step.keptShare(), 1e-9);
        assertEquals("20,000 token checks, 99.95 % answered from tokens verified before (10 in full)", step.describe());
    }

    @Test
    void aServerWithoutTheCounterHasNoShareRatherThanAZeroOne() {
        TokenChecks none = TokenChecks.of(ServerMeters.parse("jvm_gc_memory_promoted_bytes_total 0.0\n"));
        assertEquals(new TokenChecks(0, 0), none);
        assertNull(none.keptShare());
        assertEquals("0 token checks, none answered from tokens verified before (0 in full)", none.describe());
    }

    @Test
    void collectorFiguresAndTheHeapAreReadFromTheSameScrape() {
        Map<String, Double> m = sample(0, 0, 7);
        assertEquals(new GcFigures(4, 0.0, 0), GcFigures.of(m).since(GcFigures.of(sample(0, 0, 3))));
        assertEquals(3.0e8, ServerMeters.heap(m));
    }
}
