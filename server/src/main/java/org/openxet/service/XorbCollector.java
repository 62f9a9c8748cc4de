package org.openxet.service;

import org.openxet.storage.Bucket;
import org.openxet.storage.Index;
import org.openxet.storage.IndexException;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Reclaims the space of xorbs nothing uses: uploaded, but no shard ever registered a file with them (a client that
 * stopped between its xorb uploads and its shard upload, and never came back). Runs only with the data dir locked
 * ({@code openxet gc}), so no upload, registration or download runs meanwhile. Storage that several nodes share (the
 * PostgreSQL index, an S3 bucket) is collected only under the index's {@link Index#collectorLock}, the proof that
 * every node is stopped and none can start: otherwise another node may be mid-upload, which one node cannot know.
 *
 * <p>The grace period is what keeps a returning client whole: it re-uploads the same xorbs ({@code was_inserted}
 * false, since they are still there) and then its shard. A xorb younger than the grace is never collected. Each
 * xorb's row goes first, then its object: a crash between the two leaves an object no row names, which the next
 * start removes as it removes any unacknowledged upload, never a row whose bytes are gone.
 */
public final class XorbCollector {
    private XorbCollector() {
    }

    /** What a run found and did; {@code removed} and {@code bytesFreed} stay 0 on a dry run. */
    public record Report(int unused, int removed, long bytesFreed, boolean dryRun) {
    }

    /** Collects xorbs registered more than {@code grace} before {@code now} that nothing uses, on private storage. */
    public static Report collect(Index index, Bucket bucket, Instant now, Duration grace, boolean dryRun)
            throws IOException, IndexException {
        return collect(index, bucket, now, grace, dryRun, false);
    }

    /**
     * As {@link #collect(Index, Bucket, Instant, Duration, boolean)}; {@code everyNodeStopped} says the caller holds
     * the shared index's {@link Index#collectorLock}, without which a shared bucket is refused.
     */
    public static Report collect(Index index, Bucket bucket, Instant now, Duration grace, boolean dryRun,
                                 boolean everyNodeStopped) throws IOException, IndexException {
        if (bucket.shared() && !everyNodeStopped) {
            throw new IllegalStateException("the bucket is shared by several nodes: collecting unused xorbs needs every "
                    + "node stopped, which one node cannot know");
        }
        long before = now.minus(grace).getEpochSecond();
        if (dryRun) {
            return new Report(index.unusedXorbs(before).size(), 0, 0, true);
        }
        List<Index.UnusedXorb> unused = index.forgetUnusedXorbs(before);
        int removed = 0;
        long freed = 0;
        for (Index.UnusedXorb x : unused) {
            String key = XorbIngest.key(x.hash());
            freed += bucket.size(key).orElse(0L);
            bucket.delete(key);
            removed++;
        }
        return new Report(unused.size(), removed, freed, false);
    }
}
