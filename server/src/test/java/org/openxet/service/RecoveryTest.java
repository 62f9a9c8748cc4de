package org.openxet.service;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.xorb.ChunkTable;
import org.openxet.storage.Bucket;
import org.openxet.storage.LocalBucket;
import org.openxet.storage.S3Bucket;
import org.openxet.storage.ShardCommit;
import org.openxet.storage.SqliteIndex;
import org.openxet.testing.LogCapture;
import org.openxet.testing.S3Server;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RecoveryTest {
    @TempDir
    Path dir;

    static MerkleHash hash(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return XetHashes.chunkHash(b, 0, b.length);
    }

    /** Work a test runs while reconciliation lists the bucket: a writer racing the scan. */
    interface Step {
        void run() throws Exception;
    }

    /** A real local bucket that runs {@code before} and {@code after} around the first listing taken from it. */
    static final class RacingBucket implements Bucket {
        final LocalBucket real;
        Step before = () -> { };
        Step after = () -> { };
        boolean listed;

        RacingBucket(LocalBucket real) {
            this.real = real;
        }

        @Override
        public List<String> list(String prefix) throws IOException {
            if (listed) {
                return real.list(prefix);
            }
            listed = true;
            run(before);
            List<String> keys = real.list(prefix);
            run(after);
            return keys;
        }

        private static void run(Step step) throws IOException {
            try {
                step.run();
            } catch (Exception e) {
                throw new IOException(e);
            }
        }

        @Override
        public void put(String key, ByteBuffer... parts) throws IOException {
            real.put(key, parts);
        }

        @Override
        public boolean putIfAbsent(String key, ByteBuffer... parts) throws IOException {
            return real.putIfAbsent(key, parts);
        }

        @Override
        public Optional<Long> size(String key) throws IOException {
            return real.size(key);
        }

        @Override
        public InputStream openRange(String key, long offset, long length) throws IOException {
            return real.openRange(key, offset, length);
        }

        @Override
        public byte[] read(String key) throws IOException {
            return real.read(key);
        }

        @Override
        public void delete(String key) throws IOException {
            real.delete(key);
        }
    }

    /** Stores and registers a xorb the way {@link XorbIngest} does: blob first, then its index row. */
    static void upload(Bucket bucket, SqliteIndex index, MerkleHash xorb) throws Exception {
        bucket.put(XorbIngest.key(xorb), new byte[108]);
        index.putXorb(xorb, new ChunkTable(1, hash("chunk of " + xorb).toBytes(), new int[]{108}, new int[]{100}), 108);
    }

    static void uploadShard(Bucket bucket, SqliteIndex index, MerkleHash shard) throws Exception {
        bucket.put(ShardRegistration.key(shard), new byte[48]);
        index.registerShard(new ShardCommit(shard, "user/repo", 48, List.of(), List.of(), List.of()));
    }

    @Test
    void anObjectRegisteredDuringTheScanIsKeptAndOnlyTrueOrphansGo() throws Exception {
        try (SqliteIndex index = new SqliteIndex(dir.resolve("index.sqlite"), 2)) {
            RacingBucket bucket = new RacingBucket(new LocalBucket(dir.resolve("bucket")));
            MerkleHash kept = hash("registered before");
            MerkleHash racing = hash("registered during the scan");
            MerkleHash racingShard = hash("shard registered during the scan");
            MerkleHash orphan = hash("never registered");
            MerkleHash orphanShard = hash("shard never registered");
            upload(bucket, index, kept);
            bucket.put(XorbIngest.key(orphan), new byte[108]);
            bucket.put(ShardRegistration.key(orphanShard), new byte[48]);
            bucket.before = () -> {
                upload(bucket, index, racing);
                uploadShard(bucket, index, racingShard);
            };

            Recovery.Report report = Recovery.reconcile(index, bucket);

            assertTrue(bucket.size(XorbIngest.key(racing)).isPresent(), "deleted a xorb registered during the scan");
            assertTrue(bucket.size(ShardRegistration.key(racingShard)).isPresent(), "deleted a registered shard");
            assertTrue(bucket.size(XorbIngest.key(kept)).isPresent());
            assertTrue(bucket.size(XorbIngest.key(orphan)).isEmpty());
            assertTrue(bucket.size(ShardRegistration.key(orphanShard)).isEmpty());
            assertEquals(new Recovery.Report(1, 1, true, List.of()), report);
        }
    }

    @Test
    void aXorbStoredAndRegisteredAfterTheListingIsNotReportedMissing() throws Exception {
        try (SqliteIndex index = new SqliteIndex(dir.resolve("index.sqlite"), 2)) {
            RacingBucket bucket = new RacingBucket(new LocalBucket(dir.resolve("bucket")));
            MerkleHash lost = hash("registered, object gone");
            index.putXorb(lost, new ChunkTable(1, hash("c").toBytes(), new int[]{108}, new int[]{100}), 108);
            MerkleHash late = hash("stored after the listing");
            bucket.after = () -> upload(bucket, index, late);

            Recovery.Report report = Recovery.reconcile(index, bucket);

            assertEquals(List.of(lost), report.missingXorbs());
            assertTrue(bucket.size(XorbIngest.key(late)).isPresent());
        }
    }

    /**
     * On a shared bucket an unregistered object may be another node's upload between its put and its registration:
     * recovery keeps it and says what it would have removed, and still reports a registered xorb without its object.
     */
    @Test
    void aSharedBucketKeepsUnregisteredObjectsAndStillReportsMissingXorbs() throws Exception {
        try (SqliteIndex index = new SqliteIndex(dir.resolve("index.sqlite"), 2);
             S3Bucket bucket = S3Server.shared().openFreshBucket();
             LogCapture log = new LogCapture()) {
            MerkleHash kept = hash("registered");
            MerkleHash inFlight = hash("another node's upload, not registered yet");
            MerkleHash inFlightShard = hash("another node's shard, not registered yet");
            MerkleHash lost = hash("registered, object gone");
            upload(bucket, index, kept);
            bucket.put(XorbIngest.key(inFlight), new byte[108]);
            bucket.put(ShardRegistration.key(inFlightShard), new byte[48]);
            index.putXorb(lost, new ChunkTable(1, hash("c").toBytes(), new int[]{108}, new int[]{100}), 108);

            Recovery.Report report = Recovery.reconcile(index, bucket);

            assertEquals(new Recovery.Report(1, 1, false, List.of(lost)), report);
            assertTrue(bucket.size(XorbIngest.key(inFlight)).isPresent(), "deleted another node's xorb");
            assertTrue(bucket.size(ShardRegistration.key(inFlightShard)).isPresent(), "deleted another node's shard");
            assertTrue(bucket.size(XorbIngest.key(kept)).isPresent());
            String line = log.messages().stream().filter(m -> m.startsWith("recovery: kept")).findFirst().orElseThrow();
            assertTrue(line.contains(XorbIngest.key(inFlight)) && line.contains(ShardRegistration.key(inFlightShard)), line);
        }
    }
}
