package org.openxet.service;

import org.junit.jupiter.api.Test;
import org.openxet.storage.Index;
import org.openxet.storage.IndexException;
import org.openxet.testing.PostgresServer;
import org.openxet.testing.S3Server;

import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The same collection on storage several nodes share, a real PostgreSQL index and an S3 bucket (s3proxy), run as
 * {@code openxet gc} runs it there: under the index's collector lock, which proves every node stopped.
 */
class SharedXorbCollectorTest extends XorbCollectorTest {
    @Override
    ServerConfig.Storage storage() throws Exception {
        S3Server s3 = S3Server.shared();
        return new ServerConfig.Storage(PostgresServer.get().createDatabase("gc"), "s3://" + s3.createBucket(),
                s3.endpoint(), S3Server.REGION);
    }

    @Override
    XorbCollector.Report collect(Instant now, boolean dryRun) throws Exception {
        try (AutoCloseable everyNodeStopped = services.index().collectorLock()) {
            return XorbCollector.collect(services.index(), services.bucket(), now, GRACE, dryRun, true);
        }
    }

    @Test
    void withoutTheCollectorLockNothingIsCollected() throws Exception {
        upload("single-words-512k", false);
        IllegalStateException shared = assertThrows(IllegalStateException.class,
                () -> XorbCollector.collect(services.index(), services.bucket(), LATER, GRACE, false));
        assertTrue(shared.getMessage().startsWith("the bucket is shared by several nodes"), shared.getMessage());
        IndexException index = assertThrows(IndexException.class, () -> services.index().forgetUnusedXorbs(Long.MAX_VALUE));
        assertEquals(Index.SHARED_GC, index.getMessage());
        assertEquals(new XorbCollector.Report(1, 0, 0, true), collect(LATER, true));
    }
}
