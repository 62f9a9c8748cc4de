package org.openxet.storage;

import org.openxet.protocol.MerkleHash;

import java.io.IOException;
import java.util.List;

/**
 * Collecting unused xorbs while the nodes of a shared index serve ({@code openxet gc --online}): a feature only the
 * PostgreSQL index has ({@link Index#onlineCollection}). Two things race a collection there, and each is fenced:
 * <ul>
 * <li>an upload of the same xorb on another node, which would find the row gone but the object still there, register
 * it, and lose it to the collector's delete of the object. Every upload of a xorb holds its {@link #lockForUpload}
 * (shared) from its check to its registration, and the collector deletes a xorb's row and object only while holding
 * the same lock exclusively;</li>
 * <li>a shard registration naming a candidate, which makes it used. A registration renews every old xorb it names
 * (its registration time, in the transaction that registers the shard), and the collector, holding the xorb's row,
 * collects it only if its time is still past the grace.</li>
 * </ul>
 */
public interface OnlineCollection {
    /**
     * Held by an upload of {@code hash} from the check whether it is stored to its registration; closing releases it.
     * Waits while a collector is removing that xorb (milliseconds); never for another upload.
     */
    UploadLock lockForUpload(MerkleHash hash) throws IndexException;

    /**
     * Opens every connection uploads may hold at once and takes and releases a lock on each: a serving node does this
     * before it reports ready, so that the first uploads under full traffic do not open them.
     */
    default void openUploadConnections() throws IndexException {
    }

    /** An upload's hold on its xorb. */
    interface UploadLock extends AutoCloseable {
        @Override
        void close() throws IndexException;
    }

    /** The unused xorbs registered before {@code registeredBefore}, as of now (what a dry run counts). */
    List<Index.UnusedXorb> candidates(long registeredBefore) throws IndexException;

    /** Removes one collected xorb's object (the bucket's delete), while the collector holds the xorb's lock. */
    interface ObjectRemover {
        void remove(MerkleHash xorb) throws IOException;
    }

    /**
     * Collects the unused xorbs registered before {@code registeredBefore} (epoch seconds) while nodes serve: each one
     * not being uploaded right now, and still unused and old once its row is held, loses its row, then its object.
     * Returns what was collected. {@code registeredBefore} must be at least {@link #MIN_GRACE_SECONDS} in the past:
     * renewals only touch xorbs older than {@link Index#RENEW_AFTER_SECONDS}, and nodes' clocks differ.
     */
    List<Index.UnusedXorb> collect(long registeredBefore, ObjectRemover remover) throws IndexException, IOException;

    /** The shortest grace an online collection accepts: twice the renewal interval. */
    long MIN_GRACE_SECONDS = 2 * Index.RENEW_AFTER_SECONDS;
}
