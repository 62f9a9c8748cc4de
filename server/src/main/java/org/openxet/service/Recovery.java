package org.openxet.service;

import org.openxet.protocol.InvalidHashException;
import org.openxet.protocol.MerkleHash;
import org.openxet.storage.Bucket;
import org.openxet.storage.Index;
import org.openxet.storage.IndexException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.logging.Logger;

/**
 * Start-up check after an unclean stop ({@code kill -9}, power loss). Blobs are made durable before their index rows
 * (see {@link XorbIngest}), so a crash can leave objects that no index row names: uploads never acknowledged. They
 * are removed so that bucket and index agree again. A marker file tells a clean stop from a crash, so a clean
 * restart of a large bucket does not pay for the scan.
 */
public final class Recovery {
    private static final Logger LOG = Logger.getLogger(Recovery.class.getName());
    static final String RUNNING_MARKER = "RUNNING";

    private Recovery() {
    }

    /** What a reconciliation found. */
    public record Report(int orphanXorbs, int orphanShards, List<MerkleHash> missingXorbs) {
    }

    /** Marks the data dir as in use; returns true when the previous run did not stop cleanly. */
    public static boolean begin(Path dataDir) throws IOException {
        Path marker = dataDir.resolve(RUNNING_MARKER);
        boolean unclean = Files.exists(marker);
        Files.writeString(marker, Long.toString(ProcessHandle.current().pid()));
        return unclean;
    }

    public static void endCleanly(Path dataDir) throws IOException {
        Files.deleteIfExists(dataDir.resolve(RUNNING_MARKER));
    }

    /** Removes unregistered objects and reports registered xorbs whose object is missing (never expected). */
    public static Report reconcile(Index index, Bucket bucket) throws IOException, IndexException {
        Set<MerkleHash> xorbs = new HashSet<>(index.xorbHashes());
        int orphanXorbs = 0;
        Set<MerkleHash> present = new HashSet<>();
        for (String key : bucket.list("xorbs/" + XorbIngest.PREFIX)) {
            MerkleHash h = parse(key);
            if (h != null && xorbs.contains(h)) {
                present.add(h);
            } else {
                bucket.delete(key);
                orphanXorbs++;
            }
        }
        int orphanShards = 0;
        for (String key : bucket.list("shards")) {
            MerkleHash h = parse(key);
            if (h == null || !index.hasShard(h)) {
                bucket.delete(key);
                orphanShards++;
            }
        }
        List<MerkleHash> missing = xorbs.stream().filter(h -> !present.contains(h)).toList();
        if (orphanXorbs + orphanShards > 0) {
            LOG.info("recovery: removed " + orphanXorbs + " unregistered xorb objects and " + orphanShards
                    + " unregistered shard objects left by an unclean stop");
        }
        if (!missing.isEmpty()) {
            LOG.severe("recovery: " + missing.size() + " registered xorbs have no object in the bucket, e.g. " + missing.get(0));
        }
        return new Report(orphanXorbs, orphanShards, missing);
    }

    private static MerkleHash parse(String key) {
        try {
            return MerkleHash.parse(key.substring(key.lastIndexOf('/') + 1));
        } catch (InvalidHashException e) {
            return null;
        }
    }
}
