package org.openxet.service;

import org.openxet.protocol.MerkleHash;
import org.openxet.service.ReconstructionPlanner.Plan;
import org.openxet.storage.IndexException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A batch reconstruction (§5.6, {@code GET /v1/reconstructions?file_id=…}): each visible file's whole-file plan, and
 * one fetch_info over all of them in which every xorb's descriptors from every file are merged again.
 *
 * @param files   the plans by file, in the order asked, each file once; unknown or invisible files are left out
 * @param xorbHex per fetch_info entry, its xorb's hash as hex
 * @param fetch   per entry, the merged descriptors (as {@link Plan#fetch()})
 * @param order   the entries in the order to write them
 */
public record BatchPlan(Map<MerkleHash, Plan> files, byte[][] xorbHex, int[][] fetch, int[] order) {
    /**
     * Terms one batch answer may hold in all: its ids fit the 16 KiB request line (about 220), and each file may be
     * huge, so the answer is bounded by what it plans, not by what it names. No stock client's upload or download
     * uses the batch route (§5.1); one file of any size still has its own route.
     */
    public static final int MAX_TERMS = 1 << 15;

    /** The files hold more than {@link #MAX_TERMS} terms in all. */
    public static final class TooLarge extends Exception {
        TooLarge() {
            super("the batch's files hold more than " + MAX_TERMS
                    + " terms; ask for large files one at a time (GET /v1/reconstructions/{file_id})");
        }
    }

    /** Plans the files {@code ids} visible to {@code scope}. */
    public static BatchPlan of(ReconstructionPlanner planner, List<MerkleHash> ids, String scope)
            throws TooLarge, ReconstructionPlanner.NotSatisfiable, IndexException {
        Map<MerkleHash, Plan> plans = new LinkedHashMap<>();
        long terms = 0;
        for (MerkleHash id : ids) {
            if (plans.containsKey(id)) continue;
            var file = planner.file(id, scope);
            if (file.isEmpty()) continue;
            terms += file.get().termCount();
            if (terms > MAX_TERMS) throw new TooLarge();
            plans.put(id, planner.plan(file.get(), null));
        }
        Map<MerkleHash, List<int[]>> perXorb = new LinkedHashMap<>();
        for (Plan p : plans.values()) {
            for (int x : p.xorbOrder()) {
                perXorb.computeIfAbsent(p.file().xorbs()[x], k -> new ArrayList<>()).add(p.fetch()[x]);
            }
        }
        byte[][] hex = new byte[perXorb.size()][];
        int[][] fetch = new int[perXorb.size()][];
        int[] order = new int[perXorb.size()];
        int i = 0;
        for (var e : perXorb.entrySet()) {
            hex[i] = e.getKey().hexBytes();
            int[] all = new int[e.getValue().stream().mapToInt(l -> l.length).sum()];
            int at = 0;
            for (int[] l : e.getValue()) {
                System.arraycopy(l, 0, all, at, l.length);
                at += l.length;
            }
            fetch[i] = ReconstructionPlanner.mergeDescriptors(all);
            order[i] = i;
            i++;
        }
        return new BatchPlan(plans, hex, fetch, order);
    }
}
