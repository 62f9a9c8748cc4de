package org.openxet.service;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.shard.Shard;
import org.openxet.protocol.shard.ShardHeader;
import org.openxet.protocol.shard.ShardWriter;
import org.openxet.storage.IndexException;
import org.openxet.storage.LocalBucket;
import org.openxet.storage.S3Bucket;
import org.openxet.storage.SqliteIndex;
import org.openxet.testing.DiskFull;
import org.openxet.testing.S3Server;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShardRegistrationTest {
    @TempDir
    Path dir;

    static final byte[] BODY = ShardWriter.write(new Shard(ShardHeader.withoutFooter(), List.of(), List.of(), null));
    static final String KEY = ShardRegistration.key(XetHashes.chunkHash(BODY, 0, BODY.length));

    @Test
    void aFailedRegistrationRemovesTheObjectItStored() throws Exception {
        Path db = dir.resolve("index.sqlite");
        try (SqliteIndex index = new SqliteIndex(db, 2)) {
            LocalBucket bucket = new LocalBucket(dir.resolve("bucket"));
            ShardRegistration shards = new ShardRegistration(bucket, index, new Registrations(bucket), 1, Clock.systemUTC());
            try (DiskFull full = DiskFull.on(db, "shards")) {
                assertThrows(IndexException.class, () -> shards.register(BODY, BODY.length, "user/repo", ShardRegistration.SILENT));
                assertEquals(List.of(), bucket.list("shards"), "a shard object nothing registered was left behind");
            }
            assertTrue(shards.register(BODY, BODY.length, "user/repo", ShardRegistration.SILENT));
            assertEquals(List.of(KEY), bucket.list("shards"));
        }
    }

    @Test
    void aFailedRegistrationKeepsAnObjectThatWasThereBefore() throws Exception {
        Path db = dir.resolve("index.sqlite");
        try (SqliteIndex index = new SqliteIndex(db, 2)) {
            LocalBucket bucket = new LocalBucket(dir.resolve("bucket"));
            ShardRegistration shards = new ShardRegistration(bucket, index, new Registrations(bucket), 1, Clock.systemUTC());
            // Left by an earlier attempt that crashed, or stored by an identical upload: not this call's to remove.
            bucket.put(KEY, BODY);
            try (DiskFull full = DiskFull.on(db, "shards")) {
                assertThrows(IndexException.class, () -> shards.register(BODY, BODY.length, "user/repo", ShardRegistration.SILENT));
            }
            assertEquals(List.of(KEY), bucket.list("shards"));
            assertFalse(index.hasShard(XetHashes.chunkHash(BODY, 0, BODY.length)));
        }
    }

    /** The object this call created may be another node's too by now (same content, same key): a shared bucket keeps it. */
    @Test
    void aFailedRegistrationLeavesTheObjectItStoredInASharedBucket() throws Exception {
        Path db = dir.resolve("index.sqlite");
        try (SqliteIndex index = new SqliteIndex(db, 2); S3Bucket bucket = S3Server.shared().openFreshBucket()) {
            ShardRegistration shards = new ShardRegistration(bucket, index, new Registrations(bucket), 1, Clock.systemUTC());
            try (DiskFull full = DiskFull.on(db, "shards")) {
                assertThrows(IndexException.class, () -> shards.register(BODY, BODY.length, "user/repo", ShardRegistration.SILENT));
            }
            assertEquals(List.of(KEY), bucket.list("shards"));
            assertFalse(index.hasShard(XetHashes.chunkHash(BODY, 0, BODY.length)));
        }
    }
}
