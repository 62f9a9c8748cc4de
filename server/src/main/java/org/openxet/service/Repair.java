package org.openxet.service;

import org.openxet.protocol.MerkleHash;
import org.openxet.storage.Bucket;
import org.openxet.storage.Index;
import org.openxet.storage.IndexException;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Acts on fsck's findings ({@code openxet repair}): each damaged or missing xorb is quarantined, its object (when
 * there is one) moved aside under {@link #QUARANTINE} and its index row marked ({@link Index#quarantineXorb}), so
 * that {@code HEAD /v1/xorbs/...} answers 404, a client uploads it again, that upload is stored
 * ({@code was_inserted: true}) and the files using it come back. What it cannot restore is reported: a damaged or
 * missing shard object (the index, which serves reads, is intact; the object only matters to tools), a file whose
 * terms do not fit a healthy xorb's layout, and a xorb that comes back in another encoding than its files were
 * registered against (the upload is refused with 409).
 */
public final class Repair {
    /** Where quarantined objects go, under their own key: kept for an operator to inspect, never served. */
    public static final String QUARANTINE = "quarantine/";

    public record Report(List<MerkleHash> quarantined, List<String> movedAside, List<String> notRepaired) {
    }

    private Repair() {
    }

    public static Report apply(Index index, Bucket bucket, Fsck.Report found, long nowSeconds)
            throws IndexException, IOException {
        List<MerkleHash> quarantined = new ArrayList<>();
        List<String> moved = new ArrayList<>();
        List<String> left = new ArrayList<>();
        List<Fsck.Finding> findings = new ArrayList<>(found.damaged());
        findings.addAll(found.missing());
        for (Fsck.Finding f : findings) {
            if (!f.kind().equals("xorb")) {
                left.add(f.kind() + " " + f.hash() + ": " + f.why() + " (repair restores xorbs only)");
                continue;
            }
            String key = XorbIngest.key(f.hash());
            if (bucket.size(key).isPresent()) {
                // Moved, not deleted: the bytes may still matter to whoever investigates the disk.
                bucket.put(QUARANTINE + key, bucket.read(key));
                bucket.delete(key);
                moved.add(QUARANTINE + key);
            }
            if (index.quarantineXorb(f.hash(), nowSeconds)) quarantined.add(f.hash());
        }
        for (Fsck.AffectedFile f : found.filesAffected()) {
            // A file reading a xorb quarantined now or before comes back with its upload; any other is left.
            if (f.badXorb() == null) left.add("file " + f.file() + ": " + f.why());
        }
        return new Report(List.copyOf(quarantined), List.copyOf(moved), List.copyOf(left));
    }
}
