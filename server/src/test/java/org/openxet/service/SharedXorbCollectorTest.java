package org.openxet.service;

import org.junit.jupiter.api.Test;
import org.openxet.storage.SqliteIndex;
import org.openxet.testing.PostgresServer;
import org.openxet.testing.S3Server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The same collection on storage several nodes share, a real PostgreSQL index and an S3 bucket (s3proxy), run as
 * {@code openxet gc} runs it there: under the index's collector, which proves every node stopped (the services'
 * own connections are gc's here).
 */
class SharedXorbCollectorTest extends XorbCollectorTest {
    @Override
    ServerConfig.Storage storage() throws Exception {
        S3Server s3 = S3Server.shared();
        return new ServerConfig.Storage(PostgresServer.get().createDatabase("gc"), "s3://" + s3.createBucket(),
                s3.endpoint(), S3Server.REGION);
    }

    @Test
    void aSharedBucketOverTheDataDirsOwnIndexIsNeverCollected() throws Exception {
        upload("single-words-512k", false);
        try (SqliteIndex own = new SqliteIndex(dir.resolve("own.sqlite"), 1)) {
            IllegalStateException shared = assertThrows(IllegalStateException.class,
                    () -> XorbCollector.collect(own, services.bucket(), LATER, GRACE, false, Progress.NONE));
            assertTrue(shared.getMessage().startsWith("the bucket is shared by several nodes"), shared.getMessage());
        }
        assertEquals(new XorbCollector.Report(1, 0, 0, true), collect(LATER, true), "nothing was taken");
    }
}
