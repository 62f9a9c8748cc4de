package org.openxet.service;

import java.nio.file.attribute.PosixFilePermissions;

import org.openxet.storage.OwnerOnly;

import org.openxet.protocol.MerkleHash;
import org.openxet.storage.Bucket;
import org.openxet.storage.Index;
import org.openxet.storage.IndexException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.logging.Logger;

/**
 * Start-up check after an unclean stop ({@code kill -9}, power loss). Blobs are made durable before their index rows
 * (see {@link XorbIngest}), so a crash can leave objects that no index row names: uploads never acknowledged. They
 * are removed so that bucket and index agree again, unless the bucket is {@linkplain Bucket#shared() shared}: there
 * an unregistered object is as likely another node's upload between its put and its registration, so it is only
 * counted and logged. A marker file tells a clean stop from a crash, so a clean restart of a large bucket does not
 * pay for the scan.
 */
public final class Recovery {
    private static final Logger LOG = Logger.getLogger(Recovery.class.getName());
    static final String RUNNING_MARKER = "RUNNING";

    private Recovery() {
    }

    /**
     * What a reconciliation found: objects no index row names ({@code orphansRemoved}: deleted, or left in a shared
     * bucket) and registered xorbs without their object.
     */
    public record Report(int orphanXorbs, int orphanShards, boolean orphansRemoved, List<MerkleHash> missingXorbs) {
    }

    /**
     * Marks the data dir as in use; returns true when the previous run did not stop cleanly. The marker is durable
     * before anything is served: lost in a power cut, the next start would skip the reconciliation it needs.
     */
    public static boolean begin(Path dataDir) throws IOException {
        Path marker = dataDir.resolve(RUNNING_MARKER);
        boolean unclean = Files.exists(marker);
        try (FileChannel ch = FileChannel.open(marker, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING), PosixFilePermissions.asFileAttribute(OwnerOnly.FILE_MODE))) {
            ch.write(ByteBuffer.wrap(Long.toString(ProcessHandle.current().pid()).getBytes(StandardCharsets.US_ASCII)));
            ch.force(true);
        }
        OwnerOnly.syncDirectory(dataDir);
        return unclean;
    }

    public static void endCleanly(Path dataDir) throws IOException {
        Files.deleteIfExists(dataDir.resolve(RUNNING_MARKER));
        OwnerOnly.syncDirectory(dataDir);
    }


    /**
     * Removes unregistered objects (a shared bucket keeps them) and reports registered xorbs whose object is missing
     * (never expected). The bucket is listed before the index is read: an object is deleted only if it was already
     * there before we learnt what is registered and is not registered. Read the other way round, an object stored and
     * registered in between would be listed but absent from the stale registered set, and deleted.
     */
    public static Report reconcile(Index index, Bucket bucket) throws IOException, IndexException {
        boolean remove = !bucket.shared();
        List<String> xorbKeys = bucket.list("xorbs/" + XorbIngest.PREFIX);
        List<String> shardKeys = bucket.list("shards");
        Set<MerkleHash> xorbs = new HashSet<>(index.scans().xorbHashes());
        List<String> orphans = new ArrayList<>();
        int orphanXorbs = 0;
        Set<MerkleHash> present = new HashSet<>();
        for (String key : xorbKeys) {
            MerkleHash h = Bucket.hashAtEnd(key).orElse(null);
            if (h != null && xorbs.contains(h)) {
                present.add(h);
            } else {
                orphans.add(key);
                orphanXorbs++;
            }
        }
        for (String key : shardKeys) {
            MerkleHash h = Bucket.hashAtEnd(key).orElse(null);
            if (h == null || !index.hasShard(h)) {
                orphans.add(key);
            }
        }
        int orphanShards = orphans.size() - orphanXorbs;
        if (remove) {
            for (String key : orphans) {
                bucket.delete(key);
            }
        }
        // A xorb registered after the listing is registered but not listed: look again before calling it missing.
        List<MerkleHash> missing = new ArrayList<>();
        for (MerkleHash h : xorbs) {
            if (!present.contains(h) && bucket.size(XorbIngest.key(h)).isEmpty()) {
                missing.add(h);
            }
        }
        if (!orphans.isEmpty() && remove) {
            LOG.info("recovery: removed " + orphanXorbs + " unregistered xorb objects and " + orphanShards
                    + " unregistered shard objects left by an unclean stop");
        } else if (!orphans.isEmpty()) {
            LOG.info("recovery: kept " + orphanXorbs + " unregistered xorb objects and " + orphanShards
                    + " unregistered shard objects: the bucket is shared, and other nodes may be registering them"
                    + " (recovery would have removed " + String.join(", ", orphans.subList(0, Math.min(20, orphans.size())))
                    + (orphans.size() > 20 ? ", …" : "") + ")");
        }
        if (!missing.isEmpty()) {
            LOG.severe("recovery: " + missing.size() + " registered xorbs have no object in the bucket, e.g. " + missing.get(0));
        }
        return new Report(orphanXorbs, orphanShards, remove, missing);
    }
}
