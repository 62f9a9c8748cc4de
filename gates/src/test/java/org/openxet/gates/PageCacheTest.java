package org.openxet.gates;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The rig says how much of its index the page cache holds, and when it cannot say. */
class PageCacheTest {
    @Test
    void aFileJustWrittenIsCountedWhole(@TempDir Path dir) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/fincore")), "util-linux's fincore");
        Path a = Files.write(dir.resolve("a"), new byte[1 << 20]);
        Path b = Files.write(dir.resolve("b"), new byte[3 * 4096]);
        assertEquals(OptionalLong.of((1 << 20) + 3 * 4096), PageCache.residentBytes(List.of(a, b)));
    }

    @Test
    void aFileThatCannotBeReadLeavesTheAnswerUnknown(@TempDir Path dir) throws Exception {
        Path a = Files.write(dir.resolve("a"), new byte[4096]);
        assertEquals(OptionalLong.empty(), PageCache.residentBytes(List.of(a, dir.resolve("missing"))));
        assertEquals(OptionalLong.empty(), PageCache.residentBytes(List.of()));
    }

    @Test
    void aStepWhoseIndexIsPartlyOnDiskIsFlagged(@TempDir Path dir) throws Exception {
        Path index = Files.write(dir.resolve("index.sqlite"), new byte[1_000_000]);
        String half = RigGate.cached(OptionalLong.of(500_000), List.of(index));
        assertTrue(half.startsWith("index in the page cache as the step began: 0.00 of 0.00 GB (50 %)"), half);
        assertTrue(half.contains("reads may go to disk"), half);
        assertFalse(RigGate.cached(OptionalLong.of(1_003_520), List.of(index)).contains("disk"));
        assertTrue(RigGate.cached(OptionalLong.empty(), List.of(index)).contains("unknown"));
    }
}
