package org.openxet.service;

import org.junit.jupiter.api.Test;
import org.openxet.storage.ShardCommit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rehearsal before ready takes a client's xorbs and shard through every check an upload meets, in memory. */
class WritePathRehearsalTest {
    @Test
    void aClientsXorbsAndShardPassEveryUploadCheckWithoutBeingCommitted() throws Exception {
        WritePathRehearsal.Upload upload = WritePathRehearsal.inMemory();
        assertEquals(2, upload.xorbs().size());
        ShardCommit commit = upload.commit();
        assertEquals("warmup/write-path", commit.scope());
        assertEquals(1, commit.files().size());
        assertEquals(2, commit.files().getFirst().termCount(), "one term over each xorb");
        assertEquals(2, commit.listedXorbs().size());
        // 8 chunks of 1-8 KiB per xorb, half compressible: the file is as long as its sixteen chunks.
        long size = commit.files().getFirst().size();
        assertTrue(size >= 16 * 1024 && size <= 16 * 8 * 1024, "file size " + size);
    }
}
