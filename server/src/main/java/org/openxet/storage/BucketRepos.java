package org.openxet.storage;

import org.openxet.protocol.MerkleHash;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The Hub's bucket repositories as the index keeps them: per bucket ({@code namespace/name}, the scope
 * {@code buckets/namespace/name}), a flat map from path to a Xet file hash with the file's size and times. Not to be
 * confused with the object store ({@link Bucket}) that holds the xorbs. Paths are compared as UTF-8 bytes, so a range
 * from {@code "a/b/"} to {@code "a/b0"} is exactly what lies under {@code a/b/}. Every time is in epoch milliseconds.
 */
public interface BucketRepos {
    /** A bucket: whether it was created private, when, and its totals (kept by every batch). */
    record Info(String name, boolean isPrivate, long createdAt, long size, long totalFiles) {
    }

    /** One file of a bucket. {@code contentType} may be null. */
    record Entry(String path, MerkleHash xetHash, long size, long mtime, String contentType, long uploadedAt) {
    }

    /** An entry and the bucket it belongs to (fsck's scan). */
    record Located(String bucket, Entry entry) {
    }

    /** One change of a batch, applied in order. */
    sealed interface Change permits Put, Delete {
        String path();
    }

    /**
     * Sets {@code path} to the file {@code xetHash}. With {@code grant}, the file also becomes visible to the bucket's
     * scope (a copy from another repository: the bucket's read tokens must reconstruct it).
     */
    record Put(String path, MerkleHash xetHash, long size, long mtime, String contentType, boolean grant)
            implements Change {
    }

    /** Removes {@code path}; nothing when there is no such path. */
    record Delete(String path) implements Change {
    }

    /**
     * One write as the index commits it: the bucket's sequence number after it (one more per write, assigned inside
     * the write's transaction, under the bucket row's lock), the row's flags, the write's time (every put's
     * {@code uploadedAt} and the row's {@code updated_at}) and its changes with their sizes. Replayed in sequence
     * order, a bucket's writes give back its rows exactly ({@link #replay}).
     */
    record Applied(String name, long seq, boolean isPrivate, long createdAt, long at, List<Change> changes,
                   boolean deletesBucket) {
        public Applied(String name, long seq, boolean isPrivate, long createdAt, long at, List<Change> changes) {
            this(name, seq, isPrivate, createdAt, at, changes, false);
        }
    }

    /**
     * Runs inside a write's transaction, before its commit, with what the commit will hold: what it throws rolls the
     * write back (a write that could not be recorded is not made).
     */
    interface BeforeCommit {
        void accept(Applied applied) throws IOException;
    }

    Optional<Info> info(String name) throws IndexException;

    /** Creates an empty bucket; false (and nothing changes, {@code record} is not called) when it exists. */
    boolean create(String name, boolean isPrivate, long nowMillis, BeforeCommit record)
            throws IndexException, IOException;

    /**
     * At most {@code limit} buckets of {@code namespace} in name order after {@code after} ({@code ""}: from the
     * first), with their totals.
     */
    List<Info> list(String namespace, String after, int limit) throws IndexException;

    /**
     * Deletes the bucket and every path in it; false (and {@code record} is not called) when there is none. The files
     * stay, as every file record does: only the bucket's paths go. A bucket created again under the name is new.
     */
    boolean delete(String name, long nowMillis, BeforeCommit record) throws IndexException, IOException;

    /** The sizes of those of {@code files} a shard registered under {@code scope} (or a copy granted to it). */
    Map<MerkleHash, Long> visibleSizes(String scope, Collection<MerkleHash> files) throws IndexException;

    /**
     * Applies {@code changes} in order in one transaction, creating the bucket (private) when it does not exist; the
     * bucket's totals change with them. A failure applies none, and so does one that {@code record} throws.
     */
    void apply(String name, List<Change> changes, long nowMillis, BeforeCommit record)
            throws IndexException, IOException;

    /**
     * Replays a recorded write (index rebuild): the bucket's row created as recorded when missing, the changes applied
     * at the recorded time, the bucket's sequence number set to the record's.
     */
    void replay(Applied applied) throws IndexException;

    /**
     * At most {@code limit} entries in path order from {@code from} ({@code inclusive} or not) to below {@code below}
     * (null: to the end). Empty for a bucket that does not exist.
     */
    List<Entry> range(String name, String from, boolean inclusive, String below, int limit) throws IndexException;

    /** The entries of those of {@code paths} that exist, in path order. */
    List<Entry> lookup(String name, Collection<String> paths) throws IndexException;

    /** Every entry of every bucket, {@link IndexScans#SCAN_PAGE} rows a query (fsck: nothing held in memory). */
    void eachEntry(Consumer<Located> each) throws IndexException;

    /** Row counts of the bucket tables, for tests and operators. */
    Map<String, Long> rowCounts() throws IndexException;
}
