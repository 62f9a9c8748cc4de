package org.openxet.service;

import org.openxet.protocol.FormatException;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.shard.Shard;
import org.openxet.protocol.shard.ShardParser;
import org.openxet.protocol.shard.ShardWriter;
import org.openxet.storage.Bucket;
import org.openxet.storage.Index;
import org.openxet.storage.IndexException;
import org.openxet.storage.ShardCommit;
import org.openxet.storage.XorbLayout;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/**
 * {@code POST /v1/shards} and {@code /v2/shards} without the HTTP (§5.3, §6): parse with bounded allocation,
 * validate against the stored xorbs, store the shard in its stored form (§4.7) and register everything in one index
 * transaction. All of it runs under a commit permit, so a burst of uploads holds a bounded number of shard bodies in
 * memory at once.
 */
public final class ShardRegistration {
    /** Largest shard body accepted: the client targets 64 MiB (§4.6); leave room for its footer and slack. */
    public static final long MAX_SHARD_BYTES = (64L << 20) + (1 << 20);

    private final Bucket bucket;
    private final Index index;
    private final Slots permits;
    private final Clock clock;
    private final Registrations registrations;
    // One registration of a shard at a time stores, registers and, on failure, removes its object, so a failed
    // registration never deletes an object that a concurrent identical one has just registered. Different shards
    // never wait for each other.
    private final KeyedLocks<MerkleHash> registering = new KeyedLocks<>();

    public ShardRegistration(Bucket bucket, Index index, Registrations registrations, int permits, Clock clock) {
        this.bucket = bucket;
        this.index = index;
        this.permits = new Slots(permits, "shard commit", true);
        this.clock = clock;
        this.registrations = registrations;
    }

    /** Progress of one registration, for the v2 NDJSON stream (§5.3). */
    public interface Listener extends ShardValidation.Progress {
        void committing(String stage);
    }

    public static final Listener SILENT = new Listener() {
        @Override
        public void verified(long done, long total) {
        }

        @Override
        public void committing(String stage) {
        }
    };

    /** Work done while holding a commit permit. */
    public interface Permitted<T, E extends Exception> {
        T run() throws E, IOException, IndexException, FormatException;
    }

    /**
     * Runs {@code work} (typically: read the body, then {@link #register}) under one of the commit permits, waiting at
     * most {@code wait} for one: slow uploads can hold every permit for minutes, and a wait without end left every
     * other shard upload unanswered.
     */
    public <T, E extends Exception> T withPermit(Duration wait, Permitted<T, E> work) throws E, IOException,
            IndexException, FormatException, InterruptedException, Slots.Busy {
        try (Slots.Held ignored = permits.acquire(wait)) {
            return work.run();
        }
    }

    public static String key(MerkleHash shardHash) {
        return "shards/" + shardHash.hex();
    }

    /**
     * Registers a shard body for {@code scope}. Returns true when it was new ({@code result: 1}), false when this
     * exact shard was registered before ({@code result: 0}; only the scope's visibility is added then).
     */
    public boolean register(byte[] body, int length, String scope, Listener listener)
            throws FormatException, IOException, IndexException {
        return register(ShardParser.parse(body, 0, length), body, length, scope, listener);
    }

    /** {@link #register(byte[], int, String, Listener)} of a body already parsed into {@code shard}. */
    public boolean register(Shard shard, byte[] body, int length, String scope, Listener listener)
            throws FormatException, IOException, IndexException {
        MerkleHash shardHash = XetHashes.chunkHash(body, 0, length);
        listener.verified(0, shard.files().size());
        Map<MerkleHash, XorbLayout> layouts = index.xorbs(ShardValidation.referencedXorbs(shard));
        boolean known = index.hasShard(shardHash);
        byte[] stored = known ? null : ShardWriter.writeStored(shard, clock.millis() / 1000, -1L);
        ShardCommit commit = ShardValidation.validate(shard, layouts, shardHash, scope,
                known ? 0 : stored.length, listener);
        try (KeyedLocks.Held ignored = registering.lock(shardHash)) {
            // The object is ours to remove only if this call creates it: one already there may be registered. A
            // shared bucket never removes it (FailedRegistration), so it is not worth a round trip to the store.
            boolean creates = !known && !bucket.shared() && bucket.size(key(shardHash)).isEmpty();
            try {
                listener.committing("uploading");
                if (!known) {
                    bucket.put(key(shardHash), stored);
                }
                // Who registered it, in the bucket too, before the index says so: a lost index is rebuilt from it.
                registrations.write(shardHash, scope, clock.millis() / 1000);
                listener.committing("syncing");
                return index.registerShard(commit);
            } catch (Throwable e) {
                if (creates) {
                    FailedRegistration.removeObject(bucket, key(shardHash), () -> index.hasShard(shardHash), e);
                }
                throw e;
            }
        }
    }

    public int availablePermits() {
        return permits.available();
    }
}
