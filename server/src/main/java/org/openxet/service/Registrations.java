package org.openxet.service;

import org.openxet.protocol.MerkleHash;
import org.openxet.storage.Bucket;
import org.openxet.storage.Index;
import org.openxet.storage.IndexException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.Consumer;

/**
 * The bucket's own record of who registered each shard, durable before the registration is acknowledged. With the
 * xorb and shard objects it makes the bucket self-sufficient: {@code openxet index rebuild} recreates a lost index
 * from the bucket alone, every file in the scopes that registered it and no other (a shard object does not say which
 * scope sent it).
 *
 * <p>A record is one JSON line {@code {"shard", "scope", "registered_at"}} in a {@link RecordLog} under
 * {@code registrations/}; on S3 one object per record, {@code registrations/<shard hex>.<SHA-256 of the scope, hex>}
 * (a scope holds slashes; a key's name must not).
 */
public final class Registrations implements AutoCloseable {
    public static final String PREFIX = "registrations/";
    /** Marks a bucket whose every registration has its record, so {@link #backfill} runs once. */
    static final String BACKFILLED = "meta/registrations-complete";

    /** One registration: the shard (by its upload's hash), the scope that sent it, and when (epoch seconds). */
    public record Record(String shard, String scope, long registeredAt) {
    }

    private final Bucket bucket;
    private final RecordLog log;

    public Registrations(Bucket bucket) {
        this.bucket = bucket;
        this.log = new RecordLog(bucket, PREFIX);
    }

    /** Records that {@code scope} registered {@code shard}; durable when this returns. */
    public void write(MerkleHash shard, String scope, long nowSeconds) throws IOException {
        log.write(objectKey(shard, scope), new Record(shard.hex(), scope, nowSeconds));
    }

    /**
     * Writes a record for every (shard, scope) the index knows, once per bucket: a data dir from before the records
     * gets them at its first start with this version (then {@link #BACKFILLED} marks the bucket). Returns how many.
     */
    public long backfill(Index index) throws IOException, IndexException {
        if (bucket.size(BACKFILLED).isPresent()) return 0;
        long[] written = {0, 0};
        try {
            index.scans().eachShardScope(s -> {
                try {
                    long length = log.writeUnsynced(objectKey(s.shard(), s.scope()),
                            new Record(s.shard().hex(), s.scope(), s.registeredAt()));
                    written[1] = Math.max(written[1], length);
                    written[0]++;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        log.syncThrough(written[1]);
        bucket.put(BACKFILLED, new byte[0]);
        return written[0];
    }

    @Override
    public void close() throws IOException {
        log.close();
    }

    /** Every record in the bucket: log by log in the order of their names (their start times), each line by line. */
    public static RecordLog.Reading each(Bucket bucket, Consumer<Record> each) throws IOException {
        return RecordLog.each(bucket, PREFIX, Record.class, each);
    }

    static String objectKey(MerkleHash shard, String scope) {
        return PREFIX + shard.hex() + "." + RecordLog.digest(scope);
    }
}
