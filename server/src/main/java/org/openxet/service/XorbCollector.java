package org.openxet.service;

import org.openxet.storage.Bucket;
import org.openxet.storage.Collector;
import org.openxet.storage.Index;
import org.openxet.storage.IndexException;
import org.openxet.storage.OnlineCollection;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Reclaims the space of xorbs nothing uses: uploaded, but no shard ever registered a file with them (a client that
 * stopped between its xorb uploads and its shard upload, and never came back). Runs only with the data dir locked
 * ({@code openxet gc}), so no upload, registration or download runs meanwhile. Storage that several nodes share (the
 * PostgreSQL index, an S3 bucket) is collected only under the index's {@link Index#collector}, the proof that
 * every node is stopped and none can start: otherwise another node may be mid-upload, which one node cannot know.
 * Or, on the PostgreSQL index, while the nodes serve ({@link #collectOnline}), fenced from their uploads and
 * registrations by locks ({@link OnlineCollection}).
 *
 * <p>The grace period is what keeps a returning client whole: it re-uploads the same xorbs ({@code was_inserted}
 * false, since they are still there) and then its shard. A xorb younger than the grace is never collected. Each
 * xorb's row goes first, then its object: a crash between the two leaves an object no row names, which the next
 * start removes as it removes any unacknowledged upload, never a row whose bytes are gone.
 */
public final class XorbCollector {
    private XorbCollector() {
    }

    /**
     * Collects while the nodes of a shared index serve ({@code openxet gc --online}; {@link OnlineCollection} says how
     * uploads and registrations are fenced). {@code grace} must be at least {@link OnlineCollection#MIN_GRACE_SECONDS}.
     */
    public static Report collectOnline(Index index, Bucket bucket, Instant now, Duration grace, boolean dryRun,
                                       Progress progress) throws IOException, IndexException {
        OnlineCollection online = index.shared().map(org.openxet.storage.SharedIndex::onlineCollection).orElseThrow(() -> new IllegalStateException(
                "this index collects only with its server stopped: gc --online needs the PostgreSQL index"));
        if (grace.toSeconds() < OnlineCollection.MIN_GRACE_SECONDS) {
            throw new IllegalArgumentException("gc --online needs a grace of at least "
                    + Duration.ofSeconds(OnlineCollection.MIN_GRACE_SECONDS).toHours() + "h: uploads renew a xorb only"
                    + " once it is an hour old, and the nodes' clocks differ");
        }
        long before = now.minus(grace).getEpochSecond();
        if (dryRun) {
            return new Report(online.candidates(before).size(), 0, 0, true);
        }
        long[] freed = {0};
        progress.stage("removing", -1);
        List<Index.UnusedXorb> gone = online.collect(before, x -> {
            String key = XorbIngest.key(x);
            long size = bucket.size(key).orElse(0L);
            freed[0] += size;
            bucket.delete(key);
            progress.item(size);
        });
        return new Report(gone.size(), gone.size(), freed[0], false);
    }

    /** What a run found and did; {@code removed} and {@code bytesFreed} stay 0 on a dry run. */
    public record Report(int unused, int removed, long bytesFreed, boolean dryRun) {
    }

    /**
     * Collects the xorbs registered more than {@code grace} before {@code now} that nothing uses, under the index's
     * {@link Collector}: at once on the data dir's own index (the caller holds the data dir's lock), and on a shared
     * index only while every node is stopped (an {@link IndexException} names the nodes otherwise). A shared bucket
     * over an index private to one data dir is refused: that index cannot know the other nodes' uploads.
     */
    public static Report collect(Index index, Bucket bucket, Instant now, Duration grace, boolean dryRun,
                                 Progress progress) throws IOException, IndexException {
        if (bucket.shared() && index.shared().isEmpty()) {
            throw new IllegalStateException("the bucket is shared by several nodes: collecting unused xorbs needs every "
                    + "node stopped, which a data dir's own index cannot know");
        }
        long before = now.minus(grace).getEpochSecond();
        try (Collector collector = index.collector()) {
            if (dryRun) {
                return new Report(collector.unusedXorbs(before).size(), 0, 0, true);
            }
            List<Index.UnusedXorb> unused = collector.forgetUnusedXorbs(before);
            progress.stage("removing", unused.size());
            long freed = 0;
            for (Index.UnusedXorb x : unused) {
                String key = XorbIngest.key(x.hash());
                long size = bucket.size(key).orElse(0L);
                freed += size;
                bucket.delete(key);
                progress.item(size);
            }
            return new Report(unused.size(), unused.size(), freed, false);
        }
    }
}
