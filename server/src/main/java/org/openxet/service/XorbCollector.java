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
 * ({@code openxet gc}), so no upload, registration or download runs meanwhile, and only on storage private to that
 * data dir: on a shared index or bucket, other nodes may be mid-upload, which one node cannot know.
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

    /** Collects xorbs registered more than {@code grace} before {@code now} that nothing uses. */
    public static Report collect(Index index, Bucket bucket, Instant now, Duration grace, boolean dryRun)
            throws IOException, IndexException {
        if (bucket.shared()) {
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
