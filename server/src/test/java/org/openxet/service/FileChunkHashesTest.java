package org.openxet.service;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openxet.storage.SqliteIndex;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What a file-chunk-hashes answer reads from the index (its windows and hashes: FileChunkHashesRouteTest). */
class FileChunkHashesTest {
    @Test
    void theLayoutsOfEveryXorbTheFileNamesAreReadInOneIndexCall(@TempDir Path dir) throws Exception {
        try (SqliteIndex sqlite = new SqliteIndex(dir.resolve("i.sqlite"), 1)) {
            List<String> calls = new ArrayList<>();
            // The planner test's file: three terms over xorbs A and B, eight chunks in all.
            FileChunkHashes hashes = new FileChunkHashes(ReconstructionPlannerTest.layoutsOfAandB(sqlite, calls));
            FileChunkHashes.Answer a = hashes.answer(ReconstructionPlannerTest.FILE,
                    List.of(new FileChunkHashes.Range(150, 160)));
            assertEquals(List.of("xorbs"), calls);
            assertEquals(8, a.totalChunks());
            assertEquals(600, a.fileSize());
        }
    }
}
