package org.openxet.service;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openxet.storage.IndexException;
import org.openxet.storage.SqliteIndex;
import org.openxet.testing.IndexCalls;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** /health's index query: one a second at most, however many callers, and a failure kept as long as a success. */
class LivenessTest {
    @Test
    void aFloodOfChecksAsksTheIndexOnceASecond(@TempDir Path dir) throws Exception {
        try (SqliteIndex sqlite = new SqliteIndex(dir.resolve("i.sqlite"), 2)) {
            List<String> calls = Collections.synchronizedList(new ArrayList<>());
            AtomicLong now = new AtomicLong(0);
            Liveness liveness = new Liveness(IndexCalls.recording(sqlite, "has", calls), now::get);
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> checks = new ArrayList<>();
                for (int i = 0; i < 500; i++) checks.add(pool.submit(() -> {
                    liveness.check();
                    return null;
                }));
                for (Future<?> f : checks) f.get();
            }
            assertEquals(List.of("hasXorb"), calls);
            now.addAndGet(Liveness.FRESH.toNanos() - 1);
            liveness.check();
            assertEquals(1, calls.size());
            now.addAndGet(1);
            liveness.check();
            assertEquals(2, calls.size());
        }
    }

    @Test
    void aFailureStandsAsLongAsASuccessWould(@TempDir Path dir) throws Exception {
        SqliteIndex sqlite = new SqliteIndex(dir.resolve("i.sqlite"), 1);
        List<String> calls = Collections.synchronizedList(new ArrayList<>());
        AtomicLong now = new AtomicLong(0);
        Liveness liveness = new Liveness(IndexCalls.recording(sqlite, "has", calls), now::get);
        sqlite.close();
        IndexException first = assertThrows(IndexException.class, liveness::check);
        assertSame(first, assertThrows(IndexException.class, liveness::check));
        assertEquals(1, calls.size());
        now.addAndGet(Liveness.FRESH.toNanos());
        assertThrows(IndexException.class, liveness::check);
        assertEquals(2, calls.size());
    }
}
