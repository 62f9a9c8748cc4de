package org.openxet.storage;

import org.openxet.protocol.InvalidHashException;
import org.openxet.protocol.MerkleHash;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;

/**
 * Object storage for xorbs and shards. Objects are immutable and content addressed, so a put of an existing key may
 * be skipped or overwrite with identical bytes. Implementations: {@link LocalBucket} (one node, fsync'd files);
 * {@link S3Bucket} (S3-compatible storage that several nodes share).
 *
 * <p>Keys are relative paths ({@code xorbs/default/<hex>}, {@code shards/<hex>}); an absent object makes
 * {@link #openRange} and {@link #read} throw {@link java.nio.file.NoSuchFileException}, and any failure of the store
 * is an {@link IOException}.
 */
public interface Bucket extends AutoCloseable {
    /** The hash that ends a content-addressed key ({@code xorbs/default/<hex>}, {@code shards/<hex>}), if it is one. */
    static Optional<MerkleHash> hashAtEnd(String key) {
        try {
            return Optional.of(MerkleHash.parse(key.substring(key.lastIndexOf('/') + 1)));
        } catch (InvalidHashException e) {
            return Optional.empty();
        }
    }

    /**
     * Stores {@code parts} concatenated under {@code key}, durably and atomically: when this returns the whole
     * object survives a crash, and a reader never sees a partial object.
     */
    void put(String key, ByteBuffer... parts) throws IOException;

    /**
     * Stores {@code parts} under {@code key} only if no object is there, as one atomic step against every other writer
     * of the bucket: true when this call created the object, false when one was already there (whoever wrote it). Two
     * nodes storing one xorb in two valid encodings (LZ4 on one, raw on the other) must never both write: the second
     * would replace the bytes the index's layout describes.
     */
    boolean putIfAbsent(String key, ByteBuffer... parts) throws IOException;

    /**
     * An object that one process appends small records to, in order: cheaper than an object per record where the
     * store can append (a local file). Readers see it as an ordinary object ({@link #openRange}); a crash may cut its
     * last record short.
     */
    interface AppendLog extends AutoCloseable {
        String key();

        /** Appends {@code record} whole (concurrent appends never interleave); returns the log's length after it. */
        long append(byte[] record) throws IOException;

        /**
         * Returns once the log is durable through {@code length}: one disk flush serves every append made before it
         * started, so concurrent callers share flushes (a group commit).
         */
        void syncThrough(long length) throws IOException;

        /** Makes everything appended durable and closes the log. */
        @Override
        void close() throws IOException;
    }

    /** A new append log at {@code key}, or empty when this store cannot append (S3: put an object per record). */
    default Optional<AppendLog> createAppendLog(String key) throws IOException {
        return Optional.empty();
    }

    default void put(String key, byte[] whole) throws IOException {
        put(key, ByteBuffer.wrap(whole));
    }

    /** Size of the object, or empty when absent. */
    Optional<Long> size(String key) throws IOException;

    /**
     * Streams {@code length} bytes from {@code offset}; never reads the whole object into memory. The stream is read
     * and closed by the thread that opened it (a {@link LocalBucket} stream may be a mapping only that thread can use).
     * Its {@code transferTo} into an {@link java.io.OutputStream} that is also a
     * {@link java.nio.channels.WritableByteChannel} may write to it as a channel: a mapped range then goes from the
     * page cache to the socket without a copy of ours.
     */
    InputStream openRange(String key, long offset, long length) throws IOException;

    /** Whole-object read, for small objects (shards) and tools. */
    byte[] read(String key) throws IOException;

    void delete(String key) throws IOException;

    /**
     * Keys under a prefix (tests, reconciliation, tools). The prefix names a directory ({@code "xorbs"} lists
     * {@code xorbs/…}, never {@code xorbsX/…}); the keys come back whole, in no particular order.
     */
    List<String> list(String prefix) throws IOException;

    /**
     * Whether other servers write this bucket too. Then an object that no row of this server's view of the index
     * names may be another node's upload in flight, about to be registered: it must never be deleted on that ground.
     */
    default boolean shared() {
        return false;
    }

    @Override
    default void close() throws IOException {
    }
}
