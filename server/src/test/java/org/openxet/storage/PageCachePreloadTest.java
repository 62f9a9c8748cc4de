package org.openxet.storage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The index is read into the page cache before ready: whole, within its time limit, and only when it fits. */
class PageCachePreloadTest {
    @TempDir
    Path dir;

    @Test
    void everyByteOfTheFilesThatExistIsReadAndAMissingWalIsNoError() throws IOException {
        Path index = file("index.sqlite", 2 * PageCachePreload.STEP + 1);
        Path wal = file("index.sqlite-wal", 4096);
        PageCachePreload.Result r = PageCachePreload.run(List.of(index, wal, dir.resolve("absent")), Duration.ofSeconds(30),
                Long.MAX_VALUE);
        assertEquals(2 * PageCachePreload.STEP + 1 + 4096, r.total());
        assertEquals(r.total(), r.bytes());
        assertTrue(r.complete(), r.describe());
        assertTrue(r.describe().matches("0\\.00 GB of 0\\.00 GB read into the page cache in \\d+ ms"), r.describe());
    }

    @Test
    void aFileThatGrowsWhileItIsReadIsReadToTheSizeItHadAndTheReadIsComplete() throws IOException {
        // The WAL as a client's writes find it during the read: longer than when the sizes were taken.
        Path index = file("index.sqlite", 2 * PageCachePreload.STEP);
        Path wal = file("index.sqlite-wal", 3 * PageCachePreload.STEP);
        PageCachePreload.Result r = PageCachePreload.run(List.of(index, wal),
                List.of(2 * PageCachePreload.STEP, PageCachePreload.STEP + 1), Duration.ofSeconds(30), Long.MAX_VALUE);
        assertEquals(3 * PageCachePreload.STEP + 1, r.total());
        assertEquals(r.total(), r.bytes());
        assertTrue(r.complete(), r.describe());
        assertFalse(r.describe().contains("time limit"), r.describe());
    }

    @Test
    void anIndexLargerThanTheMemoryAvailableIsNotReadAtAll() throws IOException {
        Path index = file("index.sqlite", 3_000_000);
        PageCachePreload.Result r = PageCachePreload.run(List.of(index), Duration.ofSeconds(30), 2_000_000);
        assertEquals(0, r.bytes());
        assertFalse(r.complete());
        assertEquals("not read into the page cache: 0.00 GB, more than the 0.00 GB of memory available for it",
                r.describe());
    }

    @Test
    void itStopsAtItsTimeLimitAndSaysSo() throws IOException {
        Path index = file("index.sqlite", 3 * PageCachePreload.STEP);
        PageCachePreload.Result r = PageCachePreload.run(List.of(index), Duration.ofNanos(1), Long.MAX_VALUE);
        assertEquals(0, r.bytes());
        assertEquals(3 * PageCachePreload.STEP, r.total());
        assertFalse(r.complete());
        assertTrue(r.describe().endsWith("(stopped at its time limit)"), r.describe());
    }

    @Test
    void aFileOnNoBlockDeviceIsTouchedEverySmallestWindow() {
        assertEquals(PageCachePreload.SMALLEST_WINDOW, PageCachePreload.window(Path.of("/proc/meminfo")));
    }

    @Test
    void theKernelSaysHowMuchMemoryIsAvailable() {
        long available = PageCachePreload.availableMemory().orElseThrow();
        assertTrue(available > 64L << 20, Long.toString(available));
    }

    private Path file(String name, long size) throws IOException {
        byte[] bytes = new byte[(int) size];
        new SplittableRandom(size).nextBytes(bytes);
        return Files.write(dir.resolve(name), bytes);
    }
}
