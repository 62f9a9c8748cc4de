package org.openxet.service;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.shard.Shard;
import org.openxet.protocol.shard.ShardHeader;
import org.openxet.protocol.shard.ShardWriter;
import org.openxet.storage.IndexException;
import org.openxet.storage.LocalBucket;
import org.openxet.storage.SqliteIndex;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
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

    /** Makes every shard registration fail inside its index transaction, as a full disk does. */
    static void failRegistrations(Path db, boolean fail) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            s.execute(fail ? "CREATE TRIGGER disk_full BEFORE INSERT ON shards "
                    + "BEGIN SELECT RAISE(ROLLBACK, 'database or disk is full'); END" : "DROP TRIGGER disk_full");
        }
    }

    @Test
    void aFailedRegistrationRemovesTheObjectItStored() throws Exception {
        Path db = dir.resolve("index.sqlite");
        try (SqliteIndex index = new SqliteIndex(db, 2)) {
            LocalBucket bucket = new LocalBucket(dir.resolve("bucket"));
            ShardRegistration shards = new ShardRegistration(bucket, index, 1, Clock.systemUTC());
            failRegistrations(db, true);

            assertThrows(IndexException.class, () -> shards.register(BODY, BODY.length, "user/repo", ShardRegistration.SILENT));
            assertEquals(List.of(), bucket.list("shards"), "a shard object nothing registered was left behind");

            failRegistrations(db, false);
            assertTrue(shards.register(BODY, BODY.length, "user/repo", ShardRegistration.SILENT));
            assertEquals(List.of(KEY), bucket.list("shards"));
        }
    }

    @Test
    void aFailedRegistrationKeepsAnObjectThatWasThereBefore() throws Exception {
        Path db = dir.resolve("index.sqlite");
        try (SqliteIndex index = new SqliteIndex(db, 2)) {
            LocalBucket bucket = new LocalBucket(dir.resolve("bucket"));
            ShardRegistration shards = new ShardRegistration(bucket, index, 1, Clock.systemUTC());
            // Left by an earlier attempt that crashed, or stored by an identical upload: not this call's to remove.
            bucket.put(KEY, BODY);
            failRegistrations(db, true);

            assertThrows(IndexException.class, () -> shards.register(BODY, BODY.length, "user/repo", ShardRegistration.SILENT));
            assertEquals(List.of(KEY), bucket.list("shards"));
            assertFalse(index.hasShard(XetHashes.chunkHash(BODY, 0, BODY.length)));
        }
    }
}
